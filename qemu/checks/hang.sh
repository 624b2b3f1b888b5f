# Harness self-test: never finish, so the host must report a timeout.
. /checks/lib.sh
info "hanging on purpose"
while :; do sleep 10; done
