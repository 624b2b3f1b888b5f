# Harness self-test: report a failed result.
. /checks/lib.sh
fail "failing on purpose"
