// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen: module init and exit, and the two things the module watches
 * for as long as it is loaded: a VM fork (revoke the node ID) and time
 * (the timestamp field's remaining life, the ID clock drifting from the
 * wall clock).
 *
 * It allocates the one struct uidgen_device (internal.h) and frees it:
 * everything the module keeps while loaded is in there.
 *
 * The files: gen.c is the generator core (pure arithmetic); noderules.c
 * the node rules (pure, shared with uidgen-lease's stand-in); node.c
 * (node.h) the node ID's life and the fence; mint.c the minting path
 * (read(), the IDs of BATCH and RESERVE); dev.c /dev/uid, its ioctls and
 * mmap; params.c the module parameters; status.c the status files in
 * sysfs, debugfs and the clock check's log line.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include <linux/uidgen.h>

#include "gen.h"
#include "internal.h"

#define UIDGEN_MS_PER_DAY	(86400ULL * MSEC_PER_SEC)

/* The one device, for module exit. */
static struct uidgen_device *uidgen_device;

/* A VM fork or snapshot restore: two machines now share this node ID. */
static int uidgen_vmfork(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	struct uidgen_device *ud = container_of(nb, struct uidgen_device,
						vmfork_nb);

	uidgen_node_vmfork(&ud->node);
	return NOTIFY_DONE;
}

/* Say so, daily, once the timestamp field has under a year left. */
static void uidgen_life_check(struct work_struct *work)
{
	struct uidgen_device *ud = container_of(to_delayed_work(work),
						struct uidgen_device,
						life_work);
	u64 end = uidgen_exhausts_at_ms(&ud->gen.l);
	u64 now = ktime_get_real_ns() / NSEC_PER_MSEC;

	if (end > now && end - now < 365 * UIDGEN_MS_PER_DAY)
		pr_warn("the timestamp field runs out in %llu days (at %llu ms): plan a new layout or epoch\n",
			div64_u64(end - now, UIDGEN_MS_PER_DAY), end);
	schedule_delayed_work(&ud->life_work, 86400 * HZ);
}

/*
 * Every 10 s: has a wall-clock step left the ID clock apart from it?
 * Deferrable: an idle CPU is not woken for it, the check runs with the
 * next wakeup instead. No event serves: the kernel tells no module when
 * CLOCK_REALTIME is set.
 */
static void uidgen_clock_work_fn(struct work_struct *work)
{
	struct uidgen_device *ud = container_of(to_delayed_work(work),
						struct uidgen_device,
						clock_work);

	uidgen_clock_check(ud);
	schedule_delayed_work(&ud->clock_work, 10 * HZ);
}

static void uidgen_free(struct uidgen_device *ud)
{
	if (ud->page)
		__free_page(ud->page);
	free_percpu(ud->issued);
	kfree(ud->gen.slots);
	kfree(ud);
}

/* The device: its generator and node, with no node ID assigned. */
static struct uidgen_device *uidgen_start(void)
{
	struct uidgen_layout l = uidgen_params_layout();
	struct uidgen_device *ud;
	struct uidgen_gen *g;
	char msg[192];
	int ret;

	ud = kzalloc(sizeof(*ud), GFP_KERNEL);
	if (!ud)
		return ERR_PTR(-ENOMEM);
	g = &ud->gen;
	ret = uidgen_gen_init(g, &l, ktime_get_real_ns(), ktime_get_boottime_ns(),
			      uidgen_params_min_life_ms(), msg, sizeof(msg));
	if (ret) {
		pr_err("%s\n", msg);
		goto err_free;
	}
	g->max_borrow = uidgen_params_max_borrow();
	g->observe_ahead_ns = (u64)uidgen_params_observe_ahead_ms() *
			      NSEC_PER_MSEC;
	g->slots = kcalloc(g->nr_slots, sizeof(*g->slots), GFP_KERNEL);
	ud->issued = __alloc_percpu(g->nr_slots * sizeof(u64),
				    __alignof__(u64));
	ud->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	ret = -ENOMEM;
	if (!g->slots || !ud->issued || !ud->page)
		goto err_free;
	uidgen_node_init(&ud->node, g, page_address(ud->page));
	ud->vmfork_nb.notifier_call = uidgen_vmfork;
	INIT_DELAYED_WORK(&ud->life_work, uidgen_life_check);
	INIT_DEFERRABLE_WORK(&ud->clock_work, uidgen_clock_work_fn);
	return ud;

err_free:
	uidgen_free(ud);
	return ERR_PTR(ret);
}

static int __init uidgen_init(void)
{
	struct uidgen_device *ud;
	int ret;

	ud = uidgen_start();
	if (IS_ERR(ud))
		return PTR_ERR(ud);
	ret = register_random_vmfork_notifier(&ud->vmfork_nb);
	if (ret)
		goto err_destroy;
	ret = uidgen_dev_add(ud);
	if (ret)
		goto err_unregister_vmfork;
	uidgen_debugfs_init(ud);
	uidgen_life_check(&ud->life_work.work);
	schedule_delayed_work(&ud->clock_work, 10 * HZ);
	uidgen_device = ud;
	return 0;

err_unregister_vmfork:
	unregister_random_vmfork_notifier(&ud->vmfork_nb);
err_destroy:
	uidgen_node_destroy(&ud->node);
	uidgen_free(ud);
	return ret;
}

static void __exit uidgen_exit(void)
{
	struct uidgen_device *ud = uidgen_device;

	cancel_delayed_work_sync(&ud->clock_work);
	cancel_delayed_work_sync(&ud->life_work);
	uidgen_debugfs_exit(ud);
	uidgen_dev_del(ud);
	unregister_random_vmfork_notifier(&ud->vmfork_nb);
	uidgen_node_destroy(&ud->node);
	uidgen_free(ud);
}

module_init(uidgen_init);
module_exit(uidgen_exit);

MODULE_DESCRIPTION("64-bit time-sortable unique IDs from /dev/uid");
MODULE_AUTHOR("The uidgen developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(UIDGEN_VERSION_STR);
