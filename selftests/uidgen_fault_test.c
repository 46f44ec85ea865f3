// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests for faults: the wall clock stepping while CPUs mint, CPU
 * hotplug, a floor's lead healing, revoking the node ID under load, and
 * floors. Run as root: each test mints under the node ID in force, or
 * assigns one itself if there is none (as after boot) and revokes it when
 * done; the tests run in order and the last ones change the node ID and
 * the floor.
 *
 * The "disruptive" tests step CLOCK_REALTIME (an hour back and forward
 * again), take CPU 1 offline (and back), or put the ID clock an hour
 * ahead of the wall clock for the rest of the load (a floor, which only
 * a reload undoes), and skip unless the program is run with --disruptive
 * as its first argument; the first two restore what they changed.
 */
#include <linux/userfaultfd.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "util.h"

#define MAX_IDS		(2 * 1024 * 1024)	/* per thread */
#define CHUNK		256

FIXTURE(fault) {
	int fd;
	struct uidgen_info info;
	uint32_t node;
	int assigned;		/* the setup assigned the node ID */
};

/* Open the device and claim a node ID (util.h); 0 or the errno. */
static int open_and_claim(int *fd, struct uidgen_info *info, uint32_t *node,
			  int *assigned)
{
	int err;

	*fd = open(UIDGEN_DEV, O_RDONLY);
	if (*fd < 0)
		return errno;
	err = node_claim(*fd, info, assigned);
	if (err)
		close(*fd);
	*node = info->node_id;
	return err;
}

FIXTURE_SETUP(fault)
{
	int err = open_and_claim(&self->fd, &self->info, &self->node,
			      &self->assigned);

	if (err == EPERM)
		SKIP(return, "no node ID in force, and assigning one needs root");
	ASSERT_EQ(0, err) TH_LOG("open or assign: %s", strerror(err));
}

FIXTURE_TEARDOWN(fault)
{
	node_release(self->fd, self->assigned);
	close(self->fd);
}

/* --disruptive given: run the tests that step the clock or a CPU. */
static int disruptive_asked;

FIXTURE(disruptive) {
	int fd;
	struct uidgen_info info;
	uint32_t node;
	int assigned;
	int cpu1_offline;	/* this test took CPU 1 offline */
};

FIXTURE_SETUP(disruptive)
{
	int err;

	if (!disruptive_asked)
		SKIP(return, "steps CLOCK_REALTIME or takes CPU 1 offline: run with --disruptive");
	err = open_and_claim(&self->fd, &self->info, &self->node, &self->assigned);
	if (err == EPERM)
		SKIP(return, "no node ID in force, and assigning one needs root");
	ASSERT_EQ(0, err) TH_LOG("open or assign: %s", strerror(err));
}

static int set_cpu1(int online);

FIXTURE_TEARDOWN(disruptive)
{
	if (self->cpu1_offline)
		set_cpu1(1);
	node_release(self->fd, self->assigned);
	close(self->fd);
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A thread minting in a loop until told to stop. */
struct minter {
	pthread_t t;
	int fd;
	int cpu;		/* -1: not pinned */
	atomic_int *stop;
	atomic_int *revoked;	/* set once a revoke has returned */
	uint64_t *ids;		/* MAX_IDS, zeroed */
	size_t n;
	double max_gap;		/* longest time one call took, s */
	int err;		/* unexpected errno */
	int late;		/* calls begun after a revoke that got IDs */
};

static void *mint(void *arg)
{
	struct minter *m = arg;
	double t0, t;

	if (m->cpu >= 0 && pin_cpu(m->cpu))
		m->err = errno;
	while (!m->err && !atomic_load(m->stop) && m->n + CHUNK <= MAX_IDS) {
		int after_revoke = m->revoked && atomic_load(m->revoked);
		int r;

		t0 = mono();
		if ((m->n / CHUNK) & 1) {
			ssize_t b = read(m->fd, m->ids + m->n, CHUNK * 8);

			r = b < 0 ? -1 : (int)(b / 8);
		} else {
			r = batch(m->fd, m->ids + m->n, CHUNK);
		}
		t = mono() - t0;
		if (t > m->max_gap)
			m->max_gap = t;
		if (r < 0 && errno == EADDRNOTAVAIL && m->revoked) {
			usleep(1000);
			continue;
		}
		/* A call the revoke cut short returns the IDs it stored. */
		if (r != CHUNK && !(m->revoked && r > 0)) {
			m->err = r < 0 ? errno : EIO;
			break;
		}
		if (after_revoke)
			m->late++;
		__atomic_store_n(&m->n, m->n + r, __ATOMIC_RELAXED);
		/* Pace the loop so the buffer outlasts the faults. */
		usleep(500);
	}
	if (m->n + CHUNK > MAX_IDS)
		m->err = ENOSPC;
	return NULL;
}

static int start(struct minter *m, int fd, int cpu, atomic_int *stop,
		 atomic_int *revoked)
{
	*m = (struct minter){ .fd = fd, .cpu = cpu, .stop = stop,
			      .revoked = revoked };
	m->ids = mmap(NULL, MAX_IDS * 8, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->ids == MAP_FAILED)
		return -1;
	return pthread_create(&m->t, NULL, mint, m);
}

/*
 * Every thread's IDs: unique across threads, strictly increasing per slot
 * within each thread. Returns the number of problems found.
 */
static size_t verify(struct __test_metadata *_metadata,
		     const struct uidgen_info *in, struct minter *m, int nm)
{
	size_t total = 0, i, k, bad = 0;
	uint64_t *all, *last;
	int j;

	last = calloc(in->nr_slots, 8);
	for (j = 0; j < nm; j++) {
		memset(last, 0, in->nr_slots * 8);
		for (i = 0; i < m[j].n; i++) {
			struct parts p = split(in, m[j].ids[i]);

			if (m[j].ids[i] <= last[p.slot]) {
				if (bad++ < 5)
					TH_LOG("thread %d id %zu: slot %u went backwards",
					       j, i, p.slot);
			}
			last[p.slot] = m[j].ids[i];
		}
		total += m[j].n;
	}
	all = malloc(total * 8);
	for (j = 0, k = 0; j < nm; j++) {
		memcpy(all + k, m[j].ids, m[j].n * 8);
		k += m[j].n;
	}
	qsort(all, total, 8, cmp_u64);
	for (i = 1; i < total; i++)
		if (all[i] == all[i - 1] && bad++ < 5)
			TH_LOG("duplicate %llu", (unsigned long long)all[i]);
	TH_LOG("verified %zu IDs from %d threads", total, nm);
	free(all);
	free(last);
	return bad;
}

static void step_wall(long seconds)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += seconds;
	clock_settime(CLOCK_REALTIME, &ts);
}

/*
 * Disruptive: the wall clock jumps back an hour and forward again (by the
 * same hour: the clock ends where it would have been) while 2 CPUs mint.
 */
TEST_F_TIMEOUT(disruptive, wall_clock_steps, 300)
{
	atomic_int stop = 0;
	struct minter m[2];
	time_t before = time(NULL);
	int i;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, start(&m[i], self->fd, i, &stop, NULL));
	usleep(200000);
	step_wall(-3600);
	EXPECT_GE(before - 3000, time(NULL));
	usleep(300000);
	step_wall(3600);
	usleep(200000);
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++) {
		pthread_join(m[i].t, NULL);
		EXPECT_EQ(0, m[i].err) TH_LOG("thread %d: %s", i, strerror(m[i].err));
		EXPECT_LT(1000, m[i].n);
		/* No stall: a call never waits more than a tick or so. */
		EXPECT_GT(0.5, m[i].max_gap) TH_LOG("thread %d waited %.3f s", i, m[i].max_gap);
	}
	EXPECT_EQ(0, verify(_metadata, &self->info, m, 2));
	EXPECT_LE(before, time(NULL));
}

static int set_cpu1(int online)
{
	return write_file("/sys/devices/system/cpu/cpu1/online", online ? "1" : "0");
}

static size_t minted(struct minter *m, int nm)
{
	size_t n = 0;
	int i;

	for (i = 0; i < nm; i++)
		n += __atomic_load_n(&m[i].n, __ATOMIC_RELAXED);
	return n;
}

/*
 * Disruptive: CPU 1 goes offline and comes back, three times, under 2
 * minting threads: IDs keep coming while it is offline and after it is
 * back, all unique. The teardown brings CPU 1 back if an assertion left
 * it offline; without CPU 1 or CPU hotplug the test skips.
 */
TEST_F_TIMEOUT(disruptive, cpu_hotplug, 300)
{
	atomic_int stop = 0;
	struct minter m[2];
	size_t before, offline, online;
	char state[4];
	int i;

	if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "no CPU 1 to take offline (CPU hotplug)");
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, start(&m[i], self->fd, -1, &stop, NULL));
	for (i = 0; i < 3; i++) {
		usleep(100000);
		before = minted(m, 2);
		self->cpu1_offline = 1;
		ASSERT_EQ(0, set_cpu1(0));
		ASSERT_EQ(0, read_file("/sys/devices/system/cpu/cpu1/online",
				       state, sizeof(state)));
		EXPECT_EQ('0', state[0]) TH_LOG("cpu1 still online");
		usleep(100000);
		offline = minted(m, 2);
		ASSERT_EQ(0, set_cpu1(1));
		self->cpu1_offline = 0;
		usleep(100000);
		online = minted(m, 2);
		EXPECT_LT(before, offline) TH_LOG("round %d: no ID while cpu1 was offline", i);
		EXPECT_LT(offline, online) TH_LOG("round %d: no ID after cpu1 came back", i);
	}
	usleep(100000);
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++) {
		pthread_join(m[i].t, NULL);
		EXPECT_EQ(0, m[i].err) TH_LOG("thread %d: %s", i, strerror(m[i].err));
	}
	EXPECT_EQ(0, verify(_metadata, &self->info, m, 2));
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

static uint64_t max_id(struct minter *m, int nm)
{
	uint64_t hi = 0;
	size_t i;
	int j;

	for (j = 0; j < nm; j++)
		for (i = 0; i < m[j].n; i++)
			hi = m[j].ids[i] > hi ? m[j].ids[i] : hi;
	return hi;
}

/*
 * A floor 2 s ahead of the ID clock while 2 CPUs mint (a predecessor's
 * grant, say): the clock offset (clock_offset_ms, what `uidgen stats`
 * shows) jumps by the lead, then falls at 1/16 of real time, never rising,
 * and is back where it was 16 times the lead later, within the load. IDs
 * stay unique and rising per slot through the jump; the first after the
 * floor is past it; every ID after the heal is above every ID before it.
 */
TEST_F_TIMEOUT(fault, floor_lead_heals, 120)
{
	long before, lead, off, prev, el_ms, rises = 0, mid = LONG_MIN;
	uint64_t id, floor_tick, t0, hi, lo = UINT64_MAX;
	struct minter m[2], after[2];
	atomic_int stop = 0;
	long long floor_ms;
	size_t k;
	int i;

	before = uid_attr("clock_offset_ms");
	ASSERT_NE(LONG_MIN, before);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, start(&m[i], self->fd, i, &stop, NULL));
	usleep(200000);
	floor_ms = uid_attr("now_ms") + 2000;
	/* The node ID in force again, with a floor: only the floor moves. */
	ASSERT_EQ(0, assign(self->fd, 0, self->node, floor_ms * 1000000ULL,
			    0, 0, 0));
	t0 = boottime_ns();
	lead = uid_attr("clock_offset_ms") - before;
	ASSERT_EQ(8, read(self->fd, &id, 8));
	floor_tick = (floor_ms * 1000000 - self->info.epoch_unix_ns) /
		     self->info.tick_ns;
	EXPECT_LT(floor_tick, split(&self->info, id).tick);
	TH_LOG("the floor put the ID clock %ld ms ahead", lead);
	EXPECT_LE(1900, lead);
	EXPECT_GE(2001, lead);
	usleep(500000);
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++) {
		pthread_join(m[i].t, NULL);
		EXPECT_EQ(0, m[i].err) TH_LOG("thread %d: %s", i, strerror(m[i].err));
		EXPECT_GT(0.5, m[i].max_gap) TH_LOG("thread %d waited %.3f s", i, m[i].max_gap);
	}
	EXPECT_EQ(0, verify(_metadata, &self->info, m, 2));
	hi = max_id(m, 2);

	/* Down at 1/16 of real time, never up, to where it was. */
	prev = lead;
	do {
		usleep(250000);
		el_ms = (boottime_ns() - t0) / 1000000;
		off = uid_attr("clock_offset_ms") - before;
		rises += off > prev + 1;
		prev = off;
		if (mid == LONG_MIN && el_ms >= 8 * lead) {
			mid = off;
			EXPECT_LE(lead - el_ms / 16 - 20, off);
			EXPECT_GE(lead - el_ms / 16 + 20, off);
			TH_LOG("%ld ms after the floor: %ld ms ahead", el_ms, off);
		}
	} while (el_ms < 16 * lead + 1000);
	TH_LOG("%ld ms after the floor: %ld ms ahead (%ld rises)", el_ms, off, rises);
	EXPECT_EQ(0, rises);
	EXPECT_NE(LONG_MIN, mid);
	EXPECT_GE(1, labs(off));

	/* After the heal: above everything before it and past the floor. */
	stop = 0;
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, start(&after[i], self->fd, i, &stop, NULL));
	usleep(300000);
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++) {
		pthread_join(after[i].t, NULL);
		EXPECT_EQ(0, after[i].err);
		for (k = 0; k < after[i].n; k++)
			lo = after[i].ids[k] < lo ? after[i].ids[k] : lo;
	}
	EXPECT_EQ(0, verify(_metadata, &self->info, after, 2));
	EXPECT_LT(hi, lo);
	EXPECT_LT(floor_tick, split(&self->info, lo).tick);
}

/*
 * Revoke the node ID while 2 CPUs mint into fresh memory. Everything the
 * kernel will ever write under the old node ID must already be in memory
 * when the revoke returns: a snapshot taken then must match the buffers
 * after the threads stop, and no call begun after the revoke gets IDs.
 */
TEST_F_TIMEOUT(fault, revoke_is_a_fence, 300)
{
	atomic_int stop = 0, revoked = 0;
	struct minter m[2];
	uint64_t *snap[2], last[2] = { 0, 0 }, id;
	size_t i, changed = 0;
	int j;

	for (j = 0; j < 2; j++)
		ASSERT_EQ(0, start(&m[j], self->fd, j, &stop, &revoked));
	usleep(300000);

	ASSERT_EQ(0, node_revoke(self->fd, UIDGEN_NODE_NONE, 0));
	atomic_store(&revoked, 1);
	for (j = 0; j < 2; j++) {
		snap[j] = malloc(MAX_IDS * 8);
		memcpy(snap[j], m[j].ids, MAX_IDS * 8);
	}
	usleep(300000);
	atomic_store(&stop, 1);
	for (j = 0; j < 2; j++) {
		pthread_join(m[j].t, NULL);
		EXPECT_EQ(0, m[j].err) TH_LOG("thread %d: %s", j, strerror(m[j].err));
		EXPECT_EQ(0, m[j].late);
		for (i = 0; i < MAX_IDS; i++)
			changed += snap[j][i] != m[j].ids[i];
		EXPECT_LT(0, m[j].n);
		for (i = 0; i < m[j].n; i++)
			ASSERT_EQ(self->node, split(&self->info, m[j].ids[i]).node);
		free(snap[j]);
	}
	EXPECT_EQ(0, changed);
	EXPECT_EQ(0, verify(_metadata, &self->info, m, 2));

	ASSERT_EQ(0, get_info(self->fd, &self->info));
	EXPECT_EQ(UIDGEN_NODE_NONE, self->info.node_id);
	EXPECT_EQ(UIDGEN_NODE_STATE_NONE, self->info.node_state);
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, &id, 8));
	EXPECT_EQ(EADDRNOTAVAIL, errno);

	/*
	 * A different node ID: each slot's next ID is still above its last
	 * one, even though the node field went down or up.
	 */
	for (j = 0; j < 2; j++) {
		for (i = 0; i < m[j].n; i++)
			if (m[j].ids[i] > last[j])
				last[j] = m[j].ids[i];
	}
	ASSERT_EQ(0, set_node(self->fd, self->node ^ 1));
	for (j = 0; j < 2; j++) {
		ASSERT_EQ(0, pin_cpu(j));
		ASSERT_EQ(8, read(self->fd, &id, 8));
		EXPECT_LT(last[j], id);
		EXPECT_EQ(self->node ^ 1, split(&self->info, id).node);
	}

	/* Revoking, and back to the original node ID. */
	ASSERT_EQ(0, node_revoke(self->fd, UIDGEN_NODE_NONE, 0));
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, &id, 8));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	ASSERT_EQ(0, set_node(self->fd, self->node));
	ASSERT_EQ(8, read(self->fd, &id, 8));
	EXPECT_EQ(self->node, split(&self->info, id).node);
}

struct stalled {
	int fd;
	uint64_t *buf;
	int r;
	int err;
	atomic_int done;
};

static void *stalled_batch(void *arg)
{
	struct stalled *st = arg;

	errno = 0;
	st->r = batch(st->fd, st->buf, 64);
	st->err = errno;
	atomic_store(&st->done, 1);
	return NULL;
}

static void *revoke_now(void *arg)
{
	struct stalled *st = arg;

	st->r = node_revoke(st->fd, UIDGEN_NODE_NONE, 0);
	atomic_store(&st->done, 1);
	return NULL;
}

/*
 * The fence, made deterministic: a BATCH stalls in its copy to user
 * memory (a userfaultfd page nobody has filled yet). Before 1.4 the copy
 * held the fence, so a revoke (and the VM-fork notifier) waited for as long
 * as the page's owner liked. Now the IDs are stored with page faults off:
 * the store stops, the fence is left, the page is faulted in outside it.
 * So the revoke returns at once, and the stalled caller, once its page
 * comes, finds the node ID gone: EADDRNOTAVAIL, and the IDs minted for the
 * store that faulted are a gap, never handed out.
 */
TEST_F(fault, revoke_not_held_up_by_a_stalled_copy)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct stalled b = { .fd = self->fd }, rv = { .fd = self->fd };
	struct uffdio_copy cp = { 0 };
	struct pollfd pfd;
	struct uffd_msg msg;
	struct uidgen_info after;
	pthread_t tb, tr;
	size_t len = getpagesize();
	char *page, *zero;
	int uffd, i;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	ASSERT_LE(0, uffd) TH_LOG("userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	page = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	zero = calloc(1, len);
	ASSERT_NE(MAP_FAILED, page);
	reg.range.start = (uintptr_t)page;
	reg.range.len = len;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	b.buf = (uint64_t *)page;
	ASSERT_EQ(0, pthread_create(&tb, NULL, stalled_batch, &b));
	pfd = (struct pollfd){ .fd = uffd, .events = POLLIN };
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* The copy is stalled; the revoke returns regardless, within 3 s. */
	ASSERT_EQ(0, pthread_create(&tr, NULL, revoke_now, &rv));
	for (i = 0; i < 300 && !atomic_load(&rv.done); i++)
		usleep(10000);
	EXPECT_EQ(1, atomic_load(&rv.done)) TH_LOG("the revoke waited for a stalled copy");
	EXPECT_EQ(0, atomic_load(&b.done));
	ASSERT_EQ(0, get_info(self->fd, &after));
	EXPECT_EQ(UIDGEN_NODE_NONE, after.node_id);

	cp.dst = (uintptr_t)page;
	cp.src = (uintptr_t)zero;
	cp.len = len;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_COPY, &cp));
	pthread_join(tb, NULL);
	pthread_join(tr, NULL);
	EXPECT_EQ(0, rv.r);
	EXPECT_EQ(-1, b.r);
	EXPECT_EQ(EADDRNOTAVAIL, b.err);
	/* Nothing minted under the node ID reached the page. */
	for (i = 0; i < 64; i++)
		EXPECT_EQ(0, b.buf[i]);
	ASSERT_EQ(0, set_node(self->fd, self->node));
	close(uffd);
	munmap(page, len);
	free(zero);
}

static int nobody_floor(void *arg)
{
	int fd = open(UIDGEN_DEV, O_RDONLY);
	const uint32_t *node = arg;

	if (fd < 0)
		return 100;
	if (assign(fd, 0, *node, 9999999999999ULL * 1000000, 0, 0, 0) != -1)
		return 101;
	return errno;
}

static uint64_t floor_ns(int fd)
{
	struct uidgen_info in;

	return get_info(fd, &in) ? 0 : in.floor_unix_ns;
}

/*
 * A floor an hour ahead: the very next ID is past it. Disruptive: the ID
 * clock stays about an hour ahead of the wall clock for the rest of the
 * load (a lead heals at 1/16 speed), which every later test that checks
 * an ID's time against the wall clock would see.
 */
TEST_F(disruptive, floor_moves_ids_forward)
{
	uint64_t id, before, floor_tick;
	long long floor_ms, now_ms = (wall_tick(&self->info) *
		self->info.tick_ns + self->info.epoch_unix_ns) / 1000000;

	ASSERT_EQ(0, pin_cpu(0));
	ASSERT_EQ(8, read(self->fd, &before, 8));
	floor_ms = now_ms + 3600 * 1000;
	ASSERT_EQ(0, assign(self->fd, 0, self->node, floor_ms * 1000000ULL,
			    0, 0, 0));
	EXPECT_EQ(floor_ms * 1000000ULL, floor_ns(self->fd));
	floor_tick = (floor_ms * 1000000 - self->info.epoch_unix_ns) /
		     self->info.tick_ns;

	ASSERT_EQ(8, read(self->fd, &id, 8));
	EXPECT_LT(before, id);
	EXPECT_LT(floor_tick, split(&self->info, id).tick);
	/* It runs on from there (at 15/16 while it heals): within 2 s of the floor. */
	EXPECT_GT(floor_tick + 2000000000 / self->info.tick_ns,
		  split(&self->info, id).tick);
	EXPECT_LE(floor_ms, sysfs_long("now_ms"));

	/* A floor only moves forward (a lower one is no change); only root moves it. */
	EXPECT_EQ(0, assign(self->fd, 0, self->node, (floor_ms - 1) * 1000000ULL,
			    0, 0, 0));
	EXPECT_EQ(EPERM, as_nobody(nobody_floor, &self->node));
	EXPECT_EQ(floor_ms * 1000000ULL, floor_ns(self->fd));
	/* Past the end of the timestamp field: nothing left to issue. */
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, 0, self->node, 9999999999999ULL * 1000000,
			     0, 0, 0));
	EXPECT_EQ(EOVERFLOW, errno);
	EXPECT_EQ(floor_ms * 1000000ULL, floor_ns(self->fd));
}

/* The harness's main, after taking --disruptive off the front. */
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--disruptive")) {
		disruptive_asked = 1;
		argv[1] = argv[0];
		return test_harness_run(argc - 1, argv + 1);
	}
	return test_harness_run(argc, argv);
}
