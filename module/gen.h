/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generator core: layout checks, the tick clock and slot reservation.
 * Pure functions over a state and a "now": no device, no file, no current.
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
 * struct uidgen_slot - one slot's state
 * @last: the last (tick << seq_bits | seq) this slot issued, 0 before any
 *
 * Node and slot numbers are not part of the state, so a slot's whole state
 * is one atomic word; each slot has a cache line of its own so CPUs minting
 * from different slots never share one.
 */
struct uidgen_slot {
	atomic64_t last;
} ____cacheline_aligned_in_smp;

/**
 * struct uidgen_clock - maps the kernel's boot-time clock to ticks
 * @offset_ns: (wall time at load - epoch) - boot time at load, in ns
 * @tick_ns: length of one tick in ns
 * @max_tick: the largest tick the timestamp field can hold
 */
struct uidgen_clock {
	s64 offset_ns;
	u64 tick_ns;
	u64 max_tick;
};

int uidgen_layout_check(const struct uidgen_layout *l, char *msg, size_t len);
int uidgen_clock_init(struct uidgen_clock *c, const struct uidgen_layout *l,
		      u64 wall_ns, u64 boot_ns, char *msg, size_t len);
u64 uidgen_clock_tick(const struct uidgen_clock *c, u64 boot_ns);
u64 uidgen_clock_tick_start(const struct uidgen_clock *c, u64 tick);
u32 uidgen_reserve(struct uidgen_slot *s, unsigned int seq_bits, u64 now,
		   u32 n, u64 *first);

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
