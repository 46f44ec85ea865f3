/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generator core: layout checks, the tick clock, floors and slot
 * reservation. Pure functions over a state and a "now" (CLOCK_BOOTTIME in
 * ns, passed in): no device, no file, no current, so KUnit can drive it
 * with a fake clock.
 */
#ifndef _UIDGEN_GEN_H
#define _UIDGEN_GEN_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/types.h>

/* The layout a module loaded without layout parameters uses. */
#define UIDGEN_DEFAULT_TS_BITS		41
#define UIDGEN_DEFAULT_NODE_BITS	5
#define UIDGEN_DEFAULT_SLOT_BITS	5
#define UIDGEN_DEFAULT_SEQ_BITS		12
#define UIDGEN_DEFAULT_TICK_US		1000
/* 2026-01-01T00:00:00Z */
#define UIDGEN_DEFAULT_EPOCH_MS		1767225600000ULL

/* Limits on each field's width; the four widths must add up to 63. */
#define UIDGEN_TS_BITS_MIN	20
#define UIDGEN_TS_BITS_MAX	60
#define UIDGEN_NODE_BITS_MAX	20
#define UIDGEN_SLOT_BITS_MAX	10
#define UIDGEN_SEQ_BITS_MIN	1
#define UIDGEN_SEQ_BITS_MAX	30
#define UIDGEN_TICK_US_MIN	1
#define UIDGEN_TICK_US_MAX	60000000U
/* How far a slot may run ahead of the clock, in ticks. */
#define UIDGEN_BORROW_MAX	1000000U
/* struct uidgen_gen.grant_tick when no grant limits the ticks issued. */
#define UIDGEN_NO_GRANT		U64_MAX
/*
 * Set in *wait_tick by uidgen_reserve(): wait for the grant to reach the
 * tick in the other bits, not for the clock to. (Ticks fit in 60 bits.)
 */
#define UIDGEN_WAIT_GRANT	BIT_ULL(63)
/*
 * While a floor holds the ID clock ahead of its anchor, the clock runs at
 * 1 - 1/2^UIDGEN_HEAL_SHIFT (15/16) of real time until it is back on it:
 * a lead of E heals in 16 * E, a shift on the hot path, and a saturated
 * slot issues 1/16 fewer IDs a second meanwhile.
 */
#define UIDGEN_HEAL_SHIFT	4

/**
 * struct uidgen_layout - how the 63 bits of an ID are shared out
 * @ts_bits: width of the timestamp field
 * @node_bits: width of the node field
 * @slot_bits: width of the slot field
 * @seq_bits: width of the sequence field
 * @tick_us: length of one timestamp tick in microseconds
 * @epoch_ms: Unix time in milliseconds of tick 0
 */
struct uidgen_layout {
	unsigned int ts_bits;
	unsigned int node_bits;
	unsigned int slot_bits;
	unsigned int seq_bits;
	unsigned int tick_us;
	u64 epoch_ms;
};

/**
 * struct uidgen_slot - one slot's state and counters
 * @last: the last (tick << seq_bits | seq) this slot issued, 0 before any
 * @waits: times a caller had to wait for a later tick
 * @behind: times a caller's clock reading was behind the slot's last tick
 *	(another CPU read the clock later, or the slot borrowed ahead)
 *
 * Node and slot numbers are not part of the state, so handing out IDs is
 * one compare-and-swap on @last. Each slot has a cache line of its own, so
 * CPUs minting from different slots never share one.
 */
struct uidgen_slot {
	atomic64_t last;
	atomic64_t waits;
	atomic64_t behind;
} ____cacheline_aligned_in_smp;

/**
 * struct uidgen_gen - a generator
 * @l: its layout
 * @tick_ns: length of one tick in ns
 * @tick_recip: U64_MAX / @tick_ns, to divide by @tick_ns with a multiply
 * @tick_mul: (2^(node_bits + slot_bits) - 1) << seq_bits: a tick times
 *	this, added to (tick << seq_bits), is the tick in its place in an ID
 * @max_tick: the largest tick the timestamp field holds
 * @offset_ns: the anchor: added to CLOCK_BOOTTIME, ns since the epoch;
 *	set at load, never moved (a floor moves @heal_end_ns, at most
 *	UIDGEN_FLOOR_AHEAD_MAX_NS ahead of the anchor)
 * @heal_end_ns: CLOCK_BOOTTIME at which the ID clock is back on its
 *	anchor (0: it is on it); before then it reads (@heal_end_ns - now)
 *	>> UIDGEN_HEAL_SHIFT ahead of it; only ever raised, by a floor
 * @anchor_ms: Unix time in ms at which the clock was anchored
 * @grant_tick: the last tick that may be issued (UIDGEN_NO_GRANT: no
 *	limit): what userspace has already persisted as the next start's
 *	floor; only ever raised, and lowered back to none only while nothing
 *	can mint (no node ID in force)
 * @observe_ahead_ns: how far after the anchor an observed ID's tick may
 *	begin (observe_ahead_ms); later ones are refused
 * @max_borrow: how many ticks ahead of the clock a slot may run
 * @nr_slots: number of slots, 1 << @l.slot_bits
 * @slots: the slots
 */
struct uidgen_gen {
	struct uidgen_layout l;
	u64 tick_ns;
	u64 tick_recip;
	u64 tick_mul;
	u64 max_tick;
	s64 offset_ns;
	u64 heal_end_ns;
	u64 anchor_ms;
	u64 grant_tick;
	u64 observe_ahead_ns;
	unsigned int max_borrow;
	unsigned int nr_slots;
	struct uidgen_slot *slots;
};

int uidgen_layout_check(const struct uidgen_layout *l, char *msg, size_t len);
u64 uidgen_exhausts_at_ms(const struct uidgen_layout *l);
int uidgen_gen_init(struct uidgen_gen *g, const struct uidgen_layout *l,
		    u64 wall_ns, u64 boot_ns, u64 min_life_ms,
		    char *msg, size_t len);
u64 uidgen_tick_start(const struct uidgen_gen *g, u64 tick);
u64 uidgen_ms_to_tick(const struct uidgen_gen *g, u64 unix_ms);
u64 uidgen_tick_end_ms(const struct uidgen_gen *g, u64 tick);
u64 uidgen_ns_to_tick(const struct uidgen_gen *g, u64 unix_ns);
u64 uidgen_tick_end_ns(const struct uidgen_gen *g, u64 tick);
int uidgen_set_floor(struct uidgen_gen *g, u64 floor_tick, u64 boot_ns);
void uidgen_raise_grant(struct uidgen_gen *g, u64 grant_tick);
void uidgen_fence_slots(struct uidgen_gen *g);
u64 uidgen_high_water(const struct uidgen_gen *g);
int uidgen_observe_check(const struct uidgen_gen *g, u64 id, u64 boot_ns);
int uidgen_observe(struct uidgen_gen *g, u64 id, u64 boot_ns);

/**
 * uidgen_compose() - Build the ID for one (tick << seq_bits | seq) value.
 * @g: the generator
 * @tseq: tick and sequence as kept in struct uidgen_slot
 * @worker: (node << slot_bits) | slot
 *
 * Consecutive @tseq values within one tick give consecutive IDs. The tick
 * is moved above the worker field by adding tick * @g->tick_mul, one
 * multiply instead of a mask and three shifts.
 *
 * Return: the ID.
 */
static inline u64 uidgen_compose(const struct uidgen_gen *g, u64 tseq,
				 u64 worker)
{
	unsigned int seq_bits = g->l.seq_bits;

	return tseq + (tseq >> seq_bits) * g->tick_mul + (worker << seq_bits);
}

/*
 * The hot path, inline so that minting an ID calls nothing but the clock.
 */

/**
 * uidgen_clock_ns() - The ID clock at a boot-time instant.
 * @g: the generator
 * @boot_ns: CLOCK_BOOTTIME in ns, not earlier than at uidgen_gen_init()
 *
 * The anchor, plus what is left of a floor's lead: (@g->heal_end_ns -
 * @boot_ns) >> UIDGEN_HEAL_SHIFT, which falls at 1/16 of real time, so the
 * clock never goes back. Each field is one word that only moves forward,
 * so a reader racing uidgen_set_floor() reads the clock before or after.
 *
 * Context: any; lock-free.
 * Return: ns since the epoch.
 */
static inline u64 uidgen_clock_ns(const struct uidgen_gen *g, u64 boot_ns)
{
	u64 heal = READ_ONCE(g->heal_end_ns);
	u64 ns = boot_ns + READ_ONCE(g->offset_ns);

	if (unlikely(boot_ns < heal))
		ns += (heal - boot_ns) >> UIDGEN_HEAL_SHIFT;
	return ns;
}

/**
 * uidgen_tick() - The tick at a boot-time instant.
 * @g: the generator
 * @boot_ns: CLOCK_BOOTTIME in ns, not earlier than at uidgen_gen_init()
 *
 * Context: any.
 * Return: ticks since the epoch (may exceed @g->max_tick: callers check).
 */
static inline u64 uidgen_tick(const struct uidgen_gen *g, u64 boot_ns)
{
	u64 ns = uidgen_clock_ns(g, boot_ns);
	/*
	 * ns / tick_ns without a divide (the hot path's dearest instruction):
	 * the reciprocal's rounding makes q short by at most 2, fixed below.
	 */
	u64 q = mul_u64_u64_shr(ns, g->tick_recip, 64);

	while (ns - q * g->tick_ns >= g->tick_ns)
		q++;
	return q;
}

/**
 * uidgen_reserve() - Take a run of consecutive sequence numbers in one tick.
 * @g: the generator
 * @s: one of its slots
 * @now: the current tick, at most @g->max_tick
 * @n: how many are wanted, at least 1
 * @first: out: the first (tick << seq_bits | seq) of the run
 * @wait_tick: out, when 0 is returned: the tick the caller must wait for;
 *	with UIDGEN_WAIT_GRANT set, the tick the grant must reach
 *
 * The run never crosses a tick, so it may be shorter than @n. It may be
 * in a tick up to @g->max_borrow ticks ahead of @now once @now's sequence
 * numbers are spent, and never beyond @g->max_tick or @g->grant_tick. The
 * caller owns @first .. @first + return - 1.
 *
 * Context: any; lock-free.
 * Return: the length of the run; 0 if the slot is as far ahead as it may
 * go and the caller must wait (see @wait_tick); -EOVERFLOW if the
 * timestamp field is spent.
 */
static inline int uidgen_reserve(struct uidgen_gen *g, struct uidgen_slot *s,
				 u64 now, u32 n, u64 *first, u64 *wait_tick)
{
	unsigned int seq_bits = g->l.seq_bits;
	unsigned int borrow = READ_ONCE(g->max_borrow);
	u64 grant = READ_ONCE(g->grant_tick);
	u64 limit = min3(now + borrow, g->max_tick, grant);
	u64 end = (limit + 1) << seq_bits;
	s64 old = atomic64_read(&s->last);
	u64 base, got, tick;

	if ((u64)old >> seq_bits > now)
		atomic64_inc(&s->behind);
	do {
		base = max_t(u64, (u64)old + 1, now << seq_bits);
		tick = base >> seq_bits;
		if (base >= end) {
			if (tick > g->max_tick)
				return -EOVERFLOW;
			/* Past what is persisted: only a new grant helps. */
			*wait_tick = tick > grant ? UIDGEN_WAIT_GRANT | tick :
				     tick - borrow;
			return 0;
		}
		/* One ID always fits: @base is inside its tick. */
		got = n == 1 ? 1 : min_t(u64, n, ((tick + 1) << seq_bits) - base);
	} while (!atomic64_try_cmpxchg(&s->last, &old, base + got - 1));

	*first = base;
	return got;
}

#endif /* _UIDGEN_GEN_H */
