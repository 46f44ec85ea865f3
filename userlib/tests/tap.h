/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The TAP plumbing of libuidgen's C tests (unit.c, uuid.c, public.c): each
 * test function is one test point, failed if any of its CHECK()s is; RUN()
 * runs one and prints "ok N name" or "not ok N name"; tap_totals() prints
 * the kselftest "# Totals:" line that tests/totals.sh counts and gives the
 * exit status. rnd() is a xorshift64 generator: the same numbers every run.
 *
 * Before including it a test may define CHECK_PRINT_MAX (how many failed
 * checks a test prints, default 20; the count of failures is exact either
 * way), RND_SEED (rnd()'s start) and CHECK_COUNTS (count every check in
 * `checked`: not for checks in threads, which would race on it).
 */
#ifndef UIDGEN_TESTS_TAP_H
#define UIDGEN_TESTS_TAP_H

#include <stdint.h>
#include <stdio.h>

#ifndef CHECK_PRINT_MAX
#define CHECK_PRINT_MAX	20
#endif
#ifndef RND_SEED
#define RND_SEED	0x2545f4914f6cdd1dULL
#endif

static int passed, failed, checks_failed;

#ifdef CHECK_COUNTS
/* How many checks ran, failed or not. */
static unsigned long long checked;
#define CHECK_COUNT()	checked++
#else
#define CHECK_COUNT()	do { } while (0)
#endif

#define CHECK(cond, ...) do {						\
		CHECK_COUNT();						\
		if (!(cond)) {						\
			if (checks_failed++ < CHECK_PRINT_MAX) {	\
				printf("# %s:%d: %s: ", __func__, __LINE__, #cond); \
				printf(__VA_ARGS__);			\
				printf("\n");				\
			}						\
		}							\
	} while (0)

static inline void run(void (*fn)(void), const char *name)
{
	checks_failed = 0;
	fn();
	if (checks_failed)
		failed++;
	else
		passed++;
	printf("%sok %d %s\n", checks_failed ? "not " : "", passed + failed, name);
	fflush(stdout);
}

#define RUN(fn) run(fn, #fn)

/* The kselftest totals line; the exit status: 1 if any test failed. */
static inline int tap_totals(void)
{
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       passed, failed);
	return failed ? 1 : 0;
}

static inline uint64_t rnd(void)
{
	static uint64_t x = RND_SEED;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

#endif /* UIDGEN_TESTS_TAP_H */
