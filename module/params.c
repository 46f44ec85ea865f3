// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameters (status.c has the status files, debugfs and the
 * log line when the ID clock and the wall clock come apart).
 *
 * Every parameter is read-only once the module is loaded: they fix the
 * layout and the generator's limits for the life of the load. The node ID
 * is not one of them: it is assigned, renewed and revoked only through the
 * ioctls (dev.c, node.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

static unsigned int max_borrow_ticks;

static int uidgen_borrow_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned int borrow;
	int ret;

	ret = kstrtouint(val, 10, &borrow);
	if (ret)
		return ret;
	if (borrow > UIDGEN_BORROW_MAX)
		return -ERANGE;
	max_borrow_ticks = borrow;
	return 0;
}

static int uidgen_borrow_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", max_borrow_ticks);
}

static const struct kernel_param_ops uidgen_borrow_param_ops = {
	.set	= uidgen_borrow_param_set,
	.get	= uidgen_borrow_param_get,
};
module_param_cb(max_borrow_ticks, &uidgen_borrow_param_ops, NULL, 0444);
MODULE_PARM_DESC(max_borrow_ticks, "How many ticks ahead of the clock a slot may run before callers wait (0..1000000, default 0)");

/*
 * How far ahead of this machine's clock an observed ID may be. 500 ms, as
 * CockroachDB's default max clock offset: well above what NTP keeps
 * between machines (a few ms on a LAN, tens over the internet), so an
 * honest peer's ID is never refused; small enough that the lead it leaves
 * heals in 8 s (16 times the lead) and stays inside a lease's grant window
 * (2/3 of a TTL of seconds), so callers do not wait at the grant. An ID
 * further ahead comes from a clock that is wrong, and must not move this
 * one, nor through the floor the next load's. At most 60000 (a minute's
 * lead heals in 16 minutes).
 */
#define UIDGEN_OBSERVE_AHEAD_MAX_MS	60000U
static unsigned int observe_ahead_ms = 500;

static int uidgen_ahead_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint(val, 10, &ms);
	if (ret)
		return ret;
	if (ms > UIDGEN_OBSERVE_AHEAD_MAX_MS)
		return -ERANGE;
	observe_ahead_ms = ms;
	return 0;
}

static int uidgen_ahead_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", observe_ahead_ms);
}

static const struct kernel_param_ops uidgen_ahead_param_ops = {
	.set	= uidgen_ahead_param_set,
	.get	= uidgen_ahead_param_get,
};
module_param_cb(observe_ahead_ms, &uidgen_ahead_param_ops, NULL, 0444);
MODULE_PARM_DESC(observe_ahead_ms, "Refuse (EDOM) an observed ID whose tick begins more than this many ms after this machine's clock (0..60000, default 500)");

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
 * uidgen_params_max_borrow() - max_borrow_ticks.
 *
 * Context: module init.
 * Return: how many ticks ahead of the clock a slot may run.
 */
unsigned int uidgen_params_max_borrow(void)
{
	return max_borrow_ticks;
}

/**
 * uidgen_params_observe_ahead_ms() - observe_ahead_ms.
 *
 * Context: module init.
 * Return: how far ahead of this machine's clock an observed ID may be.
 */
unsigned int uidgen_params_observe_ahead_ms(void)
{
	return observe_ahead_ms;
}
