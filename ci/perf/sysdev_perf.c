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
 * perf_plain_round()), and system devices of a test class.  A kernel
 * without the system device API has the floor only.  Each timing is one
 * console line:
 *
 *	SYSDEV-PERF <kind> rep=<n> count=<count> reg_ns=<ns> unreg_ns=<ns>
 *
 * and the memory a system device takes beyond its struct device: the
 * node of sysdev's list of the class (a kmalloc() object) and its share
 * of the xarray of ids (one xa_node per XA_CHUNK_SIZE ids, for the dense
 * ids 0..count-1 of this run):
 *
 *	SYSDEV-PERF sizeof device=<bytes> node=<bytes> node_alloc=<bytes>
 *		ids_per_device=<bytes> extra=<bytes>
 *
 * The series exports nothing: run-perf.sh builds the head from a copy of
 * the tree with one commit of its own, which exports the API and
 * sysdev_perf_node_size to this module.  The devices live in one array
 * whose release() does nothing; the array is freed after the run.  Only
 * for test kernels in a virtual machine.
 */

#define pr_fmt(fmt) "sysdev_perf: " fmt

#include <linux/device.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>
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
 *   2 a node allocated and stored in an xarray under the device's id
 *     before device_add(), looked up, erased and freed after device_del()
 *     (the id index, which finds duplicate ids and the device's node);
 *   3 the KOBJ_ADD uevent held back by device_add() and sent afterwards
 *     under the device lock (the drivers' add() run in between);
 *   4 the node added to and deleted from a list with interrupts disabled
 *     (sysdev_list_add(), sysdev_list_del()).
 * What a level costs beyond the one below is what its step costs; what
 * step 4 leaves to the system devices is what the rest of sysdev costs
 * (its checks, the class lookup on unregistration, the empty driver lists).
 */
enum { PERF_MUTEX = 1, PERF_INDEX, PERF_UEVENT, PERF_LIST, PERF_LEVELS = PERF_LIST };

/* The same layout as struct sysdev_node of drivers/base/sysdev.c. */
struct perf_node {
	struct list_head	entry;
	struct device		*dev;
	u32			id;
};

static DEFINE_MUTEX(perf_mutex);
static LIST_HEAD(perf_devices);
static DEFINE_XARRAY(perf_ids);

static void perf_list(struct list_head *entry, bool add)
{
	unsigned long flags;

	local_irq_save(flags);
	if (add)
		list_add_tail(entry, &perf_devices);
	else
		list_del_init(entry);
	local_irq_restore(flags);
}

static int perf_plain_add(struct device *dev, unsigned int level)
{
	struct perf_node *node = NULL;
	int error;

	if (level >= PERF_INDEX) {
		node = kzalloc(sizeof(*node), GFP_KERNEL);
		if (!node)
			return -ENOMEM;
		node->dev = dev;
		node->id = dev->id;
		error = xa_insert(&perf_ids, dev->id, node, GFP_KERNEL);
		if (error)
			goto free;
	}
	error = dev_set_name(dev, "perfplain%u", dev->id);
	if (error)
		goto erase;
	if (level >= PERF_UEVENT)
		dev_set_uevent_suppress(dev, true);
	error = device_add(dev);
	if (error)
		goto erase;
	if (level >= PERF_LIST)
		perf_list(&node->entry, true);
	if (level >= PERF_UEVENT) {
		device_lock(dev);
		dev_set_uevent_suppress(dev, false);
		kobject_uevent(&dev->kobj, KOBJ_ADD);
		device_unlock(dev);
	}
	return 0;

erase:
	if (node)
		xa_erase(&perf_ids, dev->id);
free:
	kfree(node);
	return error;
}

static void perf_plain_del(struct device *dev, unsigned int level)
{
	struct perf_node *node = NULL;

	if (level >= PERF_INDEX) {
		node = xa_load(&perf_ids, dev->id);
		if (WARN_ON(!node || node->dev != dev))
			node = NULL;
	}
	if (node && level >= PERF_LIST)
		perf_list(&node->entry, false);
	device_del(dev);
	if (node) {
		xa_erase(&perf_ids, node->id);
		kfree(node);
	}
}

static void perf_report(const char *kind, unsigned int rep, u64 t0, u64 t1,
			u64 t2)
{
	pr_info("SYSDEV-PERF %s rep=%u count=%u reg_ns=%llu unreg_ns=%llu\n",
		kind, rep, count, t1 - t0, t2 - t1);
}

/* Level 0 is device_register() and device_unregister(): the floor. */
static int perf_plain_round(const char *kind, struct device *devs,
			    unsigned int rep, unsigned int level)
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
		error = perf_plain_add(dev, level);
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
		perf_plain_del(&devs[i], level);
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
/* sizeof(struct sysdev_node), exported by run-perf.sh's commit */
extern const size_t sysdev_perf_node_size;

static struct bus_type perf_sysdev_subsys = {
	.name = "perfsys",
};

static struct sysdev_class perf_sysdev_class = {
	.subsys = &perf_sysdev_subsys,
};

static int perf_sysdev_round(const char *kind, struct device *devs,
			     unsigned int rep)
{
	unsigned int i, done;
	u64 t0, t1, t2;
	int error = 0;

	memset(devs, 0, count * sizeof(*devs));
	t0 = ktime_get_ns();
	for (done = 0; done < count; done++) {
		struct device *dev = &devs[done];

		dev->id = done;
		dev->release = perf_release;
		error = sys_device_register(&perf_sysdev_class, dev);
		if (error) {
			pr_err("system device %u: error %d\n", done, error);
			put_device(dev);
			break;
		}
		cond_resched();
	}
	t1 = ktime_get_ns();
	for (i = 0; i < done; i++) {
		sys_device_unregister(&devs[i]);
		cond_resched();
	}
	t2 = ktime_get_ns();
	if (!error)
		perf_report(kind, rep, t0, t1, t2);
	return error;
}

static const char * const perf_kinds[] = {
	"plain", "step1", "step2", "step3", "step4", "sysdev",
};

static void perf_sizes(void)
{
	size_t alloc = kmalloc_size_roundup(sysdev_perf_node_size);
	/* xa_nodes of dense ids 0..count-1: every level of the tree */
	size_t nodes = 0, n = count;

	do {
		n = DIV_ROUND_UP(n, XA_CHUNK_SIZE);
		nodes += n;
	} while (n > 1);
	n = DIV_ROUND_UP(nodes * sizeof(struct xa_node), count);
	pr_info("SYSDEV-PERF sizeof device=%zu node=%zu node_alloc=%zu ids_per_device=%zu extra=%zu\n",
		sizeof(struct device), sysdev_perf_node_size, alloc, n,
		alloc + n);
}

static int perf_sysdev_run(void)
{
	const unsigned int kinds = ARRAY_SIZE(perf_kinds);
	struct device *devs;
	unsigned int rep, k, kind;
	int error;

	perf_sizes();
	devs = kvcalloc(count, sizeof(*devs), GFP_KERNEL);
	if (!devs)
		return -ENOMEM;
	error = sysdev_class_register(&perf_sysdev_class);
	if (error)
		goto out_free;
	/* Rotate the order so that a drift in load hits every kind. */
	for (rep = 0; rep < reps && !error; rep++) {
		for (k = 0; k < kinds && !error; k++) {
			kind = (rep + k) % kinds;
			if (kind == PERF_LEVELS + 1)
				error = perf_sysdev_round(perf_kinds[kind], devs, rep);
			else
				error = perf_plain_round(perf_kinds[kind], devs, rep, kind);
		}
	}
	sysdev_class_unregister(&perf_sysdev_class);
out_free:
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
		error = perf_plain_round("plain", devs, rep, 0);
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
 * No module_exit(): the run is over when the module is loaded, and there
 * is nothing to take down.
 */
module_init(sysdev_perf_init);

MODULE_DESCRIPTION("Registration cost of system devices against plain devices");
MODULE_LICENSE("GPL");
