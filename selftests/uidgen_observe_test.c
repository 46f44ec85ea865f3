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
#include <pthread.h>
#include <stdatomic.h>
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
		/* Reserved first: a stall after it only makes it further behind. */
		ASSERT_LE(1, reserve(self->fd, 4, &before));
		tick = tick_in(&self->info, 100);
		obs_id = top_of_tick(&self->info, tick);
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
	/*
	 * One tick more seen once in a 6.1 guest (tick + 2 with the wall
	 * clock not past tick; not yet explained): the guarantee, above the
	 * observed ID, holds either way, so that is tolerated and said.
	 */
	if (wall <= tick) {
		EXPECT_GE(tick + 2, split(&self->info, id).tick);
		if (split(&self->info, id).tick != tick + 1)
			TH_LOG("the next ID is %llu ticks after the observed one's",
			       (unsigned long long)(split(&self->info, id).tick - tick));
	}

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

/*
 * The races: observes of ascending IDs on one side, minting on every CPU
 * on the other (and, for race_revoke, revokes and re-assignments in
 * between). The order the guarantee speaks of is made by the test: the
 * observer publishes an ID (a release store) only after its observe has
 * returned, and a minter loads the publication (acquire) before it begins
 * a call; every ID that call hands out must be greater. Likewise the
 * revoker publishes a floor's tick after its assignment has returned, and
 * no ID a later call hands out may be in that tick or before it.
 */
struct race {
	atomic_ullong observed;	/* highest ID whose observe returned */
	atomic_ullong floor_tick;	/* highest floor tick assigned */
	atomic_int stop;
	atomic_long minted, calls, refused, observes, moved, reassigns;
	atomic_long close;		/* IDs in the tick after a published one */
	atomic_long bad, bad_floor;	/* IDs at or below a publication */
	atomic_ullong bad_id, bad_seen;
	atomic_int err;		/* first unexpected errno (minter or not) */
};

#define RACE_SECONDS	4

/* An ID a call handed out after @seen and @floor were published. */
static void race_check(struct race *r, const struct uidgen_info *in,
		       uint64_t id, uint64_t seen, uint64_t floor)
{
	atomic_fetch_add(&r->minted, 1);
	if (id <= seen) {
		if (!atomic_fetch_add(&r->bad, 1)) {
			r->bad_id = id;
			r->bad_seen = seen;
		}
	} else if (split(in, id).tick == split(in, seen).tick + 1) {
		atomic_fetch_add(&r->close, 1);
	}
	if (floor && split(in, id).tick <= floor)
		atomic_fetch_add(&r->bad_floor, 1);
}

/*
 * A minter, pinned to @cpu: read() of one ID and of 64, BATCH and
 * RESERVE in turn, each checked against what was published before it
 * began. EADDRNOTAVAIL (no node ID: a revoke in progress) only if
 * @may_refuse.
 */
static int race_mint(struct race *r, const struct uidgen_info *in, int cpu,
		     int may_refuse)
{
	struct uidgen_reserve res;
	uint64_t ids[64], seen, floor;
	int fd = open(UIDGEN_DEV, O_RDONLY), i, k, n;

	if (fd < 0 || pin_cpu(cpu))
		return 99;
	for (i = 0; !atomic_load(&r->stop); i++) {
		seen = atomic_load_explicit(&r->observed, memory_order_acquire);
		floor = atomic_load_explicit(&r->floor_tick, memory_order_acquire);
		atomic_fetch_add(&r->calls, 1);
		switch (i % 4) {
		case 0:
			n = read(fd, ids, 8) == 8 ? 1 : -1;
			break;
		case 1:
			n = read(fd, ids, sizeof(ids));
			n = n < 0 ? -1 : n / 8;
			break;
		case 2:
			n = batch(fd, ids, 64);
			break;
		default:
			n = reserve(fd, 16, &res);
			for (k = 0; k < n; k++)
				ids[k] = res.first + k;
			break;
		}
		if (n < 0) {
			if (may_refuse && errno == EADDRNOTAVAIL) {
				atomic_fetch_add(&r->refused, 1);
				continue;
			}
			atomic_store(&r->err, errno ? errno : EIO);
			return 1;
		}
		for (k = 0; k < n; k++)
			race_check(r, in, ids[k], seen, floor);
	}
	close(fd);
	return 0;
}

/*
 * The observer: mostly the top of the tick after the ID clock's (sysfs
 * now_ms; where the minters are, or are about to be: a 1 ms tick has
 * often passed by the time the observe runs under TCG; each such observe
 * moves the clock to the tick after it), while the clock leads the wall
 * clock by under 400 ms (each such observe can add two ticks to the lead,
 * which heals at 1/16 of real time: without the limit the lead would
 * ratchet into the bound of 500 ms, and no_ratchet leaves one of 400 ms);
 * else, and one time in 64, the top of a tick up to 200 ms ahead of the
 * wall clock. Never below the last one published.
 */
static void race_observe(struct race *r, const struct uidgen_info *in, int fd)
{
	uint64_t last = 0, id, end = boottime_ns() + RACE_SECONDS * 1000000000ULL;
	uint64_t epoch_ms = in->epoch_unix_ns / 1000000;
	unsigned int x = 12345;
	long long now_ms;

	for (; boottime_ns() < end; usleep(500)) {
		x = x * 1103515245 + 12345;
		/* The ID clock's tick (1 ms ticks), node ID or none. */
		now_ms = sysfs_long("now_ms");
		if ((x >> 16) % 64 && now_ms > 0 &&
		    (uint64_t)now_ms - epoch_ms < tick_in(in, 400))
			id = top_of_tick(in, now_ms - epoch_ms + 1);
		else
			id = top_of_tick(in, tick_in(in, (x >> 16) % 200));
		if (id < last)
			id = last;
		if (observe(fd, id)) {
			atomic_store(&r->err, errno);
			return;
		}
		last = id;
		atomic_store_explicit(&r->observed, id, memory_order_release);
		atomic_fetch_add(&r->observes, 1);
	}
}

struct race_arg {
	struct race *r;
	const struct uidgen_info *in;
	int fd;
};

/*
 * The revoker: revoke the node ID in force (@node) and assign it again,
 * in turn as new and with a floor 0 to 50 ms ahead of the wall clock,
 * publishing the floor's tick once the assignment has returned.
 */
static void race_revoke(struct race *r, const struct uidgen_info *in, int fd,
			uint32_t node)
{
	struct timespec ts;
	uint64_t floor_ns, tick;
	int i;

	for (i = 0; !atomic_load(&r->stop); i++) {
		if (node_revoke(fd, node, 0)) {
			atomic_store(&r->err, errno);
			return;
		}
		if (i % 2) {
			if (set_node(fd, node)) {
				atomic_store(&r->err, errno);
				return;
			}
		} else {
			clock_gettime(CLOCK_REALTIME, &ts);
			floor_ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec +
				   (uint64_t)(i % 50) * 1000000;
			if (assign(fd, 0, node, floor_ns, 0, 0, 0)) {
				atomic_store(&r->err, errno);
				return;
			}
			tick = (floor_ns - in->epoch_unix_ns) / in->tick_ns;
			if (tick > atomic_load(&r->floor_tick))
				atomic_store_explicit(&r->floor_tick, tick,
						      memory_order_release);
		}
		atomic_fetch_add(&r->reassigns, 1);
		usleep(2000);
	}
}

static void *race_revoke_thread(void *p)
{
	struct race_arg *a = p;

	race_revoke(a->r, a->in, a->fd, a->in->node_id);
	return NULL;
}

/*
 * Minters on every CPU, the observer (and with @revoke, the revoker) in
 * this process, for RACE_SECONDS; then the verdict.
 */
static void race_run(struct __test_metadata *_metadata, int fd,
		     const struct uidgen_info *in, int revoke)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, status;
	long moved = uid_attr("observe_moved");
	struct race_arg arg;
	struct race *r;
	pthread_t th;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, r);
	memset(r, 0, sizeof(*r));
	for (cpu = 0; cpu < ncpu; cpu++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid)
			_exit(race_mint(r, in, cpu, revoke));
	}
	arg.r = r;
	arg.in = in;
	arg.fd = fd;
	if (revoke)
		ASSERT_EQ(0, pthread_create(&th, NULL, race_revoke_thread, &arg));
	race_observe(r, in, fd);
	atomic_store(&r->stop, 1);
	if (revoke)
		pthread_join(th, NULL);
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_LT(0, wait(&status));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	TH_LOG("%d CPUs, %d s: %ld observes (%ld moved something), %ld calls, %ld IDs",
	       ncpu, RACE_SECONDS, atomic_load(&r->observes),
	       uid_attr("observe_moved") - moved, atomic_load(&r->calls),
	       atomic_load(&r->minted));
	TH_LOG("%ld IDs in the tick after the last published, %ld refused, %ld re-assigns",
	       atomic_load(&r->close), atomic_load(&r->refused),
	       atomic_load(&r->reassigns));
	EXPECT_EQ(0, atomic_load(&r->err)) TH_LOG("%s", strerror(r->err));
	EXPECT_EQ(0, atomic_load(&r->bad))
		TH_LOG("%ld IDs at or below a published observed ID; first %#llx after %#llx",
		       atomic_load(&r->bad), (unsigned long long)r->bad_id,
		       (unsigned long long)r->bad_seen);
	EXPECT_EQ(0, atomic_load(&r->bad_floor));
	/*
	 * Not a vacuous run: observes that moved the clock; and minting
	 * that kept going (a clock left behind by observes that moved only
	 * the slots makes every call wait for the tick: 8395 IDs in 4 s,
	 * where 300,000 to 15 million are minted as it should be).
	 */
	EXPECT_LT(100000, atomic_load(&r->minted));
	if (revoke) {
		/*
		 * Fewer: an observe that moves waits for the node's lock,
		 * which a revoke holds across its RCU grace period.
		 */
		EXPECT_LT(30, atomic_load(&r->observes));
		EXPECT_LT(5, uid_attr("observe_moved") - moved);
		EXPECT_LT(10, atomic_load(&r->reassigns));
	} else {
		EXPECT_LT(100, atomic_load(&r->observes));
		EXPECT_LT(20, uid_attr("observe_moved") - moved);
	}
	munmap(r, sizeof(*r));
}

/*
 * Observe racing minting on every CPU: no ID handed out by a call begun
 * after an observe returned is at or below the observed ID.
 */
TEST_F_TIMEOUT(obs, race_minting, 120)
{
	race_run(_metadata, self->fd, &self->info, 0);
}

/*
 * Observe racing revokes and re-assignments (as new, and with floors):
 * each call is refused (EADDRNOTAVAIL) or issues, and what it issues is
 * above every ID observed and every floor assigned before it began.
 */
TEST_F_TIMEOUT(obs, race_revoke, 120)
{
	race_run(_metadata, self->fd, &self->info, 1);
}

TEST_HARNESS_MAIN
