// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen: module init and exit, and the two things the module watches
 * for as long as it is loaded: a VM fork (revoke the node ID) and time
 * (the timestamp field's remaining life, the ID clock drifting from the
 * wall clock).
 *
 * The files: gen.c is the generator core (pure arithmetic); node.c the
 * node ID's life and the fence; mint.c the minting path (read(), the IDs
 * of BATCH and RESERVE); dev.c /dev/uid, its ioctls and mmap; params.c
 * the module parameters; status.c the status files in sysfs and debugfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

struct uidgen_gen uidgen_dev_gen;
struct uidgen_node_ctl uidgen_dev_node;
/* IDs issued, per CPU and slot: [cpu][slot]. */
u64 __percpu *uidgen_issued;
static struct page *uidgen_page;

/* A VM fork or snapshot restore: two machines now share this node ID. */
static int uidgen_vmfork(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	uidgen_node_vmfork(&uidgen_dev_node);
	return NOTIFY_DONE;
}

static struct notifier_block uidgen_vmfork_nb = {
	.notifier_call = uidgen_vmfork,
};

/* Say so, daily, once the timestamp field has under a year left. */
static void uidgen_life_check(struct work_struct *work);
static DECLARE_DELAYED_WORK(uidgen_life_work, uidgen_life_check);

static void uidgen_life_check(struct work_struct *work)
{
	u64 end = uidgen_exhausts_at_ms(&uidgen_dev_gen.l);
	u64 now = ktime_get_real_ns() / NSEC_PER_MSEC;

	if (end > now && end - now < 365 * UIDGEN_MS_PER_DAY)
		pr_warn("the timestamp field runs out in %llu days (at %llu ms): plan a new layout or epoch\n",
			div64_u64(end - now, UIDGEN_MS_PER_DAY), end);
	schedule_delayed_work(&uidgen_life_work, 86400 * HZ);
}

/*
 * Every 10 s: has a wall-clock step left the ID clock apart from it?
 * Deferrable: an idle CPU is not woken for it, the check runs with the
 * next wakeup instead. No event serves: the kernel tells no module when
 * CLOCK_REALTIME is set.
 */
static void uidgen_clock_work_fn(struct work_struct *work);
static DECLARE_DEFERRABLE_WORK(uidgen_clock_work, uidgen_clock_work_fn);

static void uidgen_clock_work_fn(struct work_struct *work)
{
	uidgen_clock_check();
	schedule_delayed_work(&uidgen_clock_work, 10 * HZ);
}

static void uidgen_free(void)
{
	if (uidgen_page)
		__free_page(uidgen_page);
	free_percpu(uidgen_issued);
	kfree(uidgen_dev_gen.slots);
}

/* The generator and its node, with no node ID assigned. */
static int uidgen_start(void)
{
	struct uidgen_layout l = uidgen_params_layout();
	struct uidgen_gen *g = &uidgen_dev_gen;
	char msg[192];
	int ret;

	ret = uidgen_gen_init(g, &l, ktime_get_real_ns(), ktime_get_boottime_ns(),
			      uidgen_params_min_life_ms(), msg, sizeof(msg));
	if (ret) {
		pr_err("%s\n", msg);
		return ret;
	}
	g->slots = kcalloc(g->nr_slots, sizeof(*g->slots), GFP_KERNEL);
	uidgen_issued = __alloc_percpu(g->nr_slots * sizeof(u64),
				       __alignof__(u64));
	uidgen_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!g->slots || !uidgen_issued || !uidgen_page)
		return -ENOMEM;
	uidgen_node_init(&uidgen_dev_node, g, page_address(uidgen_page));
	return 0;
}

static int __init uidgen_init(void)
{
	int ret;

	ret = uidgen_start();
	if (ret)
		goto err_free;
	ret = register_random_vmfork_notifier(&uidgen_vmfork_nb);
	if (ret)
		goto err_destroy;
	ret = uidgen_dev_add();
	if (ret)
		goto err_unregister_vmfork;
	uidgen_debugfs_init();
	uidgen_life_check(NULL);
	schedule_delayed_work(&uidgen_clock_work, 10 * HZ);
	return 0;

err_unregister_vmfork:
	unregister_random_vmfork_notifier(&uidgen_vmfork_nb);
err_destroy:
	uidgen_node_destroy(&uidgen_dev_node);
err_free:
	uidgen_free();
	return ret;
}

static void __exit uidgen_exit(void)
{
	cancel_delayed_work_sync(&uidgen_clock_work);
	cancel_delayed_work_sync(&uidgen_life_work);
	uidgen_debugfs_exit();
	uidgen_dev_del();
	unregister_random_vmfork_notifier(&uidgen_vmfork_nb);
	uidgen_node_destroy(&uidgen_dev_node);
	uidgen_free();
}

module_init(uidgen_init);
module_exit(uidgen_exit);

MODULE_DESCRIPTION("64-bit time-sortable unique IDs from /dev/uid");
MODULE_AUTHOR("The uidgen developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(UIDGEN_VERSION_STR);
