#!/usr/bin/env bash
# Stand-in for qemu-system-x86_64, put first in PATH (as a link of that
# name) for the power paths that one run of qemu/boot.sh cannot take by
# itself; it runs the real QEMU with the arguments boot.sh built
# (scripts/lib.sh, qemu_argv) and changes only what its mode says:
#
#   SHIM_MODE=resume SHIM_DISK=FILE
#       the machine gets FILE as a raw virtio disk (/dev/vda).  When QEMU
#       ends, it runs once more with the same disk and "resume=/dev/vda"
#       added to the kernel command line, and the second console is
#       appended to the first after a line "SYSDEV-HOST second boot", so
#       that boot.sh judges both boots as one log.
#   SHIM_MODE=halt
#       a halted machine stays on: once the console says "reboot: System
#       halted", QEMU is stopped and the shim exits 0.
#   SHIM_MODE=trace
#       QEMU logs the guest's interrupts, exceptions and resets
#       (-d int,cpu_reset) to LOG.int.
#
# Used by ci/tests/reliability.sh only.
set -euo pipefail

die() { echo "qemu-shim: $*" >&2; exit 2; }

shimdir=$(dirname "$0")
real=
IFS=: read -ra dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	[ "$d" -ef "$shimdir" ] && continue
	[ -x "$d/qemu-system-x86_64" ] && { real=$d/qemu-system-x86_64; break; }
done
[ -n "$real" ] || die "no qemu-system-x86_64 in PATH besides the shim"

args=("$@")
log="" append=-1
for ((i = 0; i < ${#args[@]} - 1; i++)); do
	case ${args[i]} in
	-serial) log=${args[i + 1]#file:} serial=$((i + 1)) ;;
	-append) append=$((i + 1)) ;;
	esac
done
[ -n "$log" ] && [ "$append" -ge 0 ] || die "no -serial file:LOG or -append in: $*"

pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; exit 143' TERM INT

case ${SHIM_MODE:-} in
resume)
	[ -f "${SHIM_DISK:-}" ] || die "SHIM_DISK: no disk image '${SHIM_DISK:-}'"
	disk=(-drive "file=$SHIM_DISK,format=raw,if=virtio")
	"$real" "${args[@]}" "${disk[@]}" & pid=$!
	wait "$pid" || exit
	args[append]+=" resume=/dev/vda"
	args[serial]=file:$log.2
	"$real" "${args[@]}" "${disk[@]}" & pid=$!
	rc=0
	wait "$pid" || rc=$?
	{ echo "SYSDEV-HOST second boot: resume=/dev/vda"; cat "$log.2"; } >> "$log"
	rm -f "$log.2"
	exit $rc
	;;
halt)
	"$real" "${args[@]}" & pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if grep -aq "reboot: System halted" "$log" 2>/dev/null; then
			sleep 1
			kill "$pid"
			wait "$pid" || true
			exit 0
		fi
		sleep 0.5
	done
	wait "$pid"
	;;
trace)
	"$real" "${args[@]}" -d int,cpu_reset -D "$log.int" & pid=$!
	wait "$pid"
	;;
*)
	die "SHIM_MODE must be resume, halt or trace, not '${SHIM_MODE:-}'"
	;;
esac
