// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests for waiting on the next tick. Run as root with the module
 * loaded with a tiny, slow layout (one slot, four IDs per 2-second tick),
 * which INFO reports; with any other layout each test skips:
 *
 *   modprobe uidgen slot_bits=0 seq_bits=2 ts_bits=56 tick_us=2000000
 *
 * so that running out of sequence numbers, and the wait it causes, happen
 * on cue. With no node ID in force each test assigns one and revokes it
 * when done. The tests run in order and each leaves the slot in a known
 * state. All but "borrow" need max_borrow_ticks=0 (the default); "borrow"
 * runs on its own, loaded so with max_borrow_ticks=2 added (-t borrow),
 * and skips when the slot does not lend ahead.
 */
#include <signal.h>
#include <sys/time.h>

#include "kselftest_harness.h"
#include "util.h"

FIXTURE(wait) {
	int fd;
	struct uidgen_info info;
	int assigned;		/* the setup assigned the node ID */
};

FIXTURE_SETUP(wait)
{
	int err;

	self->fd = open(UIDGEN_DEV, O_RDONLY);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	if (self->info.slot_bits != 0 || self->info.seq_bits != 2 ||
	    self->info.tick_ns != 2000000000ULL) {
		close(self->fd);
		SKIP(return, "layout %u/%u/%llu ns: load with %s",
		     self->info.slot_bits, self->info.seq_bits,
		     (unsigned long long)self->info.tick_ns,
		     "slot_bits=0 seq_bits=2 ts_bits=56 tick_us=2000000");
	}
	err = node_claim(self->fd, &self->info, &self->assigned);
	if (err == EPERM) {
		close(self->fd);
		SKIP(return, "no node ID in force, and assigning one needs root");
	}
	ASSERT_EQ(0, err) TH_LOG("assigning node ID %u: %s",
				 test_node(&self->info), strerror(err));
}

FIXTURE_TEARDOWN(wait)
{
	node_release(self->fd, self->assigned);
	close(self->fd);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* Deliver SIGALRM in 100 ms, to a handler with or without SA_RESTART. */
static int alarm_in_100ms(int restart)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { .tv_usec = 100000 } };

	sa.sa_flags = restart ? SA_RESTART : 0;
	if (sigaction(SIGALRM, &sa, NULL))
		return -1;
	return setitimer(ITIMER_REAL, &it, NULL);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Eight IDs need two ticks: the batch waits for the second one. It ends
 * with the tick's last sequence number taken, just after a tick began.
 */
TEST_F(wait, batch_spans_ticks)
{
	uint64_t ids[8];
	struct parts first, p;
	int i;

	ASSERT_EQ(8, batch(self->fd, ids, 8));
	first = split(&self->info, ids[0]);
	for (i = 1; i < 8; i++)
		ASSERT_LT(ids[i - 1], ids[i]);
	p = split(&self->info, ids[7]);
	EXPECT_EQ(3, p.seq);
	/* A fresh module: the first ID of the first tick is sequence 0. */
	EXPECT_EQ(0, first.seq);
	EXPECT_EQ(first.tick + 1, p.tick);
	EXPECT_EQ(2, p.node);
}

/* The tick is spent: a signal during the wait, nothing stored, EINTR. */
TEST_F(wait, signal_before_any_id_is_eintr)
{
	uint64_t id;

	ASSERT_EQ(0, alarm_in_100ms(0));
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, &id, 8));
	EXPECT_EQ(EINTR, errno);
	ASSERT_EQ(0, alarm_in_100ms(0));
	errno = 0;
	EXPECT_EQ(-1, batch(self->fd, &id, 1));
	EXPECT_EQ(EINTR, errno);
}

/*
 * With SA_RESTART the read restarts and completes in the next tick: the
 * wait is at most one tick. It takes sequence numbers 0 and 1 of it.
 */
TEST_F(wait, restarted_read_waits_at_most_a_tick)
{
	uint64_t ids[2];
	double t0 = now_s(), waited;

	ASSERT_EQ(0, alarm_in_100ms(1));
	ASSERT_EQ(16, read(self->fd, ids, 16));
	waited = now_s() - t0;
	EXPECT_EQ(0, split(&self->info, ids[0]).seq);
	EXPECT_EQ(1, split(&self->info, ids[1]).seq);
	EXPECT_GT(2.0 + 0.5, waited) TH_LOG("waited %.3f s", waited);
	EXPECT_LT(0.1, waited) TH_LOG("waited %.3f s", waited);
}

/* Two IDs are left in this tick; asking for three stores those two. */
TEST_F(wait, signal_mid_read_returns_what_was_done)
{
	uint64_t ids[3] = { 0, 0, 0 };

	ASSERT_EQ(0, alarm_in_100ms(0));
	EXPECT_EQ(16, read(self->fd, ids, 24));
	EXPECT_EQ(2, split(&self->info, ids[0]).seq);
	EXPECT_EQ(3, split(&self->info, ids[1]).seq);
	EXPECT_EQ(0, ids[2]);
	ASSERT_EQ(0, alarm_in_100ms(0));
	EXPECT_EQ(-1, batch(self->fd, ids, 3));
	EXPECT_EQ(EINTR, errno);
}

/* O_NONBLOCK: EAGAIN instead of a wait; the IDs there are, if any. */
TEST_F(wait, nonblock)
{
	int nb = open(UIDGEN_DEV, O_RDONLY | O_NONBLOCK);
	uint64_t ids[5];

	ASSERT_LE(0, nb);
	errno = 0;
	EXPECT_EQ(-1, read(nb, ids, 8));
	EXPECT_EQ(EAGAIN, errno);
	errno = 0;
	EXPECT_EQ(-1, batch(nb, ids, 1));
	EXPECT_EQ(EAGAIN, errno);
	/* The blocking fd waits for the next tick and takes sequence 0. */
	ASSERT_EQ(8, read(self->fd, ids, 8));
	EXPECT_EQ(0, split(&self->info, ids[0]).seq);
	/* Three are left in this tick. */
	EXPECT_EQ(24, read(nb, ids, 40));
	EXPECT_EQ(3, split(&self->info, ids[2]).seq);
	errno = 0;
	EXPECT_EQ(-1, batch(nb, ids, 1));
	EXPECT_EQ(EAGAIN, errno);
	close(nb);
}

/*
 * RESERVE waits like BATCH, never crosses a tick, and reports when its
 * tick ends. This tick is spent (see nonblock).
 */
TEST_F(wait, reserve)
{
	int nb = open(UIDGEN_DEV, O_RDONLY | O_NONBLOCK);
	const uint64_t tick_ns = 2000000000ULL;
	struct uidgen_reserve r, r2;
	uint64_t b1;

	ASSERT_LE(0, nb);
	errno = 0;
	EXPECT_EQ(-1, reserve(self->fd, 5, &r));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, reserve(nb, 1, &r));
	EXPECT_EQ(EAGAIN, errno);

	/* Blocking: the next tick, all four of it, just begun. */
	ASSERT_EQ(4, reserve(self->fd, 4, &r));
	b1 = boottime_ns();
	EXPECT_EQ(0, split(&self->info, r.first).seq);
	EXPECT_GE(tick_ns, r.expires_boot_ns - b1);
	EXPECT_LT(tick_ns - 500000000ULL, r.expires_boot_ns - b1)
		TH_LOG("woke %.3f s into the tick",
		       (tick_ns - (r.expires_boot_ns - b1)) / 1e9);
	errno = 0;
	EXPECT_EQ(-1, reserve(nb, 4, &r2));
	EXPECT_EQ(EAGAIN, errno);

	/* Three of the next tick, then the one left: a short run. */
	ASSERT_EQ(3, reserve(self->fd, 3, &r));
	EXPECT_EQ(0, split(&self->info, r.first).seq);
	ASSERT_EQ(1, reserve(nb, 4, &r2));
	EXPECT_EQ(3, split(&self->info, r2.first).seq);
	EXPECT_EQ(split(&self->info, r.first).tick,
		  split(&self->info, r2.first).tick);
	EXPECT_EQ(r.first + 3, r2.first);
	EXPECT_EQ(r.expires_boot_ns, r2.expires_boot_ns);

	/* Spent again: a signal during the wait is EINTR. */
	ASSERT_EQ(0, alarm_in_100ms(0));
	errno = 0;
	EXPECT_EQ(-1, reserve(self->fd, 1, &r));
	EXPECT_EQ(EINTR, errno);
	close(nb);
}

static long slot0_borrowed(void)
{
	char buf[512], *line;
	unsigned long long v[6];

	if (read_file("/sys/kernel/debug/uidgen/slots", buf, sizeof(buf)))
		return -1;
	line = strchr(buf, '\n');
	if (!line || sscanf(line + 1, "%llu %llu %llu %llu %llu %llu", &v[0],
			    &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return -2;
	return v[5];
}

/*
 * max_borrow_ticks=2 (at load: it cannot change after): a spent tick no
 * longer means a wait; the slot runs up to two ticks ahead of the clock,
 * and then waits at most until the clock is within two ticks of it again.
 */
TEST_F(wait, borrow)
{
	int nb = open(UIDGEN_DEV, O_RDONLY | O_NONBLOCK);
	uint64_t ids[8], now_tick;
	double t0, waited;
	int i, n, r;

	ASSERT_LE(0, nb);

	/*
	 * Spend this tick and the two that can be borrowed, then wait for
	 * the next tick: just begun, it lends the one two ahead. At most
	 * the 4 of this tick without borrowing: a module loaded without
	 * max_borrow_ticks=2, which INFO does not say.
	 */
	for (i = 0, n = 0; i < 16 && (r = batch(nb, ids, 4)) > 0; i++)
		n += r;
	EXPECT_EQ(EAGAIN, errno);
	if (n <= 4) {
		close(nb);
		SKIP(return, "%d IDs before EAGAIN: no borrowing (load with max_borrow_ticks=2)",
		     n);
	}
	ASSERT_EQ(8, read(self->fd, ids, 8));
	now_tick = split(&self->info, ids[0]).tick - 2;
	EXPECT_EQ(0, split(&self->info, ids[0]).seq);
	/* The rest of that tick, two ahead; nothing further. */
	ASSERT_EQ(3, batch(nb, ids, 8));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(now_tick + 2, split(&self->info, ids[i]).tick);
		EXPECT_EQ((uint32_t)i + 1, split(&self->info, ids[i]).seq);
	}
	EXPECT_EQ(2, slot0_borrowed());
	errno = 0;
	EXPECT_EQ(-1, read(nb, ids, 8));
	EXPECT_EQ(EAGAIN, errno);

	/* Blocking: wait for the next tick, then borrow the one after. */
	t0 = now_s();
	ASSERT_EQ(8, read(self->fd, ids, 8));
	waited = now_s() - t0;
	EXPECT_EQ(now_tick + 3, split(&self->info, ids[0]).tick);
	EXPECT_GT(2.0 + 0.5, waited) TH_LOG("waited %.3f s", waited);
	EXPECT_LT(0.5, waited) TH_LOG("waited %.3f s", waited);
	EXPECT_LT(0, sysfs_long("waits"));
	close(nb);
}

TEST_HARNESS_MAIN
