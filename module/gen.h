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
#include <linux/cache.h>
#include <linux/types.h>

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
 * @issued: IDs handed out
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
	atomic64_t issued;
	atomic64_t waits;
	atomic64_t behind;
} ____cacheline_aligned_in_smp;

/**
 * struct uidgen_gen - a generator
 * @l: its layout
 * @tick_ns: length of one tick in ns
 * @max_tick: the largest tick the timestamp field holds
 * @offset_ns: added to CLOCK_BOOTTIME to give ns since the epoch; set at
 *	load and only ever moved forward (by a floor)
 * @anchor_ms: Unix time in ms at which the clock was anchored
 * @max_borrow: how many ticks ahead of the clock a slot may run
 * @nr_slots: number of slots, 1 << @l.slot_bits
 * @slots: the slots
 */
struct uidgen_gen {
	struct uidgen_layout l;
	u64 tick_ns;
	u64 max_tick;
	s64 offset_ns;
	u64 anchor_ms;
	unsigned int max_borrow;
	unsigned int nr_slots;
	struct uidgen_slot *slots;
};

int uidgen_layout_check(const struct uidgen_layout *l, char *msg, size_t len);
u64 uidgen_exhausts_at_ms(const struct uidgen_layout *l);
int uidgen_gen_init(struct uidgen_gen *g, const struct uidgen_layout *l,
		    u64 wall_ns, u64 boot_ns, u64 min_life_ms,
		    char *msg, size_t len);
u64 uidgen_tick(const struct uidgen_gen *g, u64 boot_ns);
u64 uidgen_tick_start(const struct uidgen_gen *g, u64 tick);
u64 uidgen_ms_to_tick(const struct uidgen_gen *g, u64 unix_ms);
u64 uidgen_tick_end_ms(const struct uidgen_gen *g, u64 tick);
int uidgen_reserve(struct uidgen_gen *g, struct uidgen_slot *s, u64 now,
		   u32 n, u64 *first, u64 *wait_tick);
int uidgen_set_floor(struct uidgen_gen *g, u64 floor_tick, u64 boot_ns);
void uidgen_fence_slots(struct uidgen_gen *g);
u64 uidgen_high_water(const struct uidgen_gen *g);

/**
 * uidgen_compose() - Build the ID for one (tick << seq_bits | seq) value.
 * @l: the layout
 * @tseq: tick and sequence as kept in struct uidgen_slot
 * @worker: (node << slot_bits) | slot
 *
 * Consecutive @tseq values within one tick give consecutive IDs.
 *
 * Return: the ID.
 */
static inline u64 uidgen_compose(const struct uidgen_layout *l, u64 tseq,
				 u64 worker)
{
	unsigned int wbits = l->node_bits + l->slot_bits;
	u64 seq = tseq & ((1ULL << l->seq_bits) - 1);

	return ((tseq >> l->seq_bits) << (wbits + l->seq_bits)) |
	       (worker << l->seq_bits) | seq;
}

#endif /* _UIDGEN_GEN_H */
