# The kernel runs without sysfs but with kernfs (ci/configs/nosysfs.config):
# init was reached, /proc/filesystems has no sysfs, and cgroup2, a kernfs
# file system, is there.  What the series must get right without sysfs is
# in the sysdev KUnit suite, which the caller requires (check-log.sh -K).
CHECK=nosysfs
. /checks/lib.sh
fs=$(cat /proc/filesystems)
case " $(echo $fs) " in *" sysfs "*) fail "sysfs is built: $(echo $fs)" ;; esac
case " $(echo $fs) " in *" cgroup2 "*) ;; *) fail "no cgroup2, the kernfs user of ci/configs/nosysfs.config: $(echo $fs)" ;; esac
[ $FAILED -eq 0 ] && pass "booted $(uname -r) without sysfs, with kernfs (cgroup2)"
exit 0
