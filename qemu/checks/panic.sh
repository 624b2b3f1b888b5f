# Harness self-test: crash the kernel, so the host must report a panic.
. /checks/lib.sh
info "panicking on purpose"
echo c > /proc/sysrq-trigger
