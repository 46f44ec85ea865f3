// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen_bench: what an ID costs, from /dev/uid and from the alternatives,
 * measured in one process on one boot. A benchmark, not a test: it prints
 * and never judges, except that a call that fails stops it.
 *
 *   uidgen_bench cost      per-ID cost of every way to get an ID
 *   uidgen_bench quick     read() of one ID against /dev/zero alone
 *   uidgen_bench curve     per-ID cost against batch size (for the plot)
 *   uidgen_bench scale     1 and 2 threads on 2 CPUs
 *   uidgen_bench ceiling   IDs/s per slot against the layout's ceiling
 *
 * Each figure is the best of 25 rounds of about 20 ms each (the VM's
 * timing noise only ever adds time); the cost table takes its rows in
 * turns, so that a slow spell of the host cannot favour one row over
 * another. Times are CLOCK_MONOTONIC.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <uuid/uuid.h>

#include <linux/uidgen.h>
#include "uidgen.h"
#include "snowflake.h"

#define ROUNDS		25
#define ROUND_NS	20000000ULL
#define MAX_IDS		65536

/* What one call of an operation needs; one per thread. */
struct ctx {
	int fd, zero;
	struct uidgen *g;	/* cached uidgen_next() */
	struct uidgen *raw;	/* uncached uidgen_next() */
	uint32_t n;		/* IDs (or 8-byte units) per call */
	uint64_t *buf;
	uint64_t sink;
};

/* One call; returns the IDs (or 8-byte units) it produced, < 0 on error. */
typedef long (*op_fn)(struct ctx *c);

static struct uidgen_info info;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "uidgen_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long op_getppid(struct ctx *c)
{
	c->sink += getppid();
	return 1;
}

static long op_zero(struct ctx *c)
{
	ssize_t r = read(c->zero, c->buf, c->n * 8);

	return r < 0 ? -1 : r / 8;
}

static long op_read(struct ctx *c)
{
	ssize_t r = read(c->fd, c->buf, c->n * 8);

	return r < 0 ? -1 : r / 8;
}

static long op_batch(struct ctx *c)
{
	struct uidgen_batch b = {
		.size = sizeof(b), .count = c->n, .ids = (uintptr_t)c->buf,
	};

	return ioctl(c->fd, UIDGEN_IOC_BATCH, &b);
}

/* Reserve a run and mint it into the buffer: the caller's own loop. */
static long op_reserve(struct ctx *c)
{
	struct uidgen_reserve r = { .size = sizeof(r), .count = c->n };
	uint32_t i;

	if (ioctl(c->fd, UIDGEN_IOC_RESERVE, &r) < 0)
		return -1;
	for (i = 0; i < r.count; i++)
		c->buf[i] = r.first + i;
	return r.count;
}

static long op_next(struct ctx *c)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		if (uidgen_next(c->g, &c->buf[i]))
			return -1;
	return c->n;
}

static long op_next_raw(struct ctx *c)
{
	return uidgen_next(c->raw, c->buf) ? -1 : 1;
}

/*
 * The public form (man 3 uidgen_public): one token a call, of the IDs
 * 1, 2, 3 ... (the permutation's cost does not depend on the ID).
 */
static struct uidgen_keys *pub_keys;

static long op_public(struct ctx *c)
{
	uint64_t t;

	if (uidgen_public(pub_keys, UIDGEN_KEY_CURRENT, ++c->sink & ~(1ULL << 63), &t))
		return -1;
	c->buf[0] = t;
	return 1;
}

static long op_private(struct ctx *c)
{
	uint64_t id;

	/* About half the values open to an ID; the cost is the same. */
	(void)uidgen_private(pub_keys, UIDGEN_KEY_CURRENT, ++c->sink, &id);
	c->buf[0] = id;
	return 1;
}

static long op_public_text(struct ctx *c)
{
	char s[UIDGEN_PUBLIC_STR_MAX];

	if (uidgen_format_public(pub_keys, UIDGEN_KEY_CURRENT, ++c->sink & ~(1ULL << 63),
				 UIDGEN_PUBLIC_TEXT, s, sizeof(s)) < 0)
		return -1;
	c->buf[0] = s[5];
	return 1;
}

static char pub_text[UIDGEN_PUBLIC_STR_MAX];

static long op_parse_public(struct ctx *c)
{
	return uidgen_parse_public(pub_keys, pub_text, UIDGEN_PUBLIC_TEXT,
				   UIDGEN_KEY_CURRENT, c->buf) ? -1 : 1;
}

static void public_keys(void)
{
	if (uidgen_keys_new(&pub_keys) || uidgen_keys_generate(pub_keys, NULL) ||
	    uidgen_format_public(pub_keys, UIDGEN_KEY_CURRENT, 123456789, UIDGEN_PUBLIC_TEXT,
				 pub_text, sizeof(pub_text)) < 0)
		die("public key");
}

static long op_clock(struct ctx *c)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	c->sink += ts.tv_nsec;
	return 1;
}

static long op_getrandom(struct ctx *c)
{
	return getrandom(c->buf, 8, 0) == 8 ? 1 : -1;
}

/* What a shell script or a quick program does: open, read, close. */
static long op_proc_uuid(struct ctx *c)
{
	int fd = open("/proc/sys/kernel/random/uuid", O_RDONLY);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, c->buf, 40);
	close(fd);
	return r == 37 ? 1 : -1;
}

static long op_uuid_random(struct ctx *c)
{
	uuid_generate_random((unsigned char *)c->buf);
	return 1;
}

static long op_uuid_time(struct ctx *c)
{
	uuid_generate_time((unsigned char *)c->buf);
	return 1;
}

/* The userspace Snowflake of snowflake.h, one ID per loop. */
static long op_snowflake(struct ctx *c)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		c->buf[i] = sf_next();
	return c->n;
}

/*
 * Iterations of @fn that take about ROUND_NS, after a warm-up of as long
 * (first calls fault pages in and fill caches; counting them would make a
 * round of a handful of slow calls).
 */
static uint64_t calibrate(op_fn fn, struct ctx *c)
{
	uint64_t iters = 1, t0, t;

	t0 = now_ns();
	while (now_ns() - t0 < ROUND_NS)
		if (fn(c) < 0)
			die("warming up");
	for (;;) {
		t0 = now_ns();
		for (t = 0; t < iters; t++)
			if (fn(c) < 0)
				die("calibrating");
		if (now_ns() - t0 > ROUND_NS / 10 || iters > (1ULL << 40))
			return iters * 10;
		iters *= 2;
	}
}

/* One round: ns per unit (ID, or 8 bytes for /dev/zero). */
static double round_ns(op_fn fn, struct ctx *c, uint64_t iters)
{
	uint64_t t, t0, units = 0;
	long r;

	t0 = now_ns();
	for (t = 0; t < iters; t++) {
		r = fn(c);
		if (r < 0)
			die("measuring");
		units += r;
	}
	return (double)(now_ns() - t0) / units;
}

/* Best of ROUNDS rounds. */
static double measure(op_fn fn, struct ctx *c)
{
	uint64_t iters = calibrate(fn, c);
	double best = 1e30, v;
	int round;

	for (round = 0; round < ROUNDS; round++) {
		v = round_ns(fn, c, iters);
		best = v < best ? v : best;
	}
	return best;
}

struct row {
	const char *name;
	op_fn fn;
	uint32_t n;
	uint64_t iters;
	double best;
};

#define ROW(name_, fn_, n_) { .name = (name_), .fn = (fn_), .n = (n_) }

/*
 * Every row's best of ROUNDS, taken in turns (row 1, row 2, ..., row 1,
 * ...), so that a slow spell of the host lands on one round of every row
 * rather than on every round of one row.
 */
static void run_rows(struct row *rows, unsigned int nr, struct ctx *c)
{
	unsigned int i;
	int round;
	double v;

	for (i = 0; i < nr; i++) {
		c->n = rows[i].n;
		rows[i].iters = calibrate(rows[i].fn, c);
		rows[i].best = 1e30;
	}
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < nr; i++) {
			c->n = rows[i].n;
			v = round_ns(rows[i].fn, c, rows[i].iters);
			rows[i].best = v < rows[i].best ? v : rows[i].best;
		}
	}
	for (i = 0; i < nr; i++)
		printf("%-40s %10.1f %14.0f %8.2f\n", rows[i].name, rows[i].best,
		       1e9 / rows[i].best, rows[i].best / rows[0].best);
}

static void open_ctx(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->buf = aligned_alloc(64, MAX_IDS * 8);
	c->fd = open(UIDGEN_DEVICE, O_RDONLY);
	c->zero = open("/dev/zero", O_RDONLY);
	if (!c->buf || c->fd < 0 || c->zero < 0)
		die("open");
	if (uidgen_open(&c->g, NULL) || uidgen_open(&c->raw, NULL))
		die("uidgen_open");
	if (uidgen_set_cache(c->raw, 0, 0))
		die("uidgen_set_cache");
}

static void print_layout(void)
{
	printf("# layout ts/node/slot/seq %u/%u/%u/%u, tick %llu us, %u slots; max_borrow_ticks: ",
	       info.ts_bits, info.node_bits, info.slot_bits, info.seq_bits,
	       (unsigned long long)info.tick_ns / 1000, info.nr_slots);
	fflush(stdout);
	if (system("cat /sys/module/uidgen/parameters/max_borrow_ticks"))
		printf("?\n");
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

enum { R_PPID, R_ZERO8, R_ZERO32K, R_READ1, R_READ512, R_BATCH1, R_BATCH64,
       R_BATCH4096, R_RESERVE, R_NEXT, R_NEXT_RAW, R_GETRANDOM, R_PROC_UUID,
       R_UUID_RANDOM, R_UUID_TIME, R_SNOWFLAKE, R_CLOCK, R_PUBLIC, R_PUBLIC_TEXT,
       R_NR };

static void cost(void)
{
	static struct row rows[R_NR] = {
		[R_PPID] = ROW("getppid()", op_getppid, 1),
		[R_ZERO8] = ROW("read(/dev/zero, 8 B)", op_zero, 1),
		[R_ZERO32K] = ROW("read(/dev/zero, 32 KiB) per 8 B", op_zero, 4096),
		[R_READ1] = ROW("read(/dev/uid) 1 ID", op_read, 1),
		[R_READ512] = ROW("read(/dev/uid) 512 IDs", op_read, 512),
		[R_BATCH1] = ROW("BATCH 1", op_batch, 1),
		[R_BATCH64] = ROW("BATCH 64", op_batch, 64),
		[R_BATCH4096] = ROW("BATCH 4096", op_batch, 4096),
		[R_RESERVE] = ROW("RESERVE 4096 + local minting", op_reserve, 4096),
		[R_NEXT] = ROW("uidgen_next() with the cache", op_next, 1),
		[R_NEXT_RAW] = ROW("uidgen_next() without it", op_next_raw, 1),
		[R_GETRANDOM] = ROW("getrandom(8 B)", op_getrandom, 1),
		[R_PROC_UUID] = ROW("/proc/sys/kernel/random/uuid", op_proc_uuid, 1),
		[R_UUID_RANDOM] = ROW("libuuid uuid_generate_random()", op_uuid_random, 1),
		[R_UUID_TIME] = ROW("libuuid uuid_generate_time()", op_uuid_time, 1),
		[R_SNOWFLAKE] = ROW("userspace Snowflake (CAS + clock)", op_snowflake, 1),
		[R_CLOCK] = ROW("clock_gettime(CLOCK_BOOTTIME) alone", op_clock, 1),
		[R_PUBLIC] = ROW("uidgen_public() token of an ID", op_public, 1),
		[R_PUBLIC_TEXT] = ROW("uidgen_format_public() 13-char text", op_public_text, 1),
	};
	struct ctx c;

	public_keys();
	open_ctx(&c);
	pin(0);
	print_layout();
	printf("# best of %d rounds of ~%llu ms, rows taken in turns\n", ROUNDS,
	       ROUND_NS / 1000000);
	printf("%-40s %10s %14s %8s\n", "row (per ID; /dev/zero per 8 bytes)",
	       "ns/ID", "IDs/s", "ratio");
	run_rows(rows, R_NR, &c);
	printf("# target: read 1 ID / read(/dev/zero, 8 B) = %.2f (<= 1.15)\n",
	       rows[R_READ1].best / rows[R_ZERO8].best);
	printf("# target: BATCH 4096 per ID / read(/dev/zero, 32 KiB) per 8 B = %.2f (<= 2)\n",
	       rows[R_BATCH4096].best / rows[R_ZERO32K].best);
	printf("# target: uidgen_next() with the cache / userspace Snowflake = %.2f (<= 1.0)\n",
	       rows[R_NEXT].best / rows[R_SNOWFLAKE].best);
	printf("# uidgen_public() per token / uidgen_next() with the cache = %.2f\n",
	       rows[R_PUBLIC].best / rows[R_NEXT].best);
}

/*
 * The public form alone: no device needed, so it runs on any machine
 * (uidgen_bench public); getppid() as the yardstick of the cost table.
 */
static void public_rows(void)
{
	static struct row rows[] = {
		ROW("getppid()", op_getppid, 1),
		ROW("uidgen_public() token of an ID", op_public, 1),
		ROW("uidgen_private() ID of a token", op_private, 1),
		ROW("uidgen_format_public() 13-char text", op_public_text, 1),
		ROW("uidgen_parse_public() 13-char text", op_parse_public, 1),
	};
	struct ctx c;

	public_keys();
	memset(&c, 0, sizeof(c));
	c.buf = aligned_alloc(64, MAX_IDS * 8);
	if (!c.buf)
		die("aligned_alloc");
	pin(0);
	printf("# best of %d rounds of ~%llu ms, rows taken in turns; %d Feistel rounds\n",
	       ROUNDS, ROUND_NS / 1000000, UIDGEN_PUBLIC_ROUNDS);
	printf("%-40s %10s %14s %8s\n", "row (per token)", "ns/token", "tokens/s", "ratio");
	run_rows(rows, sizeof(rows) / sizeof(rows[0]), &c);
}

/* uidgen_fill(): @n IDs a call, the C side of the bindings' batch(n). */
static long op_fill(struct ctx *c)
{
	return uidgen_fill(c->raw, c->buf, c->n);
}

/*
 * The C library's figures the bindings' next() and batch(4096) are put
 * against (bench/guest.sh): "c ROW NS" lines.
 */
static void bindings(void)
{
	struct ctx c;

	open_ctx(&c);
	pin(0);
	c.n = 1;
	printf("c next %.1f\n", measure(op_next, &c));
	c.n = 4096;
	printf("c batch4096 %.1f\n", measure(op_fill, &c));
}

/* The read() target alone: a quicker look while working on the module. */
static void quick(void)
{
	static struct row rows[] = {
		ROW("read(/dev/zero, 8 B)", op_zero, 1),
		ROW("read(/dev/uid) 1 ID", op_read, 1),
		ROW("getppid()", op_getppid, 1),
	};
	struct ctx c;

	open_ctx(&c);
	pin(0);
	run_rows(rows, 3, &c);
}

/* Per-ID cost against IDs per call: "n read batch reserve" lines. */
static void curve(void)
{
	struct ctx c;
	uint32_t n;

	open_ctx(&c);
	pin(0);
	print_layout();
	printf("# n read_ns batch_ns reserve_ns (per ID)\n");
	for (n = 1; n <= MAX_IDS; n *= 4) {
		printf("%u", n);
		c.n = n;
		printf(" %.2f", measure(op_read, &c));
		printf(" %.2f", measure(op_batch, &c));
		if (n <= 1U << info.seq_bits)
			printf(" %.2f", measure(op_reserve, &c));
		printf("\n");
		fflush(stdout);
	}
}

/* One cache line each: the counters must not bounce between CPUs. */
struct scale_arg {
	op_fn fn;
	uint32_t n;
	int cpu;
	uint64_t ids;
	volatile int *stop;
} __attribute__((aligned(64)));

static void *scale_thread(void *p)
{
	struct scale_arg *a = p;
	uint64_t ids = 0;
	struct ctx c;
	long r;

	open_ctx(&c);
	c.n = a->n;
	pin(a->cpu);
	while (!*a->stop) {
		r = a->fn(&c);
		if (r < 0)
			die("scale");
		ids += r;
	}
	a->ids = ids;
	return NULL;
}

/* IDs/s of @threads threads, one per CPU, over @ms milliseconds. */
static double run_threads(op_fn fn, uint32_t n, int threads, int ms)
{
	struct scale_arg a[2];
	pthread_t t[2];
	volatile int stop = 0;
	uint64_t t0, ids = 0;
	int i;

	for (i = 0; i < threads; i++) {
		a[i] = (struct scale_arg){ .fn = fn, .n = n, .cpu = i,
					   .stop = &stop };
		if (pthread_create(&t[i], NULL, scale_thread, &a[i]))
			die("pthread_create");
	}
	t0 = now_ns();
	usleep(ms * 1000);
	stop = 1;
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		ids += a[i].ids;
	}
	return ids * 1e9 / (now_ns() - t0);
}

static void scale(void)
{
	static const struct {
		const char *name;
		op_fn fn;
		uint32_t n;
	} ops[] = {
		{ "getppid() (the machine's own scaling)", op_getppid, 1 },
		{ "read(/dev/zero, 32 KiB) per 8 B", op_zero, 4096 },
		{ "clock_gettime(CLOCK_BOOTTIME) (vDSO)", op_clock, 1 },
		{ "read(/dev/uid) 1 ID", op_read, 1 },
		{ "BATCH 4096", op_batch, 4096 },
		{ "uidgen_next() with the cache", op_next, 64 },
		{ "userspace Snowflake (one state)", op_snowflake, 64 },
	};
	unsigned int i;

	print_layout();
	printf("%-40s %14s %14s %8s\n", "row", "1 thread IDs/s",
	       "2 threads IDs/s", "2T/1T");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		double one = 0, two = 0, v;
		int k;

		/* Best of three 300 ms runs each. */
		for (k = 0; k < 3; k++) {
			v = run_threads(ops[i].fn, ops[i].n, 1, 300);
			one = v > one ? v : one;
			v = run_threads(ops[i].fn, ops[i].n, 2, 300);
			two = v > two ? v : two;
		}
		printf("%-40s %14.0f %14.0f %8.2f\n", ops[i].name, one, two,
		       two / one);
		fflush(stdout);
	}
}

/*
 * The layout's own ceiling: one slot issues at most 1 << seq_bits IDs per
 * tick. One thread pinned to one CPU (one slot), asking for a whole tick
 * per call, for two seconds.
 */
static void ceiling(void)
{
	double limit = (double)(1ULL << info.seq_bits) * 1e9 / info.tick_ns;
	double v;

	print_layout();
	printf("# ceiling per slot: %.0f IDs/s (%llu per %llu us tick)\n", limit,
	       1ULL << info.seq_bits, (unsigned long long)info.tick_ns / 1000);
	v = run_threads(op_batch, 1U << info.seq_bits, 1, 2000);
	printf("%-40s %14.0f IDs/s %6.1f%% of the ceiling\n", "BATCH 4096", v,
	       100 * v / limit);
	v = run_threads(op_reserve, 1U << info.seq_bits, 1, 2000);
	printf("%-40s %14.0f IDs/s %6.1f%% of the ceiling\n",
	       "RESERVE 4096 + local minting", v, 100 * v / limit);
	v = run_threads(op_next, 64, 1, 2000);
	printf("%-40s %14.0f IDs/s %6.1f%% of the ceiling\n",
	       "uidgen_next() with the cache", v, 100 * v / limit);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc == 2 && !strcmp(argv[1], "public")) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		public_rows();
		return 0;
	}
	fd = open(UIDGEN_DEVICE, O_RDONLY);
	if (fd < 0)
		die(UIDGEN_DEVICE);
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (ioctl(fd, UIDGEN_IOC_INFO, &info))
		die("UIDGEN_IOC_INFO");
	close(fd);
	sf_epoch_us = info.epoch_unix_ns / 1000;
	sf_tick_us = info.tick_ns / 1000;
	sf_seq_bits = info.seq_bits;
	sf_low_bits = info.node_bits + info.slot_bits;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (argc == 2 && !strcmp(argv[1], "cost"))
		cost();
	else if (argc == 2 && !strcmp(argv[1], "quick"))
		quick();
	else if (argc == 2 && !strcmp(argv[1], "curve"))
		curve();
	else if (argc == 2 && !strcmp(argv[1], "scale"))
		scale();
	else if (argc == 2 && !strcmp(argv[1], "ceiling"))
		ceiling();
	else if (argc == 2 && !strcmp(argv[1], "bindings"))
		bindings();
	else {
		fprintf(stderr, "usage: uidgen_bench cost|curve|scale|ceiling|bindings|public\n");
		return 2;
	}
	return 0;
}
