// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests for UIDGEN_IOC_OBSERVE: after observing an ID, every ID this
 * machine issues (read(), BATCH, RESERVE, on every CPU) is greater; an ID
 * too far ahead is refused with EDOM, counted, and moves nothing; one from
 * the past moves nothing but the fence page's observed ID. Run as root
 * with the module loaded at its default observe_ahead_ms (500) and a
 * tick of 1 ms; a node ID is assigned if none is in force.
 */
#include <limits.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "util.h"

#define PAGE		4096
#define NODE		5

static int observe(int fd, uint64_t id)
{
	struct uidgen_observe o = { .size = sizeof(o), .id = id };

	return ioctl(fd, UIDGEN_IOC_OBSERVE, &o);
}

/* A number from /sys/class/misc/uid/, or LONG_MIN if it cannot be read. */
static long uid_attr(const char *name)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), "/sys/class/misc/uid/%s", name);
	if (read_file(path, buf, sizeof(buf)))
		return LONG_MIN;
	return strtol(buf, NULL, 10);
}

static unsigned int id_shift(const struct uidgen_info *in)
{
	return in->node_bits + in->slot_bits + in->seq_bits;
}

/* The highest ID of tick @tick: every node, slot and sequence bit set. */
static uint64_t top_of_tick(const struct uidgen_info *in, uint64_t tick)
{
	return (tick << id_shift(in)) | ((1ULL << id_shift(in)) - 1);
}

/* The tick @ms ms after the wall clock's. */
static uint64_t tick_in(const struct uidgen_info *in, long ms)
{
	return wall_tick(in) + ms * 1000000LL / (long long)in->tick_ns;
}

FIXTURE(obs) {
	int fd;
	struct uidgen_info info;
	const struct uidgen_page *pg;
};

FIXTURE_SETUP(obs)
{
	self->fd = open(UIDGEN_DEV, O_RDONLY);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", UIDGEN_DEV, strerror(errno));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	if (self->info.node_id == UIDGEN_NODE_NONE) {
		ASSERT_EQ(0, set_node(self->fd, NODE)) TH_LOG("%s", strerror(errno));
		ASSERT_EQ(0, get_info(self->fd, &self->info));
	}
	ASSERT_EQ(1000000, self->info.tick_ns);
	ASSERT_EQ(500, param_long("observe_ahead_ms"));
	self->pg = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->pg) TH_LOG("%s", strerror(errno));
}

FIXTURE_TEARDOWN(obs)
{
	munmap((void *)self->pg, PAGE);
	close(self->fd);
}

/* Runs first: nothing observed yet since the load. */
TEST_F(obs, past_id_moves_nothing)
{
	long moved = uid_attr("observe_moved");
	long refused = uid_attr("observe_refused");
	uint64_t past = top_of_tick(&self->info, tick_in(&self->info, -1000));
	uint64_t id;

	ASSERT_NE(LONG_MIN, moved);
	ASSERT_EQ(0, self->pg->__reserved);
	EXPECT_EQ(0, observe(self->fd, past)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(moved, uid_attr("observe_moved"));
	EXPECT_EQ(refused, uid_attr("observe_refused"));
	/* The page says it was seen, for caches of older runs. */
	EXPECT_LE(past, self->pg->observed);
	ASSERT_EQ(sizeof(id), read(self->fd, &id, sizeof(id)));
	EXPECT_LT(past, id);
	/* The clock was not moved: the ID's tick is the wall clock's. */
	EXPECT_LE(split(&self->info, id).tick, wall_tick(&self->info) + 1);
}

TEST_F(obs, errors)
{
	struct uidgen_observe o = { .size = sizeof(o), .flags = 1 };
	long refused = uid_attr("observe_refused");

	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_OBSERVE, &o));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(-1, observe(self->fd, 1ULL << 63));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, observe(self->fd, UINT64_MAX >> 1));
	EXPECT_EQ(EDOM, errno);
	/* Only the bound's refusals are counted. */
	EXPECT_EQ(refused + 1, uid_attr("observe_refused"));
}

static int nobody_observes(void *arg)
{
	int fd = open(UIDGEN_DEV, O_RDONLY);

	(void)arg;
	if (fd < 0)
		return 100;
	/* ID 0: long past, so it moves nothing for the tests after. */
	return observe(fd, 0) ? errno : 0;
}

/* Anyone who may read IDs may observe one: no privilege is needed. */
TEST_F(obs, nonroot)
{
	EXPECT_EQ(0, as_nobody(nobody_observes, NULL));
}

/*
 * 1 s ahead of the wall clock, past the bound of 500 ms: refused, counted,
 * and nothing moved: not the clock, not the page, not the next ID.
 */
TEST_F(obs, beyond_bound_refused)
{
	uint64_t far = top_of_tick(&self->info, tick_in(&self->info, 1000));
	long moved = uid_attr("observe_moved");
	long refused = uid_attr("observe_refused");
	uint64_t seen = self->pg->observed, id;

	errno = 0;
	EXPECT_EQ(-1, observe(self->fd, far));
	EXPECT_EQ(EDOM, errno);
	EXPECT_EQ(refused + 1, uid_attr("observe_refused"));
	EXPECT_EQ(moved, uid_attr("observe_moved"));
	EXPECT_EQ(seen, self->pg->observed);
	ASSERT_EQ(sizeof(id), read(self->fd, &id, sizeof(id)));
	EXPECT_GT(far, id);
	EXPECT_LE(split(&self->info, id).tick, wall_tick(&self->info) + 1);
	/* A thousand of them, and still nothing moved. */
	for (int i = 0; i < 1000; i++)
		ASSERT_EQ(-1, observe(self->fd, far + ((uint64_t)i << 22)));
	EXPECT_EQ(refused + 1001, uid_attr("observe_refused"));
	EXPECT_EQ(moved, uid_attr("observe_moved"));
	EXPECT_EQ(seen, self->pg->observed);
}

/* Check every ID @fd hands out in @n rounds of read, BATCH and RESERVE. */
static int all_greater(int fd, uint64_t above, int n)
{
	struct uidgen_reserve r;
	uint64_t ids[64];
	int i, k;

	for (i = 0; i < n; i++) {
		if (read(fd, ids, 8) != 8 || ids[0] <= above)
			return 1;
		if (read(fd, ids, sizeof(ids)) != sizeof(ids))
			return 2;
		for (k = 0; k < 64; k++)
			if (ids[k] <= above)
				return 3;
		if (batch(fd, ids, 64) != 64)
			return 4;
		for (k = 0; k < 64; k++)
			if (ids[k] <= above)
				return 5;
		if (reserve(fd, 16, &r) < 1 || r.first <= above)
			return 6;
	}
	return 0;
}

/*
 * 100 ms ahead: the clock moves, and every ID after, from every CPU's slot
 * and in every form, is greater. A run reserved before it is below the
 * page's observed ID, so a cache that compares drops it.
 */
TEST_F(obs, ahead_moves_every_slot)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, status, tries = 0;
	uint64_t tick, obs_id, seen, id, wall;
	struct uidgen_reserve before;
	long moved;

	/*
	 * A guest starved by its host (TCG) can lose the 100 ms between
	 * tick_in() and the ioctl, and the ID is then from the past: it moved
	 * nothing, rightly. Up to 10 tries, each said.
	 */
	do {
		moved = uid_attr("observe_moved");
		tick = tick_in(&self->info, 100);
		obs_id = top_of_tick(&self->info, tick);
		ASSERT_LE(1, reserve(self->fd, 4, &before));
		ASSERT_GT(obs_id, before.first + before.count - 1);
		ASSERT_EQ(0, observe(self->fd, obs_id)) TH_LOG("%s", strerror(errno));
		if (uid_attr("observe_moved") == moved + 1)
			break;
		/* Not moved: only right if the clock had reached the tick. */
		ASSERT_LE(tick, wall_tick(&self->info));
		TH_LOG("try %d: the 100 ms passed before the ioctl", tries + 1);
	} while (++tries < 10);
	ASSERT_EQ(moved + 1, uid_attr("observe_moved"));
	seen = self->pg->observed;
	EXPECT_EQ(obs_id, seen);
	EXPECT_LT(before.first + before.count - 1, seen);
	/*
	 * The next ID is in the tick after the observed one, and no later
	 * unless the wall clock has passed that by now.
	 */
	ASSERT_EQ(sizeof(id), read(self->fd, &id, sizeof(id)));
	wall = wall_tick(&self->info);
	EXPECT_LE(tick + 1, split(&self->info, id).tick);
	if (wall <= tick)
		EXPECT_EQ(tick + 1, split(&self->info, id).tick);

	for (cpu = 0; cpu < ncpu; cpu++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			int fd = open(UIDGEN_DEV, O_RDONLY);

			if (fd < 0 || pin_cpu(cpu))
				_exit(99);
			_exit(all_greater(fd, obs_id, 200));
		}
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_LT(0, wait(&status));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	/* Observing it again, or anything lower, moves nothing more. */
	EXPECT_EQ(0, observe(self->fd, obs_id));
	EXPECT_EQ(0, observe(self->fd, obs_id - 1));
	EXPECT_EQ(moved + 1, uid_attr("observe_moved"));
	EXPECT_EQ(seen, self->pg->observed);
}

/*
 * The bound is against this machine's clock without its lead: after an
 * observe 400 ms ahead, one 479 ms ahead of the moved clock (880 ms ahead
 * of the wall clock) is refused, so observes cannot ratchet the clock.
 */
TEST_F(obs, no_ratchet)
{
	uint64_t t1 = tick_in(&self->info, 400);
	long refused = uid_attr("observe_refused");
	uint64_t id;

	ASSERT_EQ(0, observe(self->fd, top_of_tick(&self->info, t1)));
	ASSERT_EQ(sizeof(id), read(self->fd, &id, sizeof(id)));
	EXPECT_LE(t1 + 1, split(&self->info, id).tick);
	if (wall_tick(&self->info) <= t1)
		EXPECT_EQ(t1 + 1, split(&self->info, id).tick);
	errno = 0;
	EXPECT_EQ(-1, observe(self->fd, top_of_tick(&self->info, t1 + 480)));
	EXPECT_EQ(EDOM, errno);
	EXPECT_EQ(refused + 1, uid_attr("observe_refused"));
	ASSERT_EQ(sizeof(id), read(self->fd, &id, sizeof(id)));
	EXPECT_GT(t1 + 480, split(&self->info, id).tick);
}

TEST_HARNESS_MAIN
