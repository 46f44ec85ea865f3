// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests for /dev/uid with a node ID assigned. Run as root: each test
 * mints under the node ID in force, or assigns one itself if there is none
 * (as after boot) and revokes it when done. Every error path asserts its
 * exact errno.
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>

#include "kselftest_harness.h"
#include "util.h"

/* The page size, asked at run time: 4096 on x86, not everywhere. */
#define PAGE ((size_t)getpagesize())

FIXTURE(uid) {
	int fd;
	struct uidgen_info info;
	uint32_t node;
	int assigned;		/* the setup assigned the node ID */
};

FIXTURE_SETUP(uid)
{
	int err;

	self->fd = open(UIDGEN_DEV, O_RDONLY);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", UIDGEN_DEV, strerror(errno));
	err = node_claim(self->fd, &self->info, &self->assigned);
	if (err == EPERM) {
		close(self->fd);
		SKIP(return, "no node ID in force, and assigning one needs root");
	}
	ASSERT_EQ(0, err) TH_LOG("assigning node ID %u: %s",
				 test_node(&self->info), strerror(err));
	self->node = self->info.node_id;
}

FIXTURE_TEARDOWN(uid)
{
	node_release(self->fd, self->assigned);
	close(self->fd);
}

/* Every ID: sign bit clear, our node, a slot that exists, time now-ish. */
static int check_id(const struct uidgen_info *in, uint64_t id,
		    uint64_t t0, uint64_t t1)
{
	struct parts p = split(in, id);

	if (id >> 63)
		return 0;
	if (p.node != in->node_id || p.slot >= in->nr_slots)
		return 0;
	/* One tick of slack: the anchor is taken from two clock reads. */
	return p.tick + 1 >= t0 && p.tick <= t1 + 1;
}

TEST_F(uid, device_mode)
{
	struct stat st;

	ASSERT_EQ(0, stat(UIDGEN_DEV, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0444, st.st_mode & 07777);
}

TEST_F(uid, info)
{
	EXPECT_EQ(63, self->info.ts_bits + self->info.node_bits +
		  self->info.slot_bits + self->info.seq_bits);
	EXPECT_EQ(1U << self->info.slot_bits, self->info.nr_slots);
	EXPECT_LT(0, self->info.tick_ns);
	/* The epoch is in the past, and today's tick fits ts_bits. */
	EXPECT_LT(self->info.epoch_unix_ns, (uint64_t)time(NULL) * 1000000000);
	EXPECT_GT(1ULL << self->info.ts_bits, wall_tick(&self->info));
	EXPECT_LT(self->info.node_id, 1ULL << self->info.node_bits);
	EXPECT_EQ(UIDGEN_NODE_STATE_ACTIVE, self->info.node_state);
	EXPECT_EQ(0, self->info.__reserved);
	EXPECT_EQ(sizeof(self->info), self->info.size);
}

TEST_F(uid, read_one)
{
	uint64_t t0 = wall_tick(&self->info), id = 0, t1;

	ASSERT_EQ(8, read(self->fd, &id, 8));
	t1 = wall_tick(&self->info);
	EXPECT_TRUE(check_id(&self->info, id, t0, t1))
		TH_LOG("id %llu outside ticks %llu..%llu", (unsigned long long)id,
		       (unsigned long long)t0, (unsigned long long)t1);
}

TEST_F(uid, read_short_is_einval)
{
	uint64_t id;
	size_t len;

	for (len = 0; len < 8; len++) {
		errno = 0;
		EXPECT_EQ(-1, read(self->fd, &id, len));
		EXPECT_EQ(EINVAL, errno);
	}
}

/* Odd lengths return the whole IDs that fit; the tail is untouched. */
TEST_F(uid, read_sizes)
{
	static const size_t lens[] = { 8, 9, 15, 16, 4095, 4096, 4097,
				       65536 + 7, 1 << 20, 16 << 20 };
	unsigned char *buf = malloc((16 << 20) + 8);
	size_t i, j;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		size_t want = lens[i] / 8 * 8;
		uint64_t t0 = wall_tick(&self->info), t1;

		memset(buf, 0xa5, lens[i] + 8);
		ASSERT_EQ((ssize_t)want, read(self->fd, buf, lens[i]));
		t1 = wall_tick(&self->info);
		for (j = want; j < lens[i] + 8; j++)
			ASSERT_EQ(0xa5, buf[j]) TH_LOG("len %zu: byte %zu written", lens[i], j);
		for (j = 0; j < want / 8; j++) {
			uint64_t id;

			memcpy(&id, buf + 8 * j, 8);
			ASSERT_TRUE(check_id(&self->info, id, t0, t1));
		}
	}
	free(buf);
}

/* One thread on one CPU: its slot's IDs strictly increase. */
TEST_F(uid, ids_increase_in_slot)
{
	uint64_t ids[4096], prev = 0, id;
	int i, round;

	ASSERT_EQ(0, pin_cpu(0));
	for (round = 0; round < 50; round++) {
		if (round & 1) {
			ASSERT_EQ(4096, batch(self->fd, ids, 4096));
			for (i = 0; i < 4096; i++) {
				ASSERT_LT(prev, ids[i]);
				prev = ids[i];
			}
		} else {
			ASSERT_EQ(8, read(self->fd, &id, 8));
			ASSERT_LT(prev, id);
			prev = id;
		}
	}
	/*
	 * Within one batch that stays in one tick, the IDs are consecutive.
	 * A batch may cross a tick; then another is taken, but one of 100
	 * must stay in its tick, or this checks nothing.
	 */
	for (round = 0; round < 100; round++) {
		ASSERT_EQ(4, batch(self->fd, ids, 4));
		if (split(&self->info, ids[0]).tick == split(&self->info, ids[3]).tick)
			break;
	}
	ASSERT_GT(100, round) TH_LOG("100 batches of 4, each across a tick");
	EXPECT_EQ(ids[0] + 3, ids[3]);
}

/* Moves the reader between two CPUs until told to stop. */
struct mover {
	pid_t tid;
	int cpu[2];
	atomic_int stop;
	long moves;
	int err;
};

static void *move_reader(void *arg)
{
	struct mover *m = arg;
	cpu_set_t set;

	while (!m->stop) {
		CPU_ZERO(&set);
		CPU_SET(m->cpu[m->moves & 1], &set);
		if (sched_setaffinity(m->tid, sizeof(set), &set)) {
			m->err = errno;
			break;
		}
		m->moves++;
		usleep(200);
	}
	return NULL;
}

/*
 * One call takes all its IDs from one slot, so they ascend even when the
 * caller moves to another CPU between chunks (a chunk from a lower slot
 * in the same tick would be lower). Calls that ended on another CPU than
 * they began are counted, or this checks nothing.
 */
TEST_F(uid, one_call_ascends_across_cpus)
{
	static uint64_t ids[1 << 16];
	static struct mover m;
	long calls, moved = 0, bad = -1;
	cpu_set_t set;
	pthread_t t;
	size_t i, at = 0;
	int cpu, n = 0;
	uint32_t slot;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &set))
			m.cpu[n++] = cpu;
	if (n < 2)
		SKIP(return, "needs two CPUs");
	m.tid = syscall(SYS_gettid);
	ASSERT_EQ(0, pthread_create(&t, NULL, move_reader, &m));
	/* Nothing may bail out while the mover runs: note, join, then check. */
	for (calls = 0; calls < 200 && bad < 0; calls++) {
		cpu = sched_getcpu();
		if (read(self->fd, ids, sizeof(ids)) != sizeof(ids)) {
			bad = calls;
			break;
		}
		moved += sched_getcpu() != cpu;
		slot = split(&self->info, ids[0]).slot;
		for (i = 1; i < ARRAY_SIZE(ids) && bad < 0; i++)
			if (ids[i] <= ids[i - 1] ||
			    split(&self->info, ids[i]).slot != slot) {
				bad = calls;
				at = i;
			}
	}
	m.stop = 1;
	pthread_join(t, NULL);
	ASSERT_EQ(0, m.err) TH_LOG("moving the reader: %s", strerror(m.err));
	ASSERT_EQ(-1, bad) TH_LOG("call %ld, ID %zu: %#llx after %#llx", bad, at,
				  (unsigned long long)ids[at],
				  (unsigned long long)ids[at ? at - 1 : 0]);
	TH_LOG("%ld calls of %zu IDs, %ld moves, %ld calls ended on another CPU",
	       calls, ARRAY_SIZE(ids), m.moves, moved);
	ASSERT_LT(0, moved) TH_LOG("no call ended on another CPU: nothing was checked");
}

TEST_F(uid, read_bad_pointers_efault)
{
	char *p;

	void *volatile null = NULL;

	errno = 0;
	EXPECT_EQ(-1, read(self->fd, null, 8));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, (void *)-4096L, 8));
	EXPECT_EQ(EFAULT, errno);

	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, p, 64));
	EXPECT_EQ(EFAULT, errno);

	/* A buffer that runs into a read-only page: the IDs that fit. */
	ASSERT_EQ(0, mprotect(p, PAGE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(24, read(self->fd, p + PAGE - 24, 4096));
	/* Unaligned: two whole IDs fit before the page ends. */
	EXPECT_EQ(16, read(self->fd, p + PAGE - 20, 4096));
	munmap(p, 2 * PAGE);
}

TEST_F(uid, not_seekable_not_writable)
{
	uint64_t id = 0;
	int fd;

	errno = 0;
	EXPECT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	errno = 0;
	EXPECT_EQ(-1, write(self->fd, &id, 8));
	EXPECT_EQ(EBADF, errno);
	/* Root may open it read-write, but there is nothing to write. */
	fd = open(UIDGEN_DEV, O_RDWR);
	ASSERT_LE(0, fd);
	errno = 0;
	EXPECT_EQ(-1, write(fd, &id, 8));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST_F(uid, unknown_ioctl_enotty)
{
	static const unsigned long cmds[] = {
		_IO(UIDGEN_IOC_TYPE, 0x00), _IO(UIDGEN_IOC_TYPE, 0x08),
		_IO(UIDGEN_IOC_TYPE, 0x1f), _IO(UIDGEN_IOC_TYPE, 0xff),
		_IOWR(UIDGEN_IOC_TYPE, 0x01, struct uidgen_batch),
		_IO('T', 0x01), 0,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i], NULL));
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd %#lx", cmds[i]);
	}
}

TEST_F(uid, batch_sizes)
{
	static const uint32_t counts[] = { 1, 2, 63, 64, 65, 4096, 4097,
					   UIDGEN_BATCH_MAX };
	uint64_t *ids = calloc(UIDGEN_BATCH_MAX + 1, 8);
	unsigned int i, j;

	ASSERT_NE(NULL, ids);
	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		uint64_t t0 = wall_tick(&self->info), t1;

		ids[counts[i]] = 0x5a5a5a5a;
		ASSERT_EQ((int)counts[i], batch(self->fd, ids, counts[i]));
		t1 = wall_tick(&self->info);
		EXPECT_EQ(0x5a5a5a5a, ids[counts[i]]);
		for (j = 0; j < counts[i]; j++)
			ASSERT_TRUE(check_id(&self->info, ids[j], t0, t1));
		qsort(ids, counts[i], 8, cmp_u64);
		for (j = 1; j < counts[i]; j++)
			ASSERT_NE(ids[j - 1], ids[j]);
	}
	free(ids);
}

TEST_F(uid, batch_errors)
{
	uint64_t ids[4];
	struct uidgen_batch b;

#define BATCH_EXPECT(err) do {						\
		errno = 0;						\
		EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_BATCH, &b));	\
		EXPECT_EQ(err, errno);					\
	} while (0)
#define BATCH_RESET() do {						\
		memset(&b, 0, sizeof(b));				\
		b.size = sizeof(b);					\
		b.count = 4;						\
		b.ids = (uintptr_t)ids;					\
	} while (0)

	BATCH_RESET();
	b.count = 0;
	BATCH_EXPECT(EINVAL);
	BATCH_RESET();
	b.count = UIDGEN_BATCH_MAX + 1;
	BATCH_EXPECT(EINVAL);
	BATCH_RESET();
	b.count = UINT32_MAX;
	BATCH_EXPECT(EINVAL);
	BATCH_RESET();
	b.flags = 1;
	BATCH_EXPECT(EOPNOTSUPP);
	BATCH_RESET();
	b.flags = 0x80000000;
	BATCH_EXPECT(EOPNOTSUPP);
	BATCH_RESET();
	b.__reserved = 1;
	BATCH_EXPECT(EINVAL);
	BATCH_RESET();
	b.ids = 0;
	BATCH_EXPECT(EFAULT);
	BATCH_RESET();
	b.ids = (uint64_t)-4096;
	BATCH_EXPECT(EFAULT);

	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_BATCH, NULL));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(uid, batch_partial_fault)
{
	struct uidgen_batch b = { .size = sizeof(b), .count = 100 };
	char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, mprotect(p + PAGE, PAGE, PROT_NONE));
	b.ids = (uintptr_t)(p + PAGE - 5 * 8);
	EXPECT_EQ(5, ioctl(self->fd, UIDGEN_IOC_BATCH, &b));
	EXPECT_EQ(5, b.count);
	/*
	 * A count that cannot be written back does not take back the IDs
	 * delivered (the partial-success rule): the call returns their
	 * number, and they are there. The array is in a writable page, the
	 * struct in a read-only one.
	 */
	b.count = 16;
	b.ids = (uintptr_t)(p + PAGE);
	ASSERT_EQ(0, mprotect(p + PAGE, PAGE, PROT_READ | PROT_WRITE));
	memset(p + PAGE, 0, 16 * 8);
	memcpy(p, &b, sizeof(b));
	ASSERT_EQ(0, mprotect(p, PAGE, PROT_READ));
	errno = 0;
	EXPECT_EQ(16, ioctl(self->fd, UIDGEN_IOC_BATCH, p)) TH_LOG("errno %d", errno);
	{
		uint64_t *ids = (uint64_t *)(p + PAGE);
		int i;

		for (i = 1; i < 16; i++)
			EXPECT_LT(ids[i - 1], ids[i]);
		EXPECT_NE(0, ids[0]);
	}
	munmap(p, 2 * PAGE);
}

/*
 * Sizes, as iommufd takes them: below the whole struct is EINVAL; larger
 * with a zero tail works, however large (past a page too); larger with a
 * non-zero tail is E2BIG. Then an unknown flag is EOPNOTSUPP and a
 * __reserved that is not zero EINVAL. Every call here succeeds when its
 * arguments pass: BATCH and RESERVE of 4, INFO, ASSIGN of the node ID in
 * force as new (which changes nothing), RENEW of it with nothing to
 * change, REVOKE (the node ID assigned again after each).
 */
struct cmd_case {
	const char *name;
	unsigned long cmd;
	size_t size;		/* sizeof the struct: also its minimum */
	size_t reserved;	/* offset of __reserved, 0: none */
	uint32_t bad_flag;
};

static const struct cmd_case cmd_cases[] = {
	{ "BATCH", UIDGEN_IOC_BATCH, sizeof(struct uidgen_batch),
	  offsetof(struct uidgen_batch, __reserved), 1 },
	{ "INFO", UIDGEN_IOC_INFO, sizeof(struct uidgen_info),
	  offsetof(struct uidgen_info, __reserved), 1 },
	{ "RESERVE", UIDGEN_IOC_RESERVE, sizeof(struct uidgen_reserve), 0, 1 },
	{ "ASSIGN", UIDGEN_IOC_ASSIGN, sizeof(struct uidgen_assign),
	  offsetof(struct uidgen_assign, __reserved), 2 },
	{ "RENEW", UIDGEN_IOC_RENEW, sizeof(struct uidgen_renew),
	  offsetof(struct uidgen_renew, __reserved), 1 },
	{ "REVOKE", UIDGEN_IOC_REVOKE, sizeof(struct uidgen_revoke),
	  offsetof(struct uidgen_revoke, __reserved), 2 },
	/* ID 0: the epoch's first tick, long past: accepted, moves nothing. */
	{ "OBSERVE", UIDGEN_IOC_OBSERVE, sizeof(struct uidgen_observe), 0, 1 },
};

/* Fill @u (@len bytes, zeroed) with a request of @c that succeeds. */
static void cmd_prepare(const struct cmd_case *c, void *u, size_t len,
			uint32_t size, uint32_t node, uint64_t *ids)
{
	memset(u, 0, len);
	switch (c->cmd) {
	case UIDGEN_IOC_BATCH:
		((struct uidgen_batch *)u)->count = 4;
		((struct uidgen_batch *)u)->ids = (uintptr_t)ids;
		break;
	case UIDGEN_IOC_RESERVE:
		((struct uidgen_reserve *)u)->count = 4;
		break;
	case UIDGEN_IOC_ASSIGN:
		((struct uidgen_assign *)u)->flags = UIDGEN_ASSIGN_NEW;
		((struct uidgen_assign *)u)->node_id = node;
		break;
	case UIDGEN_IOC_RENEW:
		((struct uidgen_renew *)u)->node_id = node;
		break;
	case UIDGEN_IOC_REVOKE:
		((struct uidgen_revoke *)u)->node_id = node;
		break;
	}
	*(uint32_t *)u = size;
}

TEST_F(uid, cmd_length)
{
	/* Three pages: a size past PAGE_SIZE, and a tail to put bytes in. */
	size_t len = 3 * PAGE;
	unsigned char *u = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t ids[4];
	unsigned int i;
	int ret;

	ASSERT_NE(MAP_FAILED, u);
	for (i = 0; i < ARRAY_SIZE(cmd_cases); i++) {
		const struct cmd_case *c = &cmd_cases[i];
		const uint32_t sizes[] = { c->size, c->size + 8, 2 * PAGE + 8 };
		unsigned int k;

#define CMD_EXPECT(sz, want, what) do {					\
		errno = 0;						\
		ret = ioctl(self->fd, c->cmd, u);			\
		if (c->cmd == UIDGEN_IOC_REVOKE && ret == 0) {		\
			ASSERT_EQ(0, set_node(self->fd, self->node));	\
		}							\
		EXPECT_EQ(want, ret < 0 ? errno : 0)			\
			TH_LOG("%s %s, size %u: ret %d, %s", c->name,	\
			       what, sz, ret, strerror(errno));		\
	} while (0)

		cmd_prepare(c, u, len, 0, self->node, ids);
		CMD_EXPECT(0U, EINVAL, "size 0");
		cmd_prepare(c, u, len, c->size - 1, self->node, ids);
		CMD_EXPECT((uint32_t)c->size - 1, EINVAL, "a byte short");
		for (k = 0; k < 3; k++) {
			cmd_prepare(c, u, len, sizes[k], self->node, ids);
			CMD_EXPECT(sizes[k], 0, "zero tail");
			if (c->cmd == UIDGEN_IOC_INFO)
				EXPECT_EQ(sizeof(struct uidgen_info),
					  ((struct uidgen_info *)u)->size);
			cmd_prepare(c, u, len, sizes[k], self->node, ids);
			if (k) {
				u[c->size] = 1;
				CMD_EXPECT(sizes[k], E2BIG, "first tail byte");
				u[c->size] = 0;
				u[sizes[k] - 1] = 0x80;
				CMD_EXPECT(sizes[k], E2BIG, "last tail byte");
			}
		}
		cmd_prepare(c, u, len, c->size, self->node, ids);
		((uint32_t *)u)[1] |= c->bad_flag;
		CMD_EXPECT((uint32_t)c->size, EOPNOTSUPP, "an unknown flag");
		cmd_prepare(c, u, len, c->size, self->node, ids);
		((uint32_t *)u)[1] |= 0x80000000;
		CMD_EXPECT((uint32_t)c->size, EOPNOTSUPP, "flag bit 31");
		if (c->reserved) {
			cmd_prepare(c, u, len, c->size, self->node, ids);
			u[c->reserved] = 1;
			CMD_EXPECT((uint32_t)c->size, EINVAL, "__reserved");
		}
#undef CMD_EXPECT
	}
	/* Not a uidgen ioctl: ENOTTY, whatever the argument. */
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, _IO(UIDGEN_IOC_TYPE, 0x08), u));
	EXPECT_EQ(ENOTTY, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, _IO(UIDGEN_IOC_TYPE, 0x00), u));
	EXPECT_EQ(ENOTTY, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, _IOW(UIDGEN_IOC_TYPE, 0x01, int), u));
	EXPECT_EQ(ENOTTY, errno);
	munmap(u, len);
}

/*
 * RESERVE: a run of consecutive IDs in one tick of the caller's slot,
 * current when it is handed out, with the tick's end as its expiry.
 */
TEST_F(uid, reserve_runs)
{
	const uint64_t seqs = 1ULL << self->info.seq_bits;
	const uint64_t tick_ns = self->info.tick_ns;
	static const uint32_t counts[] = { 1, 2, 64, 100, 4095, 4096 };
	struct uidgen_reserve r;
	uint64_t last = 0, b0, b1, t0, t1;
	unsigned int i, k;
	int ret;

	/* Pinned: one slot, so each run is greater than the one before. */
	ASSERT_EQ(0, pin_cpu(0));
	for (k = 0; k < 200; k++) {
		for (i = 0; i < ARRAY_SIZE(counts); i++) {
			uint32_t want = counts[i] < seqs ? counts[i] : seqs;
			struct parts p, q;

			t0 = wall_tick(&self->info);
			b0 = boottime_ns();
			ret = reserve(self->fd, want, &r);
			b1 = boottime_ns();
			t1 = wall_tick(&self->info);
			ASSERT_LE(1, ret) TH_LOG("%s", strerror(errno));
			ASSERT_GE(want, r.count);
			p = split(&self->info, r.first);
			q = split(&self->info, r.first + r.count - 1);
			/* Never across a tick: one tick, consecutive sequence. */
			ASSERT_EQ(p.tick, q.tick);
			ASSERT_EQ(p.seq + r.count - 1, q.seq);
			ASSERT_TRUE(check_id(&self->info, r.first, t0, t1));
			ASSERT_TRUE(check_id(&self->info, r.first + r.count - 1,
					     t0, t1));
			/* Short only when the tick ran out. */
			if (r.count < want)
				ASSERT_EQ(seqs - 1, q.seq);
			/* The tick had begun and had not ended. */
			ASSERT_LT(b0, r.expires_boot_ns);
			ASSERT_GE(b1 + tick_ns, r.expires_boot_ns);
			/* Later runs are greater. */
			ASSERT_LT(last, r.first);
			last = r.first + r.count - 1;
		}
	}
}

TEST_F(uid, reserve_errors)
{
	struct uidgen_reserve r;
	char *p;

#define RESERVE_EXPECT(err) do {					\
		errno = 0;						\
		EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_RESERVE, &r));	\
		EXPECT_EQ(err, errno);					\
	} while (0)
#define RESERVE_RESET() do {						\
		memset(&r, 0, sizeof(r));				\
		r.size = sizeof(r);					\
		r.count = 4;						\
	} while (0)

	RESERVE_RESET();
	r.count = 0;
	RESERVE_EXPECT(EINVAL);
	RESERVE_RESET();
	r.count = (1U << self->info.seq_bits) + 1;
	RESERVE_EXPECT(EINVAL);
	RESERVE_RESET();
	r.count = UINT32_MAX;
	RESERVE_EXPECT(EINVAL);
	RESERVE_RESET();
	r.flags = 1;
	RESERVE_EXPECT(EOPNOTSUPP);
	RESERVE_RESET();
	r.flags = 0x80000000;
	RESERVE_EXPECT(EOPNOTSUPP);
	RESERVE_RESET();
	r.size = 8;
	RESERVE_EXPECT(EINVAL);
	/* The count is the largest a tick holds: fine. */
	RESERVE_RESET();
	r.count = 1U << self->info.seq_bits;
	EXPECT_LE(1, ioctl(self->fd, UIDGEN_IOC_RESERVE, &r));

	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_RESERVE, NULL));
	EXPECT_EQ(EFAULT, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_RESERVE, (void *)-4096L));
	EXPECT_EQ(EFAULT, errno);

	/* Readable but not writable: the run cannot be handed back. */
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	RESERVE_RESET();
	memcpy(p, &r, sizeof(r));
	ASSERT_EQ(0, mprotect(p, PAGE, PROT_READ));
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_RESERVE, p));
	EXPECT_EQ(EFAULT, errno);
	munmap(p, PAGE);
}

/* The fence page: read-only, shared, one page, and nothing else. */
TEST_F(uid, fence_page)
{
	const struct uidgen_page *pg;
	struct uidgen_reserve r;
	void *m;
	int rw;

	pg = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, pg) TH_LOG("%s", strerror(errno));
	ASSERT_LE(1, reserve(self->fd, 1, &r));
	EXPECT_EQ(pg->fence, r.fence);
	errno = 0;
	EXPECT_EQ(-1, mprotect((void *)pg, PAGE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap((void *)pg, PAGE);

	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, 0));
	EXPECT_EQ(EACCES, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE,
				   self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED,
				   self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED,
				   self->fd, PAGE));
	EXPECT_EQ(EINVAL, errno);

	/*
	 * Root can open it for writing and map it to read: the map never
	 * becomes writable, nor grows past its page.
	 */
	rw = open(UIDGEN_DEV, O_RDWR);
	ASSERT_LE(0, rw);
	m = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, rw, 0);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(r.fence, ((const struct uidgen_page *)m)->fence);
	errno = 0;
	EXPECT_EQ(-1, mprotect(m, PAGE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mremap(m, PAGE, 2 * PAGE, MREMAP_MAYMOVE));
	EXPECT_EQ(EFAULT, errno);
	munmap(m, PAGE);
	close(rw);
}

TEST_F(uid, info_errors)
{
	struct uidgen_info in;
	char *p;

	memset(&in, 0, sizeof(in));
	in.size = sizeof(in);
	in.flags = 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_INFO, &in));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_INFO, NULL));
	EXPECT_EQ(EFAULT, errno);

	/* Readable but not writable: the answer cannot be stored. */
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	in.flags = 0;
	memcpy(p, &in, sizeof(in));
	ASSERT_EQ(0, mprotect(p, PAGE, PROT_READ));
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_INFO, p));
	EXPECT_EQ(EFAULT, errno);
	munmap(p, PAGE);
}

TEST_F(uid, assign_as_root)
{
	/* The assigned ID again, as new: nothing changes. */
	EXPECT_EQ(0, set_node(self->fd, self->node));
	errno = 0;
	EXPECT_EQ(-1, set_node(self->fd, self->node ^ 1));
	EXPECT_EQ(EBUSY, errno);
	errno = 0;
	EXPECT_EQ(-1, set_node(self->fd, 1U << self->info.node_bits));
	EXPECT_EQ(ERANGE, errno);
	/* A renew that changes nothing, of the node ID in force. */
	EXPECT_EQ(0, renew(self->fd, self->node, 0, 0, 0));
	EXPECT_EQ(0, get_info(self->fd, &self->info));
	EXPECT_EQ(self->node, self->info.node_id);
}

static int nobody_uses_device(void *arg)
{
	uint32_t node = *(uint32_t *)arg;
	uint64_t ids[16];
	int fd;

	/* Everyone may read IDs. */
	fd = open(UIDGEN_DEV, O_RDONLY);
	if (fd < 0)
		return 100;
	if (read(fd, ids, 8) != 8 || batch(fd, ids, 16) != 16)
		return 101;
	/* Nobody but CAP_SYS_ADMIN may assign the node ID. */
	if (set_node(fd, node) != -1)
		return 102;
	if (errno != EPERM)
		return 103;
	close(fd);
	if (open(UIDGEN_DEV, O_RDWR) != -1 || errno != EACCES)
		return 104;
	return 0;
}

TEST_F(uid, nonroot)
{
	EXPECT_EQ(0, as_nobody(nobody_uses_device, &self->node));
}

/* A module in use refuses to unload, and keeps working. */
TEST_F(uid, unload_while_open)
{
	uint64_t id;

	errno = 0;
	EXPECT_EQ(-1, syscall(SYS_delete_module, "uidgen", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	EXPECT_EQ(8, read(self->fd, &id, 8));
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* A signal ends a long read early with the whole IDs done so far. */
TEST_F(uid, signal_ends_long_read)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { .tv_usec = 10000 } };
	size_t len = 128 << 20;	/* 16M IDs: >= 4 s at 4096 IDs/ms/slot */
	char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	ssize_t r;

	ASSERT_NE(MAP_FAILED, buf);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	r = read(self->fd, buf, len);
	EXPECT_LT(0, r);
	EXPECT_GT((ssize_t)len, r);
	EXPECT_EQ(0, r % 8);
	munmap(buf, len);
}

/*
 * The concurrency test: 2 processes x 3 threads, pinned across both CPUs,
 * mint 2,400,000 IDs through a mix of read(), BATCH and RESERVE (whose runs
 * the thread expands itself) into shared memory.
 * Then: no duplicate, per-thread per-slot strict order, our node, and every
 * timestamp within the run's wall-clock window.
 */
#define PROCS		2
#define THREADS		3
#define PER_THREAD	400000

struct worker {
	int fd, cpu;
	unsigned int seq_bits;
	unsigned int seed;
	uint64_t *ids;
	int err;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	size_t done = 0;

	if (pin_cpu(w->cpu))
		w->err = errno;
	while (!w->err && done < PER_THREAD) {
		size_t n = 1 + rand_r(&w->seed) % 2048;
		int op = rand_r(&w->seed) % 3;
		struct uidgen_reserve run;
		ssize_t r;
		size_t i;

		if (n > PER_THREAD - done)
			n = PER_THREAD - done;
		if (op == 2) {
			if (n > 1U << w->seq_bits)
				n = 1U << w->seq_bits;
			r = reserve(w->fd, n, &run);
			if (r < 1 || run.count > n) {
				w->err = r < 0 ? errno : EIO;
				break;
			}
			for (i = 0; i < run.count; i++)
				w->ids[done + i] = run.first + i;
			n = run.count;
		} else if (op == 1) {
			r = read(w->fd, w->ids + done, n * 8);
			if (r != (ssize_t)n * 8)
				w->err = r < 0 ? errno : EIO;
		} else {
			r = batch(w->fd, w->ids + done, n);
			if (r != (ssize_t)n)
				w->err = r < 0 ? errno : EIO;
		}
		done += n;
	}
	return NULL;
}

static int run_proc(int fd, unsigned int seq_bits, uint64_t *ids, int proc)
{
	struct worker w[THREADS];
	pthread_t t[THREADS];
	int i, err = 0;

	for (i = 0; i < THREADS; i++) {
		w[i] = (struct worker){
			.fd = fd, .cpu = (proc * THREADS + i) % 2,
			.seq_bits = seq_bits,
			.seed = proc * 100 + i,
			.ids = ids + (size_t)(proc * THREADS + i) * PER_THREAD,
		};
		err = pthread_create(&t[i], NULL, work, &w[i]);
		if (err)
			return err;
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		if (w[i].err)
			err = w[i].err;
	}
	return err;
}

TEST_F_TIMEOUT(uid, concurrency, 600)
{
	const size_t total = (size_t)PROCS * THREADS * PER_THREAD;
	uint64_t *ids, *sorted, t0, t1, *last;
	unsigned int slots_seen = 0;
	pid_t pids[PROCS];
	size_t i, j, dups = 0;
	int p, status;

	ids = mmap(NULL, total * 8, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ids);
	last = calloc(self->info.nr_slots, 8);
	ASSERT_NE(NULL, last);

	t0 = wall_tick(&self->info);
	for (p = 0; p < PROCS; p++) {
		pids[p] = fork();
		ASSERT_LE(0, pids[p]);
		if (pids[p] == 0) {
			/* Each process its own fd, as separate programs would. */
			int fd = open(UIDGEN_DEV, O_RDONLY);

			_exit(fd < 0 ? errno :
			      run_proc(fd, self->info.seq_bits, ids, p));
		}
	}
	for (p = 0; p < PROCS; p++) {
		ASSERT_EQ(pids[p], waitpid(pids[p], &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status));
	}
	t1 = wall_tick(&self->info);

	for (i = 0; i < (size_t)PROCS * THREADS; i++) {
		memset(last, 0, self->info.nr_slots * 8);
		for (j = 0; j < PER_THREAD; j++) {
			uint64_t id = ids[i * PER_THREAD + j];
			struct parts pt = split(&self->info, id);

			ASSERT_TRUE(check_id(&self->info, id, t0, t1))
				TH_LOG("thread %zu id %zu: %llu", i, j,
				       (unsigned long long)id);
			ASSERT_LT(last[pt.slot], id)
				TH_LOG("thread %zu: slot %u went backwards", i, pt.slot);
			last[pt.slot] = id;
			slots_seen |= 1U << (pt.slot & 31);
		}
	}
	/* Both CPUs minted: with per-CPU slots, two slots show up. */
	if (self->info.nr_slots > 1)
		EXPECT_LE(2, __builtin_popcount(slots_seen));

	sorted = malloc(total * 8);
	ASSERT_NE(NULL, sorted);
	memcpy(sorted, ids, total * 8);
	qsort(sorted, total, 8, cmp_u64);
	for (i = 1; i < total; i++)
		dups += sorted[i - 1] == sorted[i];
	EXPECT_EQ(0, dups);
	TH_LOG("verified %zu IDs from %d procs x %d threads in ticks %llu..%llu: %zu duplicates",
	       total, PROCS, THREADS, (unsigned long long)t0,
	       (unsigned long long)t1, dups);
	free(sorted);
	free(last);
	munmap(ids, total * 8);
}

TEST_HARNESS_MAIN
