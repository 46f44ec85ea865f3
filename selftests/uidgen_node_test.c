// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests for node ID assignment. Run as root right after loading the
 * module without node_id. The tests run in order: the unassigned device
 * issues nothing, bad assignments are refused, then one assignment takes.
 */
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "util.h"

#define NODE	3

FIXTURE(node) {
	int fd;
	struct uidgen_info info;
};

FIXTURE_SETUP(node)
{
	self->fd = open(UIDGEN_DEV, O_RDONLY);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", UIDGEN_DEV, strerror(errno));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
}

FIXTURE_TEARDOWN(node)
{
	close(self->fd);
}

TEST_F(node, starts_unassigned)
{
	char buf[32];

	EXPECT_EQ(UIDGEN_NODE_NONE, self->info.node_id);
	ASSERT_EQ(0, read_file(UIDGEN_PARAM "node_id", buf, sizeof(buf)));
	EXPECT_STREQ("-1\n", buf);
}

TEST_F(node, unassigned_issues_nothing)
{
	struct uidgen_reserve r;
	uint64_t ids[8];

	errno = 0;
	EXPECT_EQ(-1, read(self->fd, ids, sizeof(ids)));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	errno = 0;
	EXPECT_EQ(-1, batch(self->fd, ids, 8));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	errno = 0;
	EXPECT_EQ(-1, reserve(self->fd, 8, &r));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	/* Arguments are still checked first. */
	errno = 0;
	EXPECT_EQ(-1, batch(self->fd, ids, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, read(self->fd, ids, 7));
	EXPECT_EQ(EINVAL, errno);
}

static int nobody_assigns(void *arg)
{
	int fd = open(UIDGEN_DEV, O_RDONLY);

	(void)arg;
	if (fd < 0)
		return 100;
	if (set_node(fd, NODE) != -1)
		return 101;
	if (errno != EPERM)
		return 102;
	if (write_file(UIDGEN_PARAM "node_id", "3") != -EACCES)
		return 103;
	return 0;
}

TEST_F(node, nonroot_cannot_assign)
{
	EXPECT_EQ(0, as_nobody(nobody_assigns, NULL));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	EXPECT_EQ(UIDGEN_NODE_NONE, self->info.node_id);
}

TEST_F(node, out_of_range_refused)
{
	char buf[32];

	errno = 0;
	EXPECT_EQ(-1, set_node(self->fd, 1U << self->info.node_bits));
	EXPECT_EQ(ERANGE, errno);
	errno = 0;
	EXPECT_EQ(-1, set_node(self->fd, UINT32_MAX));
	EXPECT_EQ(ERANGE, errno);
	snprintf(buf, sizeof(buf), "%u", 1U << self->info.node_bits);
	EXPECT_EQ(-ERANGE, write_file(UIDGEN_PARAM "node_id", buf));
	EXPECT_EQ(-EINVAL, write_file(UIDGEN_PARAM "node_id", "-2"));
	/* -1 revokes: with nothing assigned, that changes nothing. */
	EXPECT_EQ(0, write_file(UIDGEN_PARAM "node_id", "-1"));
	EXPECT_EQ(-EINVAL, write_file(UIDGEN_PARAM "node_id", "seven"));
	EXPECT_EQ(-ERANGE, write_file(UIDGEN_PARAM "node_id", "4294967295"));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	EXPECT_EQ(UIDGEN_NODE_NONE, self->info.node_id);
	EXPECT_EQ(-1, param_long("node_id"));
}

TEST_F(node, assign_once)
{
	uint64_t id;
	char buf[32];

	ASSERT_EQ(0, set_node(self->fd, NODE));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	EXPECT_EQ(NODE, self->info.node_id);
	ASSERT_EQ(0, read_file(UIDGEN_PARAM "node_id", buf, sizeof(buf)));
	EXPECT_STREQ("3\n", buf);

	/* The fd opened before the assignment now issues under it. */
	ASSERT_EQ(8, read(self->fd, &id, 8));
	EXPECT_EQ(NODE, split(&self->info, id).node);

	/* Again with the same ID is fine; another ID is not. */
	EXPECT_EQ(0, set_node(self->fd, NODE));
	errno = 0;
	EXPECT_EQ(-1, set_node(self->fd, NODE + 1));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-EBUSY, write_file(UIDGEN_PARAM "node_id", "4"));
	EXPECT_EQ(0, write_file(UIDGEN_PARAM "node_id", "3"));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	EXPECT_EQ(NODE, self->info.node_id);
}

/*
 * A revoke moves the fence on the shared page before it returns, so that
 * runs cached in userspace stop too; reserving then fails until a node ID
 * is assigned again, and runs carry the new fence.
 */
TEST_F(node, revoke_moves_the_fence)
{
	const struct uidgen_page *pg;
	struct uidgen_reserve r;
	uint32_t f0;

	pg = mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, pg) TH_LOG("%s", strerror(errno));
	f0 = pg->fence;
	ASSERT_EQ(1, reserve(self->fd, 1, &r));
	EXPECT_EQ(f0, r.fence);
	EXPECT_EQ(NODE, split(&self->info, r.first).node);

	ASSERT_EQ(0, node_revoke(self->fd, UIDGEN_NODE_NONE, 0));
	EXPECT_EQ(f0 + 1, pg->fence);
	errno = 0;
	EXPECT_EQ(-1, reserve(self->fd, 1, &r));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	/* Revoking again still moves it: each revoke is a fence. */
	ASSERT_EQ(0, write_file(UIDGEN_PARAM "node_id", "-1"));
	EXPECT_EQ(f0 + 2, pg->fence);

	ASSERT_EQ(0, set_node(self->fd, NODE));
	ASSERT_EQ(1, reserve(self->fd, 1, &r));
	EXPECT_EQ(f0 + 2, r.fence);
	EXPECT_EQ(f0 + 2, pg->fence);
	munmap((void *)pg, getpagesize());
}

TEST_HARNESS_MAIN
