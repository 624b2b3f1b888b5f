// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection test of the system device API, loaded by the guest
 * check qemu/checks/fault.sh with /proc/self/fail-nth set, so that the
 * n-th slab allocation of the loading task fails (failslab, with
 * ignore-gfp-wait off).  Its init registers a class, a device, a class
 * driver (which gets add() for that device), then two more devices (which
 * the driver gets through sys_device_register()); on failure it undoes
 * what it registered, in reverse, and returns the error.  The check then
 * verifies that nothing is left: no sysfs directory, no add() without its
 * remove(), no leak for kmemleak.
 *
 * Built with SYSDEV_FAULT_BUG, the init forgets put_device() after a
 * failed sys_device_register(), which the API requires (the device name
 * stays allocated): the test's self-test expects kmemleak to see that.
 *
 * The class, its bus_type and the devices live in the module's memory, so
 * the module must not go away before the driver core is done with them:
 * with CONFIG_DEBUG_KOBJECT_RELEASE (the debug kernel) a release runs 1 to
 * 4 seconds after the last put, and chained releases later still.  Before
 * the exit (or a failed init) returns, sdf_wait_released() waits until
 * every device's release() has run and the driver core has let go of the
 * class's bus_type (bus_release() clears its p, as sysdev_class_unregister()
 * documents).  Without that wait a load after an unload finds a bus_type
 * whose p the previous load's late bus_release() set to NULL at the same
 * address (an oops in device_del()), and debugobjects sees the devices'
 * release timers freed with the module.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/sysdev.h>

#define SDF_DEVICES 3
/* Longer than any chain of delayed kobject releases: 4 s each. */
#define SDF_RELEASE_WAIT_MS 30000

static int sdf_adds;
/* Devices initialized by sys_device_register() whose release() has not run. */
static atomic_t sdf_unreleased = ATOMIC_INIT(0);

static int sdf_add(struct sys_device *sysdev)
{
	sdf_adds++;
	return 0;
}

static void sdf_remove(struct sys_device *sysdev)
{
	sdf_adds--;
}

static struct sysdev_class sdf_class = {
	set_sysdev_class_name("sdfault"),
};

static struct sysdev_driver sdf_driver = {
	.add	= sdf_add,
	.remove	= sdf_remove,
};

static struct sys_device sdf_devs[SDF_DEVICES];

static void sdf_release(struct device *dev)
{
	atomic_dec(&sdf_unreleased);
}

/*
 * Poll rather than be woken by sdf_release(), so that the release() has
 * long returned when the module's memory goes; bus_release() wakes nobody.
 * Returns the milliseconds waited, or -1 if something was never released.
 */
static int sdf_wait_released(void)
{
	int ms;

	for (ms = 0; ms < SDF_RELEASE_WAIT_MS; ms += 50) {
		if (!atomic_read(&sdf_unreleased) && !READ_ONCE(sdf_class.subsys->p))
			return ms;
		msleep(50);
	}
	pr_err("sysdev_fault: %d devices%s not released after %d ms\n",
	       atomic_read(&sdf_unreleased),
	       READ_ONCE(sdf_class.subsys->p) ? " and the bus_type" : "",
	       SDF_RELEASE_WAIT_MS);
	return -1;
}

static int sdf_register_device(int i)
{
	int error;

	sdf_devs[i].id = i;
	sdf_devs[i].cls = &sdf_class;
	sdf_devs[i].dev.release = sdf_release;
	atomic_inc(&sdf_unreleased);
	error = sys_device_register(&sdf_devs[i]);
#ifndef SYSDEV_FAULT_BUG
	if (error)
		put_device(&sdf_devs[i].dev);
#else
	/* the broken caller believes the device gone and never puts it */
	if (error)
		atomic_dec(&sdf_unreleased);
#endif
	return error;
}

static int __init sdf_init(void)
{
	const char *step;
	int i = 0, error;

	step = "class";
	error = sysdev_class_register(&sdf_class);
	if (error)
		goto out;
	step = "device 0";
	error = sdf_register_device(0);
	if (error)
		goto out_class;
	step = "driver";
	error = sysdev_driver_register(&sdf_class, &sdf_driver);
	if (error)
		goto out_device0;
	for (i = 1; i < SDF_DEVICES; i++) {
		step = i == 1 ? "device 1" : "device 2";
		error = sdf_register_device(i);
		if (error)
			goto out_devices;
	}
	pr_info("sysdev_fault: registered, adds %d\n", sdf_adds);
	return 0;

out_devices:
	while (--i >= 1)
		sys_device_unregister(&sdf_devs[i]);
	sysdev_driver_unregister(&sdf_class, &sdf_driver);
out_device0:
	sys_device_unregister(&sdf_devs[0]);
out_class:
	sysdev_class_unregister(&sdf_class);
out:
	pr_info("sysdev_fault: %s failed: %d, adds %d, released after %d ms\n",
		step, error, sdf_adds, sdf_wait_released());
	return error;
}

static void __exit sdf_exit(void)
{
	int i;

	for (i = SDF_DEVICES - 1; i >= 1; i--)
		sys_device_unregister(&sdf_devs[i]);
	sysdev_driver_unregister(&sdf_class, &sdf_driver);
	sys_device_unregister(&sdf_devs[0]);
	sysdev_class_unregister(&sdf_class);
	pr_info("sysdev_fault: unregistered, adds %d, released after %d ms\n",
		sdf_adds, sdf_wait_released());
}

module_init(sdf_init);
module_exit(sdf_exit);
MODULE_DESCRIPTION("Fault injection test of the system device API");
MODULE_LICENSE("GPL");
