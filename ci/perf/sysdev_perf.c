// SPDX-License-Identifier: GPL-2.0
/*
 * Registration cost of system devices against the plain struct device
 * floor, for ci/perf/run-perf.sh.
 *
 * At load time, register and then unregister @count devices of each kind
 * of perf_kinds[], @reps rounds, in an order that rotates every round:
 * plain devices on a subsys_system_register() subsystem (the floor), the
 * same with the steps that sys_device_register() and
 * sys_device_unregister() add, one step more at each level (see
 * perf_plain_round()), system devices of a test class, and the floor and
 * the system devices with lockdep off.  A kernel without the system
 * device API has the floor only.  Each timing is one console line:
 *
 *	SYSDEV-PERF <kind> rep=<n> count=<count> reg_ns=<ns> unreg_ns=<ns>
 *
 * and the size of a system device beyond its struct device:
 *
 *	SYSDEV-PERF sizeof device=<bytes> sys_device=<bytes> extra=<bytes>
 *
 * The devices live in one array whose release() does nothing; the array
 * is freed after the run.  Only for test kernels in a virtual machine.
 */

#define pr_fmt(fmt) "sysdev_perf: " fmt

#include <linux/device.h>
#include <linux/kernfs.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#ifdef SYSDEV_PERF_HAVE_SYSDEV
#include <linux/sysdev.h>
#endif

static unsigned int count = 10000;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "devices registered per round (default 10000)");

static unsigned int reps = 3;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "rounds of each kind (default 3)");

static void perf_release(struct device *dev)
{
	/* The array is freed after the run. */
}

static struct bus_type perf_plain_subsys = {
	.name = "perfplain",
};

/*
 * The steps that sys_device_register() and sys_device_unregister() take
 * beyond device_register() and device_unregister(), as the series head
 * has them (drivers/base/sysdev.c); a level of perf_plain_round() takes
 * every step up to its own:
 *   1 a mutex held around each registration and each device_del()
 *     (sysdev_mutex);
 *   2 a lookup of the device's name in /sys/bus/<bus>/devices/ before
 *     device_add() (sysdev_name_in_use(), the duplicate id check);
 *   3 the KOBJ_ADD uevent held back by device_add() and sent afterwards
 *     under the device lock (the drivers' add() run in between);
 *   4 a store with interrupts disabled after the registration and before
 *     the deletion (sysdev_mark()).
 * What a level costs beyond the one below is what its step costs; what
 * step 4 leaves to the system devices is what the rest of sysdev costs
 * (its checks, the class lookup on unregistration, the empty driver lists).
 */
enum { PERF_MUTEX = 1, PERF_LOOKUP, PERF_UEVENT, PERF_MARK, PERF_LEVELS = PERF_MARK };

static DEFINE_MUTEX(perf_mutex);
static const struct device_type perf_type;
static unsigned long perf_generation;

static void perf_mark(struct device *dev, const struct device_type *type)
{
	unsigned long flags;

	local_irq_save(flags);
	WRITE_ONCE(dev->type, type);
	perf_generation++;
	local_irq_restore(flags);
}

static int perf_plain_add(struct device *dev, unsigned int level,
			  struct kernfs_node *dir)
{
	struct kernfs_node *kn;
	int error;

	error = dev_set_name(dev, "perfplain%u", dev->id);
	if (error)
		return error;
	if (level >= PERF_LOOKUP) {
		kn = kernfs_find_and_get(dir, dev_name(dev));
		if (kn) {
			kernfs_put(kn);
			return -EEXIST;
		}
	}
	if (level >= PERF_UEVENT)
		dev_set_uevent_suppress(dev, true);
	error = device_add(dev);
	if (error)
		return error;
	if (level >= PERF_MARK)
		perf_mark(dev, &perf_type);
	if (level >= PERF_UEVENT) {
		device_lock(dev);
		dev_set_uevent_suppress(dev, false);
		kobject_uevent(&dev->kobj, KOBJ_ADD);
		device_unlock(dev);
	}
	return 0;
}

static void perf_report(const char *kind, unsigned int rep, u64 t0, u64 t1,
			u64 t2)
{
	pr_info("SYSDEV-PERF %s rep=%u count=%u reg_ns=%llu unreg_ns=%llu\n",
		kind, rep, count, t1 - t0, t2 - t1);
}

/* Level 0 is device_register() and device_unregister(): the floor. */
static int perf_plain_round(const char *kind, struct device *devs,
			    unsigned int rep, unsigned int level,
			    struct kernfs_node *dir)
{
	unsigned int i, done;
	u64 t0, t1, t2;
	int error = 0;

	memset(devs, 0, count * sizeof(*devs));
	t0 = ktime_get_ns();
	for (done = 0; done < count; done++) {
		struct device *dev = &devs[done];

		/* device_register(), with the name set after initialization */
		device_initialize(dev);
		dev->bus = &perf_plain_subsys;
		dev->id = done;
		dev->release = perf_release;
		if (level >= PERF_MUTEX)
			mutex_lock(&perf_mutex);
		error = perf_plain_add(dev, level, dir);
		if (level >= PERF_MUTEX)
			mutex_unlock(&perf_mutex);
		if (error) {
			pr_err("plain device %u (level %u): error %d\n", done, level, error);
			put_device(dev);
			break;
		}
		/* a non-preemptible kernel: no RCU stall in a long run */
		cond_resched();
	}
	t1 = ktime_get_ns();
	for (i = 0; i < done; i++) {
		if (level >= PERF_MUTEX)
			mutex_lock(&perf_mutex);
		if (level >= PERF_MARK)
			perf_mark(&devs[i], NULL);
		device_del(&devs[i]);
		if (level >= PERF_MUTEX)
			mutex_unlock(&perf_mutex);
		put_device(&devs[i]);
		cond_resched();
	}
	t2 = ktime_get_ns();
	if (!error)
		perf_report(kind, rep, t0, t1, t2);
	return error;
}

#ifdef SYSDEV_PERF_HAVE_SYSDEV
/*
 * A module defines the bus_type of its class itself: set_sysdev_class_name()
 * is not for modules.  This one cannot be unloaded (no module_exit()).
 */
static struct bus_type perf_sysdev_subsys = {
	.name = "perfsys",
};

static struct sysdev_class perf_sysdev_class = {
	.subsys = &perf_sysdev_subsys,
};

static int perf_sysdev_round(const char *kind, struct sys_device *sysdevs,
			     unsigned int rep)
{
	unsigned int i, done;
	u64 t0, t1, t2;
	int error = 0;

	memset(sysdevs, 0, count * sizeof(*sysdevs));
	t0 = ktime_get_ns();
	for (done = 0; done < count; done++) {
		struct sys_device *sysdev = &sysdevs[done];

		sysdev->dev.id = done;
		sysdev->cls = &perf_sysdev_class;
		sysdev->dev.release = perf_release;
		error = sys_device_register(sysdev);
		if (error) {
			pr_err("system device %u: error %d\n", done, error);
			put_device(&sysdev->dev);
			break;
		}
		cond_resched();
	}
	t1 = ktime_get_ns();
	for (i = 0; i < done; i++) {
		sys_device_unregister(&sysdevs[i]);
		cond_resched();
	}
	t2 = ktime_get_ns();
	if (!error)
		perf_report(kind, rep, t0, t1, t2);
	return error;
}

/*
 * The kinds of rounds: the floor, the plain devices with the steps of
 * sysdev, the system devices; then the floor and the system devices again
 * with lockdep off for this task (lockdep_off(): the locks are not
 * tracked, although the kernel has CONFIG_LOCKDEP), which is what they
 * cost on a kernel without lock debugging, as production kernels are.
 */
static const char * const perf_kinds[] = {
	"plain", "step1", "step2", "step3", "step4", "sysdev",
	"plain-nolockdep", "sysdev-nolockdep",
};

static int perf_kind_round(unsigned int kind, unsigned int rep,
			   struct device *devs, struct sys_device *sysdevs,
			   struct kernfs_node *dir)
{
	const char *name = perf_kinds[kind];
	bool nolockdep = kind > PERF_LEVELS + 1;
	int error;

	if (nolockdep)
		lockdep_off();
	if (kind == PERF_LEVELS + 1 || kind == PERF_LEVELS + 3)
		error = perf_sysdev_round(name, sysdevs, rep);
	else
		error = perf_plain_round(name, devs, rep, nolockdep ? 0 : kind, dir);
	if (nolockdep)
		lockdep_on();
	return error;
}

static int perf_sysdev_run(void)
{
	const unsigned int kinds = ARRAY_SIZE(perf_kinds);
	struct kernfs_node *dir = NULL;
	struct sys_device *sysdevs;
	struct device *devs;
	unsigned int rep, k;
	int error;

	pr_info("SYSDEV-PERF sizeof device=%zu sys_device=%zu extra=%zu\n",
		sizeof(struct device), sizeof(struct sys_device),
		sizeof(struct sys_device) - sizeof(struct device));

	devs = kvcalloc(count, sizeof(*devs), GFP_KERNEL);
	sysdevs = kvcalloc(count, sizeof(*sysdevs), GFP_KERNEL);
	if (!devs || !sysdevs) {
		error = -ENOMEM;
		goto out_free;
	}
	/* /sys/bus/perfplain/devices/, where step 2 looks names up */
	dir = kernfs_find_and_get(bus_get_kset(&perf_plain_subsys)->kobj.sd,
				  "devices");
	if (!dir) {
		error = -ENOENT;
		goto out_free;
	}
	error = sysdev_class_register(&perf_sysdev_class);
	if (error)
		goto out_free;
	/* Rotate the order so that a drift in load hits every kind. */
	for (rep = 0; rep < reps && !error; rep++)
		for (k = 0; k < kinds && !error; k++)
			error = perf_kind_round((rep + k) % kinds, rep, devs,
						sysdevs, dir);
	sysdev_class_unregister(&perf_sysdev_class);
out_free:
	kernfs_put(dir);
	kvfree(sysdevs);
	kvfree(devs);
	return error;
}
#else
static int perf_sysdev_run(void)
{
	struct device *devs;
	unsigned int rep;
	int error = 0;

	pr_info("SYSDEV-PERF no system device API in this kernel: plain devices only\n");
	devs = kvcalloc(count, sizeof(*devs), GFP_KERNEL);
	if (!devs)
		return -ENOMEM;
	for (rep = 0; rep < reps && !error; rep++)
		error = perf_plain_round("plain", devs, rep, 0, NULL);
	kvfree(devs);
	return error;
}
#endif

static int __init sysdev_perf_init(void)
{
	int error;

	if (!count || !reps)
		return -EINVAL;
	error = subsys_system_register(&perf_plain_subsys, NULL);
	if (error)
		return error;
	error = perf_sysdev_run();
	bus_unregister(&perf_plain_subsys);
	pr_info("SYSDEV-PERF done error=%d\n", error);
	return error;
}

/*
 * No module_exit(): the module cannot be unloaded, so its bus_types outlive
 * bus_unregister(), which 6.1's bus_release() may write after it returned.
 */
module_init(sysdev_perf_init);

MODULE_DESCRIPTION("Registration cost of system devices against plain devices");
MODULE_LICENSE("GPL");
