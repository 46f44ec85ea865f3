// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests for a node ID's life: assignment only with a floor (or the
 * word that it is new), grants, lease deadlines, fencing tokens, INFO's
 * size and time namespaces (a revoke no stalled reader can hold up is in
 * uidgen_fault_test.c). Run as root with no node ID in force (as after
 * boot; otherwise each test skips); each test leaves no node ID behind.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "util.h"

#define NODE	5
#define MS	1000000ULL	/* ns */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* Unix ns at which the tick an ID was minted in starts. */
static uint64_t id_ns(const struct uidgen_info *in, uint64_t id)
{
	return in->epoch_unix_ns + split(in, id).tick * in->tick_ns;
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
	const char *why;
	char buf[96];

	self->fd = open(UIDGEN_DEV, O_RDONLY);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", UIDGEN_DEV, strerror(errno));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	why = unassigned_skip(&self->info, NODE + 1, buf, sizeof(buf));
	if (why) {
		close(self->fd);
		SKIP(return, "%s", why);
	}
}

FIXTURE_TEARDOWN(life)
{
	node_revoke_force(self->fd);
	close(self->fd);
}

/* The kernel never guesses a floor, and takes no floor for a new one. */
TEST_F(life, assign_needs_a_floor)
{
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, 0, NODE, 0, 0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, now_ms() * MS,
			     0, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, 0x2, NODE, now_ms() * MS, 0, 0, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, UIDGEN_ASSIGN_NEW | 0x80000000U, NODE,
			     0, 0, 0, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(UIDGEN_NODE_STATE_NONE, node_state(self->fd));

	EXPECT_EQ(0, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, 0, 0));
	EXPECT_EQ(UIDGEN_NODE_STATE_ACTIVE, node_state(self->fd));
	/* ...and assigning the node ID in force again changes nothing. */
	EXPECT_EQ(0, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, 0, 0));
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE + 1, 0, 0, 0, 0));
	EXPECT_EQ(EBUSY, errno);
}

static int nobody_changes_the_node(void *arg)
{
	int fd = open(UIDGEN_DEV, O_RDONLY);

	(void)arg;
	if (fd < 0)
		return 100;
	if (assign(fd, UIDGEN_ASSIGN_NEW, NODE + 1, 0, 0, 0, 0) != -1 ||
	    errno != EPERM)
		return 101;
	if (renew(fd, NODE, 0, 0, 0) != -1 || errno != EPERM)
		return 102;
	if (node_revoke(fd, UIDGEN_NODE_NONE, 0) != -1 || errno != EPERM)
		return 103;
	/* The privilege first: nothing about the arguments is said to it. */
	if (assign(fd, 0x80, NODE, 0, 0, 0, 0) != -1 || errno != EPERM)
		return 104;
	if (renew(fd, NODE, 0, 1, 0) != -1 || errno != EPERM)
		return 105;
	return 0;
}

/*
 * Each errno of ASSIGN, RENEW and REVOKE that is not about the size (see
 * uidgen_test's cmd_length), from the one node ID in force, token 10.
 */
TEST_F(life, each_errno)
{
	uint64_t past = boottime_ns() - 1, later = boottime_ns() + 60ULL * 1000000000;
	struct uidgen_assign a = { .size = sizeof(a), .node_id = NODE };
	struct uidgen_renew r = { .size = sizeof(r), .node_id = NODE };
	struct uidgen_revoke v = { .size = sizeof(v), .node_id = NODE };
	uint64_t t = boottime_ns();	/* above every token this load saw */

#define LIFE_EXPECT(call, err) do {				\
		errno = 0;					\
		EXPECT_EQ(-1, call);				\
		EXPECT_EQ(err, errno) TH_LOG("%s", #call);	\
	} while (0)

	ASSERT_EQ(0, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, later, t));
	/* ASSIGN */
	a.flags = 0x4;
	LIFE_EXPECT(ioctl(self->fd, UIDGEN_IOC_ASSIGN, &a), EOPNOTSUPP);
	a.flags = UIDGEN_ASSIGN_NEW;
	a.__reserved = 7;
	LIFE_EXPECT(ioctl(self->fd, UIDGEN_IOC_ASSIGN, &a), EINVAL);
	a.__reserved = 0;
	LIFE_EXPECT(assign(self->fd, 0, NODE, 0, 0, 0, t + 1), EINVAL);
	LIFE_EXPECT(assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 1, 0, 0, t + 1), EINVAL);
	LIFE_EXPECT(assign(self->fd, UIDGEN_ASSIGN_NEW, 1U << self->info.node_bits,
			   0, 0, 0, t + 1), ERANGE);
	LIFE_EXPECT(assign(self->fd, UIDGEN_ASSIGN_NEW, UINT32_MAX, 0, 0, 0, t + 1),
		    ERANGE);
	LIFE_EXPECT(assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, past, t + 1), ETIME);
	/* A deadline no clock reaches is no deadline: EINVAL, not ETIME. */
	LIFE_EXPECT(assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, UINT64_MAX, t + 1),
		    EINVAL);
	LIFE_EXPECT(renew(self->fd, NODE, 0, (uint64_t)INT64_MAX + 1, t), EINVAL);
	LIFE_EXPECT(assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, 0, t - 1), ESTALE);
	LIFE_EXPECT(assign(self->fd, UIDGEN_ASSIGN_NEW, NODE + 1, 0, 0, 0, t), ESTALE);
	LIFE_EXPECT(assign(self->fd, UIDGEN_ASSIGN_NEW, NODE + 1, 0, 0, 0, t + 1), EBUSY);
	LIFE_EXPECT(assign(self->fd, 0, NODE, UINT64_MAX - 1, 0, 0, t), EOVERFLOW);
	LIFE_EXPECT(ioctl(self->fd, UIDGEN_IOC_ASSIGN, NULL), EFAULT);
	/* RENEW */
	r.flags = 1;
	LIFE_EXPECT(ioctl(self->fd, UIDGEN_IOC_RENEW, &r), EOPNOTSUPP);
	r.flags = 0;
	r.__reserved = 1;
	LIFE_EXPECT(ioctl(self->fd, UIDGEN_IOC_RENEW, &r), EINVAL);
	LIFE_EXPECT(renew(self->fd, NODE, 0, past, t), ETIME);
	LIFE_EXPECT(renew(self->fd, NODE + 1, 0, 0, t), ESTALE);
	LIFE_EXPECT(renew(self->fd, NODE, 0, 0, t + 1), ESTALE);
	LIFE_EXPECT(ioctl(self->fd, UIDGEN_IOC_RENEW, NULL), EFAULT);
	/* REVOKE */
	v.flags = 0x2;
	LIFE_EXPECT(ioctl(self->fd, UIDGEN_IOC_REVOKE, &v), EOPNOTSUPP);
	v.flags = 0;
	v.__reserved = 1;
	LIFE_EXPECT(ioctl(self->fd, UIDGEN_IOC_REVOKE, &v), EINVAL);
	LIFE_EXPECT(node_revoke(self->fd, NODE + 1, 0), ESTALE);
	LIFE_EXPECT(node_revoke(self->fd, NODE, t + 1), ESTALE);
	LIFE_EXPECT(ioctl(self->fd, UIDGEN_IOC_REVOKE, NULL), EFAULT);
	/* None of it changed anything; nor may anyone without CAP_SYS_ADMIN. */
	EXPECT_EQ(0, as_nobody(nobody_changes_the_node, NULL));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	EXPECT_EQ(UIDGEN_NODE_STATE_ACTIVE, self->info.node_state);
	EXPECT_EQ(NODE, self->info.node_id);
	EXPECT_EQ(t, self->info.token);
	EXPECT_EQ(0, renew(self->fd, NODE, 0, 0, t));
	EXPECT_EQ(0, node_revoke(self->fd, NODE, t));
	/* With nothing in force: RENEW is EADDRNOTAVAIL, REVOKE succeeds. */
	LIFE_EXPECT(renew(self->fd, NODE, 0, 0, 0), EADDRNOTAVAIL);
	EXPECT_EQ(0, node_revoke(self->fd, NODE, 0));
#undef LIFE_EXPECT
}

/*
 * A renew with a deadline already past is ETIME whatever is in force: the
 * node ID in force or another, the token in force or another, or none at
 * all (1.4 gave ESTALE or EADDRNOTAVAIL for some, depending on the node).
 */
TEST_F(life, renew_past_deadline_is_etime)
{
	uint64_t past = boottime_ns() - 1;
	uint64_t t = boottime_ns();	/* above every token this load saw */
	struct {
		uint32_t node;
		uint64_t token;
	} claims[] = {
		{ NODE, t }, { NODE, 0 }, { NODE, t + 1 }, { NODE + 1, t },
		{ NODE + 1, 0 }, { UIDGEN_NODE_NONE, t },
	};
	unsigned int i, k;

	for (k = 0; k < 2; k++) {
		/* Once with node ID NODE in force (token 10), once with none. */
		if (!k)
			ASSERT_EQ(0, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0,
					    0, 0, t));
		for (i = 0; i < ARRAY_SIZE(claims); i++) {
			errno = 0;
			EXPECT_EQ(-1, renew(self->fd, claims[i].node, 0, past,
					    claims[i].token));
			EXPECT_EQ(ETIME, errno)
				TH_LOG("node %u token %llu, %s", claims[i].node,
				       (unsigned long long)claims[i].token,
				       k ? "none in force" : "node 5 in force");
		}
		EXPECT_EQ(k ? UIDGEN_NODE_STATE_NONE : UIDGEN_NODE_STATE_ACTIVE,
			  node_state(self->fd));
		ASSERT_EQ(0, node_revoke_force(self->fd));
	}
}

/* One call: node ID and floor, applied before the first ID. */
TEST_F(life, floor_in_the_same_step)
{
	uint64_t floor = (now_ms() + 5000) * MS + 123456, ids[64];
	struct uidgen_info in;
	int i;

	ASSERT_EQ(0, assign(self->fd, 0, NODE, floor, 0, 0, 0));
	ASSERT_EQ(64, batch(self->fd, ids, 64));
	ASSERT_EQ(0, get_info(self->fd, &in));
	/* In ns, as given: no rounding to ms on the way. */
	EXPECT_EQ(floor, in.floor_unix_ns);
	EXPECT_EQ(0, in.grant_unix_ns);
	EXPECT_EQ(0, in.deadline_boot_ns);
	for (i = 0; i < 64; i++)
		ASSERT_LT(floor, id_ns(&in, ids[i]));
	/* No tick is left above this floor. */
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, 0, NODE, UINT64_MAX - 1, 0, 0, 0));
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
	int64_t off = sysfs_long("now_ms") - (int64_t)now_ms();
	uint64_t t = now_ms() + off, grant = t + 300, id, last = 0;
	uint64_t tick_ms = self->info.tick_ns / MS;
	struct blocked_read b = { .r = -2 };
	struct uidgen_info in;
	pthread_t th;
	int nb, i;

	ASSERT_EQ(0, assign(self->fd, 0, NODE, t * MS, grant * MS, 0, 0));
	ASSERT_EQ(0, get_info(self->fd, &in));
	/* The end of the tick the grant is in. */
	EXPECT_EQ(grant * MS + in.tick_ns, in.grant_unix_ns);
	nb = open(UIDGEN_DEV, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, nb);
	/*
	 * Mint until the grant stops us (for 5 s at most); every tick within
	 * it. A tick's end stops us too, briefly: go on past those.
	 */
	for (i = 0; now_ms() + off < t + 5000; i++) {
		if (read(nb, &id, 8) == 8) {
			last = id;
			ASSERT_GE(grant * MS, id_ns(&in, id));
			continue;
		}
		ASSERT_EQ(EAGAIN, errno);
		if (now_ms() + off > grant + 2 * tick_ms + 20)
			break;
	}
	EXPECT_GT(t + 5000, now_ms() + off) TH_LOG("the grant never stopped the reader");
	EXPECT_NE(0, last);
	/* It stopped at the grant, not earlier. */
	EXPECT_LE((grant - 1000) * MS, id_ns(&in, last));
	EXPECT_LT(0, sysfs_long("grant_waits"));
	errno = 0;
	EXPECT_EQ(-1, read(nb, &id, 8));
	EXPECT_EQ(EAGAIN, errno);

	/* A blocking reader waits, and a renew lets it go. */
	b.fd = self->fd;
	ASSERT_EQ(0, pthread_create(&th, NULL, read_one, &b));
	usleep(300000);
	EXPECT_EQ(-2, b.r);
	EXPECT_EQ(0, renew(self->fd, NODE, (now_ms() + off + 60000) * MS, 0, 0));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(8, b.r);
	ASSERT_EQ(8, read(nb, &id, 8));
	EXPECT_LT(grant * MS, id_ns(&in, id));
	/* Grants only rise. */
	EXPECT_EQ(0, renew(self->fd, NODE, grant * MS, 0, 0));
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_LT((grant + 30000) * MS, in.grant_unix_ns);
	/* A renew must name the node in force. */
	errno = 0;
	EXPECT_EQ(-1, renew(self->fd, NODE + 1, 0, 0, 0));
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
	EXPECT_EQ(-1, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0,
			     boottime_ns() - 1, 0));
	EXPECT_EQ(ETIME, errno);
	ASSERT_EQ(0, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0,
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
	uint64_t t = boottime_ns();	/* above every token this load saw */

	ASSERT_EQ(0, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, 0, t));
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_EQ(t, in.token);
	errno = 0;
	EXPECT_EQ(-1, renew(self->fd, NODE, 0, 0, t - 1));
	EXPECT_EQ(ESTALE, errno);
	errno = 0;
	EXPECT_EQ(-1, node_revoke(self->fd, UIDGEN_NODE_NONE, t - 1));
	EXPECT_EQ(ESTALE, errno);
	EXPECT_EQ(UIDGEN_NODE_STATE_ACTIVE, node_state(self->fd));
	EXPECT_EQ(0, renew(self->fd, NODE, 0, 0, t));
	EXPECT_EQ(0, node_revoke(self->fd, UIDGEN_NODE_NONE, t));
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, 0, t - 5));
	EXPECT_EQ(ESTALE, errno);
	/* The token revoked is no new claim (a restored etcd reissues it). */
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, 0, t));
	EXPECT_EQ(ESTALE, errno);
	errno = 0;
	EXPECT_EQ(-1, renew(self->fd, NODE, 0, 0, t));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	EXPECT_EQ(0, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, 0, t + 1));
}

/*
 * A claim held under a token is the token's alone: with token 0 no caller
 * (a second tool, an old agent, the persister) extends its lease, raises
 * its grant, assigns it again or revokes it, and it ends at its deadline.
 */
TEST_F(life, untokened_cannot_touch_a_tokened_claim)
{
	uint64_t t = boottime_ns(), id;	/* above every token this load saw */
	uint64_t grant = (now_ms() + 3600 * 1000) * MS;
	uint64_t deadline = boottime_ns() + 3000 * MS;
	struct uidgen_info in;

	ASSERT_EQ(0, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, grant,
			    deadline, t));
	errno = 0;
	EXPECT_EQ(-1, renew(self->fd, NODE, grant + 1000 * MS,
			    boottime_ns() + 60000 * MS, 0));
	EXPECT_EQ(ESTALE, errno);
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0,
			     boottime_ns() + 60000 * MS, 0));
	EXPECT_EQ(ESTALE, errno);
	errno = 0;
	EXPECT_EQ(-1, node_revoke(self->fd, UIDGEN_NODE_NONE, 0));
	EXPECT_EQ(ESTALE, errno);
	errno = 0;
	EXPECT_EQ(-1, node_revoke(self->fd, NODE, 0));
	EXPECT_EQ(ESTALE, errno);
	ASSERT_EQ(0, get_info(self->fd, &in));
	/* A guest stalled past the deadline proves nothing either way. */
	if (boottime_ns() >= deadline)
		SKIP(return, "the lease ended before the checks were done (a stalled guest)");
	EXPECT_EQ(UIDGEN_NODE_STATE_ACTIVE, in.node_state);
	EXPECT_EQ(t, in.token);
	EXPECT_EQ(deadline, in.deadline_boot_ns);
	ASSERT_EQ(8, read(self->fd, &id, 8));
	/* The deadline its holder set still ends it. */
	while (boottime_ns() < deadline + 200 * MS)
		usleep(50000);
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, &id, 8));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
}

/*
 * One bogus token far above the rest refuses every later claim (ESTALE);
 * a forced revoke ends it and forgets it, as a reload would.
 */
TEST_F(life, forced_revoke_forgets_a_bogus_token)
{
	uint64_t t = boottime_ns(), bogus = 1ULL << 62;
	struct uidgen_revoke v = {
		.size = sizeof(v), .flags = UIDGEN_REVOKE_FORCE,
		.node_id = NODE + 1, .token = 3,
	};
	struct uidgen_info in;

	ASSERT_EQ(0, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, 0, bogus));
	ASSERT_EQ(0, node_revoke(self->fd, NODE, bogus));
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, 0, t));
	EXPECT_EQ(ESTALE, errno);
	/* Forced: whatever node ID and token it names, nothing in force. */
	EXPECT_EQ(0, ioctl(self->fd, UIDGEN_IOC_REVOKE, &v));
	EXPECT_EQ(0, assign(self->fd, UIDGEN_ASSIGN_NEW, NODE, 0, 0, 0, t));
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_EQ(t, in.token);
	/* And with a claim in force, under a token it does not name. */
	EXPECT_EQ(0, ioctl(self->fd, UIDGEN_IOC_REVOKE, &v));
	EXPECT_EQ(UIDGEN_NODE_STATE_NONE, node_state(self->fd));
	EXPECT_EQ(0, as_nobody(nobody_changes_the_node, NULL));
}

/*
 * A floor more than UIDGEN_FLOOR_AHEAD_MAX_NS ahead of the clock (a typo,
 * a state file from a clock a year ahead) is refused with EDOM and changes
 * nothing: not the floor, not the time of the IDs issued next. (One just
 * inside the bound is KUnit's to show: taken here, it would hold this
 * boot's clock a day ahead.)
 */
TEST_F(life, floor_far_ahead_is_refused)
{
	/* The ID clock: the bound's anchor is at or below it, however set. */
	uint64_t now = sysfs_long("now_ms") * MS, id;
	uint64_t year = 365ULL * 24 * 3600 * 1000 * MS;
	struct uidgen_info in, was;

	ASSERT_EQ(0, get_info(self->fd, &was));
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, 0, NODE, now + year, 0, 0, 0));
	EXPECT_EQ(EDOM, errno);
	errno = 0;
	EXPECT_EQ(-1, assign(self->fd, 0, NODE,
			     now + UIDGEN_FLOOR_AHEAD_MAX_NS + 2000 * MS, 0, 0, 0));
	EXPECT_EQ(EDOM, errno);
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_EQ(UIDGEN_NODE_STATE_NONE, in.node_state);
	EXPECT_EQ(was.floor_unix_ns, in.floor_unix_ns);
	/* Nothing it issues afterwards carries the refused time. */
	ASSERT_EQ(0, set_node(self->fd, NODE));
	ASSERT_EQ(8, read(self->fd, &id, 8));
	EXPECT_GT(now + 60000 * MS, id_ns(&in, id));
}

/* INFO says how much it filled, and writes no further than the size. */
TEST_F(life, info_says_its_size)
{
	union {
		struct uidgen_info in;
		unsigned char raw[160];
	} u;

	memset(&u, 0, sizeof(u));
	memset(u.raw + sizeof(u.in), 0xa5, sizeof(u) - sizeof(u.in));
	u.in.size = sizeof(u.in);
	ASSERT_EQ(0, ioctl(self->fd, UIDGEN_IOC_INFO, &u));
	EXPECT_EQ(sizeof(u.in), u.in.size);
	EXPECT_EQ(0xa5, u.raw[sizeof(u.in)]);
	EXPECT_EQ(0xa5, u.raw[sizeof(u) - 1]);
	memset(&u, 0, sizeof(u));
	u.in.size = sizeof(u);
	ASSERT_EQ(0, ioctl(self->fd, UIDGEN_IOC_INFO, &u));
	EXPECT_EQ(sizeof(struct uidgen_info), u.in.size);
	EXPECT_EQ(0, u.raw[sizeof(u.in)]);
	errno = 0;
	u.in.size = sizeof(u.in) - 1;
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

	now = boottime_ns();
	if (reserve(fd, 1, &r) != 1)
		return 10;
	if (get_info(fd, &in))
		return 11;
	/* The run's tick ends within a tick of now, on this clock. */
	if (r.expires_boot_ns <= now ||
	    r.expires_boot_ns > now + 2ULL * in.tick_ns + 50000000)
		return 12;
	deadline = now + 30ULL * 1000000000;
	if (renew(fd, NODE, 0, deadline, 0))
		return 13;
	if (get_info(fd, &in) || in.deadline_boot_ns != deadline)
		return 14;
	return 0;
}

TEST_F(life, time_namespace)
{
	struct uidgen_info in;
	uint64_t before, after;
	int status, fd;
	pid_t pid;

	ASSERT_EQ(0, set_node(self->fd, NODE));
	before = boottime_ns();
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
	after = boottime_ns();
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/*
	 * Out here, the child's deadline (its now + 30 s) reads in this
	 * clock: 1000 s earlier than the child set it.
	 */
	ASSERT_EQ(0, get_info(self->fd, &in));
	EXPECT_LE(before + 30ULL * 1000000000, in.deadline_boot_ns);
	EXPECT_GE(after + 30ULL * 1000000000, in.deadline_boot_ns);
}

/*
 * A wall-clock step leaves the ID clock where it was, and clock_offset_ms
 * says by how much (the module logs nothing: uidgen stats warns). Steps
 * CLOCK_REALTIME 3 s back and puts it back.
 */
TEST_F(life, clock_step_moves_the_offset)
{
	struct timespec ts;
	long long before, after;

	before = sysfs_long("clock_offset_ms");
	/* Step the wall clock 3 s back, as a bad NTP server would. */
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &ts));
	ts.tv_sec -= 3;
	ASSERT_EQ(0, clock_settime(CLOCK_REALTIME, &ts));
	after = sysfs_long("clock_offset_ms");
	/* Put the wall clock back before judging. */
	ASSERT_EQ(0, clock_gettime(CLOCK_REALTIME, &ts));
	ts.tv_sec += 3;
	ASSERT_EQ(0, clock_settime(CLOCK_REALTIME, &ts));
	EXPECT_LE(before + 2900, after);
	EXPECT_GE(before + 3200, after);
}

TEST_HARNESS_MAIN
