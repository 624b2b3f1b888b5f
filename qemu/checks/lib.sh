# Helpers for guest checks (busybox sh); sourced by each check.
# A check prints one or more lines "SYSDEV-CHECK <name> PASS|FAIL|SKIP <text>".
CHECK=${CHECK:-$(basename "$0" .sh)}
pass() { echo "SYSDEV-CHECK $CHECK PASS $*"; }
fail() { echo "SYSDEV-CHECK $CHECK FAIL $*"; FAILED=1; }
skip() { echo "SYSDEV-CHECK $CHECK SKIP $*"; }
info() { echo "SYSDEV-INFO $CHECK $*"; }
FAILED=0

# Local timer interrupts summed over CPUs, and the legacy timer's (IRQ 0).
irq_count() {
	awk -v k="$1:" '$1 == k { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' /proc/interrupts
}

# x86_converted: the classes of the series' x86 conversions in this kernel
# (X86_CONVERTED when set, for the host self-tests): lapic when
# apic.c has lapic_dev_suspend(), i8259 when i8259.c has
# i8259A_dev_suspend().  A conversion not in this kernel is not expected,
# so that the judge runs at every patch of the series and at the base.
x86_converted() {
	if [ -n "${X86_CONVERTED+set}" ]; then
		echo "$X86_CONVERTED"
		return
	fi
	grep -q ' lapic_dev_suspend$' /proc/kallsyms && echo lapic
	grep -q ' i8259A_dev_suspend$' /proc/kallsyms && echo i8259
}

# x86_expected: the x86 interrupts-off callbacks of one suspend and resume,
# "syscore:FN" or "class:FN", in the order of 6.12's syscore list (suspend
# in the reverse order of registration: ioapic_init_ops,
# i8259_syscore, acpi_sleep_syscore, lapic_syscore; irqrouter_resume() is
# resume-only): a converted class runs from its own struct syscore, at the
# place its syscore_ops had, and never from syscore_ops as well.
x86_expected() {
	conv=$(x86_converted | tr '\n' ' ')
	la_s=syscore:lapic_suspend la_r=syscore:lapic_resume
	i8_s=syscore:i8259A_suspend i8_r=syscore:i8259A_resume
	case " $conv" in *" lapic "*) la_s=class:lapic_dev_suspend la_r=class:lapic_dev_resume ;; esac
	case " $conv" in *" i8259 "*) i8_s=class:i8259A_dev_suspend i8_r=class:i8259A_dev_resume ;; esac
	for f in syscore:ioapic_suspend $i8_s syscore:acpi_save_bm_rld $la_s \
		$la_r syscore:acpi_restore_bm_rld syscore:irqrouter_resume $i8_r \
		syscore:ioapic_resume; do
		echo "$f"
	done
}

# x86_judge LABEL KIND FILE: the x86 callbacks in FILE, the kernel log of
# one transition booted with "pm_debug_messages initcall_debug" (syscore
# prints "Calling FN+0x..", sysdev "sysdev: suspend DEV class FN+0x..").
# KIND cycle: those of x86_expected, once each, in that order; KIND none:
# none of them (the transition stopped before syscore).  Says FAIL and
# returns 1 otherwise.  The judge of x86-sysdev.sh, stress.sh and
# hibernate.sh.
x86_judge() {
	local t=${TMPDIR:-/tmp}/x86judge.$$ names bad
	x86_expected > "$t.want"
	names='ioapic_suspend|ioapic_resume|i8259A(_dev)?_(suspend|resume)|lapic(_dev)?_(suspend|resume)|acpi_(save|restore)_bm_rld|irqrouter_resume'
	tr -d '\r' < "$3" | sed -n -E \
		-e 's/.*\] Calling ([A-Za-z0-9_.]+)\+0x.*/syscore:\1/p' \
		-e 's/.*\] sysdev: (suspend|resume|shutdown) [^ ]+ (class|driver|global) ([A-Za-z0-9_.]+)\+0x.*/class:\3/p' |
		grep -E "^[a-z]+:($names)\$" > "$t.got"
	bad=
	if [ "$2" = none ]; then
		[ ! -s "$t.got" ] || bad="$(wc -l < "$t.got") x86 callbacks ran, want none: $(head -n 1 "$t.got")"
	elif ! cmp -s "$t.want" "$t.got"; then
		bad="x86 callbacks missing, repeated or out of order: want '$(tr '\n' ' ' < "$t.want")', got '$(tr '\n' ' ' < "$t.got")'"
	fi
	rm -f "$t.want" "$t.got"
	[ -z "$bad" ] && return 0
	fail "$1: $bad"
	return 1
}
