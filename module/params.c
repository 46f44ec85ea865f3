// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameters, and the log line when the ID clock and the wall
 * clock come apart (status.c has the status files and debugfs).
 *
 * Locking: the kernel calls every parameter's set and get with the
 * module's kernel_param_lock held, and uidgen_init() and uidgen_exit()
 * take it too while they move uidgen_phase. So a parameter written while
 * the module loads is either seen by init (which checks it like a load
 * parameter) or applied after init, with the checks a live write gets; and
 * once the module is going, or failed to load, writes get ENODEV instead of
 * touching memory that is being freed.
 *
 * Numbers are decimal: a node ID of 010 is ten, never octal eight.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include <linux/uidgen.h>

#include "gen.h"
#include "internal.h"

static unsigned int ts_bits = UIDGEN_DEFAULT_TS_BITS;
module_param(ts_bits, uint, 0444);
MODULE_PARM_DESC(ts_bits, "Width of the timestamp field (20..60, default 41)");

static unsigned int node_bits = UIDGEN_DEFAULT_NODE_BITS;
module_param(node_bits, uint, 0444);
MODULE_PARM_DESC(node_bits, "Width of the node field (0..20, default 5)");

static unsigned int slot_bits = UIDGEN_DEFAULT_SLOT_BITS;
module_param(slot_bits, uint, 0444);
MODULE_PARM_DESC(slot_bits, "Width of the per-CPU slot field (0..10, default 5)");

static unsigned int seq_bits = UIDGEN_DEFAULT_SEQ_BITS;
module_param(seq_bits, uint, 0444);
MODULE_PARM_DESC(seq_bits, "Width of the sequence field (1..30, default 12)");

static unsigned int tick_us = UIDGEN_DEFAULT_TICK_US;
module_param(tick_us, uint, 0444);
MODULE_PARM_DESC(tick_us, "Length of a timestamp tick in us (1..60000000, default 1000)");

static unsigned long long epoch_ms = UIDGEN_DEFAULT_EPOCH_MS;
module_param(epoch_ms, ullong, 0444);
MODULE_PARM_DESC(epoch_ms, "Unix time in ms of timestamp 0 (default 1767225600000, 2026-01-01T00:00:00Z)");

static unsigned int min_life_days = 30;
module_param(min_life_days, uint, 0444);
MODULE_PARM_DESC(min_life_days, "Refuse a layout whose timestamp field runs out sooner (default 30)");

/* Where the module is in its life; changed under kernel_param_lock. */
static enum {
	UIDGEN_LOADING,		/* parameters are recorded for init */
	UIDGEN_LIVE,		/* parameters act on the generator */
	UIDGEN_GONE,		/* unloading, or init failed: ENODEV */
} uidgen_phase;

/* Load-time node_id, floor_ms and node_new, for uidgen_params_start(). */
static int uidgen_load_node = -1;
static u64 uidgen_load_floor_ms;
static bool uidgen_load_new;

/* Log the bad value of a write that is refused, and say what is allowed. */
#define uidgen_param_err(kp, val, why) \
	pr_err_ratelimited("%s=%s: %s\n", (kp)->name, strim(val), why)

/* Parameter writes after load need CAP_SYS_ADMIN; none once going. */
static int uidgen_param_live(void)
{
	if (uidgen_phase == UIDGEN_GONE)
		return -ENODEV;
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}

static int uidgen_node_param_set(const char *val, const struct kernel_param *kp)
{
	char buf[16];
	int node, ret;

	strscpy(buf, val, sizeof(buf));
	ret = kstrtoint(val, 10, &node);
	if (ret || node < -1) {
		uidgen_param_err(kp, buf, "give a node ID in decimal, or -1 to revoke");
		return ret ?: -EINVAL;
	}
	if (uidgen_phase == UIDGEN_LOADING) {
		/* Nothing to revoke yet: leave node_id out instead. */
		if (node < 0)
			return -EINVAL;
		/* Checked against node_bits by uidgen_params_start(). */
		uidgen_load_node = node;
		return 0;
	}
	ret = uidgen_param_live();
	if (ret)
		return ret;
	if (node == -1)
		return uidgen_node_revoke(&uidgen_dev_node, UIDGEN_NODE_NONE, 0,
					  "by the administrator");
	return uidgen_node_set_pending(&uidgen_dev_node, node);
}

static int uidgen_node_param_get(char *buf, const struct kernel_param *kp)
{
	u32 node;

	if (uidgen_phase == UIDGEN_LOADING)
		return sysfs_emit(buf, "%d\n", uidgen_load_node);
	if (uidgen_node_state(&uidgen_dev_node, &node) == UIDGEN_NODE_STATE_NONE)
		return sysfs_emit(buf, "-1\n");
	return sysfs_emit(buf, "%u\n", node);
}

static const struct kernel_param_ops uidgen_node_param_ops = {
	.set	= uidgen_node_param_set,
	.get	= uidgen_node_param_get,
};
module_param_cb(node_id, &uidgen_node_param_ops, NULL, 0644);
MODULE_PARM_DESC(node_id, "This machine's node ID, decimal, 0..2^node_bits-1: pending (nothing issued) until its floor_ms or node_new=1 arrives; writing -1 revokes");

static int uidgen_floor_param_set(const char *val, const struct kernel_param *kp)
{
	char buf[24];
	u64 floor_ms;
	int ret;

	strscpy(buf, val, sizeof(buf));
	ret = kstrtou64(val, 10, &floor_ms);
	if (ret) {
		uidgen_param_err(kp, buf, "give Unix time in ms, in decimal");
		return ret;
	}
	if (uidgen_phase == UIDGEN_LOADING) {
		uidgen_load_floor_ms = floor_ms;
		return 0;
	}
	ret = uidgen_param_live();
	if (ret)
		return ret;
	if (floor_ms > U64_MAX / NSEC_PER_MSEC) {
		uidgen_param_err(kp, buf, "leaves no tick before the timestamp field runs out");
		return -EOVERFLOW;
	}
	if (floor_ms * NSEC_PER_MSEC < READ_ONCE(uidgen_dev_node.floor_unix_ns)) {
		uidgen_param_err(kp, buf, "is below the floor in force: floors only rise");
		return -EINVAL;
	}
	if (!floor_ms) {
		uidgen_param_err(kp, buf, "a floor of 0 says nothing: for a node ID that never issued, write node_new");
		return -EINVAL;
	}
	ret = uidgen_node_floor(&uidgen_dev_node, floor_ms * NSEC_PER_MSEC);
	if (ret)
		uidgen_param_err(kp, buf, "leaves no tick before the timestamp field runs out");
	else
		pr_info("floor %llu ms\n", floor_ms);
	return ret;
}

static int uidgen_floor_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", uidgen_phase == UIDGEN_LOADING ?
			  uidgen_load_floor_ms :
			  DIV_ROUND_UP_ULL(READ_ONCE(uidgen_dev_node.floor_unix_ns),
					   NSEC_PER_MSEC));
}

static const struct kernel_param_ops uidgen_floor_param_ops = {
	.set	= uidgen_floor_param_set,
	.get	= uidgen_floor_param_get,
};
module_param_cb(floor_ms, &uidgen_floor_param_ops, NULL, 0644);
MODULE_PARM_DESC(floor_ms, "Never issue a tick that contains this Unix time in ms or an earlier one (decimal; only rises); completes a pending node_id");

static int uidgen_new_param_set(const char *val, const struct kernel_param *kp)
{
	char buf[8];
	bool yes;
	int ret;

	strscpy(buf, val, sizeof(buf));
	if (kstrtobool(val, &yes)) {
		uidgen_param_err(kp, buf, "give 1 to say the node ID never issued an ID");
		return -EINVAL;
	}
	if (uidgen_phase == UIDGEN_LOADING) {
		uidgen_load_new = yes;
		return 0;
	}
	ret = uidgen_param_live();
	if (ret || !yes)
		return ret;
	ret = uidgen_node_new(&uidgen_dev_node);
	if (ret == -ENOENT)
		uidgen_param_err(kp, buf, "no node ID is pending: write node_id first");
	return ret;
}

static int uidgen_new_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", uidgen_load_new);
}

static const struct kernel_param_ops uidgen_new_param_ops = {
	.set	= uidgen_new_param_set,
	.get	= uidgen_new_param_get,
};
module_param_cb(node_new, &uidgen_new_param_ops, NULL, 0644);
MODULE_PARM_DESC(node_new, "1: node_id has never issued an ID anywhere, so it needs no floor (first start only)");

static int uidgen_borrow_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned int borrow;
	int ret;

	ret = kstrtouint(val, 10, &borrow);
	if (ret)
		return ret;
	if (borrow > UIDGEN_BORROW_MAX)
		return -ERANGE;
	if (uidgen_phase != UIDGEN_LOADING) {
		ret = uidgen_param_live();
		if (ret)
			return ret;
	}
	/* uidgen_gen_init() leaves max_borrow alone: this holds at load too. */
	WRITE_ONCE(uidgen_dev_gen.max_borrow, borrow);
	return 0;
}

static int uidgen_borrow_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(uidgen_dev_gen.max_borrow));
}

static const struct kernel_param_ops uidgen_borrow_param_ops = {
	.set	= uidgen_borrow_param_set,
	.get	= uidgen_borrow_param_get,
};
module_param_cb(max_borrow_ticks, &uidgen_borrow_param_ops, NULL, 0644);
MODULE_PARM_DESC(max_borrow_ticks, "How many ticks ahead of the clock a slot may run before callers wait (0..1000000, default 0)");

static unsigned int clock_step_ms = 1000;
module_param(clock_step_ms, uint, 0644);
MODULE_PARM_DESC(clock_step_ms, "Log when the ID clock and the wall clock are this many ms apart (default 1000, 0: never)");

/**
 * uidgen_params_layout() - The layout the parameters ask for.
 *
 * Context: module init.
 * Return: the layout, unchecked.
 */
struct uidgen_layout uidgen_params_layout(void)
{
	struct uidgen_layout l = {
		.ts_bits = ts_bits, .node_bits = node_bits,
		.slot_bits = slot_bits, .seq_bits = seq_bits,
		.tick_us = tick_us, .epoch_ms = epoch_ms,
	};
	return l;
}

/**
 * uidgen_params_min_life_ms() - min_life_days, in ms.
 *
 * Context: module init.
 * Return: the shortest life a layout may have left.
 */
u64 uidgen_params_min_life_ms(void)
{
	return (u64)min_life_days * 86400 * MSEC_PER_SEC;
}

/**
 * uidgen_params_start() - Apply the load-time node_id, floor_ms, node_new.
 *
 * The generator and its node are set up. From here on parameter writes act
 * on them.
 *
 * Context: module init, with kernel_param_lock(THIS_MODULE) held.
 * Return: 0, or -EINVAL (and a log line) if they do not fit the layout.
 */
int uidgen_params_start(void)
{
	struct uidgen_node_ctl *n = &uidgen_dev_node;
	int node = uidgen_load_node;
	int ret;

	if (node >= 0 && node >= (1LL << node_bits)) {
		pr_err("node_id=%d does not fit node_bits=%u, allowed 0..%llu\n",
		       node, node_bits, (1ULL << node_bits) - 1);
		return -EINVAL;
	}
	if (uidgen_load_new && node < 0) {
		pr_err("node_new=1 says node_id never issued, but no node_id is given\n");
		return -EINVAL;
	}
	if (uidgen_load_floor_ms > U64_MAX / NSEC_PER_MSEC) {
		pr_err("floor_ms=%llu leaves no tick before the timestamp field runs out\n",
		       uidgen_load_floor_ms);
		return -EOVERFLOW;
	}
	if (uidgen_load_floor_ms) {
		ret = uidgen_node_floor(n, uidgen_load_floor_ms * NSEC_PER_MSEC);
		if (ret) {
			pr_err("floor_ms=%llu leaves no tick before the timestamp field runs out\n",
			       uidgen_load_floor_ms);
			return ret;
		}
	}
	if (node >= 0 && (uidgen_load_floor_ms || uidgen_load_new)) {
		/*
		 * The node ID and its floor (or node_new) together: assign it
		 * in one step, so the log says only "assigned", not first
		 * "pending ... use node_new=1". floor_ms wins over node_new.
		 */
		struct uidgen_rules_req req = {
			.node_id = node,
			.new = !uidgen_load_floor_ms,
			.floor_unix_ns = uidgen_load_floor_ms * NSEC_PER_MSEC,
		};

		ret = uidgen_node_assign(n, &req);
		if (ret)
			return ret;
	} else if (node >= 0) {
		ret = uidgen_node_set_pending(n, node);
		if (ret)
			return ret;
	}
	uidgen_phase = UIDGEN_LIVE;
	return 0;
}

/**
 * uidgen_params_stop() - From now on parameter writes fail with ENODEV.
 *
 * Context: module exit or failed init, with kernel_param_lock held.
 */
void uidgen_params_stop(void)
{
	uidgen_phase = UIDGEN_GONE;
}

/**
 * uidgen_clock_check() - Log a gap between the ID clock and the wall clock.
 *
 * Says so when the two come more than clock_step_ms apart (a wall-clock
 * step during this load, or a floor that put the ID clock ahead), and
 * again only when the gap moves by as much again: once per step, not once
 * per check, and not while a floor's lead heals (the gap shrinking).
 *
 * Context: process; called from one delayed work only.
 */
void uidgen_clock_check(void)
{
	static s64 logged;
	unsigned int limit = READ_ONCE(clock_step_ms);
	s64 off = uidgen_clock_offset_ms();

	if (!limit || abs(off) <= limit) {
		logged = 0;
		return;
	}
	/* Moved by less than the limit, or shrinking on the same side. */
	if (abs(off - logged) <= limit ||
	    ((off ^ logged) >= 0 && abs(off) < abs(logged)))
		return;
	logged = off;
	pr_warn("the ID clock is %lld ms %s the wall clock (a clock step, or a floor ahead of it): a floor's lead heals at 1/16 of real time, a step stays until the next load; see the admin guide, \"A node ID's life\"\n",
		abs(off), off > 0 ? "ahead of" : "behind");
}
