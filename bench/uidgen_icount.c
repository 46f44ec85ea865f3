// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen_icount: the userspace instructions one ID costs on each path, for
 * make bench-compare's instruction table (bench/compare.sh, run in the VM
 * by bench/icount-guest.sh). Counted by valgrind's callgrind, they do not
 * move with where the code lands or with the host's load, as the seconds
 * under TCG do. Built from this tree's source against each side's
 * libuidgen and uapi header (bench/Makefile, target icount), so every
 * side runs the same loop around its own library.
 *
 *   valgrind --tool=callgrind --collect-atstart=no \
 *       --callgrind-out-file=FILE uidgen_icount SEQ_BITS LOW_BITS TICK_US EPOCH_MS
 *
 * The arguments are the loaded layout (sequence bits, node + slot bits,
 * tick, epoch) for the Snowflake. Per row: WARM IDs uncounted (the cache's
 * runs grow from 16 IDs to their full length, pages are faulted in, the
 * PLT is bound), then N IDs counted between two client requests and
 * dumped as FILE.K with the row's name ("Client Request: NAME"). Outside
 * valgrind the requests do nothing and the rows just run.
 *
 * Only user mode is counted: a system call's kernel side is not (the
 * seconds tables measure the paths through /dev/uid). Each row's count
 * includes the loop's own few instructions, the same on every side.
 * The cache's runs must not go stale inside a row (a stale run's refill
 * depends on how fast valgrind runs): load the module with a long tick.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/uidgen.h>
#include "uidgen.h"
#include "snowflake.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#error "uidgen_icount needs valgrind/callgrind.h (Debian: valgrind)"
#endif

#define WARM	(1L << 16)
#define N	(1L << 17)

/* What a row's expression may use; c points to it. */
struct ctx {
	struct uidgen *g;	/* uidgen_next() with the cache (the default) */
	struct uidgen *raw;	/* uidgen_next() without it */
	uint64_t id;		/* the last ID, for encoders */
	char text[128];		/* an encoder's output */
};

/*
 * Token encoders, in a libuidgen that declares uidgen_public_* (bench/
 * Makefile defines UIDGEN_ICOUNT_PUBLIC then): a row is one line here,
 *	X("NAME", EXPRESSION) \
 * EXPRESSION run once per ID, negative on failure (c->id holds an ID).
 */
#ifdef UIDGEN_ICOUNT_PUBLIC
#define ICOUNT_PUBLIC_ROWS(X)
#else
#define ICOUNT_PUBLIC_ROWS(X)
#endif

/* The rows: X("NAME", EXPRESSION), EXPRESSION negative on failure. */
#define ICOUNT_ROWS(X) \
	X("uidgen_next() with the cache", uidgen_next(c->g, &c->id)) \
	X("uidgen_next() without it", uidgen_next(c->raw, &c->id)) \
	X("userspace Snowflake (CAS + clock)", (c->id = sf_next(), 0)) \
	ICOUNT_PUBLIC_ROWS(X)

static void fail(const char *row, long r)
{
	fprintf(stderr, "uidgen_icount: %s: %s\n", row,
		strerror(r < 0 && r > -4096 ? (int)-r : EIO));
	exit(1);
}

int main(int argc, char **argv)
{
	struct ctx ctx, *c = &ctx;
	long i, r;
	int ret;

	if (argc != 5) {
		fprintf(stderr, "usage: uidgen_icount SEQ_BITS LOW_BITS TICK_US EPOCH_MS\n");
		return 2;
	}
	sf_seq_bits = strtoul(argv[1], NULL, 10);
	sf_low_bits = strtoul(argv[2], NULL, 10);
	sf_tick_us = strtoull(argv[3], NULL, 10);
	sf_epoch_us = strtoull(argv[4], NULL, 10) * 1000;
	if (!sf_seq_bits || !sf_tick_us) {
		fprintf(stderr, "uidgen_icount: SEQ_BITS and TICK_US must be positive\n");
		return 2;
	}
	memset(c, 0, sizeof(*c));
	ret = uidgen_open(&c->g, NULL);
	if (!ret)
		ret = uidgen_open(&c->raw, NULL);
	if (!ret)
		ret = uidgen_set_cache(c->raw, 0, 0);
	if (ret)
		fail("uidgen_open " UIDGEN_DEVICE, ret);

#define X(name, expr) \
	for (i = 0; i < WARM; i++) \
		if ((r = (expr)) < 0) \
			fail(name, r); \
	CALLGRIND_ZERO_STATS; \
	CALLGRIND_TOGGLE_COLLECT; \
	for (i = 0; i < N; i++) \
		if ((r = (expr)) < 0) \
			fail(name, r); \
	CALLGRIND_TOGGLE_COLLECT; \
	CALLGRIND_DUMP_STATS_AT(name); \
	printf("%s\t%ld\n", name, N);
	ICOUNT_ROWS(X)
#undef X
	return 0;
}
