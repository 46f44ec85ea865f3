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

/* a * b, or U64_MAX if that does not fit. */
static u64 uidgen_mul_sat(u64 a, u64 b)
{
	u64 r;

	return check_mul_overflow(a, b, &r) ? U64_MAX : r;
}

/* a + b, or U64_MAX if that does not fit. */
static u64 uidgen_add_sat(u64 a, u64 b)
{
	u64 r;

	return check_add_overflow(a, b, &r) ? U64_MAX : r;
}

/* Unix ms at which @ticks ticks after the epoch have passed, rounded up. */
static u64 uidgen_ticks_to_ms(const struct uidgen_layout *l, u64 ticks)
{
	/* ticks * tick_us / 1000, rounded up, without overflowing on the way */
	u64 ms = uidgen_mul_sat(ticks / 1000, l->tick_us);
	u64 rest = DIV_ROUND_UP(ticks % 1000 * l->tick_us, 1000);

	return uidgen_add_sat(uidgen_add_sat(ms, rest), l->epoch_ms);
}

/**
 * uidgen_exhausts_at_ms() - When a layout's timestamp field runs out.
 * @l: the layout
 *
 * Context: any.
 * Return: the Unix time in ms at which the first tick the timestamp field
 * cannot hold begins (U64_MAX if beyond 64 bits of ms).
 */
u64 uidgen_exhausts_at_ms(const struct uidgen_layout *l)
{
	return uidgen_ticks_to_ms(l, 1ULL << l->ts_bits);
}

/**
 * uidgen_gen_init() - Check a layout and anchor its clock.
 * @g: the generator to set up (its slots are the caller's)
 * @l: the layout
 * @wall_ns: the wall clock (CLOCK_REALTIME) now, in ns since the Unix epoch
 * @boot_ns: the boot-time clock (CLOCK_BOOTTIME) at the same moment
 * @min_life_ms: refuse a layout with less than this left before it runs out
 * @msg: where to write one line saying what is wrong and what is allowed
 * @len: size of @msg
 *
 * From here on ticks come from the boot-time clock alone, which never goes
 * back, so the wall clock stepping back cannot make a tick repeat.
 *
 * Context: any.
 * Return: 0; -EINVAL for a bad layout or an epoch after the wall clock;
 * -EOVERFLOW if the timestamp field has run out or has less than
 * @min_life_ms left.
 */
int uidgen_gen_init(struct uidgen_gen *g, const struct uidgen_layout *l,
		    u64 wall_ns, u64 boot_ns, u64 min_life_ms,
		    char *msg, size_t len)
{
	u64 wall_ms = div_u64(wall_ns, NSEC_PER_MSEC);
	u64 epoch_ns, end_ms;
	int ret;

	ret = uidgen_layout_check(l, msg, len);
	if (ret)
		return ret;
	if (check_mul_overflow(l->epoch_ms, (u64)NSEC_PER_MSEC, &epoch_ns) ||
	    epoch_ns > wall_ns) {
		scnprintf(msg, len,
			  "epoch_ms=%llu is after the wall clock (%llu ms): the timestamp would be negative",
			  l->epoch_ms, wall_ms);
		return -EINVAL;
	}
	end_ms = uidgen_exhausts_at_ms(l);
	if (end_ms <= wall_ms) {
		scnprintf(msg, len,
			  "timestamp field exhausted: ts_bits=%u ticks of %u us from epoch_ms=%llu ended at %llu ms",
			  l->ts_bits, l->tick_us, l->epoch_ms, end_ms);
		return -EOVERFLOW;
	}
	if (end_ms - wall_ms < min_life_ms) {
		scnprintf(msg, len,
			  "timestamp field runs out at %llu ms, in %llu days: less than min_life_days=%llu",
			  end_ms, div_u64(end_ms - wall_ms, MSEC_PER_SEC * 86400),
			  div_u64(min_life_ms, MSEC_PER_SEC * 86400));
		return -EOVERFLOW;
	}

	g->l = *l;
	g->tick_ns = (u64)l->tick_us * NSEC_PER_USEC;
	g->tick_recip = div64_u64(U64_MAX, g->tick_ns);
	g->tick_mul = (BIT_ULL(l->node_bits + l->slot_bits) - 1) << l->seq_bits;
	g->max_tick = (1ULL << l->ts_bits) - 1;
	g->offset_ns = (s64)(wall_ns - epoch_ns) - (s64)boot_ns;
	g->heal_end_ns = 0;
	g->anchor_ms = wall_ms;
	g->grant_tick = UIDGEN_NO_GRANT;
	g->nr_slots = 1U << l->slot_bits;
	return 0;
}

/**
 * uidgen_tick_start() - The boot-time instant a tick begins.
 * @g: the generator
 * @tick: a tick not before the current one
 *
 * The first instant at which uidgen_tick() reads @tick, the heal included:
 * before @g->heal_end_ns the clock is at t + ((heal - t) >> SHIFT) (less
 * the anchor), so the tick begins d before the heal ends, d the largest
 * with d - (d >> SHIFT) <= r, r how far before the heal's end the tick
 * would begin on the anchor alone: d = r + r / (2^SHIFT - 1).
 *
 * Context: any.
 * Return: CLOCK_BOOTTIME in ns at which @tick begins, or U64_MAX if that
 * is beyond what 64 bits of ns can say.
 */
u64 uidgen_tick_start(const struct uidgen_gen *g, u64 tick)
{
	u64 heal = READ_ONCE(g->heal_end_ns);
	u64 ns = uidgen_mul_sat(tick, g->tick_ns), r, d;

	if (ns == U64_MAX)
		return ns;
	ns -= READ_ONCE(g->offset_ns);
	if (ns >= heal)
		return ns;
	r = heal - ns;
	d = uidgen_add_sat(r, div_u64(r, BIT(UIDGEN_HEAL_SHIFT) - 1));
	return d < heal ? heal - d : 0;
}

/**
 * uidgen_ms_to_tick() - The tick that contains a Unix time.
 * @g: the generator
 * @unix_ms: Unix time in ms
 *
 * Context: any.
 * Return: the tick, 0 for a time before the epoch, U64_MAX if beyond.
 */
u64 uidgen_ms_to_tick(const struct uidgen_gen *g, u64 unix_ms)
{
	if (unix_ms < g->l.epoch_ms)
		return 0;
	return div_u64(uidgen_mul_sat(unix_ms - g->l.epoch_ms, USEC_PER_MSEC),
		       g->l.tick_us);
}

/**
 * uidgen_tick_end_ms() - The Unix time in ms at which a tick has ended.
 * @g: the generator
 * @tick: the tick
 *
 * Rounded up, so that uidgen_ms_to_tick() of the result is after @tick:
 * a floor set to it excludes @tick.
 *
 * Context: any.
 * Return: the Unix time in ms.
 */
u64 uidgen_tick_end_ms(const struct uidgen_gen *g, u64 tick)
{
	return uidgen_ticks_to_ms(&g->l, tick + 1);
}

/**
 * uidgen_ns_to_tick() - The tick that contains a Unix time in ns.
 * @g: the generator
 * @unix_ns: Unix time in ns
 *
 * Context: any.
 * Return: the tick, 0 for a time before the epoch.
 */
u64 uidgen_ns_to_tick(const struct uidgen_gen *g, u64 unix_ns)
{
	u64 epoch_ns = g->l.epoch_ms * NSEC_PER_MSEC;

	if (unix_ns < epoch_ns)
		return 0;
	return div64_u64(unix_ns - epoch_ns, g->tick_ns);
}

/**
 * uidgen_tick_end_ns() - The Unix time in ns at which a tick has ended.
 * @g: the generator
 * @tick: the tick
 *
 * uidgen_ns_to_tick() of the result is @tick + 1: a floor set to it
 * excludes @tick.
 *
 * Context: any.
 * Return: the Unix time in ns, U64_MAX if that does not fit.
 */
u64 uidgen_tick_end_ns(const struct uidgen_gen *g, u64 tick)
{
	return uidgen_add_sat(uidgen_mul_sat(tick + 1, g->tick_ns),
			      g->l.epoch_ms * NSEC_PER_MSEC);
}

/* Raise @v to at least @min. */
static void uidgen_atomic_max(atomic64_t *v, s64 min)
{
	s64 old = atomic64_read(v);

	while (old < min && !atomic64_try_cmpxchg(v, &old, min))
		;
}

/**
 * uidgen_set_floor() - Never issue @floor_tick or any tick before it.
 * @g: the generator
 * @floor_tick: the highest tick that must not be issued
 * @boot_ns: CLOCK_BOOTTIME now
 *
 * If the clock is at or below @floor_tick (the wall clock was behind at
 * load, say after a reboot; a predecessor's grant ahead), the clock moves
 * forward so that it reads @floor_tick + 1 now, and every slot moves past
 * @floor_tick. The lead over the anchor then heals: the clock runs at
 * 15/16 of real time until it is back on the anchor, 16 times the lead
 * later, and never moves back.
 *
 * A floor whose tick ends more than UIDGEN_FLOOR_AHEAD_MAX_NS after the
 * anchor (the wall clock at load, run on by CLOCK_BOOTTIME) is refused: a
 * typo or a clock years off would otherwise skew every timestamp for 16
 * times as long, and the high water would carry it into the next load's
 * floor. So the clock never leads its anchor by more than that bound, and
 * a lead always heals (16 times the bound fits 64 bits of ns).
 *
 * Context: process; the caller serialises floor changes.
 * Return: 0; -EOVERFLOW if no tick is left above @floor_tick; -EDOM if it
 * ends more than UIDGEN_FLOOR_AHEAD_MAX_NS ahead of the anchor. Nothing
 * changes on an error.
 */
int uidgen_set_floor(struct uidgen_gen *g, u64 floor_tick, u64 boot_ns)
{
	u64 seq_bits = g->l.seq_bits, heal = g->heal_end_ns, start, now, lead;
	s64 anchor = (s64)boot_ns + g->offset_ns;
	unsigned int i;

	if (floor_tick >= g->max_tick)
		return -EOVERFLOW;
	start = uidgen_mul_sat(floor_tick + 1, g->tick_ns);
	if (start == U64_MAX)
		return -EOVERFLOW;
	if (start > (u64)max_t(s64, anchor, 0) + UIDGEN_FLOOR_AHEAD_MAX_NS)
		return -EDOM;
	now = uidgen_clock_ns(g, boot_ns);
	if (start > now) {
		/* The lead over the anchor the clock must have now. */
		lead = start - now + (boot_ns < heal ?
				      (heal - boot_ns) >> UIDGEN_HEAL_SHIFT : 0);
		/* One word written, forward: a reader sees before or after. */
		WRITE_ONCE(g->heal_end_ns, boot_ns + (lead << UIDGEN_HEAL_SHIFT));
	}
	for (i = 0; i < g->nr_slots; i++)
		uidgen_atomic_max(&g->slots[i].last,
				  ((floor_tick + 1) << seq_bits) - 1);
	return 0;
}

/**
 * uidgen_raise_grant() - Let ticks up to @grant_tick be issued.
 * @g: the generator
 * @grant_tick: the last tick that may be issued
 *
 * Grants only rise. The first grant also ends the unlimited mode (no grant
 * limit) a generator starts in: from then on it issues nothing past what
 * userspace has persisted.
 *
 * Context: any; the caller serialises grant changes.
 */
void uidgen_raise_grant(struct uidgen_gen *g, u64 grant_tick)
{
	u64 cur = g->grant_tick;

	if (cur == UIDGEN_NO_GRANT || grant_tick > cur)
		WRITE_ONCE(g->grant_tick, grant_tick);
}

/**
 * uidgen_fence_slots() - Move every slot that issued past its last tick.
 * @g: the generator
 *
 * After a node ID change, IDs from the next tick on are greater than every
 * ID the slot issued under the old node, whatever the two node IDs.
 *
 * Context: any.
 */
void uidgen_fence_slots(struct uidgen_gen *g)
{
	u64 seq_bits = g->l.seq_bits;
	unsigned int i;

	for (i = 0; i < g->nr_slots; i++) {
		s64 last = atomic64_read(&g->slots[i].last);

		if (last)
			uidgen_atomic_max(&g->slots[i].last,
					  ((((u64)last >> seq_bits) + 1) << seq_bits) - 1);
	}
}

/**
 * uidgen_high_water() - The highest tick any slot has issued.
 * @g: the generator
 *
 * Context: any.
 * Return: the tick, or 0 if nothing was issued.
 */
u64 uidgen_high_water(const struct uidgen_gen *g)
{
	u64 high = 0;
	unsigned int i;

	for (i = 0; i < g->nr_slots; i++)
		high = max_t(u64, high,
			     (u64)atomic64_read(&g->slots[i].last) >> g->l.seq_bits);
	return high;
}

/**
 * uidgen_observe_check() - What observing @id would do, without doing it.
 * @g: the generator
 * @id: an ID of @g's layout, from any node
 * @boot_ns: CLOCK_BOOTTIME now
 *
 * The rule: every ID issued after an observe is in a later tick than @id.
 * Node, slot and sequence play no part, so the rule holds whatever node
 * ID is in force later, and the caller never compares them. The bound is
 * against the anchor, the clock without any lead, so that a chain of
 * observes cannot ratchet the ID clock further ahead than
 * @g->observe_ahead_ns and a tick.
 *
 * Context: any; lock-free.
 * Return: 1 if the clock or a slot must move (@id's tick is the current
 * one or later); 0 if it is from an earlier tick, so every ID issued from
 * now on is greater already; -EINVAL for bit 63 set; -EDOM if @id's tick
 * begins more than @g->observe_ahead_ns after the anchor; -EOVERFLOW if
 * no tick is left after it.
 */
int uidgen_observe_check(const struct uidgen_gen *g, u64 id, u64 boot_ns)
{
	unsigned int shift = g->l.node_bits + g->l.slot_bits + g->l.seq_bits;
	u64 tick = id >> shift, anchor;

	if (id >> UIDGEN_ID_BITS)
		return -EINVAL;
	anchor = boot_ns + READ_ONCE(g->offset_ns);
	if (uidgen_mul_sat(tick, g->tick_ns) >
	    uidgen_add_sat(anchor, g->observe_ahead_ns))
		return -EDOM;
	if (tick >= g->max_tick)
		return -EOVERFLOW;
	return tick >= uidgen_tick(g, boot_ns);
}

/**
 * uidgen_observe() - Make every ID issued from now on greater than @id.
 * @g: the generator
 * @id: an ID of @g's layout, from any node
 * @boot_ns: CLOCK_BOOTTIME now
 *
 * Checks as uidgen_observe_check() does; if @id's tick is the current one
 * or later, moves the clock so that it reads the tick after it now (a
 * lead that heals as a floor's does) and every slot past it, so that a
 * compare-and-swap that races this one retries above it. Grants are left
 * as they are: a slot past the grant waits for it, as always.
 *
 * Context: process; the caller serialises it with floor changes.
 * Return: 1 if the clock or a slot moved, 0 if nothing had to, or the
 * errno uidgen_observe_check() gives.
 */
int uidgen_observe(struct uidgen_gen *g, u64 id, u64 boot_ns)
{
	unsigned int shift = g->l.node_bits + g->l.slot_bits + g->l.seq_bits;
	int ret = uidgen_observe_check(g, id, boot_ns);

	if (ret <= 0)
		return ret;
	ret = uidgen_set_floor(g, id >> shift, boot_ns);
	return ret ? ret : 1;
}
