// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen: module init and exit, and the one thing the module watches for
 * as long as it is loaded: a VM fork (revoke the node ID). What userspace
 * can read for itself it watches for itself: the timestamp field's life
 * (UIDGEN_IOC_INFO), the ID clock against the wall clock (clock_offset_ms
 * in sysfs); uidgen stats says both.
 *
 * It allocates the one struct uidgen_device (internal.h) and frees it:
 * everything the module keeps while loaded is in there.
 *
 * The files: gen.c is the generator core (pure arithmetic); noderules.c
 * the node rules (pure, shared with uidgen-lease's stand-in); node.c
 * (node.h) the node ID's life and the fence; mint.c the minting path
 * (read(), the IDs of BATCH and RESERVE); dev.c /dev/uid, its ioctls and
 * mmap; params.c the module parameters; status.c the status files in
 * sysfs and debugfs.
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

#include <linux/uidgen.h>

#include "gen.h"
#include "internal.h"

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
