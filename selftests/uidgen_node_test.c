// SPDX-License-Identifier: GPL-2.0
/*
 * kselftests for node ID assignment: the module loads with no node ID and
 * no parameter can give it one, the unassigned device issues nothing, bad
 * assignments are refused, one assignment takes, a revoke moves the fence.
 * Run as root with no node ID in force (as after boot; otherwise each test
 * skips); a test that assigns one revokes it when done.
 */
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "util.h"

#define NODE	3

FIXTURE(node) {
	int fd;
	struct uidgen_info info;
};

FIXTURE_SETUP(node)
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

/* Back to no node ID, as the setup found it. */
FIXTURE_TEARDOWN(node)
{
	node_revoke_force(self->fd);
	close(self->fd);
}

TEST_F(node, starts_unassigned)
{
	EXPECT_EQ(UIDGEN_NODE_NONE, self->info.node_id);
	EXPECT_EQ(UIDGEN_NODE_STATE_NONE, self->info.node_state);
}

/* The node ID is the ioctls' alone: no parameter names or sets it. */
TEST_F(node, no_node_parameters)
{
	static const char *const gone[] = { "node_id", "floor_ms", "node_new" };
	char path[128], buf[32];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gone); i++) {
		snprintf(path, sizeof(path), UIDGEN_PARAM "%s", gone[i]);
		EXPECT_EQ(-ENOENT, write_file(path, "3")) TH_LOG("%s", gone[i]);
		EXPECT_EQ(-ENOENT, read_file(path, buf, sizeof(buf)));
	}
}

/* Every parameter is fixed at load: no write bit, and root cannot write. */
TEST_F(node, parameters_read_only)
{
	struct dirent *e;
	struct stat st;
	char path[320];
	int n = 0;
	DIR *d;

	d = opendir(UIDGEN_PARAM);
	ASSERT_NE(NULL, d) TH_LOG("%s: %s", UIDGEN_PARAM, strerror(errno));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), UIDGEN_PARAM "%s", e->d_name);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0444, st.st_mode & 07777) TH_LOG("%s", e->d_name);
		n++;
	}
	closedir(d);
	/* At least the layout's six. */
	EXPECT_LE(6, n);
	EXPECT_EQ(-EACCES, write_file(UIDGEN_PARAM "max_borrow_ticks", "5"));
	EXPECT_EQ(0, param_long("max_borrow_ticks"));
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
	errno = 0;
	EXPECT_EQ(-1, set_node(self->fd, 1U << self->info.node_bits));
	EXPECT_EQ(ERANGE, errno);
	errno = 0;
	EXPECT_EQ(-1, set_node(self->fd, UINT32_MAX));
	EXPECT_EQ(ERANGE, errno);
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	EXPECT_EQ(UIDGEN_NODE_NONE, self->info.node_id);
}

TEST_F(node, assign_once)
{
	uint64_t id;

	ASSERT_EQ(0, set_node(self->fd, NODE));
	ASSERT_EQ(0, get_info(self->fd, &self->info));
	EXPECT_EQ(NODE, self->info.node_id);
	EXPECT_EQ(UIDGEN_NODE_STATE_ACTIVE, self->info.node_state);

	/* The fd opened before the assignment now issues under it. */
	ASSERT_EQ(8, read(self->fd, &id, 8));
	EXPECT_EQ(NODE, split(&self->info, id).node);

	/* Again with the same ID is fine; another ID is not. */
	EXPECT_EQ(0, set_node(self->fd, NODE));
	errno = 0;
	EXPECT_EQ(-1, set_node(self->fd, NODE + 1));
	EXPECT_EQ(EBUSY, errno);
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

	ASSERT_EQ(0, set_node(self->fd, NODE));
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
	ASSERT_EQ(0, node_revoke(self->fd, UIDGEN_NODE_NONE, 0));
	EXPECT_EQ(f0 + 2, pg->fence);

	ASSERT_EQ(0, set_node(self->fd, NODE));
	ASSERT_EQ(1, reserve(self->fd, 1, &r));
	EXPECT_EQ(f0 + 2, r.fence);
	EXPECT_EQ(f0 + 2, pg->fence);
	munmap((void *)pg, getpagesize());
}

TEST_HARNESS_MAIN
