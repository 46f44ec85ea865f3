// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuidgen tests. The pure functions (format, parse, decode) need nothing;
 * the device functions run against the real /dev/uid (node ID assigned) and
 * fail, not skip, when it is missing. Built with -DUNIT_TSAN (unit-tsan)
 * it runs only the tests that use threads, under ThreadSanitizer.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "uidgen.h"

#ifdef UNIT_TSAN
/* The tests without threads are compiled, not run. */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

/* The library's per-thread cache page (UIDGEN_MAP_LEN), in kB. */
#define UIDGEN_MAP_KB	4

/* Every failed check is printed; rnd() has a seed of its own. */
#define CHECK_PRINT_MAX	INT_MAX
#define RND_SEED	0x9e3779b97f4a7c15ULL
#include "tap.h"

static void test_format_parse(void)
{
	static const uint64_t edges[] = { 0, 1, 9, 10, 31, 32, 0xffffffffULL,
					  (1ULL << 63) - 1, 1ULL << 63, ~0ULL };
	static const enum uidgen_format fmts[] = {
		UIDGEN_FMT_DEC, UIDGEN_FMT_HEX, UIDGEN_FMT_B32,
	};
	char buf[UIDGEN_FMT_MAX];
	uint64_t v, back;
	int i, f, n;

	for (i = 0; i < 10000; i++) {
		v = i < 10 ? edges[i] : rnd() >> (rnd() % 64);
		for (f = 0; f < 3; f++) {
			n = uidgen_format(v, fmts[f], buf, sizeof(buf));
			CHECK(n == (int)strlen(buf), "len %d", n);
			CHECK(uidgen_parse(buf, fmts[f], &back) == 0 && back == v,
			      "%s round trip of %llu", buf, (unsigned long long)v);
		}
		n = uidgen_format(v, UIDGEN_FMT_HEX, buf, sizeof(buf));
		CHECK(n == 18 && !strncmp(buf, "0x", 2), "hex is 0x and 16 digits: %s", buf);
		n = uidgen_format(v, UIDGEN_FMT_B32, buf, sizeof(buf));
		CHECK(n == 13, "b32 is 13 digits: %s", buf);
	}

	/* Known values. */
	uidgen_format(120687119160971264ULL, UIDGEN_FMT_DEC, buf, sizeof(buf));
	CHECK(!strcmp(buf, "120687119160971264"), "%s", buf);
	uidgen_format(0x01acc2a4a4c00001ULL, UIDGEN_FMT_HEX, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0x01acc2a4a4c00001"), "%s", buf);
	uidgen_format(0, UIDGEN_FMT_B32, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0000000000000"), "%s", buf);
	uidgen_format((1ULL << 63) - 1, UIDGEN_FMT_B32, buf, sizeof(buf));
	CHECK(!strcmp(buf, "7ZZZZZZZZZZZZ"), "%s", buf);
	uidgen_format(32, UIDGEN_FMT_B32, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0000000000010"), "%s", buf);

	/* Auto-detection, and Crockford's forgiving letters. */
	CHECK(uidgen_parse("0x1f", UIDGEN_FMT_AUTO, &v) == 0 && v == 31, "hex");
	CHECK(uidgen_parse("12345", UIDGEN_FMT_AUTO, &v) == 0 && v == 12345, "dec");
	CHECK(uidgen_parse("000000000001O", UIDGEN_FMT_AUTO, &v) == 0 && v == 32,
	      "b32 O is 0");
	CHECK(uidgen_parse("00000000000il", UIDGEN_FMT_AUTO, &v) == 0 && v == 33,
	      "b32 i and l are 1");
	/* 13 digits are decimal (1.3 read them as base32). */
	CHECK(uidgen_parse("1234567890123", UIDGEN_FMT_AUTO, &v) == 0 &&
	      v == 1234567890123ULL, "13 digits are decimal");
	CHECK(uidgen_parse("0000000000010", UIDGEN_FMT_B32, &v) == 0 && v == 32,
	      "digits as base32 when asked");

	/* Errors. */
	CHECK(uidgen_parse("", UIDGEN_FMT_AUTO, &v) == -EINVAL, "empty");
	CHECK(uidgen_parse("12a", UIDGEN_FMT_DEC, &v) == -EINVAL, "letter");
	CHECK(uidgen_parse("0x", UIDGEN_FMT_AUTO, &v) == -EINVAL, "bare 0x");
	CHECK(uidgen_parse("-5", UIDGEN_FMT_DEC, &v) == -EINVAL, "negative");
	CHECK(uidgen_parse("0000000000U00", UIDGEN_FMT_B32, &v) == -EINVAL, "U");
	CHECK(uidgen_parse("18446744073709551616", UIDGEN_FMT_DEC, &v) == -ERANGE,
	      "2^64");
	CHECK(uidgen_parse("0x10000000000000000", UIDGEN_FMT_AUTO, &v) == -ERANGE,
	      "2^64 hex");
	CHECK(uidgen_parse("1", 7, &v) == -EINVAL, "bad format");
	CHECK(uidgen_format(1, 7, buf, sizeof(buf)) == -EINVAL, "bad format");
	CHECK(uidgen_format(1234, UIDGEN_FMT_DEC, buf, 4) == -ENOSPC, "no room");
	CHECK(uidgen_format(1234, UIDGEN_FMT_DEC, buf, 5) == 4, "just room");
	CHECK(uidgen_format(1, UIDGEN_FMT_HEX, buf, 18) == -ENOSPC, "hex room");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Base32 text sorts exactly like the numbers. */
static void test_b32_sorts(void)
{
	enum { N = 2000 };
	static char text[N][UIDGEN_FMT_MAX];
	uint64_t v[N], back;
	int i, ok = 1;

	for (i = 0; i < N; i++)
		v[i] = rnd() >> 1 >> (rnd() % 40);
	for (i = 0; i < N; i++)
		uidgen_format(v[i], UIDGEN_FMT_B32, text[i], UIDGEN_FMT_MAX);
	qsort(text, N, UIDGEN_FMT_MAX, cmp_str);
	for (i = 1; i < N; i++) {
		uint64_t a = 0, b = 0;

		CHECK(uidgen_parse(text[i - 1], UIDGEN_FMT_B32, &a) == 0 &&
		      uidgen_parse(text[i], UIDGEN_FMT_B32, &b) == 0,
		      "parse %s, %s", text[i - 1], text[i]);
		ok &= a <= b;
	}
	CHECK(ok, "sorted text is sorted numbers");
	CHECK(uidgen_parse(text[0], UIDGEN_FMT_B32, &back) == 0, "parse");
}

static uint64_t compose(const struct uidgen_info *in, uint64_t tick,
			uint32_t node, uint32_t slot, uint32_t seq)
{
	return tick << (in->node_bits + in->slot_bits + in->seq_bits) |
	       (uint64_t)node << (in->slot_bits + in->seq_bits) |
	       (uint64_t)slot << in->seq_bits | seq;
}

static void test_decode(void)
{
	static const unsigned int layouts[][5] = {
		/* ts, node, slot, seq, tick_us */
		{ 41, 5, 5, 12, 1000 },
		{ 41, 5, 0, 17, 1000 },
		{ 51, 0, 2, 10, 1 },
		{ 20, 20, 10, 13, 60000000 },
		{ 60, 0, 0, 3, 1 },
		{ 32, 1, 0, 30, 1000000 },
	};
	struct uidgen_info in;
	struct uidgen_parts p;
	unsigned int i, k;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		uidgen_default_info(&in);
		in.ts_bits = layouts[i][0];
		in.node_bits = layouts[i][1];
		in.slot_bits = layouts[i][2];
		in.seq_bits = layouts[i][3];
		in.tick_ns = layouts[i][4] * 1000ULL;
		for (k = 0; k < 1000; k++) {
			uint64_t tick = rnd() & ((1ULL << in.ts_bits) - 1);
			uint32_t node = rnd() & ((1ULL << in.node_bits) - 1);
			uint32_t slot = rnd() & ((1ULL << in.slot_bits) - 1);
			uint32_t seq = rnd() & ((1ULL << in.seq_bits) - 1);
			uint64_t id = compose(&in, tick, node, slot, seq);
			int ret = uidgen_decode(&in, id, &p);

			CHECK(ret == 0 && p.tick == tick && p.node == node &&
			      p.slot == slot && p.seq == seq,
			      "layout %u id %llu", i, (unsigned long long)id);
			CHECK(ret == 0 && p.unix_ms == (int64_t)((in.epoch_unix_ns +
				(unsigned __int128)tick * in.tick_ns) / 1000000),
			      "layout %u time of tick %llu", i,
			      (unsigned long long)tick);
		}
	}

	uidgen_default_info(&in);
	CHECK(uidgen_decode(&in, 120687119160971264ULL, &p) == 0 &&
	      p.node == 7 && p.slot == 1 && p.seq == 0 &&
	      p.unix_ms == 1795999651466LL, "known ID: %lld", (long long)p.unix_ms);
	CHECK(uidgen_decode(&in, 1ULL << 63, &p) == -ERANGE, "sign bit");
	in.seq_bits = 13;
	CHECK(uidgen_decode(&in, 1, &p) == -EINVAL, "widths add to 64");
	uidgen_default_info(&in);
	in.tick_ns = 0;
	CHECK(uidgen_decode(&in, 1, &p) == -EINVAL, "zero tick");
	uidgen_default_info(&in);
	in.epoch_unix_ns = UINT64_MAX - 5;
	CHECK(uidgen_decode(&in, (1ULL << 63) - 1, &p) == 0 &&
	      p.unix_ms == (int64_t)(((unsigned __int128)(UINT64_MAX - 5) +
				      ((1ULL << 41) - 1) * 1000000ULL) / 1000000),
	      "a late epoch: %lld", (long long)p.unix_ms);
	in.tick_ns = UINT64_MAX;
	CHECK(uidgen_decode(&in, (1ULL << 63) - 1, &p) == -ERANGE, "time overflows");
	/* A tick that is not whole ms: the time rounds down, as ns would. */
	uidgen_default_info(&in);
	in.tick_ns = 1500000;
	CHECK(uidgen_decode(&in, 3ULL << 22, &p) == 0 &&
	      p.unix_ms == 1767225600000LL + 4, "1.5 ms ticks: %lld",
	      (long long)p.unix_ms);

	/*
	 * Widths whose 32-bit sum wraps around to 63: 31 + 31 + 2 below the
	 * timestamp is a 64-bit shift (UBSan aborts unit-asan on one).
	 */
	uidgen_default_info(&in);
	in.node_bits = 31;
	in.slot_bits = 31;
	in.seq_bits = 2;
	in.ts_bits = 0xffffffffU;
	CHECK(uidgen_decode(&in, 1, &p) == -EINVAL, "widths wrap to 63");
	uidgen_default_info(&in);
	in.node_bits = 0;
	in.slot_bits = 0;
	in.seq_bits = 0;
	in.ts_bits = 64;
	CHECK(uidgen_decode(&in, 1, &p) == -EINVAL, "ts_bits 64");
	in.ts_bits = 63;
	CHECK(uidgen_decode(&in, 5, &p) == 0 && p.tick == 5, "ts_bits 63 alone");
}

/*
 * uidgen_info() passes the caller's size on, as every node call does: the
 * kernel fills at most that many bytes and says how many it filled.
 */
struct info_canary {
	struct uidgen_info info;
	unsigned char canary[256];
};

static int canary_intact(const struct info_canary *c, size_t from)
{
	const unsigned char *b = (const unsigned char *)c;
	size_t i;

	for (i = from; i < sizeof(*c); i++)
		if (b[i] != 0xa5)
			return 0;
	return 1;
}

static void test_info_abi(void)
{
	struct {
		struct uidgen_info info;
		uint64_t tail[2];
	} big;
	struct info_canary c;
	struct uidgen *g;
	int ret;

	memset(&c, 0xa5, sizeof(c));
	uidgen_default_info(&c.info);
	CHECK(canary_intact(&c, sizeof(c.info)),
	      "uidgen_default_info() wrote past the struct");
	CHECK(c.info.size == sizeof(c.info) && c.info.ts_bits == 41 &&
	      c.info.tick_ns == 1000000 &&
	      c.info.epoch_unix_ns == 1767225600000000000ULL,
	      "default info: size %u", c.info.size);

	/* Not a uidgen device: fails, and writes nothing. */
	CHECK(uidgen_open(&g, "/dev/null") == 0, "open /dev/null");
	memset(&c, 0xa5, sizeof(c));
	c.info.size = sizeof(c.info);
	CHECK(uidgen_info(g, &c.info) == -ENOTTY, "info on /dev/null");
	CHECK(canary_intact(&c, 4), "uidgen_info() on /dev/null wrote");
	uidgen_close(g);

	ret = uidgen_open(&g, NULL);
	CHECK(ret == 0, "open " UIDGEN_DEVICE ": %d", ret);
	if (ret)
		return;
	memset(&c, 0xa5, sizeof(c));
	memset(&c.info, 0, sizeof(c.info));
	c.info.size = sizeof(c.info);
	ret = uidgen_info(g, &c.info);
	CHECK(ret == (int)sizeof(c.info), "info: %d", ret);
	CHECK(canary_intact(&c, sizeof(c.info)), "uidgen_info() wrote past it");
	CHECK(c.info.size == sizeof(c.info) && c.info.tick_ns > 0 &&
	      c.info.ts_bits + c.info.node_bits + c.info.slot_bits +
	      c.info.seq_bits == UIDGEN_ID_BITS,
	      "info: size %u, layout %u/%u/%u/%u", c.info.size,
	      c.info.ts_bits, c.info.node_bits, c.info.slot_bits,
	      c.info.seq_bits);

	/* Larger, zero tail: the kernel fills its own size and says so. */
	memset(&big, 0, sizeof(big));
	big.info.size = sizeof(big);
	ret = uidgen_info(g, &big.info);
	CHECK(ret == (int)sizeof(big.info) && big.info.size == sizeof(big.info) &&
	      !big.tail[0] && !big.tail[1], "larger: %d, size %u", ret,
	      big.info.size);
	big.info.size = sizeof(big);
	big.tail[1] = 1;
	CHECK(uidgen_info(g, &big.info) == -E2BIG, "larger, tail not zero");
	big.tail[1] = 0;
	big.info.size = sizeof(big.info) - 1;
	CHECK(uidgen_info(g, &big.info) == -EINVAL, "one byte short");
	big.info.size = 0;
	CHECK(uidgen_info(g, &big.info) == -EINVAL, "size 0");
	big.info.size = sizeof(big.info);
	big.info.flags = 1;
	CHECK(uidgen_info(g, &big.info) == -EOPNOTSUPP, "a flag");
	big.info.flags = 0;
	big.info.__reserved = 1;
	CHECK(uidgen_info(g, &big.info) == -EINVAL, "reserved");
	uidgen_close(g);
}

static void test_errors_keep_errno(void)
{
	struct uidgen *g = NULL;
	int ret;

	errno = 1234;
	ret = uidgen_open(&g, "/nonexistent/uid");
	CHECK(ret == -ENOENT, "open: %d", ret);
	CHECK(errno == 1234, "errno untouched: %d", errno);
	/* uidgen_open_flags(): O_NONBLOCK or nothing; EINVAL, no open. */
	ret = uidgen_open_flags(&g, "/dev/null", O_RDWR);
	CHECK(ret == -EINVAL, "open_flags O_RDWR: %d", ret);
	ret = uidgen_open_flags(&g, "/dev/null", O_NONBLOCK | O_CLOEXEC);
	CHECK(ret == -EINVAL, "open_flags O_NONBLOCK|O_CLOEXEC: %d", ret);
	ret = uidgen_open_flags(&g, "/nonexistent/uid", O_NONBLOCK);
	CHECK(ret == -ENOENT, "open_flags nonexistent: %d", ret);
	CHECK(errno == 1234, "errno untouched: %d", errno);
	ret = uidgen_open_flags(&g, "/dev/null", O_NONBLOCK);
	CHECK(ret == 0, "open_flags /dev/null O_NONBLOCK: %d", ret);
	if (!ret)
		uidgen_close(g);
	ret = uidgen_open(&g, "/dev/null");
	CHECK(ret == 0, "open /dev/null: %d", ret);
	if (!ret) {
		struct uidgen_info info = { .size = sizeof(info) };
		uint64_t id;

		errno = 1234;
		CHECK(uidgen_info(g, &info) == -ENOTTY, "info on /dev/null");
		/* read() of it is end of file: no device of ours. */
		CHECK(uidgen_fill(g, &id, 1) == -EIO, "fill on /dev/null");
		CHECK(uidgen_next(g, &id) == -EIO, "next on /dev/null");
		CHECK(uidgen_fill(g, &id, 0) == -EINVAL, "fill 0");
		CHECK(errno == 1234, "errno untouched: %d", errno);
		uidgen_close(g);
	}
}

/*
 * The node calls are the ioctls, nothing more: on /dev/null each reaches
 * it (ENOTTY), whatever its arguments, and leaves errno alone.
 */
static void test_node_args(void)
{
	struct uidgen_assign a = { .size = sizeof(a), .node_id = 1, .floor_unix_ns = 1 };
	struct uidgen_renew r = { .size = sizeof(r), .node_id = 1 };
	struct uidgen_revoke v = { .size = sizeof(v), .node_id = UIDGEN_NODE_NONE };
	struct uidgen *g;
	uint32_t fence;

	if (uidgen_open(&g, "/dev/null")) {
		CHECK(0, "open /dev/null");
		return;
	}
	errno = 1234;
	CHECK(uidgen_assign(g, &a) == -ENOTTY, "assign reaches the ioctl");
	CHECK(uidgen_renew(g, &r) == -ENOTTY, "renew reaches the ioctl");
	CHECK(uidgen_revoke(g, &v) == -ENOTTY, "revoke reaches the ioctl");
	CHECK(uidgen_fence_gen(g, &fence) == -EOPNOTSUPP, "no fence page on /dev/null");
	a.size = 0;
	CHECK(uidgen_assign(g, &a) == -ENOTTY, "the kernel judges the size");
	CHECK(errno == 1234, "errno untouched: %d", errno);
	uidgen_close(g);
}

static uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The node's state; 0 on success. */
static int node_state(struct uidgen *g, struct uidgen_info *in)
{
	memset(in, 0, sizeof(*in));
	in->size = sizeof(*in);
	return uidgen_info(g, in) == sizeof(*in) ? 0 : -1;
}

/* Revoke @node (UIDGEN_NODE_NONE: whatever) with @token; 0 or -errno. */
static int node_revoke(struct uidgen *g, uint32_t node, uint64_t token)
{
	struct uidgen_revoke v = {
		.size = sizeof(v), .node_id = node, .token = token,
	};

	return uidgen_revoke(g, &v);
}

#define NS_PER_MS	1000000ULL

/*
 * Assign, renew and revoke on the device, each errno the kernel gives,
 * and the node ID left active again at the end, with no grant or
 * deadline. Needs root.
 */
static void test_node_calls(void)
{
	struct {
		struct uidgen_assign a;
		uint64_t tail;
	} big = { .a = { .size = sizeof(big) } };
	struct uidgen_assign a = { .size = sizeof(a) };
	struct uidgen_renew r = { .size = sizeof(r) };
	uint64_t id, floor, deadline, token;
	struct uidgen_info in, now;
	struct uidgen_parts p;
	uint32_t node, f0, f1;
	struct uidgen *g;
	pid_t pid;
	int st;

	if (uidgen_open(&g, NULL)) {
		CHECK(0, "open");
		return;
	}
	if (node_state(g, &in) || in.node_state != UIDGEN_NODE_STATE_ACTIVE) {
		CHECK(0, "an active node ID to start with");
		uidgen_close(g);
		return;
	}
	node = in.node_id;
	CHECK(uidgen_next(g, &id) == 0 && node_state(g, &in) == 0 &&
	      in.high_water_unix_ns, "issues");

	/* The caller's struct, size and all, is what the kernel judges. */
	a.node_id = node;
	a.floor_unix_ns = in.high_water_unix_ns;
	a.size = sizeof(a) - 1;
	CHECK(uidgen_assign(g, &a) == -EINVAL, "assign, a byte short");
	a.size = sizeof(a);
	a.flags = 0x2;
	CHECK(uidgen_assign(g, &a) == -EOPNOTSUPP, "assign, unknown flag");
	a.flags = 0;
	a.__reserved = 1;
	CHECK(uidgen_assign(g, &a) == -EINVAL, "assign, reserved");
	a.__reserved = 0;
	big.a.node_id = node;
	big.a.floor_unix_ns = in.high_water_unix_ns;
	CHECK(uidgen_assign(g, &big.a) == 0, "assign, larger with a zero tail");
	big.tail = 1;
	CHECK(uidgen_assign(g, &big.a) == -E2BIG, "assign, tail not zero");
	r.size = sizeof(r) - 8;
	CHECK(uidgen_renew(g, &r) == -EINVAL, "renew, short size");
	r.size = sizeof(r);
	r.flags = 1;
	CHECK(uidgen_renew(g, &r) == -EOPNOTSUPP, "renew, any flag");
	r.flags = 0;
	r.__reserved = 1;
	CHECK(uidgen_renew(g, &r) == -EINVAL, "renew, reserved");
	r.__reserved = 0;
	a.floor_unix_ns = 0;

	/* Renew: the request first, then the state. */
	r.node_id = node;
	r.deadline_boot_ns = 1;
	CHECK(uidgen_renew(g, &r) == -ETIME, "renew, deadline past");
	r.node_id = node ^ 1;
	CHECK(uidgen_renew(g, &r) == -ETIME, "renew of another node, deadline past");
	r.deadline_boot_ns = 0;
	CHECK(uidgen_renew(g, &r) == -ESTALE, "renew of another node");
	r.node_id = node;
	r.grant_unix_ns = in.high_water_unix_ns + 3600000 * NS_PER_MS;
	deadline = boottime_ns() + 3600000000000ULL;
	r.deadline_boot_ns = deadline;
	CHECK(uidgen_renew(g, &r) == 0, "renew");
	CHECK(node_state(g, &now) == 0 && now.grant_unix_ns >= r.grant_unix_ns &&
	      now.grant_unix_ns < r.grant_unix_ns + 1000 * NS_PER_MS,
	      "grant %llu for %llu", (unsigned long long)now.grant_unix_ns,
	      (unsigned long long)r.grant_unix_ns);
	CHECK(now.deadline_boot_ns >= deadline - 1000000 &&
	      now.deadline_boot_ns <= deadline + 1000000, "deadline %llu for %llu",
	      (unsigned long long)now.deadline_boot_ns, (unsigned long long)deadline);

	/* Assign: EINVAL, ERANGE, ETIME from the request, then EBUSY. */
	a.node_id = node;
	CHECK(uidgen_assign(g, &a) == -EINVAL, "assign with no floor, not NEW");
	a.flags = UIDGEN_ASSIGN_NEW;
	a.floor_unix_ns = 1;
	CHECK(uidgen_assign(g, &a) == -EINVAL, "assign NEW with a floor");
	a.flags = 0;
	a.node_id = 1U << in.node_bits;
	CHECK(uidgen_assign(g, &a) == -ERANGE, "assign too wide");
	a.node_id = node;
	a.deadline_boot_ns = 1;
	CHECK(uidgen_assign(g, &a) == -ETIME, "assign, deadline past");
	a.deadline_boot_ns = 0;
	a.node_id = node ^ 1;
	CHECK(uidgen_assign(g, &a) == -EBUSY, "assign another while active");

	/* Without CAP_SYS_ADMIN, on a descriptor open already: EPERM. */
	pid = fork();
	if (pid == 0) {
		r.deadline_boot_ns = 0;
		_exit(setgid(65534) || setuid(65534) ? 2 :
		      uidgen_renew(g, &r) != -EPERM ? 3 :
		      node_revoke(g, UIDGEN_NODE_NONE, 0) != -EPERM ? 4 :
		      uidgen_assign(g, &a) != -EPERM ? 5 : 0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "EPERM as nobody: status %d", st);

	/* Revoke: a claim that is not the one in force is stale. */
	CHECK(node_revoke(g, node ^ 1, 0) == -ESTALE, "revoke of another node");
	CHECK(node_revoke(g, UIDGEN_NODE_NONE, in.token + 1) == -ESTALE,
	      "revoke with another token");
	CHECK(uidgen_fence_gen(g, &f0) == 0, "the fence generation");
	CHECK(node_revoke(g, node, 0) == 0, "revoke");
	CHECK(uidgen_fence_gen(g, &f1) == 0 && f1 == f0 + 1,
	      "a revoke moves the fence by one: %u, then %u", f0, f1);
	CHECK(node_state(g, &now) == 0 && now.node_state == UIDGEN_NODE_STATE_NONE &&
	      now.grant_unix_ns == 0 && now.deadline_boot_ns == 0,
	      "revoked: no node ID");
	CHECK(uidgen_next(g, &id) == -EADDRNOTAVAIL, "nothing issued");
	r.deadline_boot_ns = 0;
	CHECK(uidgen_renew(g, &r) == -EADDRNOTAVAIL, "renew with none in force");
	r.deadline_boot_ns = 1;
	CHECK(uidgen_renew(g, &r) == -ETIME, "renew with none in force, deadline past");
	r.deadline_boot_ns = 0;
	CHECK(node_revoke(g, UIDGEN_NODE_NONE, 0) == 0, "revoke with none");
	CHECK(uidgen_fence_gen(g, &f0) == 0 && f0 == f1 + 1,
	      "a revoke with none in force moves it too: %u, then %u", f1, f0);

	/* Assign with a floor and a token: the token then fences. */
	floor = now.high_water_unix_ns;
	/* Above any this load saw: its runs (unit, unit-asan) use the clock. */
	token = boottime_ns();
	a.node_id = node;
	a.floor_unix_ns = floor;
	a.token = token;
	CHECK(floor > 0 && uidgen_assign(g, &a) == 0, "assign with floor %llu",
	      (unsigned long long)floor);
	CHECK(node_state(g, &now) == 0 && now.node_state == UIDGEN_NODE_STATE_ACTIVE &&
	      now.node_id == node && now.token == token && now.floor_unix_ns >= floor &&
	      now.grant_unix_ns == 0 && now.deadline_boot_ns == 0, "active, token %llu",
	      (unsigned long long)now.token);
	CHECK(uidgen_next(g, &id) == 0 && uidgen_decode(&now, id, &p) == 0 &&
	      (uint64_t)p.unix_ms >= floor / NS_PER_MS && p.node == node,
	      "issues after the floor");
	a.token = token - 1;
	CHECK(uidgen_assign(g, &a) == -ESTALE, "assign below the highest token");
	a.token = token;
	CHECK(uidgen_assign(g, &a) == 0, "the same assignment again");
	r.token = token + 1;
	CHECK(uidgen_renew(g, &r) == -ESTALE, "renew with another token");
	r.token = token;
	CHECK(uidgen_renew(g, &r) == 0, "renew with the token in force");
	CHECK(node_revoke(g, node, token) == 0, "revoke with the token");

	/* As it was: active, no grant, no deadline. */
	CHECK(node_state(g, &now) == 0, "info");
	a.floor_unix_ns = now.high_water_unix_ns;
	a.token = 0;
	CHECK(uidgen_assign(g, &a) == 0, "assign again, floor %llu",
	      (unsigned long long)a.floor_unix_ns);
	CHECK(uidgen_next(g, &id) == 0, "issues again");
	uidgen_close(g);
}

struct thread_arg {
	struct uidgen *g;
	uint64_t *ids;
	long got;
};

static void *fill_thread(void *p)
{
	struct thread_arg *a = p;
	long i;

	a->got = 0;
	for (i = 0; i < 50; i++) {
		long r = uidgen_fill(a->g, a->ids + i * 2000, 1000);

		if (r != 1000)
			return NULL;
		if (uidgen_next(a->g, a->ids + i * 2000 + 1000))
			return NULL;
		a->got += 1001;
		/* Keep the layout of the array simple: pad with zeros. */
		memset(a->ids + i * 2000 + 1001, 0, 999 * 8);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The device, for real: one handle shared by four threads. */
static void test_device(void)
{
	enum { T = 4, PER = 50 * 2000 };
	struct thread_arg a[T];
	int started[T] = { 0 };
	pthread_t t[T];
	struct uidgen_info info;
	struct uidgen_parts p;
	struct uidgen *g;
	uint64_t *all, big[UIDGEN_BATCH_MAX + 10];
	long n = 0, i, dups = 0;
	int ret;

	ret = uidgen_open(&g, NULL);
	CHECK(ret == 0, "open " UIDGEN_DEVICE ": %s", strerror(-ret));
	if (ret)
		return;
	CHECK(node_state(g, &info) == 0, "info");
	CHECK(info.node_id != UIDGEN_NODE_NONE, "node assigned");

	/* More than one BATCH call's worth in one uidgen_fill(). */
	CHECK(uidgen_fill(g, big, UIDGEN_BATCH_MAX + 10) == UIDGEN_BATCH_MAX + 10,
	      "fill beyond UIDGEN_BATCH_MAX");
	CHECK(uidgen_decode(&info, big[0], &p) == 0 && p.node == info.node_id,
	      "decoded node %u", p.node);

	/* A non-blocking handle mints the same way while IDs are there. */
	{
		struct uidgen *nb;
		uint64_t id1 = 0, id2 = 0;

		ret = uidgen_open_flags(&nb, NULL, O_NONBLOCK);
		CHECK(ret == 0, "open_flags O_NONBLOCK: %d", ret);
		if (!ret) {
			CHECK(uidgen_next(nb, &id1) == 0 &&
			      uidgen_decode(&info, id1, &p) == 0 &&
			      p.node == info.node_id,
			      "next, non-blocking: %llu", (unsigned long long)id1);
			CHECK(uidgen_fill(nb, &id2, 1) == 1 && id2 != id1 &&
			      uidgen_decode(&info, id2, &p) == 0 &&
			      p.node == info.node_id,
			      "fill, non-blocking: %llu", (unsigned long long)id2);
			uidgen_close(nb);
		}
	}

	all = calloc((size_t)T * PER, 8);
	CHECK(all != NULL, "calloc");
	if (!all) {
		uidgen_close(g);
		return;
	}
	for (i = 0; i < T; i++) {
		a[i] = (struct thread_arg){ .g = g, .ids = all + i * PER };
		ret = pthread_create(&t[i], NULL, fill_thread, &a[i]);
		CHECK(ret == 0, "pthread_create: %s", strerror(ret));
		if (ret)
			break;
		started[i] = 1;
	}
	for (i = 0; i < T; i++) {
		if (started[i])
			pthread_join(t[i], NULL);
		CHECK(a[i].got == 50 * 1001, "thread %ld got %ld", i, a[i].got);
		n += a[i].got;
	}
	qsort(all, (size_t)T * PER, 8, cmp_u64);
	for (i = 1; i < (long)T * PER; i++)
		dups += all[i] && all[i] == all[i - 1];
	CHECK(dups == 0, "%ld duplicates in %ld IDs", dups, n);
	free(all);
	uidgen_close(g);
}

static void sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * Two uidgen_next() calls in a row that take IDs a and a + 1 of one cached
 * run. A run is good for its tick and one more, and a vCPU that QEMU holds
 * up longer between the calls sees it stale and takes another: so up to
 * @tries tries, @pause_us before each. Returns the tries it took, 0 if no
 * try did, -1 if a call failed.
 */
static int two_from_one_run(struct uidgen *g, uint64_t *a, uint64_t *b,
			    long pause_us, int tries)
{
	int i;

	for (i = 1; i <= tries; i++) {
		if (pause_us)
			sleep_us(pause_us);
		if (uidgen_next(g, a) || uidgen_next(g, b))
			return -1;
		if (*b == *a + 1)
			return i;
	}
	return 0;
}

/*
 * fork(): parent and child both mint through a handle opened before the
 * fork, with uidgen_next()'s cache holding a run at the moment of the
 * fork. The child must not hand out what is left of its parent's run.
 */
static void test_fork(void)
{
	enum { N = 5000 };
	uint64_t *ids = mmap(NULL, 2 * N * 8, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct uidgen *g;
	long i, dups = 0, bad = 0;
	int status = -1;
	pid_t pid;

	CHECK(ids != MAP_FAILED, "mmap");
	if (ids == MAP_FAILED || uidgen_open(&g, NULL)) {
		CHECK(0, "open");
		return;
	}
	/*
	 * Part-way through a cached run when the fork comes: a fresh tick
	 * gives a whole first run (16), and it does not go stale meanwhile.
	 */
	CHECK(uidgen_set_cache(g, 1024, 1000) == 0, "set_cache");
	sleep_us(3000);
	CHECK(uidgen_next(g, &ids[0]) == 0, "parent before fork");
	CHECK(uidgen_next(g, &ids[1]) == 0 && ids[1] == ids[0] + 1,
	      "the second ID comes from the cached run");
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < N; i++)
			if (uidgen_next(g, ids + N + i))
				_exit(1);
		_exit(0);
	}
	for (i = 2; i < N; i++)
		bad += uidgen_next(g, ids + i) != 0;
	CHECK(bad == 0, "parent after fork: %ld failed", bad);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "child minted %d", status);
	qsort(ids, 2 * N, 8, cmp_u64);
	for (i = 1; i < 2 * N; i++)
		dups += ids[i] == ids[i - 1];
	CHECK(dups == 0, "%ld duplicates between parent and child", dups);
	uidgen_close(g);
	munmap(ids, 2 * N * 8);
}

static uint64_t tick_of(const struct uidgen_info *in, uint64_t id)
{
	return id >> (in->node_bits + in->slot_bits + in->seq_bits);
}

/*
 * The staleness bound: an ID from the cache is from the clock's tick or
 * at most stale_ticks before it. A fresh ID read just before (borrowing
 * is off, so it carries the clock's tick) bounds the clock from below.
 */
static void check_staleness(struct uidgen *g, struct uidgen *fresh,
			    const struct uidgen_info *in, uint32_t stale)
{
	long i, cached = 0, worst = 0, fails = 0;
	uint64_t prev = 0, id, now;

	CHECK(uidgen_set_cache(g, 64, stale) == 0, "set_cache 64, %u", stale);
	for (i = 0; i < 3000; i++) {
		/* Mostly back to back, sometimes idle for up to 4 ticks. */
		if (rnd() % 4 == 0)
			sleep_us(rnd() % (4 * in->tick_ns / 1000));
		fails += uidgen_next(fresh, &now) != 0;
		fails += uidgen_next(g, &id) != 0;
		cached += id == prev + 1;
		prev = id;
		if ((long)(tick_of(in, now) - tick_of(in, id)) > worst)
			worst = tick_of(in, now) - tick_of(in, id);
	}
	CHECK(fails == 0, "%ld calls failed", fails);
	CHECK(worst <= (long)stale, "an ID %ld ticks old, bound %u", worst, stale);
	/* Else this test would not be testing the cache at all. */
	CHECK(cached > 1000, "only %ld of 3000 IDs came from the cache", cached);
	printf("# stale_ticks=%u: %ld of 3000 from the cache, oldest %ld ticks\n",
	       stale, cached, worst);
}

static void test_cache_staleness(void)
{
	struct uidgen *g, *fresh;
	struct uidgen_info in;

	if (uidgen_open(&g, NULL) || uidgen_open(&fresh, NULL)) {
		CHECK(0, "open");
		return;
	}
	CHECK(uidgen_set_cache(fresh, 0, 0) == 0, "no cache");
	CHECK(node_state(g, &in) == 0, "info");
	check_staleness(g, fresh, &in, 1);
	check_staleness(g, fresh, &in, 0);
	check_staleness(g, fresh, &in, 3);
	uidgen_close(g);
	uidgen_close(fresh);
}

/* Without the cache every ID is read from the kernel: fresh, and no run. */
static long long issued_count(void)
{
	FILE *f = fopen("/sys/class/misc/uid/issued", "r");
	long long n = -1;

	if (f) {
		if (fscanf(f, "%lld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

static void test_cache_off_and_errors(void)
{
	struct uidgen *g;
	struct uidgen_info in;
	long long issued;
	uint64_t a;
	int i;

	if (uidgen_open(&g, NULL)) {
		CHECK(0, "open");
		return;
	}
	CHECK(node_state(g, &in) == 0, "info");
	CHECK(uidgen_set_cache(g, (1U << in.seq_bits) + 1, 1) == -EINVAL,
	      "a run longer than a tick");
	CHECK(uidgen_set_cache(g, 1, UIDGEN_STALE_TICKS_MAX + 1) == -EINVAL,
	      "staleness out of range");
	CHECK(uidgen_set_cache(g, 1U << in.seq_bits, UIDGEN_STALE_TICKS_MAX) == 0,
	      "the largest settings");
	/* The kernel counts what it issues: one per call without the cache. */
	CHECK(uidgen_set_cache(g, 0, 0) == 0, "off");
	issued = issued_count();
	for (i = 0; i < 10; i++)
		CHECK(uidgen_next(g, &a) == 0, "next");
	CHECK(issued_count() - issued == 10, "issued %lld for 10 uncached",
	      issued_count() - issued);
	/*
	 * With it, one run of 16 serves them all: a fresh tick (so the run is
	 * not cut short by the tick's end) and a staleness bound far beyond
	 * the loop (so a slow moment cannot make the run go stale).
	 */
	CHECK(uidgen_set_cache(g, 1024, 1000) == 0, "on");
	sleep_us(3 * in.tick_ns / 1000);
	issued = issued_count();
	for (i = 0; i < 10; i++)
		CHECK(uidgen_next(g, &a) == 0, "next");
	CHECK(issued_count() - issued == 16, "issued %lld for 10 cached",
	      issued_count() - issued);
	uidgen_close(g);

	/* /dev/null: no fence page, so no cache to turn on. */
	CHECK(uidgen_open(&g, "/dev/null") == 0, "open /dev/null");
	CHECK(uidgen_set_cache(g, 1, 1) == -EOPNOTSUPP, "cache without a page");
	CHECK(uidgen_set_cache(g, 0, 0) == 0, "off is always fine");
	uidgen_close(g);
}

/*
 * A revoke reaches cached runs: the next uidgen_next() fails with
 * EADDRNOTAVAIL instead of handing out the rest of its run; IDs flow
 * again once the node ID is assigned as new. Needs root.
 */
static void test_cache_fence(void)
{
	struct uidgen_assign as = { .size = sizeof(as), .flags = UIDGEN_ASSIGN_NEW };
	struct uidgen_info in;
	struct uidgen *g;
	uint64_t a = 0, b = 0;
	int tries;

	if (uidgen_open(&g, NULL)) {
		CHECK(0, "open");
		return;
	}
	CHECK(node_state(g, &in) == 0 && in.node_id != UIDGEN_NODE_NONE,
	      "info");
	tries = two_from_one_run(g, &a, &b, 0, 100);
	CHECK(tries >= 0, "two IDs");
	CHECK(tries > 0, "a cached run, in up to 100 tries");
	CHECK(node_revoke(g, UIDGEN_NODE_NONE, 0) == 0, "revoke");
	CHECK(uidgen_next(g, &b) == -EADDRNOTAVAIL, "fenced off");
	CHECK(uidgen_next(g, &b) == -EADDRNOTAVAIL, "and stays off");
	as.node_id = in.node_id;
	CHECK(uidgen_assign(g, &as) == 0, "node ID %u again, new", in.node_id);
	CHECK(uidgen_next(g, &b) == 0 && b > a + 1, "issues again");
	uidgen_close(g);
}

/* The last ID of @id's tick: every node, slot and sequence bit set. */
static uint64_t top_of_tick(const struct uidgen_info *in, uint64_t id)
{
	unsigned int low = in->node_bits + in->slot_bits + in->seq_bits;

	return id | ((1ULL << low) - 1);
}

struct observe_thread {
	struct uidgen *g;
	pthread_barrier_t *bar;
	uint64_t a, b, c;
	int tries, ret;
};

/* Hold a cached run across the main thread's observe, then take one more. */
static void *observe_thread_fn(void *p)
{
	struct observe_thread *t = p;

	t->tries = two_from_one_run(t->g, &t->a, &t->b, 0, 100);
	pthread_barrier_wait(t->bar);
	pthread_barrier_wait(t->bar);
	t->ret = uidgen_next(t->g, &t->c);
	return NULL;
}

/*
 * uidgen_observe(): a run cached before it, in this thread or another,
 * is cut at the observed ID: the next uidgen_next() is above it. The
 * runs are good for 1000 ticks, so only the observe can end them here.
 */
static void test_cache_observe(void)
{
	struct observe_thread t = { 0 };
	pthread_barrier_t bar;
	struct uidgen_info in;
	struct uidgen *g;
	pthread_t th;
	uint64_t a = 0, b = 0, c = 0, x;
	int tries, saved;

	if (uidgen_open(&g, NULL)) {
		CHECK(0, "open");
		return;
	}
	CHECK(node_state(g, &in) == 0 && in.node_id != UIDGEN_NODE_NONE,
	      "info");
	CHECK(uidgen_set_cache(g, 1024, 1000) == 0, "set_cache");
	/* This thread's run. */
	tries = two_from_one_run(g, &a, &b, 0, 100);
	CHECK(tries > 0, "a cached run, in up to 100 tries (%d)", tries);
	x = top_of_tick(&in, b);
	CHECK(uidgen_observe(g, x) == 0, "observe the run's tick");
	CHECK(uidgen_next(g, &c) == 0 && c > x,
	      "next %#llx above the observed %#llx (the run was at %#llx)",
	      (unsigned long long)c, (unsigned long long)x,
	      (unsigned long long)b);

	/* Another thread's run, cut by this thread's observe. */
	pthread_barrier_init(&bar, NULL, 2);
	t.g = g;
	t.bar = &bar;
	CHECK(pthread_create(&th, NULL, observe_thread_fn, &t) == 0, "thread");
	pthread_barrier_wait(&bar);
	CHECK(t.tries > 0, "the thread's cached run (%d)", t.tries);
	x = top_of_tick(&in, t.b);
	CHECK(uidgen_observe(g, x) == 0, "observe the thread's tick");
	pthread_barrier_wait(&bar);
	pthread_join(th, NULL);
	CHECK(t.ret == 0 && t.c > x, "thread's next %#llx above %#llx",
	      (unsigned long long)t.c, (unsigned long long)x);
	pthread_barrier_destroy(&bar);

	/* Errors, with errno kept. */
	saved = errno = 1234;
	CHECK(uidgen_observe(g, 1ULL << 63) == -EINVAL && errno == saved,
	      "bit 63: -EINVAL");
	CHECK(uidgen_observe(g, UINT64_MAX >> 1) == -EDOM && errno == saved,
	      "far ahead: -EDOM");
	uidgen_close(g);
}


/*
 * uidgen_observe() racing cached runs and their refills on every CPU: a
 * thread pinned to each CPU mints through the cache (long runs, good for
 * 1000 ticks, so only an observe or their end cuts them) while this
 * thread observes ascending IDs, the top of the ID clock's tick mostly,
 * up to 200 ms ahead of the wall clock now and then. The order is the test's own:
 * each observed ID is published (release) only after uidgen_observe()
 * has returned, and a minter loads the publication (acquire) before each
 * uidgen_next(); the ID that call returns must be greater.
 */
#define OBS_RACE_SECONDS	4

struct obs_race {
	struct uidgen *g;
	const struct uidgen_info *in;
	_Atomic uint64_t observed;
	_Atomic int stop;
	_Atomic long minted, close, bad, errors;
	uint64_t bad_id, bad_seen;
	int cpu;
};

struct obs_racer {
	struct obs_race *r;
	int cpu;
};

static void *obs_race_mint(void *p)
{
	struct obs_racer *m = p;
	struct obs_race *r = m->r;
	uint64_t id, seen;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(m->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		atomic_fetch_add(&r->errors, 1);
	while (!atomic_load(&r->stop)) {
		seen = atomic_load_explicit(&r->observed, memory_order_acquire);
		if (uidgen_next(r->g, &id)) {
			atomic_fetch_add(&r->errors, 1);
			break;
		}
		atomic_fetch_add_explicit(&r->minted, 1, memory_order_relaxed);
		if (id <= seen) {
			if (!atomic_fetch_add(&r->bad, 1)) {
				r->bad_id = id;
				r->bad_seen = seen;
			}
		} else if (tick_of(r->in, id) <= tick_of(r->in, seen) + 1) {
			atomic_fetch_add_explicit(&r->close, 1, memory_order_relaxed);
		}
	}
	return NULL;
}

static void test_observe_race_cache(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, observes = 0;
	struct obs_racer m[64];
	pthread_t th[64];
	struct obs_race r = { 0 };
	struct uidgen *raw = NULL;
	struct uidgen_info in;
	struct timespec ts;
	uint64_t last = 0, id, tick, end;
	unsigned int x = 12345;

	if (ncpu > 64)
		ncpu = 64;
	if (uidgen_open(&r.g, NULL)) {
		CHECK(0, "open");
		return;
	}
	CHECK(node_state(r.g, &in) == 0 && in.node_id != UIDGEN_NODE_NONE,
	      "info");
	CHECK(uidgen_set_cache(r.g, 4096, 1000) == 0, "set_cache");
	CHECK(uidgen_open(&raw, NULL) == 0 && uidgen_set_cache(raw, 0, 0) == 0,
	      "a second handle, without the cache");
	r.in = &in;
	for (i = 0; i < ncpu; i++) {
		m[i].r = &r;
		m[i].cpu = i;
		CHECK(pthread_create(&th[i], NULL, obs_race_mint, &m[i]) == 0,
		      "thread %ld", i);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + OBS_RACE_SECONDS;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if ((uint64_t)ts.tv_sec >= end)
			break;
		clock_gettime(CLOCK_REALTIME, &ts);
		tick = ((uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec -
			in.epoch_unix_ns) / in.tick_ns;
		x = x * 1103515245 + 12345;
		/*
		 * Mostly the tick of an ID just read past the cache (the ID
		 * clock's, where the minters' runs are) while the clock leads
		 * the wall clock by under 50 ms (each such observe can add a
		 * tick to the lead); else, and one time in 64, up to 200 ms
		 * ahead of the wall clock.
		 */
		if ((x >> 16) % 64 && uidgen_next(raw, &id) == 0 &&
		    tick_of(&in, id) < tick + 50 * 1000000 / in.tick_ns)
			tick = tick_of(&in, id);
		else
			tick += (x >> 16) % 200 * 1000000 / in.tick_ns;
		id = top_of_tick(&in, tick << (in.node_bits + in.slot_bits +
					       in.seq_bits));
		if (id < last)
			id = last;
		if (uidgen_observe(r.g, id)) {
			CHECK(0, "observe %#llx: %s", (unsigned long long)id,
			      strerror(errno));
			break;
		}
		last = id;
		atomic_store_explicit(&r.observed, id, memory_order_release);
		observes++;
		usleep(200);
	}
	atomic_store(&r.stop, 1);
	for (i = 0; i < ncpu; i++)
		pthread_join(th[i], NULL);
	printf("# %ld CPUs, %d s: %ld observes, %ld IDs through the cache, %ld of them in the tick of the last published or the next\n",
	       ncpu, OBS_RACE_SECONDS, observes, atomic_load(&r.minted),
	       atomic_load(&r.close));
	CHECK(atomic_load(&r.errors) == 0, "%ld errors", atomic_load(&r.errors));
	CHECK(atomic_load(&r.bad) == 0,
	      "%ld IDs at or below an observed ID published before their call, the first %#llx after %#llx",
	      atomic_load(&r.bad), (unsigned long long)r.bad_id,
	      (unsigned long long)r.bad_seen);
	/* Not a vacuous run. */
	CHECK(observes > 100, "%ld observes", observes);
	CHECK(atomic_load(&r.minted) > 10000, "%ld IDs", atomic_load(&r.minted));
	uidgen_close(raw);
	uidgen_close(r.g);
}

/*
 * kB of memory mapped MADV_WIPEONFORK ("wf" in smaps): only the library's
 * per-thread cache pages are. Adjacent pages merge into one mapping, so
 * counting mappings would hide a leak; their size does not.
 */
static long wipeonfork_kb(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	long size = 0, total = 0;
	char line[512];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Size:", 5))
			size = strtol(line + 5, NULL, 10);
		else if (!strncmp(line, "VmFlags:", 8) && strstr(line, " wf"))
			total += size;
	}
	fclose(f);
	return total;
}

/* Threads exit with their caches: no leak, and new threads start empty. */
struct cache_thread {
	struct uidgen *g;
	int check;		/* measure kb_alive */
	long kb_alive;		/* wf kB while it runs, its page included */
	int ret;
};

static void *next_thread(void *p)
{
	struct cache_thread *a = p;
	uint64_t id;

	a->ret = uidgen_next(a->g, &id);
	if (a->check)
		a->kb_alive = wipeonfork_kb();
	return NULL;
}

static void test_cache_threads(void)
{
	struct cache_thread a = { 0 };
	struct uidgen *g;
	pthread_t t;
	int i, bad = 0, seen = 0, made = 0, ret;
	long kb;

	if (uidgen_open(&g, NULL)) {
		CHECK(0, "open");
		return;
	}
	a.g = g;
	/* One thread first, so that libc's own first-thread set-up is done. */
	ret = pthread_create(&t, NULL, next_thread, &a);
	CHECK(ret == 0, "pthread_create: %s", strerror(ret));
	if (ret) {
		uidgen_close(g);
		return;
	}
	pthread_join(t, NULL);
	kb = wipeonfork_kb();
	for (i = 0; i < 2000; i++) {
		/* Every 100th thread looks for its own page while it runs. */
		a.check = i % 100 == 0;
		a.kb_alive = 0;
		ret = pthread_create(&t, NULL, next_thread, &a);
		if (ret) {
			CHECK(0, "pthread_create: %s", strerror(ret));
			break;
		}
		pthread_join(t, NULL);
		bad += a.ret != 0;
		if (a.check) {
			seen++;
			made += a.kb_alive == kb + UIDGEN_MAP_KB;
		}
	}
	CHECK(bad == 0, "%d threads failed", bad);
	CHECK(kb >= 0 && made == seen && seen == 20,
	      "%d of %d threads had a cache page of their own", made, seen);
	CHECK(kb >= 0 && wipeonfork_kb() == kb,
	      "%ld kB of cache pages before, %ld kB after 2000 threads", kb,
	      wipeonfork_kb());
	uidgen_close(g);
}

/*
 * A thread-key destructor that runs after libuidgen's (a key created
 * later: loggers, thread pools) and calls uidgen_next(). The thread's
 * cache page is gone by then; another thread's may sit at its address.
 * Each destructor mints a stretch of IDs while other threads start and
 * exit: no ID may come out twice, and none may crash.
 */
enum { DT_THREADS = 4, DT_ROUNDS = 150, DT_IDS = 1000 };

struct dtor_arg {
	struct uidgen *g;
	uint64_t *ids;		/* DT_IDS */
	int fails;
};

static pthread_key_t dtor_key;

static void dtor_mint(void *p)
{
	struct dtor_arg *a = p;
	int i;

	for (i = 0; i < DT_IDS; i++)
		a->fails += uidgen_next(a->g, &a->ids[i]) != 0;
}

static void *dtor_thread(void *p)
{
	struct dtor_arg *a = p;
	uint64_t id;

	/* A cache, then the key whose destructor runs after libuidgen's. */
	a->fails += uidgen_next(a->g, &id) != 0;
	a->fails += pthread_setspecific(dtor_key, a) != 0;
	return NULL;
}

static int dtor_child(uint64_t *ids)
{
	struct dtor_arg a[DT_THREADS];
	pthread_t t[DT_THREADS];
	struct uidgen *g;
	int r, i, fails = 0;

	if (uidgen_open(&g, NULL))
		return 2;
	/* After uidgen_open(): libuidgen's key exists, this one comes later. */
	if (pthread_key_create(&dtor_key, dtor_mint))
		return 3;
	for (r = 0; r < DT_ROUNDS; r++) {
		for (i = 0; i < DT_THREADS; i++) {
			a[i] = (struct dtor_arg){
				.g = g,
				.ids = ids + ((size_t)r * DT_THREADS + i) * DT_IDS,
			};
			if (pthread_create(&t[i], NULL, dtor_thread, &a[i]))
				return 4;
		}
		for (i = 0; i < DT_THREADS; i++) {
			pthread_join(t[i], NULL);
			fails += a[i].fails;
		}
	}
	return fails ? 5 : 0;
}

static long count_dups(uint64_t *ids, size_t n)
{
	long dups = 0;
	size_t i;

	qsort(ids, n, 8, cmp_u64);
	for (i = 1; i < n; i++)
		dups += ids[i] && ids[i] == ids[i - 1];
	return dups;
}

static long count_zero(const uint64_t *ids, size_t n)
{
	long zero = 0;
	size_t i;

	for (i = 0; i < n; i++)
		zero += !ids[i];
	return zero;
}

static void test_tls_destructor(void)
{
	size_t n = (size_t)DT_ROUNDS * DT_THREADS * DT_IDS;
	uint64_t *ids = mmap(NULL, n * 8, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status = -1;
	long zero, dups;
	pid_t pid;

	CHECK(ids != MAP_FAILED, "mmap");
	if (ids == MAP_FAILED)
		return;
#ifdef UNIT_TSAN
	/* TSan does not let a forked child start threads: here, then. */
	(void)pid;
	status = dtor_child(ids);
	CHECK(status == 0, "dtor_child: %d", status);
#else
	/* In a child: a dangling page can crash it, and the key stays there. */
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(dtor_child(ids));
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "child: %s %d",
	      WIFSIGNALED(status) ? "signal" : "exit",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
#endif
	zero = count_zero(ids, n);
	dups = count_dups(ids, n);
	CHECK(zero == 0, "%ld of %zu IDs never minted", zero, n);
	CHECK(dups == 0, "%ld duplicates in %zu IDs minted in destructors",
	      dups, n);
	munmap(ids, n * 8);
}

/*
 * Signal handlers that call uidgen_next() while the thread they interrupt
 * is inside uidgen_next() (on the fast path, refilling, reading the
 * clock): every ID must be unique.
 *
 * On x86_64 the thread single-steps (EFLAGS.TF): a SIGTRAP after every
 * instruction, so a handler runs at every point of uidgen_next(),
 * including between the load and the store of the run's next ID. (A
 * signal storm from another thread barely reaches those points under
 * QEMU TCG, which takes interrupts only between translated blocks.)
 * Under TSan, which defers signals to its own safe points, a second
 * thread sends SIGUSR1 instead.
 */
enum { SIG_MAIN_MAX = 4000000, SIG_HANDLER_MAX = 1000000 };

static struct uidgen *sig_g;
static uint64_t *sig_ids;
static long sig_n;		/* __atomic: the killer thread reads it */
static volatile int sig_fails, sig_errno_changed;

static void sig_mint(void)
{
	long n = __atomic_load_n(&sig_n, __ATOMIC_RELAXED);
	int err = errno;

	if (n >= SIG_HANDLER_MAX)
		return;
	if (uidgen_next(sig_g, &sig_ids[n]))
		sig_fails++;
	/* uidgen_next() leaves errno alone, in a handler too. */
	if (errno != err)
		sig_errno_changed++;
	__atomic_store_n(&sig_n, n + 1, __ATOMIC_RELEASE);
}

#if defined(__x86_64__) && !defined(UNIT_TSAN)
#define X86_EFLAGS_TF	0x100

static volatile int sig_stepping;

static void sig_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	if (!sig_stepping ||
	    __atomic_load_n(&sig_n, __ATOMIC_RELAXED) >= SIG_HANDLER_MAX) {
		/* Stop stepping: clear TF in the context sigreturn restores. */
		((ucontext_t *)uc)->uc_mcontext.gregs[REG_EFL] &= ~X86_EFLAGS_TF;
		return;
	}
	sig_mint();
}

static void set_tf(int on)
{
	if (on)
		__asm__ volatile("pushfq; orq %0, (%%rsp); popfq"
				 : : "i"(X86_EFLAGS_TF) : "memory", "cc");
	else
		__asm__ volatile("pushfq; andq %0, (%%rsp); popfq"
				 : : "i"(~X86_EFLAGS_TF) : "memory", "cc");
}

/* Mint in steps: n IDs into ids; returns how many calls failed. */
static long sig_storm(uint64_t *ids, long *n)
{
	struct sigaction sa = { .sa_sigaction = sig_trap,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	long i, fails = 0;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL))
		return -1;
	/* Rounds of 200 IDs, so that runs are used up and refilled too. */
	errno = 4321;
	for (*n = 0; *n < 3000 &&
	     __atomic_load_n(&sig_n, __ATOMIC_RELAXED) < SIG_HANDLER_MAX;) {
		sig_stepping = 1;
		set_tf(1);
		for (i = 0; i < 200; i++)
			fails += uidgen_next(sig_g, &ids[(*n)++]) != 0;
		sig_stepping = 0;
		set_tf(0);
	}
	if (errno != 4321)
		sig_errno_changed++;
	signal(SIGTRAP, SIG_DFL);
	return fails;
}
#define SIG_HANDLER_MIN	100000
#else
#define SIG_HANDLER_MIN	1000
struct killer {
	pthread_t target;
	volatile int done;
	long sent;
};

static void sig_usr1(int sig)
{
	/*
	 * TSan runs handlers at its interceptors, and reported errno
	 * "spoiled" by this one run inside the library's mmap(), which the
	 * handler's own check (sig_errno_changed) did not see. The errno
	 * contract is checked without TSan, after every single-step.
	 */
	int err = errno;

	(void)sig;
	sig_mint();
	errno = err;
}

static void *sig_killer(void *p)
{
	struct killer *k = p;
	struct timespec t0, t;
	long seen;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		/* One at a time: a pending signal would swallow the next. */
		seen = __atomic_load_n(&sig_n, __ATOMIC_ACQUIRE);
		if (pthread_kill(k->target, SIGUSR1))
			break;
		k->sent++;
		while (__atomic_load_n(&sig_n, __ATOMIC_ACQUIRE) == seen &&
		       !__atomic_load_n(&k->done, __ATOMIC_ACQUIRE))
			sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
		/*
		 * 20000 handler IDs, or 10 s; but on a loaded machine (TSan
		 * under TCG at a load of 19 met 322 in 10 s) on until the
		 * test's minimum, for at most 2 minutes.
		 */
		seen = __atomic_load_n(&sig_n, __ATOMIC_ACQUIRE);
	} while (seen < 20000 &&
		 (t.tv_sec - t0.tv_sec < 10 ||
		  (seen < SIG_HANDLER_MIN && t.tv_sec - t0.tv_sec < 120)) &&
		 !__atomic_load_n(&k->done, __ATOMIC_ACQUIRE));
	__atomic_store_n(&k->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static long sig_storm(uint64_t *ids, long *n)
{
	struct sigaction sa = { .sa_handler = sig_usr1, .sa_flags = SA_RESTART };
	struct killer k = { .target = pthread_self() };
	long fails = 0;
	pthread_t t;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) ||
	    pthread_create(&t, NULL, sig_killer, &k))
		return -1;
	for (*n = 0; *n < SIG_MAIN_MAX &&
	     !__atomic_load_n(&k.done, __ATOMIC_ACQUIRE);)
		fails += uidgen_next(sig_g, &ids[(*n)++]) != 0;
	__atomic_store_n(&k.done, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	signal(SIGUSR1, SIG_IGN);
	return fails;
}
#endif

static void test_signals(void)
{
	size_t max = SIG_MAIN_MAX + SIG_HANDLER_MAX;
	uint64_t *ids = mmap(NULL, max * 8, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long n = 0, fails, dups;

	CHECK(ids != MAP_FAILED, "mmap");
	if (ids == MAP_FAILED)
		return;
	if (uidgen_open(&sig_g, NULL)) {
		CHECK(0, "open");
		munmap(ids, max * 8);
		return;
	}
	/* Long runs, never stale: the fast path most of the time. */
	CHECK(uidgen_set_cache(sig_g, 1024, 1000) == 0, "set_cache");
	sig_ids = ids + SIG_MAIN_MAX;
	sig_n = 0;
	sig_fails = 0;
	sig_errno_changed = 0;
	fails = sig_storm(ids, &n);
	CHECK(fails == 0 && sig_fails == 0, "%ld calls and %d in handlers failed",
	      fails, sig_fails);
	CHECK(sig_errno_changed == 0, "errno changed %d times", sig_errno_changed);
	/* Else the signals never met uidgen_next(): not a test. */
	CHECK(sig_n >= SIG_HANDLER_MIN && n > 0, "%ld IDs in handlers, %ld outside",
	      sig_n, n);
	memmove(ids + n, sig_ids, sig_n * 8);
	dups = count_dups(ids, n + sig_n);
	CHECK(dups == 0, "%ld duplicates in %ld IDs (%ld from handlers)", dups,
	      n + sig_n, sig_n);
	printf("# %ld IDs in signal handlers, %ld outside\n", sig_n, n);
	uidgen_close(sig_g);
	munmap(ids, max * 8);
}

#ifndef UNIT_TSAN
/*
 * vfork(): the child runs on its parent's thread, memory and TLS while the
 * parent waits, so it continues the parent's run, and the parent continues
 * after what the child took. No ID twice.
 */
static volatile int vfork_fails;

/* vfork() and mint n IDs in the child; the parent's locals stay its own. */
static __attribute__((noinline)) pid_t vfork_mint(struct uidgen *g,
						  uint64_t *ids, int n)
{
	pid_t pid = vfork();
	int i;

	if (pid == 0) {
		for (i = 0; i < n; i++)
			vfork_fails += uidgen_next(g, &ids[i]) != 0;
		_exit(0);
	}
	return pid;
}

static void test_vfork(void)
{
	enum { N = 1000, C = 100 };
	static uint64_t ids[N + C];
	struct uidgen *g;
	long i, dups, bad = 0;
	int status = -1;
	pid_t pid;

	if (uidgen_open(&g, NULL)) {
		CHECK(0, "open");
		return;
	}
	CHECK(uidgen_set_cache(g, 1024, 1000) == 0, "set_cache");
	sleep_us(3000);
	CHECK(uidgen_next(g, &ids[0]) == 0 && uidgen_next(g, &ids[1]) == 0 &&
	      ids[1] == ids[0] + 1, "a cached run before vfork");
	vfork_fails = 0;
	pid = vfork_mint(g, &ids[N], C);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0 && vfork_fails == 0, "child: %d", status);
	/* It went on with the run: the parent's next ID follows. */
	CHECK(ids[N] == ids[1] + 1, "the child's first ID %llu follows %llu",
	      (unsigned long long)ids[N], (unsigned long long)ids[1]);
	for (i = 2; i < N; i++)
		bad += uidgen_next(g, &ids[i]) != 0;
	CHECK(bad == 0, "%ld failed", bad);
	dups = count_dups(ids, N + C);
	CHECK(dups == 0, "%ld duplicates between parent and vfork child", dups);
	uidgen_close(g);
}

/*
 * dlclose(): the thread key's destructor must not point into unmapped
 * code when a thread that used the library exits after the library was
 * closed. In a child, which a jump into unmapped code kills.
 */
static char so_path[PATH_MAX];

struct dl_thread {
	int (*next)(struct uidgen *g, uint64_t *id);
	struct uidgen *g;
	int ret;
	int ready[2], go[2];
};

static void *dl_thread_fn(void *p)
{
	struct dl_thread *a = p;
	uint64_t id;
	char c;

	a->ret = a->next(a->g, &id);
	/* Hold on until the library is closed, then exit. */
	if (write(a->ready[1], "r", 1) != 1 || read(a->go[0], &c, 1) != 1)
		a->ret = -EIO;
	return NULL;
}

static int dl_child(void)
{
	int (*open_fn)(struct uidgen **gp, const char *path);
	void (*close_fn)(struct uidgen *g);
	struct dl_thread a = { 0 };
	pthread_t t;
	void *h;
	char c;

	h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("# dlopen: %s\n", dlerror());
		return 2;
	}
	open_fn = (int (*)(struct uidgen **, const char *))dlsym(h, "uidgen_open");
	close_fn = (void (*)(struct uidgen *))dlsym(h, "uidgen_close");
	a.next = (int (*)(struct uidgen *, uint64_t *))dlsym(h, "uidgen_next");
	if (!open_fn || !close_fn || !a.next || pipe(a.ready) || pipe(a.go) ||
	    open_fn(&a.g, NULL))
		return 3;
	if (pthread_create(&t, NULL, dl_thread_fn, &a))
		return 4;
	/* The thread took its first ID (and made its cache) first. */
	if (read(a.ready[0], &c, 1) != 1)
		return 4;
	close_fn(a.g);
	if (dlclose(h))
		return 5;
	if (write(a.go[1], "x", 1) != 1)
		return 6;
	pthread_join(t, NULL);
	return a.ret ? 7 : 0;
}

static void test_dlclose(void)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int status = -1;
	pid_t pid;

	CHECK(len > 0, "readlink /proc/self/exe");
	if (len <= 0)
		return;
	exe[len] = '\0';
	/* userlib/tests/unit -> userlib/libuidgen.so.2 */
	snprintf(so_path, sizeof(so_path), "%s/../libuidgen.so.2", dirname(exe));
	CHECK(access(so_path, R_OK) == 0, "%s: %s", so_path, strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(dl_child());
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "child: %s %d",
	      WIFSIGNALED(status) ? "signal" : "exit",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/*
 * System calls that fail on cue: a seccomp filter on one thread traps the
 * call (SIGSYS), and the handler counts it and makes it fail with
 * trap_errno. x86_64 only (the handler sets RAX).
 */
#if defined(__x86_64__)
static volatile int trapped, trap_errno;

static void sigsys_fail(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	trapped++;
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RAX] = -trap_errno;
}

/* Load the low 32 bits of seccomp_data.args[i] (little-endian). */
#define ARG_LO(i)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
				 offsetof(struct seccomp_data, args) + 8 * (i))

/*
 * Trap system call @nr when its argument @arg is @val (and, if @arg2 >= 0,
 * argument @arg2 is @val2), on the calling thread only (no TSYNC).
 */
static int trap_syscall(long nr, int arg, uint32_t val, int arg2, uint32_t val2)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 5),
		ARG_LO(arg),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, val, 0, 3),
		ARG_LO(arg2 >= 0 ? arg2 : arg),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arg2 >= 0 ? val2 : val, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	struct sigaction sa = { .sa_sigaction = sigsys_fail,
				.sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/*
 * A failed mmap() or madvise() for the thread's cache page: remembered,
 * so not retried on every ID, and errno kept. What the child saw is
 * shared with the parent, which checks it: the trapped thread must not
 * allocate (a sanitizer's allocator would meet the filter) or exit
 * normally (glibc madvise()s the stack then).
 */
struct trap_result {
	int ret, calls, err_after, fails;
	uint64_t ids[1000];
};

struct trap_arg {
	struct uidgen *g;
	long nr;
	struct trap_result *res;
};

static void *trap_thread(void *p)
{
	struct trap_arg *a = p;
	struct trap_result *res = a->res;
	int i, r;

	trap_errno = ENOMEM;
	if (a->nr == SYS_mmap)	/* the cache page: 4096 B, private, anonymous */
		r = trap_syscall(SYS_mmap, 1, UIDGEN_MAP_KB * 1024, 3,
				 MAP_PRIVATE | MAP_ANONYMOUS);
	else
		r = trap_syscall(SYS_madvise, 2, MADV_WIPEONFORK, -1, 0);
	if (r)
		_exit(2);
	errno = 1234;
	for (i = 0; i < 1000; i++)
		res->fails += uidgen_next(a->g, &res->ids[i]) != 0;
	res->err_after = errno;
	res->calls = trapped;
	_exit(0);
}

static void check_trap(long nr, const char *name)
{
	struct trap_result *res = mmap(NULL, sizeof(*res), PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status = -1;
	pid_t pid;

	CHECK(res != MAP_FAILED, "mmap");
	if (res == MAP_FAILED)
		return;
	res->calls = -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct trap_arg a = { .nr = nr, .res = res };
		pthread_t t;

		/* A thread with no cache yet, so that it has to make one. */
		if (uidgen_open(&a.g, NULL) ||
		    pthread_create(&t, NULL, trap_thread, &a))
			_exit(3);
		pthread_join(t, NULL);
		_exit(4);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "%s failing: child %s %d", name,
	      WIFSIGNALED(status) ? "signal" : "exit",
	      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	CHECK(res->fails == 0, "%s failing: %d of 1000 calls failed", name,
	      res->fails);
	CHECK(res->err_after == 1234, "%s failing: errno %d, was 1234", name,
	      res->err_after);
	CHECK(count_zero(res->ids, 1000) == 0 && count_dups(res->ids, 1000) == 0,
	      "%s failing: IDs missing or repeated", name);
	CHECK(res->calls == 1, "%s tried %d times for 1000 IDs", name, res->calls);
	munmap(res, sizeof(*res));
}

static void test_cache_page_fails(void)
{
	check_trap(SYS_mmap, "mmap");
	check_trap(SYS_madvise, "madvise");
}

/*
 * A clock that cannot be read makes a cached run stale: the ID comes from
 * a fresh run, never from one reserved ticks ago. The vDSO reads
 * CLOCK_BOOTTIME without a system call on the tsc clocksource; on acpi_pm
 * it falls back to clock_gettime(2), which the filter fails with EPERM.
 */
#define CS_DIR	"/sys/devices/system/clocksource/clocksource0/"

/*
 * Zeros where uidgen_next()'s frame will be: a clock that fails without
 * writing the timespec then reads as 0 s, "fresh" to code that ignores
 * the failure, so such code hands out the stale run and the test sees it.
 */
static __attribute__((noinline)) void zero_stack(void)
{
	volatile char buf[4096];
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = 0;
}

static int clock_child(int *stale, int *calls)
{
	struct uidgen_info in;
	uint64_t a, b;
	struct uidgen *g;
	int i, shift;

	if (uidgen_open(&g, NULL) || node_state(g, &in) ||
	    uidgen_set_cache(g, 1024, 1))
		return 2;
	shift = in.node_bits + in.slot_bits + in.seq_bits;
	/* A cached run, the clock still read: two IDs in a row from one run. */
	if (two_from_one_run(g, &a, &b, 3 * in.tick_ns / 1000, 50) <= 0)
		return 3;
	trap_errno = EPERM;
	if (trap_syscall(SYS_clock_gettime, 0, CLOCK_BOOTTIME, -1, 0))
		return 4;
	for (i = 0; i < 20; i++) {
		sleep_us(3 * in.tick_ns / 1000);
		zero_stack();
		if (uidgen_next(g, &b))
			return 5;
		/* Three ticks later: a run from a later tick. */
		*stale += (b >> shift) <= (a >> shift);
		a = b;
	}
	*calls = trapped;
	return 0;
}

static void test_clock_fails(void)
{
	int *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char cur[64] = "";
	int status = -1, ok;
	FILE *f;
	pid_t pid;

	CHECK(shared != MAP_FAILED, "mmap");
	if (shared == MAP_FAILED)
		return;
	f = fopen(CS_DIR "current_clocksource", "r");
	ok = f && fgets(cur, sizeof(cur), f);
	if (f)
		fclose(f);
	CHECK(ok, "read " CS_DIR "current_clocksource");
	f = fopen(CS_DIR "current_clocksource", "w");
	ok = f && fputs("acpi_pm\n", f) >= 0;
	if (f)
		ok &= fclose(f) == 0;
	CHECK(ok, "switch the clocksource to acpi_pm (root, in the test VM)");
	if (ok) {
		shared[0] = 0;
		shared[1] = -1;
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(clock_child(&shared[0], &shared[1]));
		CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
		      WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child: %s %d", WIFSIGNALED(status) ? "signal" : "exit",
		      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		CHECK(shared[1] >= 5, "the clock failed %d times: not tested",
		      shared[1]);
		CHECK(shared[0] == 0, "%d of 20 IDs from a run 3 ticks old",
		      shared[0]);
	}
	f = fopen(CS_DIR "current_clocksource", "w");
	if (f) {
		fputs(cur, f);
		fclose(f);
	}
	munmap(shared, 4096);
}
#else
static void test_cache_page_fails(void)
{
	CHECK(0, "the SIGSYS handler is written for x86_64 only");
}

static void test_clock_fails(void)
{
	CHECK(0, "the SIGSYS handler is written for x86_64 only");
}
#endif
#endif /* !UNIT_TSAN */

static const struct {
	void (*fn)(void);
	const char *name;
} tests[] = {
#define T(fn) { fn, #fn }
#ifndef UNIT_TSAN
	T(test_format_parse),
	T(test_b32_sorts),
	T(test_decode),
	T(test_info_abi),
	T(test_errors_keep_errno),
	T(test_node_args),
#endif
	T(test_device),
#ifndef UNIT_TSAN
	T(test_fork),
	T(test_vfork),
	T(test_cache_staleness),
	T(test_cache_off_and_errors),
#endif
	T(test_cache_threads),
	T(test_tls_destructor),
	T(test_signals),
#ifndef UNIT_TSAN
	T(test_dlclose),
	T(test_cache_page_fails),
	T(test_clock_fails),
	T(test_node_calls),
	T(test_cache_fence),
	T(test_cache_observe),
#endif
	T(test_observe_race_cache),
#undef T
};

/* UNIT_ONLY=NAME in the environment: that test alone. */
int main(void)
{
	const char *only = getenv("UNIT_ONLY");
	size_t i, n = 0;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		n += !only || !strcmp(only, tests[i].name);
	printf("TAP version 13\n1..%zu\n", n);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		if (!only || !strcmp(only, tests[i].name))
			run(tests[i].fn, tests[i].name);
	return tap_totals();
}
