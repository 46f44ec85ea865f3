// SPDX-License-Identifier: GPL-2.0
/*
 * The generator core. Everything here is a plain function of its arguments
 * (a layout, a slot, a "now"), so KUnit can drive it with a fake clock.
 *
 * A slot's state is the last (tick << seq_bits | seq) it issued. Handing
 * out IDs is one compare-and-swap that moves that word forward past a run
 * of sequence numbers within the current tick. Whatever the caller does
 * between reading the clock and the swap (sleep, migrate, be interrupted),
 * two callers can never both win the same run: that is the whole argument
 * for uniqueness within a slot, and the slot number in the ID covers the
 * rest.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/time64.h>

#include <linux/uidgen.h>

#include "gen.h"

/**
 * uidgen_layout_check() - Validate a layout.
 * @l: the layout to check
 * @msg: where to write one line saying what is wrong and what is allowed
 * @len: size of @msg
 *
 * Context: any.
 * Return: 0 if @l is usable, else -EINVAL with @msg filled in.
 */
int uidgen_layout_check(const struct uidgen_layout *l, char *msg, size_t len)
{
	const struct {
		const char *name;
		unsigned int val, lo, hi;
	} range[] = {
		{ "ts_bits", l->ts_bits, UIDGEN_TS_BITS_MIN, UIDGEN_TS_BITS_MAX },
		{ "node_bits", l->node_bits, 0, UIDGEN_NODE_BITS_MAX },
		{ "slot_bits", l->slot_bits, 0, UIDGEN_SLOT_BITS_MAX },
		{ "seq_bits", l->seq_bits, UIDGEN_SEQ_BITS_MIN, UIDGEN_SEQ_BITS_MAX },
		{ "tick_us", l->tick_us, UIDGEN_TICK_US_MIN, UIDGEN_TICK_US_MAX },
	};
	unsigned int i, sum;

	for (i = 0; i < ARRAY_SIZE(range); i++) {
		if (range[i].val < range[i].lo || range[i].val > range[i].hi) {
			scnprintf(msg, len,
				  "invalid layout: %s=%u is out of range, allowed %u..%u",
				  range[i].name, range[i].val, range[i].lo,
				  range[i].hi);
			return -EINVAL;
		}
	}

	sum = l->ts_bits + l->node_bits + l->slot_bits + l->seq_bits;
	if (sum != UIDGEN_ID_BITS) {
		scnprintf(msg, len,
			  "invalid layout: ts_bits=%u + node_bits=%u + slot_bits=%u + seq_bits=%u = %u, must be %u",
			  l->ts_bits, l->node_bits, l->slot_bits, l->seq_bits,
			  sum, UIDGEN_ID_BITS);
		return -EINVAL;
	}
	return 0;
}

/**
 * uidgen_clock_init() - Anchor the tick clock to the wall clock.
 * @c: the clock to set up
 * @l: a layout that passed uidgen_layout_check()
 * @wall_ns: the wall clock (CLOCK_REALTIME) now, in ns since the Unix epoch
 * @boot_ns: the boot-time clock (CLOCK_BOOTTIME) at the same moment
 * @msg: where to write one line saying what is wrong
 * @len: size of @msg
 *
 * From here on ticks come from the boot-time clock alone, which never goes
 * back, so the wall clock stepping back cannot make a tick repeat.
 *
 * Context: any.
 * Return: 0, or -EINVAL if the wall clock is before the epoch, or
 * -EOVERFLOW if the timestamp field is already exhausted.
 */
int uidgen_clock_init(struct uidgen_clock *c, const struct uidgen_layout *l,
		      u64 wall_ns, u64 boot_ns, char *msg, size_t len)
{
	u64 epoch_ns, since_ns;

	if (check_mul_overflow(l->epoch_ms, (u64)NSEC_PER_MSEC, &epoch_ns) ||
	    epoch_ns > wall_ns) {
		scnprintf(msg, len,
			  "epoch_ms=%llu is after the wall clock (%llu ms): the timestamp would be negative",
			  l->epoch_ms, div_u64(wall_ns, NSEC_PER_MSEC));
		return -EINVAL;
	}
	since_ns = wall_ns - epoch_ns;
	c->tick_ns = (u64)l->tick_us * NSEC_PER_USEC;
	c->max_tick = (1ULL << l->ts_bits) - 1;
	c->offset_ns = (s64)since_ns - (s64)boot_ns;
	if (div64_u64(since_ns, c->tick_ns) > c->max_tick) {
		scnprintf(msg, len,
			  "timestamp field exhausted: ts_bits=%u ticks of %u us from epoch_ms=%llu end before now",
			  l->ts_bits, l->tick_us, l->epoch_ms);
		return -EOVERFLOW;
	}
	return 0;
}

/**
 * uidgen_clock_tick() - The tick at a boot-time instant.
 * @c: the clock
 * @boot_ns: CLOCK_BOOTTIME in ns, not earlier than at uidgen_clock_init()
 *
 * Context: any.
 * Return: ticks since the epoch (may exceed @c->max_tick: callers check).
 */
u64 uidgen_clock_tick(const struct uidgen_clock *c, u64 boot_ns)
{
	return div64_u64(boot_ns + c->offset_ns, c->tick_ns);
}

/**
 * uidgen_clock_tick_start() - The boot-time instant a tick begins.
 * @c: the clock
 * @tick: a tick not before the one at uidgen_clock_init()
 *
 * Context: any.
 * Return: CLOCK_BOOTTIME in ns at which @tick begins, or U64_MAX if that
 * is beyond what 64 bits of ns can say.
 */
u64 uidgen_clock_tick_start(const struct uidgen_clock *c, u64 tick)
{
	u64 ns;

	if (check_mul_overflow(tick, c->tick_ns, &ns))
		return U64_MAX;
	return ns - c->offset_ns;
}

/**
 * uidgen_reserve() - Take a run of consecutive sequence numbers in one tick.
 * @s: the slot
 * @seq_bits: width of the sequence field
 * @now: the current tick
 * @n: how many are wanted, at least 1
 * @first: out: the first (tick << seq_bits | seq) of the run
 *
 * The run never crosses a tick and never runs ahead of @now, so it may be
 * shorter than @n. The caller owns first .. first + return - 1.
 *
 * Context: any; lock-free.
 * Return: the length of the run, or 0 if @now's sequence numbers are
 * spent and the caller must wait for a later tick.
 */
u32 uidgen_reserve(struct uidgen_slot *s, unsigned int seq_bits, u64 now,
		   u32 n, u64 *first)
{
	u64 end = (now + 1) << seq_bits;
	s64 old = atomic64_read(&s->last);
	u64 base, got;

	do {
		base = max_t(u64, (u64)old + 1, now << seq_bits);
		/* Another caller may have seen a later tick than @now. */
		if (base >= end)
			return 0;
		got = min_t(u64, n, end - base);
	} while (!atomic64_try_cmpxchg(&s->last, &old, base + got - 1));

	*first = base;
	return got;
}
