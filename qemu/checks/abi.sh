# User ABI snapshot of /sys/devices/system and /sys/bus, for the host's
# qemu/abi-snapshot.py (extract, compare; ci/gate.py compares every patch
# with the unpatched kernel).
#
# One record per path (find, without following links), sorted:
#     PATH TYPE MODE TARGET CONTENT
#   TYPE    d (directory), f (regular file), l (symbolic link), ? (other)
#   MODE    permission bits, octal (stat %a)
#   TARGET  a link's target as readlink prints it (the host resolves it to
#           an absolute /sys path), "-" otherwise
#   CONTENT "=" and the file's content for a readable regular file; "!r"
#           for a file without read permission (bind, unbind, ...); "!v"
#           for a volatile file (list below); "-" for a directory or link
# Text is escaped so that one record is one line: backslash as \\, newline
# as \n, tab as \t, space (in PATH and TARGET only) as \s, other control
# and non-ASCII bytes as \xHH.
#
# On the console each record is printed as "SYSDEV-ABI <record>" between
# "SYSDEV-ABI-BEGIN" and "SYSDEV-ABI-END <records> <sha256 of the records>"
# so that the host can find the lines among kernel messages, repair a line
# that a kernel message split (printk may interrupt a write to the console
# in the middle of a line) and prove that what it extracted is exactly what
# was dumped.
#
# Volatile files: their content is not compared (their type and mode are).
# Anything that differs between two boots of the same kernel is noise.
# Measured with "-a sysdev_abi_all=1" (no exclusion): two boots of the
# unpatched kernel (check abi alone, 561 paths) and two of the series'
# head (abi first, then cpu-hotplug, suspend, tree, x86-sysdev;
# 781 paths) differ in exactly these six files:
#   node/node{0,1}/{meminfo,numastat,vmstat}  free pages, allocation counters
# and, excluded for what they are although equal in these boots (every
# device here has runtime PM disabled, so they stay 0):
#   .../power/runtime_active_time, .../power/runtime_suspended_time
# Each pattern is an awk regular expression matched against the path.
# gate:
. /checks/lib.sh
VOLATILE='^/sys/devices/system/node/node[0-9]+/(meminfo|numastat|vmstat)$|/power/runtime_(active|suspended)_time$'
# To measure the noise again: boot twice with "-a sysdev_abi_all=1" (no
# exclusions) and compare the two snapshots.
[ "${sysdev_abi_all:-0}" = 1 ] && VOLATILE='^$'
snap=/tmp/abi.snap
t0=$(date +%s)
{
	find /sys/devices/system /sys/bus -exec stat -c '%f %a %n' {} +
	echo "--links--"
	find /sys/devices/system /sys/bus -type l -exec stat -c '%N' {} +
} 2>/tmp/abi.err | awk -v volatile="$VOLATILE" '
function esc(s, sp,   o, i, c) {
	# fast path: nothing to escape
	if (index(s, "\\") == 0 && s !~ /[^ -~]/ && !(sp && index(s, " ")))
		return s
	o = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\\") o = o "\\\\"
		else if (c == "\n") o = o "\\n"
		else if (c == "\t") o = o "\\t"
		else if (c == " " && sp) o = o "\\s"
		else if (c < " " || c > "~") o = o sprintf("\\x%02x", ord[c])
		else o = o c
	}
	return o
}
BEGIN { for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i }
$0 == "--links--" { links = 1; next }
links {
	# stat %N: '\''PATH'\'' -> '\''TARGET'\''
	n = index($0, "'\'' -> '\''")
	if (n) target[substr($0, 2, n - 2)] = substr($0, n + 6, length($0) - n - 6)
	next
}
{
	raw = $1; mode = $2
	path = $0; sub(/^[^ ]+ [^ ]+ /, "", path)
	t = substr(raw, 1, length(raw) - 3)
	type = t == "4" ? "d" : t == "8" ? "f" : t == "a" ? "l" : "?"
	paths[++np] = path; types[path] = type; modes[path] = mode
}
END {
	for (i = 1; i <= np; i++) {
		p = paths[i]; type = types[p]; mode = modes[p]
		tgt = "-"; content = "-"
		if (type == "l") tgt = esc(target[p], 1)
		if (type == "f") {
			if (p ~ volatile) content = "!v"
			else if (mode !~ /[4567]/) content = "!r"
			else {
				s = ""; first = 1
				while ((r = (getline line < p)) > 0) {
					s = s (first ? "" : "\n") line; first = 0
				}
				close(p)
				content = (r < 0 ? "!e" : "=") esc(s, 0)
			}
		}
		print esc(p, 1), type, mode, tgt, content
	}
}' | sort > $snap
n=$(wc -l < $snap)
sum=$(sha256sum $snap | cut -d' ' -f1)
echo "SYSDEV-ABI-BEGIN"
sed 's/^/SYSDEV-ABI /' $snap
echo "SYSDEV-ABI-END $n $sum"
[ -s /tmp/abi.err ] && info "find/stat errors: $(head -n 3 /tmp/abi.err | tr '\n' ' ')"
if [ "$n" -gt 100 ]; then
	pass "$n paths under /sys/devices/system and /sys/bus in $(($(date +%s) - t0))s"
else
	fail "only $n paths under /sys/devices/system and /sys/bus"
fi
