// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests for a node ID's life: assignment only with a floor (or the
 * word that it is new), the pending state, grants, lease deadlines,
 * fencing tokens, INFO's size and time namespaces (a revoke no stalled
 * reader can hold up is in uidgen_fault_test.c). Run as root right after
 * loading the module without node_id; each test leaves no node ID behind.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "util.h"

#define NODE	5

static int setn(int fd, uint32_t flags, uint32_t node, uint64_t floor_ms,
		uint64_t grant_ms, uint64_t deadline_ns, uint64_t token)
{
	struct uidgen_node n = {
		.size = sizeof(n), .flags = flags, .node_id = node,
		.floor_ms = floor_ms, .grant_ms = grant_ms,
		.deadline_ns = deadline_ns, .token = token,
	};

	return ioctl(fd, UIDGEN_IOC_SET_NODE, &n);
}

static int revoke_node(int fd)
{
	return setn(fd, UIDGEN_NODE_REVOKE, UIDGEN_NODE_NONE, 0, 0, 0, 0);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* Unix ms of the tick an ID was minted in. */
static uint64_t id_ms(const struct uidgen_info *in, uint64_t id)
{
	return in->epoch_ms + split(in, id).tick * in->tick_us / 1000;
}

static uint32_t node_state(int fd)
{
	struct uidgen_info in;

	if (get_info(fd, &in))
		return 99;
	return in.node_state;
}

FIXTURE(life) {
	int fd;
	struct uidgen_info info;
};

FIXTURE_SETUP(life)
{
	self->fd = open(UIDGEN_DEV, O_RDONLY);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", UIDGEN_DEV, strerror(errno));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	ASSERT_EQ(UIDGEN_NODE_STATE_NONE, self->info.node_state);
}

FIXTURE_TEARDOWN(life)
{
	revoke_node(self->fd);
	close(self->fd);
}

/* The kernel never guesses a floor: flags 0, or NEW and FLOOR together. */
TEST_F(life, assign_needs_a_floor)
{
	struct uidgen_node old = {
		.size = UIDGEN_NODE_SIZE_VER0, .flags = UIDGEN_NODE_NEW,
		.node_id = NODE,
	};

	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, 0, NODE, 0, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_NEW | UIDGEN_NODE_FLOOR, NODE,
			   now_ms(), 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_NEW, NODE, now_ms(), 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_RENEW | UIDGEN_NODE_NEW, NODE,
			   0, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, 0x10, NODE, 0, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(UIDGEN_NODE_STATE_NONE, node_state(self->fd));

	/* A 1.3-sized request may still say NEW. */
	EXPECT_EQ(0, ioctl(self->fd, UIDGEN_IOC_SET_NODE, &old));
	EXPECT_EQ(UIDGEN_NODE_STATE_ACTIVE, node_state(self->fd));
	/* ...and naming the active node ID again changes nothing. */
	old.flags = 0;
	EXPECT_EQ(0, ioctl(self->fd, UIDGEN_IOC_SET_NODE, &old));
	old.node_id = NODE + 1;
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_SET_NODE, &old));
	EXPECT_EQ(EBUSY, errno);
}

/* node_id through sysfs is pending until floor_ms completes it. */
TEST_F(life, pending_until_the_floor)
{
	uint64_t id, floor = now_ms() + 2000;
	struct uidgen_info in;
	char buf[32];

	ASSERT_EQ(0, write_file(UIDGEN_PARAM "node_id", "4"));
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_EQ(UIDGEN_NODE_STATE_PENDING, in.node_state);
	EXPECT_EQ(4U, in.node_id);
	ASSERT_EQ(0, read_file("/sys/class/uidgen/uid/node_state", buf, sizeof(buf)));
	EXPECT_STREQ("pending\n", buf);
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, &id, 8));
	EXPECT_EQ(ENODATA, errno);
	errno = 0;
	EXPECT_EQ(-1, batch(self->fd, &id, 1));
	EXPECT_EQ(ENODATA, errno);

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)floor);
	ASSERT_EQ(0, write_file(UIDGEN_PARAM "floor_ms", buf));
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_EQ(UIDGEN_NODE_STATE_ACTIVE, in.node_state);
	EXPECT_EQ(floor, in.floor_ms);
	ASSERT_EQ(8, read(self->fd, &id, 8));
	EXPECT_EQ(4U, split(&in, id).node);
	EXPECT_LT(floor, id_ms(&in, id));
	/* A revoke clears it; a pending one too. */
	ASSERT_EQ(0, write_file(UIDGEN_PARAM "node_id", "-1"));
	ASSERT_EQ(0, write_file(UIDGEN_PARAM "node_id", "6"));
	EXPECT_EQ(UIDGEN_NODE_STATE_PENDING, node_state(self->fd));
	EXPECT_EQ(0, revoke_node(self->fd));
	EXPECT_EQ(UIDGEN_NODE_STATE_NONE, node_state(self->fd));
	/* node_new completes only a pending node ID. */
	EXPECT_EQ(-ENOENT, write_file(UIDGEN_PARAM "node_new", "1"));
	ASSERT_EQ(0, write_file(UIDGEN_PARAM "node_id", "010"));
	EXPECT_EQ(0, write_file(UIDGEN_PARAM "node_new", "1"));
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_EQ(10U, in.node_id);
	EXPECT_EQ(UIDGEN_NODE_STATE_ACTIVE, in.node_state);
	EXPECT_EQ(-EINVAL, write_file(UIDGEN_PARAM "node_id", "0x3"));
}

/* One call: node ID and floor, applied before the first ID. */
TEST_F(life, floor_in_the_same_step)
{
	uint64_t floor = now_ms() + 5000, ids[64];
	struct uidgen_info in;
	int i;

	ASSERT_EQ(0, setn(self->fd, UIDGEN_NODE_FLOOR, NODE, floor, 0, 0, 0));
	ASSERT_EQ(64, batch(self->fd, ids, 64));
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_EQ(floor, in.floor_ms);
	EXPECT_EQ(0, in.grant_ms);
	EXPECT_EQ(0, in.deadline_ns);
	for (i = 0; i < 64; i++)
		ASSERT_LT(floor, id_ms(&in, ids[i]));
	/* No tick is left above this floor. */
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_FLOOR, NODE, 99999999999999ULL,
			   0, 0, 0));
	EXPECT_EQ(EOVERFLOW, errno);
}

struct blocked_read {
	int fd;
	void *buf;	/* NULL: an ID of its own */
	ssize_t r;
	int err;
};

static void *read_one(void *arg)
{
	struct blocked_read *b = arg;
	uint64_t id;

	errno = 0;
	b->r = read(b->fd, b->buf ? b->buf : &id, 8);
	b->err = errno;
	return NULL;
}

/*
 * A grant caps the ticks issued: past it callers wait (EAGAIN with
 * O_NONBLOCK) until a renew raises it, and never get a tick beyond it.
 */
TEST_F(life, grant_caps_the_ticks)
{
	/* The generator's clock: an earlier test's floor may have moved it. */
	int64_t off = param_long("../../../class/uidgen/uid/now_ms") - (int64_t)now_ms();
	uint64_t t = now_ms() + off, grant = t + 300, id, last = 0;
	struct blocked_read b = { .r = -2 };
	struct uidgen_info in;
	pthread_t th;
	int nb, i;

	ASSERT_EQ(0, setn(self->fd, UIDGEN_NODE_FLOOR, NODE, t, grant, 0, 0));
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_EQ(grant + in.tick_us / 1000, in.grant_ms);
	nb = open(UIDGEN_DEV, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, nb);
	/*
	 * Mint until the grant stops us (for 5 s at most); every tick within
	 * it. A tick's end stops us too, briefly: go on past those.
	 */
	for (i = 0; now_ms() + off < t + 5000; i++) {
		if (read(nb, &id, 8) == 8) {
			last = id;
			ASSERT_GE(grant, id_ms(&in, id));
			continue;
		}
		ASSERT_EQ(EAGAIN, errno);
		if (now_ms() + off > grant + 2 * in.tick_us / 1000 + 20)
			break;
	}
	EXPECT_GT(t + 5000, now_ms() + off) TH_LOG("the grant never stopped the reader");
	EXPECT_NE(0, last);
	/* It stopped at the grant, not earlier. */
	EXPECT_LE(grant - 1000, id_ms(&in, last));
	EXPECT_LT(0, param_long("../../../class/uidgen/uid/grant_waits"));
	errno = 0;
	EXPECT_EQ(-1, read(nb, &id, 8));
	EXPECT_EQ(EAGAIN, errno);

	/* A blocking reader waits, and a renew lets it go. */
	b.fd = self->fd;
	ASSERT_EQ(0, pthread_create(&th, NULL, read_one, &b));
	usleep(300000);
	EXPECT_EQ(-2, b.r);
	EXPECT_EQ(0, setn(self->fd, UIDGEN_NODE_RENEW, NODE, 0,
			  now_ms() + off + 60000, 0, 0));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(8, b.r);
	ASSERT_EQ(8, read(nb, &id, 8));
	EXPECT_LT(grant, id_ms(&in, id));
	/* Grants only rise. */
	EXPECT_EQ(0, setn(self->fd, UIDGEN_NODE_RENEW, NODE, 0, grant, 0, 0));
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_LT(grant + 30000, in.grant_ms);
	/* A renew must name the node in force. */
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_RENEW, NODE + 1, 0, 0, 0, 0));
	EXPECT_EQ(ESTALE, errno);
	close(nb);
}

/* At the lease deadline the kernel revokes by itself. */
TEST_F(life, deadline_revokes)
{
	const struct uidgen_page *pg;
	uint32_t f0;
	uint64_t id;

	pg = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, pg);
	f0 = pg->fence;
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_NEW, NODE, 0, 0,
			   boottime_ns() - 1, 0));
	EXPECT_EQ(ETIME, errno);
	ASSERT_EQ(0, setn(self->fd, UIDGEN_NODE_NEW, NODE, 0, 0,
			  boottime_ns() + 300000000ULL, 0));
	ASSERT_EQ(8, read(self->fd, &id, 8));
	usleep(400000);
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, &id, 8));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	usleep(200000);
	EXPECT_EQ(UIDGEN_NODE_STATE_NONE, node_state(self->fd));
	EXPECT_EQ(f0 + 1, pg->fence);
	munmap((void *)pg, getpagesize());
}

/* Fencing tokens: an older claim is refused, a renew names its own. */
TEST_F(life, tokens_fence_stale_claims)
{
	struct uidgen_info in;

	ASSERT_EQ(0, setn(self->fd, UIDGEN_NODE_NEW, NODE, 0, 0, 0, 10));
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_EQ(10, in.token);
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_RENEW, NODE, 0, 0, 0, 9));
	EXPECT_EQ(ESTALE, errno);
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_REVOKE, UIDGEN_NODE_NONE, 0, 0, 0, 9));
	EXPECT_EQ(ESTALE, errno);
	EXPECT_EQ(UIDGEN_NODE_STATE_ACTIVE, node_state(self->fd));
	/* The request before the state: a past deadline is ETIME, whoever. */
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_RENEW, NODE + 1, 0, 0,
			   boottime_ns() - 1, 10));
	EXPECT_EQ(ETIME, errno);
	EXPECT_EQ(0, setn(self->fd, UIDGEN_NODE_RENEW, NODE, 0, 0, 0, 10));
	EXPECT_EQ(0, setn(self->fd, UIDGEN_NODE_REVOKE, UIDGEN_NODE_NONE, 0, 0, 0, 10));
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_NEW, NODE, 0, 0, 0, 5));
	EXPECT_EQ(ESTALE, errno);
	/* The token revoked is no new claim (a restored etcd reissues it). */
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_NEW, NODE, 0, 0, 0, 10));
	EXPECT_EQ(ESTALE, errno);
	errno = 0;
	EXPECT_EQ(-1, setn(self->fd, UIDGEN_NODE_RENEW, NODE, 0, 0, 0, 10));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	EXPECT_EQ(0, setn(self->fd, UIDGEN_NODE_NEW, NODE, 0, 0, 0, 11));
}

/* INFO says how much it filled, and writes no further. */
TEST_F(life, info_says_its_size)
{
	union {
		struct uidgen_info in;
		unsigned char raw[160];
	} u;

	memset(&u, 0, sizeof(u));
	memset(u.raw + UIDGEN_INFO_SIZE_VER0, 0xa5, 8);
	u.in.size = UIDGEN_INFO_SIZE_VER0;
	ASSERT_EQ(0, ioctl(self->fd, UIDGEN_IOC_INFO, &u));
	EXPECT_EQ(UIDGEN_INFO_SIZE_VER0, u.in.size);
	EXPECT_EQ(0xa5, u.raw[UIDGEN_INFO_SIZE_VER0]);
	EXPECT_EQ(0xa5, u.raw[UIDGEN_INFO_SIZE_VER0 + 7]);
	memset(&u, 0, sizeof(u));
	u.in.size = sizeof(u);
	ASSERT_EQ(0, ioctl(self->fd, UIDGEN_IOC_INFO, &u));
	EXPECT_EQ(UIDGEN_INFO_SIZE_VER1, u.in.size);
	EXPECT_EQ(sizeof(struct uidgen_info), u.in.size);
	errno = 0;
	u.in.size = UIDGEN_INFO_SIZE_VER0 - 1;
	EXPECT_EQ(-1, ioctl(self->fd, UIDGEN_IOC_INFO, &u));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * In a time namespace whose CLOCK_BOOTTIME is 1000 s ahead of the host's,
 * RESERVE's expiry and the lease deadline are in the caller's clock.
 */
#define NS_OFFSET_S	1000

static int in_time_ns(int fd)
{
	struct uidgen_info in;
	struct uidgen_reserve r;
	uint64_t now, deadline;
	char buf[32];
	long host;

	now = boottime_ns();
	if (reserve(fd, 1, &r) != 1)
		return 10;
	if (get_info(fd, &in))
		return 11;
	/* The run's tick ends within a tick of now, on this clock. */
	if (r.expires_ns <= now || r.expires_ns > now + 2ULL * in.tick_us * 1000 + 50000000)
		return 12;
	deadline = now + 30ULL * 1000000000;
	if (setn(fd, UIDGEN_NODE_RENEW, NODE, 0, 0, deadline, 0))
		return 13;
	if (get_info(fd, &in) || in.deadline_ns != deadline)
		return 14;
	if (read_file("/sys/class/uidgen/uid/deadline_ns", buf, sizeof(buf)))
		return 15;
	host = strtoll(buf, NULL, 10);
	if ((uint64_t)host + NS_OFFSET_S * 1000000000ULL != deadline)
		return 16;
	return 0;
}

TEST_F(life, time_namespace)
{
	int status, fd;
	pid_t pid;

	ASSERT_EQ(0, setn(self->fd, UIDGEN_NODE_NEW, NODE, 0, 0, 0, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char off[64];
		pid_t child;

		if (unshare(CLONE_NEWTIME))
			_exit(20);
		snprintf(off, sizeof(off), "boottime %d 0", NS_OFFSET_S);
		if (write_file("/proc/self/timens_offsets", off))
			_exit(21);
		child = fork();
		if (child < 0)
			_exit(22);
		if (!child) {
			fd = open(UIDGEN_DEV, O_RDONLY);
			_exit(fd < 0 ? 23 : in_time_ns(fd));
		}
		if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
			_exit(24);
		_exit(WEXITSTATUS(status));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A wall-clock step leaves the ID clock where it was: clock_offset_ms says
 * by how much, and the kernel says so in its log (within 10 s) once the
 * two are more than clock_step_ms apart.
 */
TEST_F(life, clock_step_is_visible)
{
	struct timespec ts;
	long before, after;
	char buf[1024];
	int kmsg, i, seen = 0;
	ssize_t r;

	before = param_long("../../../class/uidgen/uid/clock_offset_ms");
	ASSERT_EQ(0, write_file(UIDGEN_PARAM "clock_step_ms", "1000"));
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, kmsg);
	ASSERT_LE(0, lseek(kmsg, 0, SEEK_END));
	/* Step the wall clock 3 s back, as a bad NTP server would. */
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &ts));
	ts.tv_sec -= 3;
	ASSERT_EQ(0, clock_settime(CLOCK_REALTIME, &ts));
	after = param_long("../../../class/uidgen/uid/clock_offset_ms");
	for (i = 0; i < 130 && !seen; i++) {
		while ((r = read(kmsg, buf, sizeof(buf) - 1)) > 0) {
			buf[r] = 0;
			if (strstr(buf, "uidgen: the ID clock is") &&
			    strstr(buf, "ahead of the wall clock"))
				seen = 1;
		}
		if (!seen)
			usleep(100000);
	}
	/* Put the wall clock back before judging. */
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &ts));
	ts.tv_sec += 3;
	ASSERT_EQ(0, clock_settime(CLOCK_REALTIME, &ts));
	close(kmsg);
	EXPECT_LE(before + 2900, after);
	EXPECT_GE(before + 3200, after);
	EXPECT_TRUE(seen) TH_LOG("no log line within 13 s");
}

TEST_HARNESS_MAIN
