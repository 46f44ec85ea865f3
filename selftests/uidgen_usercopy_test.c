// SPDX-License-Identifier: GPL-2.0
/*
 * Copies that fail, on a debug kernel (CONFIG_FAULT_INJECTION_USERCOPY):
 * writing N to /proc/thread-self/fail-nth makes the N-th user copy of the
 * next system call fail. Whatever the call returns, no ID is ever handed
 * out twice, and the slot's IDs keep rising across the gap. Run as root
 * with uidgen loaded (or built in); with no node ID in force each test
 * assigns one and revokes it when done.
 */
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "util.h"

FIXTURE(copy) {
	int fd;
	struct uidgen_info info;
	int assigned;		/* the setup assigned the node ID */
};

FIXTURE_SETUP(copy)
{
	int err;

	self->fd = -1;
	if (access("/proc/thread-self/fail-nth", W_OK))
		SKIP(return,
		     "no /proc/thread-self/fail-nth: needs CONFIG_FAULT_INJECTION_USERCOPY");
	self->fd = open(UIDGEN_DEV, O_RDONLY);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pin_cpu(0));
	err = node_claim(self->fd, &self->info, &self->assigned);
	if (err == EPERM) {
		close(self->fd);
		SKIP(return, "no node ID in force, and assigning one needs root");
	}
	ASSERT_EQ(0, err) TH_LOG("assigning node ID %u: %s",
				 test_node(&self->info), strerror(err));
}

FIXTURE_TEARDOWN(copy)
{
	node_release(self->fd, self->assigned);
	close(self->fd);
}

/*
 * Arm (n > 0) or disarm (n = 0) the N-th fault. The file stays open: every
 * user copy counts down, even opening a path, so a countdown the test call
 * did not use up would otherwise fire somewhere else. Disarming may itself
 * be where it fires (EFAULT); either way the countdown is then 0.
 */
static int fail_nth(int n)
{
	static int fd = -1;
	char buf[16];

	if (fd < 0)
		fd = open("/proc/thread-self/fail-nth", O_WRONLY);
	if (fd < 0)
		return -errno;
	snprintf(buf, sizeof(buf), "%d", n);
	if (write(fd, buf, strlen(buf)) < 0)
		return n ? -errno : 0;
	return 0;
}

#define PER_CALL	300
#define ROUNDS		12

/*
 * IDs are stored with unsafe_put_user(), which fail-nth does not reach (a
 * store cut short by a fault is tested with a PROT_NONE page in
 * uidgen_test.c); the structures are copied in with copy_from_user(),
 * which it does. RESERVE's run goes out inside the minting section with
 * page faults off (__copy_to_user_inatomic(), which it does not reach: a
 * copy that faults there is retried after a fault-in, its run a gap). So:
 * BATCH and RESERVE fail with EFAULT when their argument cannot be copied
 * in, and read() is not disturbed. Every ID that does come back is new and
 * above the last one.
 */
TEST_F(copy, fail_nth_read_batch_reserve)
{
	static uint64_t all[ROUNDS * 3 * (PER_CALL + 1)];
	int nth, op, injected[3] = { 0, 0, 0 };
	uint64_t buf[PER_CALL], prev = 0;
	struct uidgen_reserve run;
	size_t n = 0, i;

	for (nth = 1; nth <= ROUNDS; nth++) {
		for (op = 0; op < 3; op++) {
			ssize_t r;

			memset(buf, 0, sizeof(buf));
			ASSERT_EQ(0, fail_nth(nth));
			if (op == 0) {
				r = read(self->fd, buf, sizeof(buf));
				r = r < 0 ? r : r / 8;
			} else if (op == 1) {
				r = batch(self->fd, buf, PER_CALL);
			} else {
				r = reserve(self->fd, PER_CALL, &run);
				for (i = 0; r > 0 && i < (size_t)r; i++)
					buf[i] = run.first + i;
			}
			if (r < 0) {
				ASSERT_EQ(EFAULT, errno) TH_LOG("nth %d op %d", nth, op);
				injected[op]++;
				r = 0;
			}
			/* Whatever came back rises, and was never seen before. */
			for (i = 0; i < (size_t)r; i++) {
				ASSERT_LT(prev, buf[i]);
				prev = buf[i];
				all[n++] = buf[i];
			}
			/* A clean call after each faulted one. */
			ASSERT_EQ(0, fail_nth(0));
			ASSERT_EQ(8, read(self->fd, buf, 8));
			ASSERT_LT(prev, buf[0]);
			prev = buf[0];
			all[n++] = buf[0];
		}
	}
	qsort(all, n, 8, cmp_u64);
	for (i = 1; i < n; i++)
		ASSERT_NE(all[i - 1], all[i]);
	TH_LOG("%zu IDs; EFAULT from read %d, BATCH %d, RESERVE %d times", n,
	       injected[0], injected[1], injected[2]);
	/* The injection really happened, where copies are made. */
	EXPECT_EQ(0, injected[0]);
	EXPECT_LT(0, injected[1]);
	/* RESERVE's copy in can fail (1.3 also failed its copy out). */
	EXPECT_LE(1, injected[2]);
}

TEST_HARNESS_MAIN
