// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuidgen tests. The pure functions (format, parse, decode) need nothing;
 * the device functions run against the real /dev/uid (node ID assigned) and
 * fail, not skip, when it is missing.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uidgen.h"

/* Each test function is one test: it fails if any of its checks does. */
static int passed, failed, checks_failed;

#define CHECK(cond, ...) do {						\
		if (!(cond)) {						\
			checks_failed++;				\
			printf("# %s:%d: %s: ", __func__, __LINE__, #cond); \
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	} while (0)

static void run(void (*fn)(void), const char *name)
{
	checks_failed = 0;
	fn();
	if (checks_failed)
		failed++;
	else
		passed++;
	printf("%sok %d %s\n", checks_failed ? "not " : "", passed + failed, name);
}

#define RUN(fn) run(fn, #fn)

static uint64_t rnd(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ULL;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

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
		uint64_t a, b;

		uidgen_parse(text[i - 1], UIDGEN_FMT_B32, &a);
		uidgen_parse(text[i], UIDGEN_FMT_B32, &b);
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
		in.tick_us = layouts[i][4];
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
			CHECK(ret == 0 && p.unix_ms == (int64_t)(in.epoch_ms +
				(unsigned __int128)tick * in.tick_us / 1000),
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
	in.tick_us = 0;
	CHECK(uidgen_decode(&in, 1, &p) == -EINVAL, "zero tick");
	uidgen_default_info(&in);
	in.epoch_ms = UINT64_MAX - 5;
	CHECK(uidgen_decode(&in, (1ULL << 63) - 1, &p) == -ERANGE, "time overflows");
}

static void test_errors_keep_errno(void)
{
	struct uidgen *g = NULL;
	int ret;

	errno = 1234;
	ret = uidgen_open(&g, "/nonexistent/uid");
	CHECK(ret == -ENOENT, "open: %d", ret);
	CHECK(errno == 1234, "errno untouched: %d", errno);
	ret = uidgen_open(&g, "/dev/null");
	CHECK(ret == 0, "open /dev/null: %d", ret);
	if (!ret) {
		struct uidgen_info info;
		uint64_t id;

		errno = 1234;
		CHECK(uidgen_info(g, &info) == -ENOTTY, "info on /dev/null");
		CHECK(uidgen_fill(g, &id, 1) == -ENOTTY, "fill on /dev/null");
		CHECK(uidgen_next(g, &id) == -EIO, "next on /dev/null");
		CHECK(uidgen_set_node(g, 1) == -ENOTTY, "set_node on /dev/null");
		CHECK(uidgen_fill(g, &id, 0) == -EINVAL, "fill 0");
		CHECK(errno == 1234, "errno untouched: %d", errno);
		uidgen_close(g);
	}
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
	CHECK(uidgen_info(g, &info) == 0, "info");
	CHECK(info.node_id != UIDGEN_NODE_NONE, "node assigned");

	/* More than one BATCH call's worth in one uidgen_fill(). */
	CHECK(uidgen_fill(g, big, UIDGEN_BATCH_MAX + 10) == UIDGEN_BATCH_MAX + 10,
	      "fill beyond UIDGEN_BATCH_MAX");
	CHECK(uidgen_decode(&info, big[0], &p) == 0 && p.node == info.node_id,
	      "decoded node %u", p.node);

	all = calloc((size_t)T * PER, 8);
	for (i = 0; i < T; i++) {
		a[i] = (struct thread_arg){ .g = g, .ids = all + i * PER };
		pthread_create(&t[i], NULL, fill_thread, &a[i]);
	}
	for (i = 0; i < T; i++) {
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
			sleep_us(rnd() % (4 * in->tick_us));
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
	CHECK(uidgen_info(g, &in) == 0, "info");
	check_staleness(g, fresh, &in, 1);
	check_staleness(g, fresh, &in, 0);
	check_staleness(g, fresh, &in, 3);
	uidgen_close(g);
	uidgen_close(fresh);
}

/* Without the cache every ID is read from the kernel: fresh, and no run. */
static long long issued_count(void)
{
	FILE *f = fopen("/sys/class/uidgen/uid/issued", "r");
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
	CHECK(uidgen_info(g, &in) == 0, "info");
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
	sleep_us(3 * in.tick_us);
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
 * EADDRNOTAVAIL instead of handing out the rest of its run, and IDs flow
 * again once the node ID is assigned. Needs root.
 */
/* Assign @node as one that never issued, through sysfs. */
static int assign_new(unsigned int node)
{
	FILE *f = fopen("/sys/module/uidgen/parameters/node_id", "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%u\n", node) > 0;
	ok = !fclose(f) && ok;
	f = fopen("/sys/module/uidgen/parameters/node_new", "w");
	if (!f)
		return -1;
	ok = fputs("1\n", f) >= 0 && ok;
	ok = !fclose(f) && ok;
	return ok ? 0 : -1;
}

static void test_cache_fence(void)
{
	struct uidgen_info in;
	struct uidgen *g;
	uint64_t a, b;

	if (uidgen_open(&g, NULL)) {
		CHECK(0, "open");
		return;
	}
	CHECK(uidgen_info(g, &in) == 0 && in.node_id != UIDGEN_NODE_NONE,
	      "info");
	CHECK(uidgen_next(g, &a) == 0 && uidgen_next(g, &b) == 0 && b == a + 1,
	      "a cached run");
	CHECK(uidgen_revoke_node(g) == 0, "revoke");
	CHECK(uidgen_next(g, &b) == -EADDRNOTAVAIL, "fenced off");
	/* uidgen_set_node() names no floor: the kernel wants one (or NEW). */
	CHECK(uidgen_set_node(g, in.node_id) == -EINVAL, "no floor: EINVAL");
	CHECK(assign_new(in.node_id) == 0, "assign %u again", in.node_id);
	CHECK(uidgen_next(g, &b) == 0 && b > a + 1, "issues again");
	uidgen_close(g);
}

/* Threads exit with their caches: no leak, and new threads start empty. */
static void *next_thread(void *p)
{
	uint64_t id;

	return (void *)(long)uidgen_next(p, &id);
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

static void test_cache_threads(void)
{
	struct uidgen *g;
	pthread_t t;
	void *ret;
	int i, bad = 0;
	long kb;

	if (uidgen_open(&g, NULL)) {
		CHECK(0, "open");
		return;
	}
	/* One thread first, so that libc's own first-thread set-up is done. */
	pthread_create(&t, NULL, next_thread, g);
	pthread_join(t, NULL);
	kb = wipeonfork_kb();
	for (i = 0; i < 2000; i++) {
		if (pthread_create(&t, NULL, next_thread, g)) {
			bad++;
			break;
		}
		pthread_join(t, &ret);
		bad += ret != NULL;
	}
	CHECK(bad == 0, "%d threads failed", bad);
	CHECK(kb > 0 && wipeonfork_kb() == kb,
	      "%ld kB of cache pages before, %ld kB after 2000 threads", kb,
	      wipeonfork_kb());
	uidgen_close(g);
}

int main(void)
{
	printf("TAP version 13\n1..10\n");
	RUN(test_format_parse);
	RUN(test_b32_sorts);
	RUN(test_decode);
	RUN(test_errors_keep_errno);
	RUN(test_device);
	RUN(test_fork);
	RUN(test_cache_staleness);
	RUN(test_cache_off_and_errors);
	RUN(test_cache_threads);
	RUN(test_cache_fence);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       passed, failed);
	return failed ? 1 : 0;
}
