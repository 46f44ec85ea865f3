// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for uidgen's generator core, with an injected clock: "now"
 * is whatever the test passes in. Plus the node's life (assignment with a
 * floor, tokens, the deadline, the VM-fork revoke) on nodes the
 * tests make for themselves, grants, and kthreads
 * on every CPU hammering one slot and all slots.
 * Observes, and observes racing minting on every CPU.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/timekeeping.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <linux/uidgen.h>

#include "../gen.h"
#include "../internal.h"

#define WALL_NS		(1796000000000ULL * NSEC_PER_MSEC)	/* 2026-12 */
#define BOOT_NS		(1000ULL * NSEC_PER_SEC)
#define DEFAULT_LAYOUT	{ 41, 5, 5, 12, 1000, UIDGEN_DEFAULT_EPOCH_MS }

/* A generator anchored at WALL_NS / BOOT_NS, with its own slots. */
static struct uidgen_gen *new_gen(struct kunit *test,
				  const struct uidgen_layout *l)
{
	struct uidgen_gen *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	char msg[192];

	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_ASSERT_EQ_MSG(test, 0, uidgen_gen_init(g, l, WALL_NS, BOOT_NS, 0,
						     msg, sizeof(msg)), "%s", msg);
	g->slots = kunit_kcalloc(test, g->nr_slots, sizeof(*g->slots),
				 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g->slots);
	return g;
}

/* Layout validation */

struct layout_case {
	const char *name;
	struct uidgen_layout l;
	int ret;
	const char *msg;
};

static const struct layout_case layout_cases[] = {
	{ "default", DEFAULT_LAYOUT, 0, "" },
	{ "one slot", { 41, 5, 0, 17, 1000, 0 }, 0, "" },
	{ "widest ts", { 60, 0, 0, 3, 1, 0 }, 0, "" },
	{ "narrowest ts", { 20, 13, 0, 30, 60000000, 0 }, 0, "" },
	{ "sum 64", { 41, 5, 5, 13, 1000, 0 }, -EINVAL,
	  "ts_bits=41 + node_bits=5 + slot_bits=5 + seq_bits=13 = 64, must be 63" },
	{ "sum 62", { 41, 5, 5, 11, 1000, 0 }, -EINVAL, "= 62, must be 63" },
	{ "ts 19", { 19, 5, 5, 34, 1000, 0 }, -EINVAL,
	  "ts_bits=19 is out of range, allowed 20..60" },
	{ "ts 61", { 61, 0, 0, 2, 1000, 0 }, -EINVAL, "ts_bits=61 is out of range" },
	{ "node 21", { 37, 21, 5, 0, 1000, 0 }, -EINVAL,
	  "node_bits=21 is out of range, allowed 0..20" },
	{ "slot 11", { 41, 5, 11, 6, 1000, 0 }, -EINVAL,
	  "slot_bits=11 is out of range, allowed 0..10" },
	{ "seq 0", { 53, 5, 5, 0, 1000, 0 }, -EINVAL,
	  "seq_bits=0 is out of range, allowed 1..30" },
	{ "seq 31", { 27, 5, 0, 31, 1000, 0 }, -EINVAL, "seq_bits=31 is out of range" },
	{ "tick 0", { 41, 5, 5, 12, 0, 0 }, -EINVAL,
	  "tick_us=0 is out of range, allowed 1..60000000" },
	{ "tick too long", { 41, 5, 5, 12, 60000001, 0 }, -EINVAL,
	  "tick_us=60000001 is out of range" },
};

static void layout_case_desc(const struct layout_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(layout, layout_cases, layout_case_desc);

static void uidgen_layout_check_test(struct kunit *test)
{
	const struct layout_case *c = test->param_value;
	char msg[192] = "";

	KUNIT_EXPECT_EQ(test, c->ret, uidgen_layout_check(&c->l, msg, sizeof(msg)));
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(msg, c->msg), "got: %s", msg);
}

static u64 xorshift(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Compose four IDs in @g's layout and take each apart again. */
static void roundtrip(struct kunit *test, const struct uidgen_gen *g, u64 *x)
{
	const struct uidgen_layout *l = &g->l;
	unsigned int k, low = l->seq_bits + l->slot_bits + l->node_bits;

	for (k = 0; k < 4; k++) {
		/* k = 0: every field 0; k = 1: every field at its maximum. */
		u64 v = k == 0 ? 0 : k == 1 ? ~0ULL : xorshift(x);
		u64 tick = v & ((1ULL << l->ts_bits) - 1);
		u64 node = (v >> 3) & ((1ULL << l->node_bits) - 1);
		u64 slot = (v >> 7) & ((1ULL << l->slot_bits) - 1);
		u64 seq = (v >> 11) & ((1ULL << l->seq_bits) - 1);
		u64 id;

		if (k == 1) {
			node = (1ULL << l->node_bits) - 1;
			slot = (1ULL << l->slot_bits) - 1;
			seq = (1ULL << l->seq_bits) - 1;
		}
		id = uidgen_compose(g, tick << l->seq_bits | seq,
				    node << l->slot_bits | slot);
		KUNIT_ASSERT_EQ(test, 0ULL, id >> 63);
		KUNIT_ASSERT_EQ(test, tick, id >> low);
		KUNIT_ASSERT_EQ(test, node, (id >> (l->slot_bits + l->seq_bits)) &
				((1ULL << l->node_bits) - 1));
		KUNIT_ASSERT_EQ(test, slot,
				(id >> l->seq_bits) & ((1ULL << l->slot_bits) - 1));
		KUNIT_ASSERT_EQ(test, seq, id & ((1ULL << l->seq_bits) - 1));
	}
}

/* Compose and take apart again, at every valid combination of widths. */
static void uidgen_compose_roundtrip_test(struct kunit *test)
{
	/* The epoch is now, so that even 20 bits of ticks have time left. */
	struct uidgen_layout l = { .tick_us = 1000,
				   .epoch_ms = WALL_NS / NSEC_PER_MSEC };
	struct uidgen_gen g;
	unsigned int layouts = 0, low;
	u64 x = 0x9e3779b97f4a7c15ULL;
	char msg[192];

	for (l.seq_bits = 1; l.seq_bits <= 30; l.seq_bits++) {
		for (l.slot_bits = 0; l.slot_bits <= 10; l.slot_bits++) {
			for (l.node_bits = 0; l.node_bits <= 20; l.node_bits++) {
				low = l.seq_bits + l.slot_bits + l.node_bits;
				if (low > 63 - 20 || low < 63 - 60)
					continue;
				l.ts_bits = 63 - low;
				KUNIT_ASSERT_EQ_MSG(test, 0,
						    uidgen_gen_init(&g, &l, WALL_NS,
								    BOOT_NS, 0, msg,
								    sizeof(msg)),
						    "%s", msg);
				roundtrip(test, &g, &x);
				layouts++;
			}
		}
	}
	kunit_info(test, "%u layouts, 4 IDs each, composed and decomposed", layouts);
	KUNIT_EXPECT_GT(test, layouts, 1000U);
}

/* Dividing by the tick with a reciprocal gives exactly what div does. */
static void uidgen_tick_divide_test(struct kunit *test)
{
	static const unsigned int ticks_us[] = { 1, 3, 7, 1000, 1024, 999983,
						 UIDGEN_TICK_US_MAX };
	static const u64 edges[] = { 0, 1, U64_MAX, U64_MAX - 1 };
	/* A timestamp field wide enough for even a 1 us tick to load. */
	struct uidgen_layout l = { 60, 0, 0, 3, 1000, UIDGEN_DEFAULT_EPOCH_MS };
	struct uidgen_gen *g;
	u64 x = 0x9e3779b97f4a7c15ULL, ns;
	unsigned int i, k, checked = 0;

	for (i = 0; i < ARRAY_SIZE(ticks_us); i++) {
		l.tick_us = ticks_us[i];
		g = new_gen(test, &l);
		g->offset_ns = 0;
		for (k = 0; k < 20000; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* Random, and either side of multiples of the tick. */
			ns = k % 3 == 0 ? x >> (k % 64) :
			     div64_u64(x >> 20, g->tick_ns) * g->tick_ns - (k % 3 == 1);
			if (k < ARRAY_SIZE(edges))
				ns = edges[k];
			KUNIT_ASSERT_EQ_MSG(test, div64_u64(ns, g->tick_ns),
					    uidgen_tick(g, ns),
					    "ns %llu tick %llu", ns, g->tick_ns);
			checked++;
		}
	}
	kunit_info(test, "%u quotients checked", checked);
}

/* The clock: anchored to wall time, driven by the boot-time clock. */
static void uidgen_clock_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	u64 t0 = (1796000000000ULL - UIDGEN_DEFAULT_EPOCH_MS);

	KUNIT_EXPECT_EQ(test, t0, uidgen_tick(g, BOOT_NS));
	KUNIT_EXPECT_EQ(test, t0, uidgen_tick(g, BOOT_NS + 999999));
	KUNIT_EXPECT_EQ(test, t0 + 1, uidgen_tick(g, BOOT_NS + 1000000));
	KUNIT_EXPECT_EQ(test, t0 + 3600000, uidgen_tick(g, BOOT_NS + 3600ULL * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, BOOT_NS + 1000000, uidgen_tick_start(g, t0 + 1));
	KUNIT_EXPECT_EQ(test, t0, uidgen_ms_to_tick(g, 1796000000000ULL));
	KUNIT_EXPECT_EQ(test, 0ULL, uidgen_ms_to_tick(g, 5));
	KUNIT_EXPECT_EQ(test, 1796000000001ULL, uidgen_tick_end_ms(g, t0));
	KUNIT_EXPECT_EQ(test, t0, uidgen_ns_to_tick(g, 1796000000000ULL * NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, t0, uidgen_ns_to_tick(g, 1796000000000ULL * NSEC_PER_MSEC + 999999));
	KUNIT_EXPECT_EQ(test, t0 + 1, uidgen_ns_to_tick(g, 1796000000001ULL * NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, 0ULL, uidgen_ns_to_tick(g, 5));
	KUNIT_EXPECT_EQ(test, 1796000000001ULL * NSEC_PER_MSEC, uidgen_tick_end_ns(g, t0));
	KUNIT_EXPECT_EQ(test, U64_MAX, uidgen_tick_end_ns(g, U64_MAX / 2));
	KUNIT_EXPECT_EQ(test, 1796000000000ULL, g->anchor_ms);
	KUNIT_EXPECT_EQ(test, U64_MAX, uidgen_tick_start(g, U64_MAX / 2));
}

/* Tick rollover: a tick's sequence runs out, the caller waits, seq 0 again. */
static void uidgen_rollover_test(struct kunit *test)
{
	struct uidgen_layout l = { 41, 5, 5, 12, 1000, UIDGEN_DEFAULT_EPOCH_MS };
	struct uidgen_gen *g = new_gen(test, &l);
	struct uidgen_slot *s = &g->slots[0];
	u64 now = uidgen_tick(g, BOOT_NS), first, wait = 0;

	KUNIT_EXPECT_EQ(test, 1000, uidgen_reserve(g, s, now, 1000, &first, &wait));
	KUNIT_EXPECT_EQ(test, now << 12, first);
	KUNIT_EXPECT_EQ(test, 3096, uidgen_reserve(g, s, now, 5000, &first, &wait));
	KUNIT_EXPECT_EQ(test, (now << 12) + 1000, first);
	KUNIT_EXPECT_EQ(test, 0, uidgen_reserve(g, s, now, 1, &first, &wait));
	KUNIT_EXPECT_EQ(test, now + 1, wait);
	/* A caller whose clock reads behind the slot waits too, and is counted. */
	KUNIT_EXPECT_EQ(test, 0, uidgen_reserve(g, s, now - 5, 1, &first, &wait));
	KUNIT_EXPECT_EQ(test, 1LL, atomic64_read(&s->behind));
	KUNIT_EXPECT_EQ(test, 1, uidgen_reserve(g, s, now + 1, 1, &first, &wait));
	KUNIT_EXPECT_EQ(test, (now + 1) << 12, first);
	/* Skipping ticks: the next ID starts at the clock, seq 0. */
	KUNIT_EXPECT_EQ(test, 7, uidgen_reserve(g, s, now + 50, 7, &first, &wait));
	KUNIT_EXPECT_EQ(test, (now + 50) << 12, first);
	/* Other slots are untouched. */
	KUNIT_EXPECT_EQ(test, 0LL, atomic64_read(&g->slots[1].last));
}

/* Borrowing: up to max_borrow ticks ahead, then a wait of at most that. */
struct borrow_case {
	const char *name;
	unsigned int borrow;
};

static const struct borrow_case borrow_cases[] = {
	{ "borrow 0", 0 }, { "borrow 1", 1 }, { "borrow 3", 3 }, { "borrow 100", 100 },
};

static void borrow_case_desc(const struct borrow_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(borrow, borrow_cases, borrow_case_desc);

static void uidgen_borrow_test(struct kunit *test)
{
	const struct borrow_case *c = test->param_value;
	struct uidgen_layout l = { 56, 5, 0, 2, 1000, UIDGEN_DEFAULT_EPOCH_MS };
	struct uidgen_gen *g = new_gen(test, &l);
	struct uidgen_slot *s = &g->slots[0];
	u64 now = uidgen_tick(g, BOOT_NS), first, wait = 0;
	unsigned int i;
	int got;

	g->max_borrow = c->borrow;
	/* (1 + borrow) ticks of 4 IDs, each run within one tick. */
	for (i = 0; i <= c->borrow; i++) {
		got = uidgen_reserve(g, s, now, 10, &first, &wait);
		KUNIT_ASSERT_EQ(test, 4, got);
		KUNIT_EXPECT_EQ(test, (now + i) << 2, first);
	}
	KUNIT_EXPECT_EQ(test, 0, uidgen_reserve(g, s, now, 1, &first, &wait));
	KUNIT_EXPECT_EQ(test, now + 1, wait);
	/* One tick later, one more tick may be borrowed. */
	KUNIT_EXPECT_EQ(test, 4, uidgen_reserve(g, s, now + 1, 10, &first, &wait));
	KUNIT_EXPECT_EQ(test, (now + c->borrow + 1) << 2, first);
}

/* uidgen_gen_init() at WALL_NS / BOOT_NS with a minimum life in ms. */
static int init_at(struct uidgen_gen *g, const struct uidgen_layout *l,
		   u64 min_life_ms, char *msg)
{
	return uidgen_gen_init(g, l, WALL_NS, BOOT_NS, min_life_ms, msg, 192);
}

/* The timestamp field's end: never passed, never wrapped. */
static void uidgen_exhaustion_test(struct kunit *test)
{
	struct uidgen_layout l = { 20, 13, 0, 30, 1000, 0 };
	struct uidgen_gen *g;
	struct uidgen_slot *s;
	u64 first, wait;
	char msg[192];
	int got;

	/* 2^20 ms after an epoch chosen so that 2 ticks are left. */
	l.epoch_ms = 1796000000000ULL - (1ULL << 20) + 2;
	g = new_gen(test, &l);
	s = &g->slots[0];
	KUNIT_EXPECT_EQ(test, (1ULL << 20) - 2, uidgen_tick(g, BOOT_NS));
	KUNIT_EXPECT_EQ(test, l.epoch_ms + (1ULL << 20), uidgen_exhausts_at_ms(&l));
	g->max_borrow = 10;
	got = uidgen_reserve(g, s, g->max_tick - 1, U32_MAX, &first, &wait);
	KUNIT_EXPECT_EQ(test, 1 << 30, got);
	got = uidgen_reserve(g, s, g->max_tick - 1, U32_MAX, &first, &wait);
	KUNIT_EXPECT_EQ(test, 1 << 30, got);
	KUNIT_EXPECT_EQ(test, g->max_tick, first >> 30);
	got = uidgen_reserve(g, s, g->max_tick - 1, 1, &first, &wait);
	KUNIT_EXPECT_EQ(test, -EOVERFLOW, got);
	got = uidgen_reserve(g, s, g->max_tick, 1, &first, &wait);
	KUNIT_EXPECT_EQ(test, -EOVERFLOW, got);

	/* At load: exhausted, or too little life left. */
	l.epoch_ms = 1796000000000ULL - (1ULL << 20);
	KUNIT_EXPECT_EQ(test, -EOVERFLOW, init_at(g, &l, 0, msg));
	KUNIT_EXPECT_NOT_NULL(test, strstr(msg, "timestamp field exhausted"));
	l.epoch_ms = 1796000000000ULL - (1ULL << 20) + 10000;
	KUNIT_EXPECT_EQ(test, 0, init_at(g, &l, 10000, msg));
	KUNIT_EXPECT_EQ(test, -EOVERFLOW, init_at(g, &l, 10001, msg));
	KUNIT_EXPECT_NOT_NULL(test, strstr(msg, "less than min_life_days"));
	l.epoch_ms = 1796000000001ULL;
	KUNIT_EXPECT_EQ(test, -EINVAL, init_at(g, &l, 0, msg));
	KUNIT_EXPECT_NOT_NULL(test, strstr(msg, "is after the wall clock"));
}

struct end_case {
	const char *name;
	struct uidgen_layout l;
	u64 end_ms;
};

static const struct end_case end_cases[] = {
	{ "default", DEFAULT_LAYOUT, 1767225600000ULL + 2199023255552ULL },
	{ "1 us ticks, 20 bits", { 20, 13, 0, 30, 1, 1767225600000ULL },
	  1767225600000ULL + 1049 },
	{ "100 us ticks, 44 bits", { 44, 5, 5, 9, 100, 0 }, 1759218604441ULL + 1 },
	{ "1 s ticks, 32 bits", { 32, 1, 0, 30, 1000000, 0 }, 4294967296000ULL },
	{ "60 s ticks, 60 bits: beyond 64 bits of ms", { 60, 0, 0, 3, 60000000, 0 },
	  U64_MAX },
};

static void end_case_desc(const struct end_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(end, end_cases, end_case_desc);

static void uidgen_exhausts_at_test(struct kunit *test)
{
	const struct end_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, c->end_ms, uidgen_exhausts_at_ms(&c->l));
}

/* Floors: never a tick at or below; the clock moves forward, never back. */
static void uidgen_floor_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	u64 now = uidgen_tick(g, BOOT_NS), floor = now + 3600000, first, wait, heal;
	s64 offset;
	unsigned int i;

	/* A slot that already issued, and one that never did. */
	KUNIT_ASSERT_EQ(test, 5, uidgen_reserve(g, &g->slots[3], now, 5, &first, &wait));
	KUNIT_ASSERT_EQ(test, 0, uidgen_set_floor(g, floor, BOOT_NS + 1000));
	KUNIT_EXPECT_EQ(test, floor + 1, uidgen_tick(g, BOOT_NS + 1000));
	for (i = 0; i < g->nr_slots; i++)
		KUNIT_EXPECT_EQ(test, ((floor + 1) << 12) - 1,
				(u64)atomic64_read(&g->slots[i].last));
	/* Even a caller with a stale clock reading gets nothing at or below. */
	KUNIT_EXPECT_EQ(test, 0, uidgen_reserve(g, &g->slots[3], now, 1, &first, &wait));
	KUNIT_EXPECT_EQ(test, 1, uidgen_reserve(g, &g->slots[3], floor + 1, 1, &first, &wait));
	KUNIT_EXPECT_EQ(test, (floor + 1) << 12, first);

	/* A lower floor moves nothing back. */
	offset = g->offset_ns;
	heal = g->heal_end_ns;
	KUNIT_EXPECT_EQ(test, 0, uidgen_set_floor(g, now, BOOT_NS + 2000));
	KUNIT_EXPECT_EQ(test, offset, g->offset_ns);
	KUNIT_EXPECT_EQ(test, heal, g->heal_end_ns);
	/* A floor behind the clock leaves it alone: healing, at 15/16. */
	KUNIT_EXPECT_EQ(test, floor + 1 + 937, uidgen_tick(g, BOOT_NS + 1000 + NSEC_PER_SEC));
	/* No tick left above the floor. */
	KUNIT_EXPECT_EQ(test, -EOVERFLOW, uidgen_set_floor(g, g->max_tick, BOOT_NS));
	KUNIT_EXPECT_EQ(test, floor + 1, uidgen_high_water(g));
}

/*
 * The heal (Documentation/fleet.rst, "Bounded clock offset"): a floor
 * ahead of the clock puts the ID clock ahead of the wall clock; from then
 * on it runs at 15/16 of real time until it is back on its load-time
 * anchor, so an offset of E heals in 16 * E. The wall clock here is the
 * one the generator was anchored to, WALL_NS at BOOT_NS.
 */
#define HEAL_AT		(BOOT_NS + NSEC_PER_SEC)
#define T0		(1796000000000ULL - UIDGEN_DEFAULT_EPOCH_MS)

/* The wall clock's tick at a boot-time instant (1 ms ticks). */
static u64 wall_tick(u64 boot_ns)
{
	return T0 + div_u64(boot_ns - BOOT_NS, NSEC_PER_MSEC);
}

/* The ID clock minus the wall clock, in ticks (ms). */
static s64 clock_offset(const struct uidgen_gen *g, u64 boot_ns)
{
	return (s64)(uidgen_tick(g, boot_ns) - wall_tick(boot_ns));
}

/* A generator whose ID clock a floor put 10 s ahead at HEAL_AT. */
static struct uidgen_gen *gen_10s_ahead(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);

	KUNIT_ASSERT_EQ(test, 0LL, clock_offset(g, HEAL_AT));
	KUNIT_ASSERT_EQ(test, 0, uidgen_set_floor(g, wall_tick(HEAL_AT) + 9999,
						  HEAL_AT));
	KUNIT_ASSERT_EQ(test, 10000LL, clock_offset(g, HEAL_AT));
	return g;
}

/* 10 s ahead is back to 0 after 160 s, falling all the way, never back. */
static void uidgen_heal_offset_test(struct kunit *test)
{
	struct uidgen_gen *g = gen_10s_ahead(test);
	s64 off, prev = 10000, rises = 0, below = 0;
	u64 tick, prev_tick = uidgen_tick(g, HEAL_AT), backwards = 0;
	unsigned int i;

	/* Every 1 ms for 170 s, and 0..99 ns past each, for the rounding. */
	for (i = 0; i <= 170000; i++) {
		u64 u = HEAL_AT + (u64)i * NSEC_PER_MSEC + i % 100;

		tick = uidgen_tick(g, u);
		off = clock_offset(g, u);
		backwards += tick < prev_tick;
		rises += off > prev;
		below += off < 0;
		prev_tick = tick;
		prev = off;
	}
	KUNIT_EXPECT_EQ(test, 0ULL, backwards);
	KUNIT_EXPECT_EQ(test, 0LL, rises);
	KUNIT_EXPECT_EQ(test, 0LL, below);
	/* At 1/16 of real time: half the offset gone after 80 s. */
	KUNIT_EXPECT_EQ(test, 9937LL, clock_offset(g, HEAL_AT + NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, 5000LL, clock_offset(g, HEAL_AT + 80 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, 6LL, clock_offset(g, HEAL_AT + 159900 * NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, 0LL, clock_offset(g, HEAL_AT + 160 * NSEC_PER_SEC));
	/* And then in real time, on the anchor, for good. */
	KUNIT_EXPECT_EQ(test, 0LL, clock_offset(g, HEAL_AT + 3600 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, wall_tick(HEAL_AT + 200 * NSEC_PER_SEC),
			uidgen_tick(g, HEAL_AT + 200 * NSEC_PER_SEC));
}

/*
 * Minting through the heal, as an agent would run it: a grant raised to
 * the ID clock plus 6,666 ms every second. Every run rises past the one
 * before, no tick is at or below the floor or past the grant in force,
 * and the last IDs are in the wall clock's tick again.
 */
static void uidgen_heal_ids_test(struct kunit *test)
{
	struct uidgen_gen *g = gen_10s_ahead(test);
	u64 floor = wall_tick(HEAL_AT) + 9999, last = 0, first, wait, t, grant;
	unsigned int bad_order = 0, at_floor = 0, past_grant = 0, runs = 0, i;
	struct uidgen_slot *s = &g->slots[0];
	int got;

	/* Every 250 us for 170 s; a renewal every 4,000 of them. */
	for (i = 0; i <= 680000; i++) {
		t = HEAL_AT + (u64)i * 250 * NSEC_PER_USEC;
		if (i % 4000 == 0) {
			grant = uidgen_tick(g, t) + 6666;
			uidgen_raise_grant(g, grant);
		}
		got = uidgen_reserve(g, s, uidgen_tick(g, t), 1000, &first, &wait);
		KUNIT_ASSERT_LE(test, 0, got);
		if (!got)
			continue;
		runs++;
		bad_order += last && first <= last;
		at_floor += first >> 12 <= floor;
		past_grant += (first + got - 1) >> 12 > grant;
		last = first + got - 1;
	}
	kunit_info(test, "%u runs through the heal", runs);
	KUNIT_EXPECT_GT(test, runs, 100000U);
	KUNIT_EXPECT_EQ(test, 0U, bad_order);
	KUNIT_EXPECT_EQ(test, 0U, at_floor);
	KUNIT_EXPECT_EQ(test, 0U, past_grant);
	KUNIT_EXPECT_EQ(test, wall_tick(HEAL_AT + 170 * NSEC_PER_SEC), last >> 12);
}

/*
 * Waiting for a tick during the heal: uidgen_tick_start() is the first
 * instant the clock reads it, the clock running at 15/16.
 */
static void uidgen_heal_tick_start_test(struct kunit *test)
{
	struct uidgen_gen *g = gen_10s_ahead(test);
	u64 now = uidgen_tick(g, HEAL_AT), x = 0x9e3779b97f4a7c15ULL;
	unsigned int k, wrong = 0;

	/* 1,000 ticks on takes 1,066,666,667 ns, not 1 s. */
	KUNIT_EXPECT_EQ(test, HEAL_AT + 1066666667ULL,
			uidgen_tick_start(g, now + 1000));
	/* A tick the heal has ended by: real time after 160 s. */
	KUNIT_EXPECT_EQ(test, HEAL_AT + 200 * NSEC_PER_SEC,
			uidgen_tick_start(g, wall_tick(HEAL_AT + 200 * NSEC_PER_SEC)));
	/* From instants across the heal, ticks up to 200 s on. */
	for (k = 0; k < 20000; k++) {
		u64 from = HEAL_AT + xorshift(&x) % (170 * NSEC_PER_SEC);
		u64 tick = uidgen_tick(g, from) + 1 + xorshift(&x) % 200000;
		u64 start = uidgen_tick_start(g, tick);

		wrong += start <= from || uidgen_tick(g, start) != tick ||
			 uidgen_tick(g, start - 1) != tick - 1;
	}
	KUNIT_EXPECT_EQ(test, 0U, wrong);
}

/*
 * A second floor during the heal: a higher one moves the clock up to it
 * and the heal goes on from there; one between the wall clock and the ID
 * clock, or behind both, changes nothing.
 */
static void uidgen_heal_second_floor_test(struct kunit *test)
{
	struct uidgen_gen *g = gen_10s_ahead(test);
	u64 t = HEAL_AT + 80 * NSEC_PER_SEC;

	KUNIT_EXPECT_EQ(test, 0, uidgen_set_floor(g, wall_tick(t) + 2000, t));
	KUNIT_EXPECT_EQ(test, 5000LL, clock_offset(g, t));
	KUNIT_EXPECT_EQ(test, 0, uidgen_set_floor(g, wall_tick(t), t));
	KUNIT_EXPECT_EQ(test, 5000LL, clock_offset(g, t));
	KUNIT_EXPECT_EQ(test, 0, uidgen_set_floor(g, wall_tick(t) + 7999, t));
	KUNIT_EXPECT_EQ(test, 8000LL, clock_offset(g, t));
	KUNIT_EXPECT_EQ(test, 4000LL, clock_offset(g, t + 64 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, 0LL, clock_offset(g, t + 128 * NSEC_PER_SEC));
}

/*
 * A floor ending more than UIDGEN_FLOOR_AHEAD_MAX_NS after the anchor is
 * refused (EDOM) and moves nothing: not the clock, not a slot. One ending
 * exactly at the bound is taken; and however many such floors come, the
 * clock never leads its anchor by more than the bound.
 */
static void uidgen_floor_far_ahead_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	u64 max = div_u64(UIDGEN_FLOOR_AHEAD_MAX_NS, NSEC_PER_MSEC);
	u64 year = 365ULL * 86400 * MSEC_PER_SEC, t = HEAL_AT;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, -EDOM, uidgen_set_floor(g, wall_tick(t) + year, t));
	KUNIT_EXPECT_EQ(test, -EDOM, uidgen_set_floor(g, wall_tick(t) + max, t));
	KUNIT_EXPECT_EQ(test, wall_tick(t), uidgen_tick(g, t));
	KUNIT_EXPECT_EQ(test, 0ULL, g->heal_end_ns);
	for (i = 0; i < g->nr_slots; i++)
		KUNIT_EXPECT_EQ(test, 0LL, atomic64_read(&g->slots[i].last));
	/* Its last tick ends at the bound: taken. */
	KUNIT_EXPECT_EQ(test, 0, uidgen_set_floor(g, wall_tick(t) + max - 1, t));
	KUNIT_EXPECT_EQ(test, (s64)max, clock_offset(g, t));
	/* Floor on floor, each at the clock: the lead stays within the bound. */
	for (i = 1; i <= 4; i++) {
		t += NSEC_PER_SEC;
		KUNIT_EXPECT_EQ(test, -EDOM,
				uidgen_set_floor(g, uidgen_tick(g, t) + 1000, t));
		KUNIT_EXPECT_GE(test, (s64)max, clock_offset(g, t));
	}
	/* It heals: back on the anchor 16 times the lead later. */
	KUNIT_EXPECT_EQ(test, 0LL,
			clock_offset(g, HEAL_AT + max * NSEC_PER_MSEC * 16));
}

/* A node ID change: every slot that issued starts in a fresh tick. */
static void uidgen_fence_slots_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	u64 now = uidgen_tick(g, BOOT_NS), first, wait;

	KUNIT_ASSERT_EQ(test, 3, uidgen_reserve(g, &g->slots[0], now, 3, &first, &wait));
	uidgen_fence_slots(g);
	KUNIT_EXPECT_EQ(test, ((now + 1) << 12) - 1, (u64)atomic64_read(&g->slots[0].last));
	KUNIT_EXPECT_EQ(test, 0LL, atomic64_read(&g->slots[1].last));
	KUNIT_EXPECT_EQ(test, 0, uidgen_reserve(g, &g->slots[0], now, 1, &first, &wait));
	/* Fencing twice changes nothing more. */
	uidgen_fence_slots(g);
	KUNIT_EXPECT_EQ(test, ((now + 1) << 12) - 1, (u64)atomic64_read(&g->slots[0].last));
}

/* A node of the test's own, over its own generator: never the device's. */
static struct uidgen_node_ctl *new_node(struct kunit *test,
					struct uidgen_gen *g)
{
	struct uidgen_node_ctl *n = kunit_kzalloc(test, sizeof(*n), GFP_KERNEL);
	struct uidgen_page *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, n);
	KUNIT_ASSERT_NOT_NULL(test, page);
	uidgen_node_init(n, g, page);
	return n;
}

/* @new: the node ID never issued (NEW), else @floor is its floor. */
static int assign(struct uidgen_node_ctl *n, u32 node, bool new,
		  u64 floor, u64 grant, u64 deadline, u64 token)
{
	struct uidgen_rules_req req = {
		.new = new, .node_id = node, .floor_unix_ns = floor,
		.grant_unix_ns = grant, .deadline_boot_ns = deadline,
		.token = token,
	};

	return uidgen_node_assign(n, &req);
}

/* uidgen_node_revoke() of @node (UIDGEN_NODE_NONE: any) with @token. */
static int revoke(struct uidgen_node_ctl *n, u32 node, u64 token)
{
	struct uidgen_rules_req req = { .node_id = node, .token = token };

	return uidgen_node_revoke(n, &req, "test");
}

static u32 state(struct uidgen_node_ctl *n, u32 *node)
{
	struct uidgen_node_snapshot s;
	u32 ret = uidgen_node_state(n, &s);

	*node = s.node;
	return ret;
}

/* Assignment needs a floor or NEW; revokes and VM forks move the fence. */
static void uidgen_node_assign_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	struct uidgen_node_ctl *n = new_node(test, g);
	u32 node;

	KUNIT_EXPECT_EQ(test, UIDGEN_NODE_STATE_NONE, state(n, &node));
	KUNIT_EXPECT_EQ(test, UIDGEN_NODE_NONE, node);
	/* The kernel never guesses a floor. */
	KUNIT_EXPECT_EQ(test, -EINVAL, assign(n, 3, false, 0, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, -EINVAL, assign(n, 3, true, 1, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, -ERANGE, assign(n, 32, true, 0, 0, 0, 0));
	KUNIT_ASSERT_EQ(test, 0, assign(n, 3, true, 0, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, UIDGEN_NODE_STATE_ACTIVE, state(n, &node));
	KUNIT_EXPECT_EQ(test, 3U, node);
	KUNIT_EXPECT_EQ(test, -EBUSY, assign(n, 6, true, 0, 0, 0, 0));

	/* The VM-fork path revokes and moves the fence; so does a revoke. */
	uidgen_node_vmfork(n);
	KUNIT_EXPECT_EQ(test, UIDGEN_NODE_NONE, n->node);
	KUNIT_EXPECT_EQ(test, 1U, n->page->fence);
	KUNIT_EXPECT_EQ(test, 0, assign(n, 5, true, 0, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, -ESTALE, revoke(n, 6, 0));
	KUNIT_EXPECT_EQ(test, 0, revoke(n, 5, 0));
	KUNIT_EXPECT_EQ(test, 2U, n->page->fence);
	uidgen_node_destroy(n);
}

/* An assignment's floor moves the clock past it; a re-assign raises it. */
static void uidgen_node_floor_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	struct uidgen_node_ctl *n = new_node(test, g);
	u64 now_ms = div_u64(WALL_NS, NSEC_PER_MSEC), floor = now_ms + 60000;
	u32 node;

	KUNIT_ASSERT_EQ(test, 0, assign(n, 7, false, floor * NSEC_PER_MSEC,
					0, 0, 0));
	KUNIT_EXPECT_EQ(test, UIDGEN_NODE_STATE_ACTIVE, state(n, &node));
	KUNIT_EXPECT_EQ(test, 7U, node);
	KUNIT_EXPECT_EQ(test, floor * NSEC_PER_MSEC, n->floor_unix_ns);
	/* The clock now reads past the floor's tick. */
	KUNIT_EXPECT_GT(test, uidgen_tick(g, ktime_get_boottime_ns()),
			uidgen_ms_to_tick(g, floor));
	KUNIT_ASSERT_EQ(test, 0, assign(n, 7, false,
					(floor + 1000) * NSEC_PER_MSEC, 0, 0, 0));
	KUNIT_EXPECT_EQ(test, (floor + 1000) * NSEC_PER_MSEC, n->floor_unix_ns);
	KUNIT_EXPECT_GT(test, uidgen_tick(g, ktime_get_boottime_ns()),
			uidgen_ms_to_tick(g, floor + 1000));
	/* A revoke leaves no node ID, and the floor where it was. */
	KUNIT_EXPECT_EQ(test, 0, revoke(n, UIDGEN_NODE_NONE, 0));
	KUNIT_EXPECT_EQ(test, UIDGEN_NODE_STATE_NONE, state(n, &node));
	KUNIT_EXPECT_EQ(test, UIDGEN_NODE_NONE, node);
	KUNIT_EXPECT_EQ(test, (floor + 1000) * NSEC_PER_MSEC, n->floor_unix_ns);
	uidgen_node_destroy(n);
}

/* Tokens fence stale claims; deadlines in the past are refused. */
static void uidgen_node_token_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	struct uidgen_node_ctl *n = new_node(test, g);
	u64 boot = ktime_get_boottime_ns();
	struct uidgen_rules_req renew = { .node_id = 2, .token = 40 };

	KUNIT_EXPECT_EQ(test, -ETIME, assign(n, 2, true, 0, 0, 1, 41));
	KUNIT_ASSERT_EQ(test, 0, assign(n, 2, true, 0, 0,
					boot + 3600 * NSEC_PER_SEC, 41));
	KUNIT_EXPECT_EQ(test, 41ULL, n->token);
	KUNIT_EXPECT_EQ(test, -ESTALE, uidgen_node_renew(n, &renew));
	renew.token = 41;
	renew.node_id = 3;
	KUNIT_EXPECT_EQ(test, -ESTALE, uidgen_node_renew(n, &renew));
	renew.node_id = 2;
	KUNIT_EXPECT_EQ(test, 0, uidgen_node_renew(n, &renew));
	KUNIT_EXPECT_EQ(test, -ESTALE, revoke(n, 2, 40));
	KUNIT_EXPECT_EQ(test, 0, revoke(n, 2, 41));
	/* A claim older than one already seen is refused. */
	KUNIT_EXPECT_EQ(test, -ESTALE, assign(n, 2, true, 0, 0, 0, 40));
	/* So is the one revoked: a restored etcd reissues revisions. */
	KUNIT_EXPECT_EQ(test, -ESTALE, assign(n, 2, true, 0, 0, 0, 41));
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL, uidgen_node_renew(n, &renew));
	KUNIT_EXPECT_EQ(test, 0, assign(n, 2, true, 0, 0, 0, 42));
	uidgen_node_destroy(n);
}

/* The lease deadline revokes by itself. */
static void uidgen_node_deadline_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	struct uidgen_node_ctl *n = new_node(test, g);
	u64 boot = ktime_get_boottime_ns();
	int i;

	KUNIT_ASSERT_EQ(test, 0, assign(n, 1, true, 0, 0,
					boot + 50 * NSEC_PER_MSEC, 0));
	/* The fence moves last, after the grace period. */
	for (i = 0; i < 200 && !READ_ONCE(n->page->fence); i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, UIDGEN_NODE_NONE, READ_ONCE(n->node));
	KUNIT_EXPECT_EQ(test, 1U, READ_ONCE(n->page->fence));
	uidgen_node_destroy(n);
}

/*
 * A renew that wins the race with the expiry work (the timer stopped here,
 * as if the work were late) finds the lease ended and revokes it: an ended
 * lease never comes back.
 */
static void uidgen_node_late_renew_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	struct uidgen_node_ctl *n = new_node(test, g);
	struct uidgen_rules_req renew = {
		.node_id = 1, .token = 7,
		.deadline_boot_ns = ktime_get_boottime_ns() + 3600 * NSEC_PER_SEC,
	};

	KUNIT_ASSERT_EQ(test, 0, assign(n, 1, true, 0, 0,
					ktime_get_boottime_ns() + 500 * NSEC_PER_MSEC, 7));
	/* A guest stalled for half a second let the timer fire first. */
	if (!hrtimer_cancel(&n->deadline_timer)) {
		uidgen_node_destroy(n);
		kunit_skip(test, "the deadline timer fired before it was stopped");
	}
	msleep(600);
	KUNIT_EXPECT_EQ(test, 1U, READ_ONCE(n->node));
	KUNIT_EXPECT_EQ(test, -EADDRNOTAVAIL, uidgen_node_renew(n, &renew));
	KUNIT_EXPECT_EQ(test, UIDGEN_NODE_NONE, READ_ONCE(n->node));
	KUNIT_EXPECT_EQ(test, 1U, READ_ONCE(n->page->fence));
	/* A floor of 0 is not a floor; a huge grant is still a grant. */
	KUNIT_EXPECT_EQ(test, -EINVAL, assign(n, 1, false, 0, 0, 0, 8));
	KUNIT_EXPECT_EQ(test, 0, assign(n, 1, true, 0, U64_MAX, 0, 8));
	KUNIT_EXPECT_EQ(test, g->max_tick, g->grant_tick);
	uidgen_node_destroy(n);
}

/*
 * INFO's snapshot while assignments and revokes race it: one worker
 * assigns node 1 with token t, deadline base + t and a grant of its own,
 * then revokes it, over and over; the test reads snapshots meanwhile.
 * Each must be one state: none at all (no token, deadline or grant), or
 * assignment t whole. A field-by-field read sees a revoke half done (its
 * node ID cleared during the grace period, the token not yet).
 */
#define SNAP_CYCLES	100

struct snap_race {
	struct work_struct work;
	struct uidgen_node_ctl *n;
	u64 deadline_base, grant_base;
	bool done;
	int err;
};

static u64 snap_grant(u64 grant_base, u64 token)
{
	return grant_base + token * NSEC_PER_SEC;
}

static void snap_writer(struct work_struct *work)
{
	struct snap_race *sr = container_of(work, struct snap_race, work);
	u64 t, grant;

	for (t = 1; t <= SNAP_CYCLES && !sr->err; t++) {
		grant = snap_grant(sr->grant_base, t);
		sr->err = assign(sr->n, 1, true, 0, grant,
				 sr->deadline_base + t, t);
		if (sr->err)
			break;
		/* Let the reader find it in force, too. */
		usleep_range(100, 200);
		sr->err = revoke(sr->n, 1, t);
	}
	WRITE_ONCE(sr->done, true);
}

static bool snap_whole(const struct uidgen_gen *g, const struct snap_race *sr,
		       const struct uidgen_node_snapshot *s)
{
	u64 grant;

	if (s->node == UIDGEN_NODE_NONE)
		return s->state == UIDGEN_NODE_STATE_NONE && !s->token &&
		       s->deadline_boot_ns == UIDGEN_RULES_NO_DEADLINE &&
		       s->grant_tick == UIDGEN_NO_GRANT;
	grant = uidgen_ns_to_tick(g, snap_grant(sr->grant_base, s->token));
	return s->node == 1 && s->state == UIDGEN_NODE_STATE_ACTIVE &&
	       s->token >= 1 && s->token <= SNAP_CYCLES &&
	       s->deadline_boot_ns == sr->deadline_base + s->token &&
	       s->grant_tick == min(grant, g->max_tick);
}

static void uidgen_node_snapshot_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	struct snap_race sr = {
		.n = new_node(test, g),
		.deadline_base = ktime_get_boottime_ns() + 3600 * NSEC_PER_SEC,
		.grant_base = WALL_NS + 3600 * NSEC_PER_SEC,
	};
	unsigned int reads = 0, active = 0, mixed = 0;
	struct uidgen_node_snapshot s;

	INIT_WORK_ONSTACK(&sr.work, snap_writer);
	queue_work(system_unbound_wq, &sr.work);
	while (!READ_ONCE(sr.done)) {
		uidgen_node_state(sr.n, &s);
		reads++;
		active += s.node != UIDGEN_NODE_NONE;
		mixed += !snap_whole(g, &sr, &s);
		cond_resched();
	}
	flush_work(&sr.work);
	destroy_work_on_stack(&sr.work);
	kunit_info(test, "%u snapshots, %u active, %u mixed",
		   reads, active, mixed);
	KUNIT_EXPECT_EQ(test, 0, sr.err);
	KUNIT_EXPECT_GT(test, active, 0U);
	KUNIT_EXPECT_EQ(test, 0U, mixed);
	uidgen_node_destroy(sr.n);
}

/* A grant caps the ticks issued; only a higher grant lets more out. */
static void uidgen_grant_test(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);
	u64 now = uidgen_tick(g, BOOT_NS), first, wait;

	KUNIT_EXPECT_EQ(test, UIDGEN_NO_GRANT, g->grant_tick);
	uidgen_raise_grant(g, now + 1);
	KUNIT_EXPECT_EQ(test, 4096, uidgen_reserve(g, &g->slots[0], now, 4096, &first, &wait));
	KUNIT_EXPECT_EQ(test, 4096, uidgen_reserve(g, &g->slots[0], now + 1, 4096, &first, &wait));
	/* The clock is past the grant: wait for a grant, not for a tick. */
	KUNIT_EXPECT_EQ(test, 0, uidgen_reserve(g, &g->slots[0], now + 2, 1, &first, &wait));
	KUNIT_EXPECT_EQ(test, UIDGEN_WAIT_GRANT | (now + 2), wait);
	KUNIT_EXPECT_EQ(test, 0, uidgen_reserve(g, &g->slots[1], now + 5, 1, &first, &wait));
	KUNIT_EXPECT_EQ(test, UIDGEN_WAIT_GRANT | (now + 5), wait);
	/* Borrowing stops at the grant too. */
	g->max_borrow = 10;
	KUNIT_EXPECT_EQ(test, 0, uidgen_reserve(g, &g->slots[0], now + 1, 1, &first, &wait));
	KUNIT_EXPECT_EQ(test, UIDGEN_WAIT_GRANT | (now + 2), wait);
	/* A lower grant changes nothing; a higher one lets the next tick out. */
	uidgen_raise_grant(g, now);
	KUNIT_EXPECT_EQ(test, now + 1, g->grant_tick);
	uidgen_raise_grant(g, now + 2);
	KUNIT_EXPECT_EQ(test, 1, uidgen_reserve(g, &g->slots[0], now + 2, 1, &first, &wait));
	KUNIT_EXPECT_EQ(test, (now + 2) << 12, first);
}

/*
 * UIDGEN_IOC_OBSERVE's core (uidgen_observe()), as a function of the
 * generator's state: IDs of random ticks around the clock, with random
 * low bits, on generators with random leads and slots. Refused (-EDOM)
 * exactly when the ID's tick begins more than the bound after the anchor,
 * and then nothing moved; else every slot's next ID, under any node ID,
 * is greater, and the clock reads exactly the later of what it read and
 * the tick after the ID's: no further.
 */
#define OBS_AHEAD_NS	(500 * NSEC_PER_MSEC)

static struct uidgen_gen *obs_gen(struct kunit *test)
{
	struct uidgen_layout l = DEFAULT_LAYOUT;
	struct uidgen_gen *g = new_gen(test, &l);

	g->observe_ahead_ns = OBS_AHEAD_NS;
	return g;
}

static void uidgen_observe_test(struct kunit *test)
{
	unsigned int k, i, refused = 0, moved = 0, past = 0, wrong = 0;
	u64 x = 0x2545f4914f6cdd1dULL;

	for (k = 0; k < 3000; k++) {
		struct uidgen_gen *g = obs_gen(test);
		u64 t = HEAL_AT + xorshift(&x) % (20 * NSEC_PER_SEC), first, wait;
		u64 before[32], tick0, tick, id, anchor_tick, lead;
		bool ahead;
		int ret;

		/*
		 * Some leads (a floor up to 2 s ahead), some slots used, each
		 * with at least one ID left in the tick, so that a slot an
		 * observe left alone has one to give below.
		 */
		lead = k % 2 ? xorshift(&x) % 2000 : 0;
		if (lead)
			KUNIT_ASSERT_EQ(test, 0,
					uidgen_set_floor(g, uidgen_tick(g, t) + lead, t));
		for (i = 0; i < g->nr_slots; i += 1 + xorshift(&x) % 4)
			uidgen_reserve(g, &g->slots[i], uidgen_tick(g, t),
				       1 + xorshift(&x) % 4095, &first, &wait);
		for (i = 0; i < g->nr_slots; i++)
			before[i] = atomic64_read(&g->slots[i].last);
		tick0 = uidgen_tick(g, t);
		anchor_tick = wall_tick(t);
		/* A tick from 2 s before the anchor to 2.5 s after it. */
		tick = anchor_tick - 2000 + xorshift(&x) % 4500;
		id = tick << 22 | (xorshift(&x) & (BIT_ULL(22) - 1));

		ret = uidgen_observe(g, id, t);
		if (tick * g->tick_ns > t + g->offset_ns + OBS_AHEAD_NS) {
			refused++;
			wrong += ret != -EDOM || uidgen_tick(g, t) != tick0;
			for (i = 0; i < g->nr_slots; i++)
				wrong += atomic64_read(&g->slots[i].last) != before[i];
			continue;
		}
		ahead = tick >= tick0;
		if (ret < 0 || ret != ahead) {
			wrong++;
			continue;
		}
		moved += ret;
		past += !ret;
		wrong += uidgen_tick(g, t) != max(tick0, tick + 1);
		for (i = 0; i < g->nr_slots; i++) {
			u32 node = xorshift(&x) % 32;

			if (uidgen_reserve(g, &g->slots[i], uidgen_tick(g, t),
					   1, &first, &wait) != 1 ||
			    uidgen_compose(g, first, node << 5 | i) <= id)
				wrong++;
		}
	}
	kunit_info(test, "%u refused, %u moved, %u from the past", refused,
		   moved, past);
	KUNIT_EXPECT_EQ(test, 0U, wrong);
	KUNIT_EXPECT_GT(test, refused, 300U);
	KUNIT_EXPECT_GT(test, moved, 100U);
	KUNIT_EXPECT_GT(test, past, 300U);
}

/* Errors: bit 63; no tick left after the ID's; the bound's edge. */
static void uidgen_observe_errors_test(struct kunit *test)
{
	/* 2^20 ticks of 1 ms ending 100 ms after the wall clock. */
	struct uidgen_layout l = { 20, 13, 0, 30, 1000,
				   div_u64(WALL_NS, NSEC_PER_MSEC) - BIT(20) + 100 };
	struct uidgen_gen *g = obs_gen(test), *end = new_gen(test, &l);
	u64 at = wall_tick(BOOT_NS) + 500;

	KUNIT_EXPECT_EQ(test, -EINVAL, uidgen_observe(g, BIT_ULL(63), BOOT_NS));
	KUNIT_EXPECT_EQ(test, -EDOM, uidgen_observe(g, U64_MAX >> 1, BOOT_NS));
	/* The tick that begins 500 ms on is taken; the one after is not. */
	KUNIT_EXPECT_EQ(test, -EDOM, uidgen_observe(g, (at + 1) << 22, BOOT_NS));
	KUNIT_EXPECT_EQ(test, 1, uidgen_observe(g, at << 22, BOOT_NS));
	KUNIT_EXPECT_EQ(test, at + 1, uidgen_tick(g, BOOT_NS));
	/* With no bound, only the current tick may be observed. */
	g = obs_gen(test);
	g->observe_ahead_ns = 0;
	at = wall_tick(BOOT_NS);
	KUNIT_EXPECT_EQ(test, -EDOM, uidgen_observe(g, (at + 1) << 22, BOOT_NS));
	KUNIT_EXPECT_EQ(test, 1, uidgen_observe(g, at << 22 | 5, BOOT_NS));
	/* The field's last tick: nothing after it to move to. */
	end->observe_ahead_ns = OBS_AHEAD_NS;
	KUNIT_EXPECT_EQ(test, -EOVERFLOW,
			uidgen_observe(end, end->max_tick << 43, BOOT_NS));
	KUNIT_EXPECT_EQ(test, 1, uidgen_observe(end, (end->max_tick - 1) << 43,
						BOOT_NS));
}

/*
 * The bound is against the anchor, not the moved clock: a chain of
 * observes each just inside the bound of the clock they find cannot
 * ratchet it; and the lead heals at 15/16 as a floor's does.
 */
static void uidgen_observe_heal_test(struct kunit *test)
{
	struct uidgen_gen *g = obs_gen(test);
	u64 at = wall_tick(HEAL_AT) + 499, prev, tick;
	unsigned int i, backwards = 0;

	KUNIT_ASSERT_EQ(test, 1, uidgen_observe(g, at << 22, HEAL_AT));
	KUNIT_EXPECT_EQ(test, 500LL, clock_offset(g, HEAL_AT));
	KUNIT_EXPECT_EQ(test, -EDOM,
			uidgen_observe(g, (uidgen_tick(g, HEAL_AT) + 400) << 22,
				       HEAL_AT));
	KUNIT_EXPECT_EQ(test, 500LL, clock_offset(g, HEAL_AT));
	prev = uidgen_tick(g, HEAL_AT);
	for (i = 1; i <= 9000; i++) {
		tick = uidgen_tick(g, HEAL_AT + (u64)i * NSEC_PER_MSEC);
		backwards += tick < prev;
		prev = tick;
	}
	KUNIT_EXPECT_EQ(test, 0U, backwards);
	/* 16 times the lead: back on the wall clock after 8 s. */
	KUNIT_EXPECT_EQ(test, 250LL, clock_offset(g, HEAL_AT + 4 * NSEC_PER_SEC));
	KUNIT_EXPECT_EQ(test, 0LL, clock_offset(g, HEAL_AT + 8 * NSEC_PER_SEC));
}

/* Observed time is granted first: past the grant, minting waits for it. */
static void uidgen_observe_grant_test(struct kunit *test)
{
	struct uidgen_gen *g = obs_gen(test);
	u64 now = uidgen_tick(g, BOOT_NS), first, wait;

	uidgen_raise_grant(g, now + 1);
	KUNIT_ASSERT_EQ(test, 1, uidgen_observe(g, (now + 5) << 22, BOOT_NS));
	KUNIT_EXPECT_EQ(test, now + 6, uidgen_tick(g, BOOT_NS));
	KUNIT_EXPECT_EQ(test, 0, uidgen_reserve(g, &g->slots[0], now + 6, 1,
						&first, &wait));
	KUNIT_EXPECT_EQ(test, UIDGEN_WAIT_GRANT | (now + 6), wait);
	/* The grant is the caller's to raise: observe left it alone. */
	KUNIT_EXPECT_EQ(test, now + 1, g->grant_tick);
	uidgen_raise_grant(g, now + 6);
	KUNIT_EXPECT_EQ(test, 1, uidgen_reserve(g, &g->slots[0], now + 6, 1,
						&first, &wait));
	KUNIT_EXPECT_EQ(test, (now + 6) << 12, first);
}

/*
 * Concurrency: a worker on every CPU takes runs of 1..64 from a slot (all
 * the same slot, or each its own), advancing a shared fake clock when the
 * slot asks to wait. Then: no value twice, and each worker's values rise.
 */
#define HAMMER_IDS	20000

struct hammer {
	struct work_struct work;
	struct uidgen_gen *g;
	struct uidgen_slot *s;
	atomic64_t *clock;
	u64 *vals;
	unsigned int n;
	int err;
};

static void hammer_fn(struct work_struct *work)
{
	struct hammer *h = container_of(work, struct hammer, work);
	u64 first, wait;
	u32 want = 1;

	while (h->n < HAMMER_IDS && !h->err) {
		s64 now = atomic64_read(h->clock);
		int got, i;

		want = want % 64 + 1;
		got = uidgen_reserve(h->g, h->s, now,
				     min_t(u32, want, HAMMER_IDS - h->n), &first, &wait);
		if (got < 0) {
			h->err = got;
			break;
		}
		if (!got) {
			/* "Sleep" until the tick asked for. */
			atomic64_try_cmpxchg(h->clock, &now, max_t(s64, now, wait));
			continue;
		}
		for (i = 0; i < got; i++)
			h->vals[h->n++] = first + i;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void hammer(struct kunit *test, bool one_slot)
{
	struct uidgen_layout l = { 45, 5, 5, 8, 1000, UIDGEN_DEFAULT_EPOCH_MS };
	struct uidgen_gen *g = new_gen(test, &l);
	unsigned int cpu, nr = 0, i, j, dups = 0, backwards = 0;
	struct hammer *h;
	atomic64_t clock;
	u64 *all;

	atomic64_set(&clock, uidgen_tick(g, BOOT_NS));
	h = kunit_kcalloc(test, nr_cpu_ids, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	for_each_online_cpu(cpu) {
		h[cpu].g = g;
		h[cpu].s = &g->slots[one_slot ? 0 : cpu % g->nr_slots];
		h[cpu].clock = &clock;
		h[cpu].vals = vmalloc(HAMMER_IDS * sizeof(u64));
		KUNIT_ASSERT_NOT_NULL(test, h[cpu].vals);
		INIT_WORK(&h[cpu].work, hammer_fn);
		queue_work_on(cpu, system_highpri_wq, &h[cpu].work);
		nr++;
	}
	for_each_online_cpu(cpu)
		flush_work(&h[cpu].work);

	all = vmalloc(array_size(nr, HAMMER_IDS * sizeof(u64)));
	KUNIT_ASSERT_NOT_NULL(test, all);
	i = 0;
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, 0, h[cpu].err);
		KUNIT_EXPECT_EQ(test, HAMMER_IDS, h[cpu].n);
		for (j = 0; j < h[cpu].n; j++) {
			/* Values from one slot; different slots are told apart by slot. */
			u64 v = h[cpu].vals[j] << 10 |
				(u64)(h[cpu].s - g->slots);

			backwards += j && h[cpu].vals[j] <= h[cpu].vals[j - 1];
			all[i++] = v;
		}
		vfree(h[cpu].vals);
	}
	sort(all, i, sizeof(u64), cmp_u64, NULL);
	for (j = 1; j < i; j++)
		dups += all[j] == all[j - 1];
	vfree(all);
	kunit_info(test, "%u CPUs, %u values, %u duplicates, %u out of order",
		   nr, i, dups, backwards);
	KUNIT_EXPECT_GE(test, nr, 2U);
	KUNIT_EXPECT_EQ(test, 0U, dups);
	KUNIT_EXPECT_EQ(test, 0U, backwards);
}

static void uidgen_hammer_one_slot_test(struct kunit *test)
{
	hammer(test, true);
}

static void uidgen_hammer_all_slots_test(struct kunit *test)
{
	hammer(test, false);
}

/*
 * uidgen_observe() racing minting on every CPU: a work item on each CPU
 * takes runs from its own slot (as read() and RESERVE do) while the test
 * thread observes ascending IDs, the top of the current tick or the next
 * (where the minters are), and publishes each one (a release store) only
 * after uidgen_observe() has returned. A minter loads the publication
 * (acquire) before it reads the clock; every ID of the run it then takes
 * must be greater, under any node ID. The clock is a shared counter
 * that the observer moves on by 10 us an observe (100 a tick, 200 ticks),
 * so that observes land inside ticks the minters are in.
 *
 * The same race is run first against a broken observe, one that only
 * checks (uidgen_observe_check()) and moves nothing, and must then fail:
 * the test can tell.
 */
#define ORACE_OBSERVES	20000

struct orace {
	struct work_struct work;
	struct uidgen_gen *g;
	struct uidgen_slot *s;
	unsigned int slot;
	atomic64_t *clock;
	u64 *published;
	bool *stop;
	unsigned long ids, bad, close;
	u64 bad_id, bad_seen;
	int err;
};

static void orace_fn(struct work_struct *work)
{
	struct orace *m = container_of(work, struct orace, work);
	struct uidgen_gen *g = m->g;
	unsigned int shift = g->l.node_bits + g->l.slot_bits + g->l.seq_bits;
	u64 first, wait, seen, id;
	u32 want = 1;
	int got, i;

	while (!READ_ONCE(*m->stop)) {
		/* Pairs with the observer's release: its observe is done. */
		seen = smp_load_acquire(m->published);
		want = want % 64 + 1;
		got = uidgen_reserve(g, m->s, uidgen_tick(g, atomic64_read(m->clock)),
				     want, &first, &wait);
		if (got < 0) {
			m->err = got;
			break;
		}
		for (i = 0; i < got; i++) {
			/* Node 31: the highest, the hardest to be above. */
			id = uidgen_compose(g, first + i, 31 << g->l.slot_bits | m->slot);
			m->ids++;
			if (id <= seen) {
				if (!m->bad++) {
					m->bad_id = id;
					m->bad_seen = seen;
				}
			} else if (id >> shift == (seen >> shift) + 1) {
				m->close++;
			}
		}
		if (!got)
			cond_resched();
	}
}

/* One race; @broken: observe only checks. The IDs at or below. */
static unsigned long orace_run(struct kunit *test, bool broken)
{
	struct uidgen_gen *g = obs_gen(test);
	unsigned int shift = g->l.node_bits + g->l.slot_bits + g->l.seq_bits;
	unsigned long ids = 0, bad = 0, close = 0, moved = 0;
	unsigned int cpu, nr = 0, k;
	u64 published = 0, x = 0x9e3779b97f4a7c15ULL, id, t;
	struct orace *m;
	atomic64_t clock;
	bool stop = false;
	int ret;

	atomic64_set(&clock, HEAL_AT);
	m = kunit_kcalloc(test, nr_cpu_ids, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	for_each_online_cpu(cpu) {
		m[cpu].g = g;
		m[cpu].slot = cpu % g->nr_slots;
		m[cpu].s = &g->slots[m[cpu].slot];
		m[cpu].clock = &clock;
		m[cpu].published = &published;
		m[cpu].stop = &stop;
		INIT_WORK(&m[cpu].work, orace_fn);
		queue_work_on(cpu, system_highpri_wq, &m[cpu].work);
		nr++;
	}
	for (k = 0; k < ORACE_OBSERVES; k++) {
		t = atomic64_add_return(10 * NSEC_PER_USEC, &clock);
		/*
		 * From the anchor's tick, not the clock's: the clock leads
		 * after each observe, and observes of its own tick would
		 * ratchet it a tick each, into the bound.
		 */
		id = (wall_tick(t) + xorshift(&x) % 2) << shift |
		     (BIT_ULL(shift) - 1);
		id = max(id, published);
		ret = broken ? uidgen_observe_check(g, id, t) :
			       uidgen_observe(g, id, t);
		if (ret < 0)
			break;
		moved += ret;
		/* Only now that uidgen_observe() has returned: the order. */
		smp_store_release(&published, id);
		if (!(k % 64))
			cond_resched();
	}
	WRITE_ONCE(stop, true);
	for_each_online_cpu(cpu) {
		flush_work(&m[cpu].work);
		KUNIT_EXPECT_EQ(test, 0, m[cpu].err);
		ids += m[cpu].ids;
		bad += m[cpu].bad;
		close += m[cpu].close;
		if (m[cpu].bad)
			kunit_info(test, "CPU %u: %#llx at or below the observed %#llx",
				   cpu, m[cpu].bad_id, m[cpu].bad_seen);
	}
	kunit_info(test, "%s observe: %u CPUs, %u observes (%lu moved), %lu IDs, %lu in the tick after the last published, %lu at or below it",
		   broken ? "broken" : "real", nr, k, moved, ids, close, bad);
	KUNIT_EXPECT_EQ(test, 0, ret < 0 ? ret : 0);
	KUNIT_EXPECT_GE(test, nr, 2U);
	KUNIT_EXPECT_EQ(test, ORACE_OBSERVES, k);
	KUNIT_EXPECT_GT(test, moved, 100UL);
	KUNIT_EXPECT_GT(test, ids, 10000UL);
	return bad;
}

static void uidgen_observe_race_test(struct kunit *test)
{
	KUNIT_EXPECT_GT(test, orace_run(test, true), 0UL);
	KUNIT_EXPECT_EQ(test, 0UL, orace_run(test, false));
}

static struct kunit_case uidgen_cases[] = {
	KUNIT_CASE_PARAM(uidgen_layout_check_test, layout_gen_params),
	KUNIT_CASE(uidgen_compose_roundtrip_test),
	KUNIT_CASE(uidgen_tick_divide_test),
	KUNIT_CASE(uidgen_clock_test),
	KUNIT_CASE(uidgen_rollover_test),
	KUNIT_CASE_PARAM(uidgen_borrow_test, borrow_gen_params),
	KUNIT_CASE(uidgen_exhaustion_test),
	KUNIT_CASE_PARAM(uidgen_exhausts_at_test, end_gen_params),
	KUNIT_CASE(uidgen_floor_test),
	KUNIT_CASE(uidgen_heal_offset_test),
	KUNIT_CASE(uidgen_heal_ids_test),
	KUNIT_CASE(uidgen_heal_tick_start_test),
	KUNIT_CASE(uidgen_heal_second_floor_test),
	KUNIT_CASE(uidgen_floor_far_ahead_test),
	KUNIT_CASE(uidgen_fence_slots_test),
	KUNIT_CASE(uidgen_node_assign_test),
	KUNIT_CASE(uidgen_node_floor_test),
	KUNIT_CASE(uidgen_node_token_test),
	KUNIT_CASE(uidgen_node_deadline_test),
	KUNIT_CASE_SLOW(uidgen_node_late_renew_test),
	KUNIT_CASE_SLOW(uidgen_node_snapshot_test),
	KUNIT_CASE(uidgen_grant_test),
	KUNIT_CASE(uidgen_observe_test),
	KUNIT_CASE(uidgen_observe_errors_test),
	KUNIT_CASE(uidgen_observe_heal_test),
	KUNIT_CASE(uidgen_observe_grant_test),
	KUNIT_CASE_SLOW(uidgen_observe_race_test),
	KUNIT_CASE_SLOW(uidgen_hammer_one_slot_test),
	KUNIT_CASE_SLOW(uidgen_hammer_all_slots_test),
	{}
};

static struct kunit_suite uidgen_suite = {
	.name = "uidgen",
	.test_cases = uidgen_cases,
};

kunit_test_suite(uidgen_suite);
