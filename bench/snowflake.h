/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace Snowflake that uidgen_bench's rows and uidgen_icount's
 * instruction counts put uidgen's paths against: one 64-bit state (tick <<
 * seq_bits | seq), advanced by compare-and-swap, and the wall clock read
 * for every ID. Same layout as the module's, so the same IDs per tick.
 * The epoch and the tick in us, worked out once (as 1.4.0's INFO gave
 * them): sf_next() divides once per ID, as a Snowflake does. The caller
 * sets sf_epoch_us, sf_tick_us, sf_seq_bits and sf_low_bits (node + slot
 * bits) before the first ID.
 */
#ifndef UIDGEN_BENCH_SNOWFLAKE_H
#define UIDGEN_BENCH_SNOWFLAKE_H

#include <stdint.h>
#include <time.h>

static uint64_t sf_state, sf_epoch_us, sf_tick_us;
static unsigned int sf_seq_bits, sf_low_bits;

static inline uint64_t sf_next(void)
{
	uint64_t old, new, now, tick;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	tick = ((uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 -
		sf_epoch_us) / sf_tick_us;
	now = tick << sf_seq_bits;
	old = __atomic_load_n(&sf_state, __ATOMIC_RELAXED);
	do {
		new = old + 1 > now ? old + 1 : now;
	} while (!__atomic_compare_exchange_n(&sf_state, &old, new, 0,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	return (new >> sf_seq_bits) << (sf_low_bits + sf_seq_bits) |
	       (new & ((1ULL << sf_seq_bits) - 1));
}

#endif
