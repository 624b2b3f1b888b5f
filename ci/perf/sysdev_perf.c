// SPDX-License-Identifier: GPL-2.0
/*
 * Registration cost of system devices against the plain struct device
 * floor, for ci/perf/run-perf.sh.
 *
 * At load time, register and then unregister @count plain devices on a
 * subsys_system_register() subsystem and, on a kernel with the system
 * device API, @count system devices of a test class; @reps rounds,
 * alternating which kind goes first.  Each timing is one console line:
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
#include <linux/ktime.h>
#include <linux/module.h>
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

static int perf_plain_round(struct device *devs, unsigned int rep)
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
		error = dev_set_name(dev, "perfplain%u", done);
		if (!error)
			error = device_add(dev);
		if (error) {
			pr_err("plain device %u: error %d\n", done, error);
			put_device(dev);
			break;
		}
		/* a non-preemptible kernel: no RCU stall in a long run */
		cond_resched();
	}
	t1 = ktime_get_ns();
	for (i = 0; i < done; i++) {
		device_unregister(&devs[i]);
		cond_resched();
	}
	t2 = ktime_get_ns();
	if (!error)
		pr_info("SYSDEV-PERF plain rep=%u count=%u reg_ns=%llu unreg_ns=%llu\n",
			rep, count, t1 - t0, t2 - t1);
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

static int perf_sysdev_round(struct sys_device *sysdevs, unsigned int rep)
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
		pr_info("SYSDEV-PERF sysdev rep=%u count=%u reg_ns=%llu unreg_ns=%llu\n",
			rep, count, t1 - t0, t2 - t1);
	return error;
}

static int perf_sysdev_run(void)
{
	struct sys_device *sysdevs;
	struct device *devs;
	unsigned int rep;
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
	error = sysdev_class_register(&perf_sysdev_class);
	if (error)
		goto out_free;
	/* Alternate the order so that a drift in load hits both kinds. */
	for (rep = 0; rep < reps && !error; rep++) {
		if (rep % 2) {
			error = perf_sysdev_round(sysdevs, rep);
			if (!error)
				error = perf_plain_round(devs, rep);
		} else {
			error = perf_plain_round(devs, rep);
			if (!error)
				error = perf_sysdev_round(sysdevs, rep);
		}
	}
	sysdev_class_unregister(&perf_sysdev_class);
out_free:
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
		error = perf_plain_round(devs, rep);
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
