// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection test of the system device API, loaded once by the guest
 * check qemu/checks/fault.sh.  Its init runs the same registration again
 * and again, with the n-th slab allocation of that registration made to
 * fail (current->fail_nth, failslab with ignore-gfp-wait off), for
 * n = 1, 2, 3, ... : a class, a device, a class driver (which gets add()
 * for that device), then two more devices (which the driver gets through
 * sys_device_register()).  On failure the run undoes what it registered,
 * in reverse, as a caller must; then the module checks that nothing is
 * left: no /sys/bus/sdfault, no /sys/devices/system/sdfault, no add()
 * without its remove().  A run that succeeds is checked for its three
 * devices and unregistered.  The loop ends when every step that allocates
 * (class, device 0, device 1, device 2) has failed at least once and 20
 * runs in a row have succeeded (n then lies beyond the last allocation of
 * a run); it gives up at n = SDF_MAX_RUNS.  Leaks are the job of the
 * check kmemleak, which runs after this one.
 *
 * Counting from inside the module leaves out the allocations of execve()
 * and load_module(), and one load instead of one per n leaves out the
 * module's unload: a few hundred runs take seconds, not the better part of
 * an hour of a KASAN kernel under TCG.
 *
 * Every run has its own class, bus_type and devices, allocated before its
 * injection window: with CONFIG_DEBUG_KOBJECT_RELEASE a release runs 1 to
 * 4 seconds after the last put, and 6.1's bus_release() clears bus->p
 * then, so a bus_type can be neither registered again nor freed before
 * that (sysdev_class_unregister() says so); its lock_class_key, used by
 * bus_register(), is registered with lockdep as any dynamic key must be.
 * The devices are freed by their release(); the runs are kept until the
 * end, when the module waits until every device was released and every
 * bus_type let go, and frees them.  Only then does the init return: the
 * module's memory must outlive the driver core's use of it.
 *
 * Built with SYSDEV_FAULT_BUG=1, a run forgets put_device() after a failed
 * sys_device_register(), which the API requires (the device and its name
 * stay allocated): the test's self-test expects kmemleak to see that.
 * Built with SYSDEV_FAULT_BUG=2, a run whose device 0 fails forgets to
 * unregister its class: the self-test expects this module to report the
 * directories left behind.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sysdev.h>

#define SDF_DEVICES	3
#define SDF_MAX_RUNS	3000
#define SDF_OK_RUNS	20
/* Longer than any chain of delayed kobject releases: 4 s each. */
#define SDF_RELEASE_WAIT_MS 30000

static const char * const sdf_steps[] = {
	"class", "device 0", "driver", "device 1", "device 2",
};

struct sdf_run {
	struct list_head	entry;
	struct bus_type		bus;
	struct sysdev_class	cls;
	struct sys_device	*devs[SDF_DEVICES];	/* not handed over yet */
	struct sys_device	*reg[SDF_DEVICES];	/* registered */
};

static LIST_HEAD(sdf_runs);
static int sdf_adds;
/* Devices initialized by sys_device_register() whose release() has not run. */
static atomic_t sdf_unreleased = ATOMIC_INIT(0);
static int sdf_errors;

#define sdf_error(fmt, ...)						\
	do {								\
		pr_err("sysdev_fault: error: " fmt "\n", ##__VA_ARGS__);	\
		sdf_errors++;						\
	} while (0)

static int sdf_add(struct sys_device *sysdev)
{
	sdf_adds++;
	return 0;
}

static void sdf_remove(struct sys_device *sysdev)
{
	sdf_adds--;
}

static struct sysdev_driver sdf_driver = {
	.add	= sdf_add,
	.remove	= sdf_remove,
};

static void sdf_release(struct device *dev)
{
	kfree(to_sys_device(dev));
	atomic_dec(&sdf_unreleased);
}

static int sdf_register_device(struct sdf_run *run, int i)
{
	struct sys_device *sysdev = run->devs[i];
	int error;

	run->devs[i] = NULL;	/* from here on, freed by its release() */
	sysdev->dev.id = i;
	sysdev->cls = &run->cls;
	sysdev->dev.release = sdf_release;
	atomic_inc(&sdf_unreleased);
	error = sys_device_register(sysdev);
	if (!error) {
		run->reg[i] = sysdev;
		return 0;
	}
	if (SYSDEV_FAULT_BUG == 1)
		/* the broken caller believes the device gone, never puts it */
		atomic_dec(&sdf_unreleased);
	else
		put_device(&sysdev->dev);
	return error;
}

/* The registration under test; *@step is the index of the failing step. */
static int sdf_register(struct sdf_run *run, int *step)
{
	int i = 0, error;

	*step = 0;
	error = sysdev_class_register(&run->cls);
	if (error)
		return error;
	*step = 1;
	error = sdf_register_device(run, 0);
	if (error && SYSDEV_FAULT_BUG == 2)
		return error;	/* the broken caller forgets its class */
	if (error)
		goto out_class;
	*step = 2;
	error = sysdev_driver_register(&run->cls, &sdf_driver);
	if (error)
		goto out_device0;
	for (i = 1; i < SDF_DEVICES; i++) {
		*step = 2 + i;
		error = sdf_register_device(run, i);
		if (error)
			goto out_devices;
	}
	return 0;

out_devices:
	while (--i >= 1)
		sys_device_unregister(run->reg[i]);
	sysdev_driver_unregister(&run->cls, &sdf_driver);
out_device0:
	sys_device_unregister(run->reg[0]);
out_class:
	sysdev_class_unregister(&run->cls);
	return error;
}

static void sdf_unregister(struct sdf_run *run)
{
	int i;

	for (i = SDF_DEVICES - 1; i >= 1; i--)
		sys_device_unregister(run->reg[i]);
	sysdev_driver_unregister(&run->cls, &sdf_driver);
	sys_device_unregister(run->reg[0]);
	sysdev_class_unregister(&run->cls);
}

static bool sdf_exists(const char *name)
{
	struct path path;

	if (kern_path(name, 0, &path))
		return false;
	path_put(&path);
	return true;
}

static void sdf_expect_gone(unsigned int n, const char *what)
{
	if (sdf_adds)
		sdf_error("n=%u: %s, %d add() without remove()", n, what,
			  sdf_adds);
	if (sdf_exists("/sys/bus/sdfault"))
		sdf_error("n=%u: %s, /sys/bus/sdfault left behind", n, what);
	if (sdf_exists("/sys/devices/system/sdfault"))
		sdf_error("n=%u: %s, /sys/devices/system/sdfault left behind",
			  n, what);
}

static struct sdf_run *sdf_new_run(void)
{
	struct sdf_run *run;
	int i;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return NULL;
	for (i = 0; i < SDF_DEVICES; i++) {
		run->devs[i] = kzalloc(sizeof(*run->devs[i]), GFP_KERNEL);
		if (!run->devs[i])
			goto fail;
	}
	run->bus.name = "sdfault";
	/* bus_register() names its mutex's class after this key */
	lockdep_register_key(&run->bus.lock_key);
	run->cls.subsys = &run->bus;
	list_add_tail(&run->entry, &sdf_runs);
	return run;
fail:
	while (i--)
		kfree(run->devs[i]);
	kfree(run);
	return NULL;
}

/* Wait until the driver core is done with every run; free them. */
static int sdf_wait_released(void)
{
	struct sdf_run *run, *tmp;
	bool busy;
	int ms, i;

	for (ms = 0; ms < SDF_RELEASE_WAIT_MS; ms += 50) {
		busy = atomic_read(&sdf_unreleased);
		list_for_each_entry(run, &sdf_runs, entry)
			busy |= !!READ_ONCE(run->bus.p);
		if (!busy)
			break;
		msleep(50);
	}
	if (busy) {
		/* leave everything allocated: the driver core may still use it */
		sdf_error("%d devices or a bus_type not released after %d ms",
			  atomic_read(&sdf_unreleased), ms);
		return ms;
	}
	list_for_each_entry_safe(run, tmp, &sdf_runs, entry) {
		/* devices never handed to sys_device_register() */
		for (i = 0; i < SDF_DEVICES; i++)
			kfree(run->devs[i]);
		list_del(&run->entry);
		lockdep_unregister_key(&run->bus.lock_key);
		kfree(run);
	}
	return ms;
}

static int __init sdf_init(void)
{
	unsigned int n, ok_run = 0, runs = 0, failed_steps = 0, all_steps;
	struct sdf_run *run;
	int error, step, i, ms;

	/* every step but the driver's allocates */
	all_steps = BIT(0) | BIT(1) | BIT(3) | BIT(4);
	for (n = 1; n <= SDF_MAX_RUNS; n++) {
		run = sdf_new_run();
		if (!run) {
			sdf_error("n=%u: no memory for a run", n);
			break;
		}
		runs++;
		current->fail_nth = n;
		error = sdf_register(run, &step);
		current->fail_nth = 0;
		if (error) {
			ok_run = 0;
			failed_steps |= BIT(step);
			pr_info("sysdev_fault: n=%u: %s failed: %d\n", n,
				sdf_steps[step], error);
			sdf_expect_gone(n, "after a failed registration");
		} else {
			ok_run++;
			if (sdf_adds != SDF_DEVICES)
				sdf_error("n=%u: registered, %d add() calls", n,
					  sdf_adds);
			for (i = 0; i < SDF_DEVICES; i++)
				if (!device_is_registered(&run->reg[i]->dev))
					sdf_error("n=%u: registered, but no sdfault%d",
						  n, i);
			sdf_unregister(run);
			sdf_expect_gone(n, "after unregistration");
		}
		if (sdf_errors)
			break;
		if (ok_run >= SDF_OK_RUNS && (failed_steps & all_steps) == all_steps)
			break;
	}
	ms = sdf_wait_released();
	if (!sdf_errors && n > SDF_MAX_RUNS)
		sdf_error("no end: a registration still failed at n = %d",
			  SDF_MAX_RUNS);
	for (i = 0; i < ARRAY_SIZE(sdf_steps); i++) {
		if ((all_steps & BIT(i)) && !(failed_steps & BIT(i)))
			sdf_error("no injected failure reached the step '%s'",
				  sdf_steps[i]);
		if (!(all_steps & BIT(i)) && (failed_steps & BIT(i)))
			sdf_error("the step '%s' failed, but allocates nothing",
				  sdf_steps[i]);
	}
	pr_info("sysdev_fault: done: %u runs, the last %u successful, released after %d ms, %d errors\n",
		runs, ok_run, ms, sdf_errors);
	return 0;
}

static void __exit sdf_exit(void)
{
}

module_init(sdf_init);
module_exit(sdf_exit);
MODULE_DESCRIPTION("Fault injection test of the system device API");
MODULE_LICENSE("GPL");
