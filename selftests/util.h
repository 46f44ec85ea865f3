/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the uidgen selftests. Raw syscalls only: no libuidgen. */
#ifndef UIDGEN_SELFTEST_UTIL_H
#define UIDGEN_SELFTEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/uidgen.h>

#define UIDGEN_DEV	"/dev/uid"
#define UIDGEN_PARAM	"/sys/module/uidgen/parameters/"
#define UIDGEN_SYSFS	"/sys/class/misc/uid/"
#define NOBODY		65534

/*
 * No /dev/uid (uidgen neither loaded nor built in): nothing to test, said
 * the kselftest way, "1..0 # SKIP" and exit status 4, before any test runs.
 */
__attribute__((constructor)) static void need_device(void)
{
	if (access(UIDGEN_DEV, F_OK) && errno == ENOENT)
		ksft_exit_skip("%s: no such device (is uidgen loaded?)\n",
			       UIDGEN_DEV);
}

static inline int get_info(int fd, struct uidgen_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, UIDGEN_IOC_INFO, info);
}

static inline int batch(int fd, uint64_t *ids, uint32_t count)
{
	struct uidgen_batch b = {
		.size = sizeof(b),
		.count = count,
		.ids = (uintptr_t)ids,
	};
	int r = ioctl(fd, UIDGEN_IOC_BATCH, &b);

	/* The ioctl's return and the written-back count must agree. */
	if (r >= 0 && (uint32_t)r != b.count)
		return -2;
	return r;
}

/* RESERVE up to @count IDs; the ioctl's return and count must agree. */
static inline int reserve(int fd, uint32_t count, struct uidgen_reserve *r)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->count = count;
	ret = ioctl(fd, UIDGEN_IOC_RESERVE, r);
	if (ret >= 0 && (uint32_t)ret != r->count)
		return -2;
	return ret;
}

static inline uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* UIDGEN_IOC_ASSIGN: times in ns (Unix, and CLOCK_BOOTTIME for @deadline). */
static inline int assign(int fd, uint32_t flags, uint32_t node, uint64_t floor,
			 uint64_t grant, uint64_t deadline, uint64_t token)
{
	struct uidgen_assign a = {
		.size = sizeof(a), .flags = flags, .node_id = node,
		.floor_unix_ns = floor, .grant_unix_ns = grant,
		.deadline_boot_ns = deadline, .token = token,
	};

	return ioctl(fd, UIDGEN_IOC_ASSIGN, &a);
}

static inline int renew(int fd, uint32_t node, uint64_t grant,
			uint64_t deadline, uint64_t token)
{
	struct uidgen_renew r = {
		.size = sizeof(r), .node_id = node, .grant_unix_ns = grant,
		.deadline_boot_ns = deadline, .token = token,
	};

	return ioctl(fd, UIDGEN_IOC_RENEW, &r);
}

/* UIDGEN_IOC_REVOKE of @node (UIDGEN_NODE_NONE: whatever is in force). */
static inline int node_revoke(int fd, uint32_t node, uint64_t token)
{
	struct uidgen_revoke r = {
		.size = sizeof(r), .node_id = node, .token = token,
	};

	return ioctl(fd, UIDGEN_IOC_REVOKE, &r);
}

/* Assign @node, stating that it never issued (the tests' own IDs). */
static inline int set_node(int fd, uint32_t node)
{
	return assign(fd, UIDGEN_ASSIGN_NEW, node, 0, 0, 0, 0);
}

/* UIDGEN_IOC_REVOKE with UIDGEN_REVOKE_FORCE: whatever is in force. */
static inline int node_revoke_force(int fd)
{
	struct uidgen_revoke r = {
		.size = sizeof(r), .flags = UIDGEN_REVOKE_FORCE,
		.node_id = UIDGEN_NODE_NONE,
	};

	return ioctl(fd, UIDGEN_IOC_REVOKE, &r);
}

/*
 * Why a suite that assigns node IDs up to @last itself cannot run on this
 * device (@info, just read): not root, a node ID in force already, too
 * few node bits. NULL if it can; else the reason, in @buf, to SKIP with.
 */
static inline const char *unassigned_skip(const struct uidgen_info *info,
					  uint32_t last, char *buf, size_t len)
{
	if (geteuid())
		snprintf(buf, len, "assigning node IDs needs root");
	else if (info->node_state != UIDGEN_NODE_STATE_NONE)
		snprintf(buf, len, "node ID %u is in force: these tests assign their own",
			 info->node_id);
	else if (last >= 1ULL << info->node_bits)
		snprintf(buf, len, "node_bits %u: no node ID %u", info->node_bits, last);
	else
		return NULL;
	return buf;
}

/* The node ID the tests assign when none is in force: the highest. */
static inline uint32_t test_node(const struct uidgen_info *in)
{
	return (uint32_t)((1ULL << in->node_bits) - 1);
}

/*
 * A node ID to mint under. One in force is used as it is; with none (as
 * after boot), test_node() is assigned as new and *assigned set, and the
 * test's teardown gives it back with node_release(). @info is read again.
 * Returns 0 or the errno of the call that failed (EPERM: not root).
 */
static inline int node_claim(int fd, struct uidgen_info *info, int *assigned)
{
	*assigned = 0;
	if (get_info(fd, info))
		return errno;
	if (info->node_state == UIDGEN_NODE_STATE_ACTIVE)
		return 0;
	if (set_node(fd, test_node(info)))
		return errno;
	*assigned = 1;
	return get_info(fd, info) ? errno : 0;
}

/* Undo node_claim(): revoke the node ID if it assigned one. */
static inline void node_release(int fd, int assigned)
{
	if (assigned)
		node_revoke_force(fd);
}

struct parts {
	uint64_t tick;
	uint32_t node, slot, seq;
};

static inline struct parts split(const struct uidgen_info *in, uint64_t id)
{
	struct parts p;

	p.seq = id & ((1ULL << in->seq_bits) - 1);
	p.slot = (id >> in->seq_bits) & ((1ULL << in->slot_bits) - 1);
	p.node = (id >> (in->seq_bits + in->slot_bits)) &
		 ((1ULL << in->node_bits) - 1);
	p.tick = id >> (in->seq_bits + in->slot_bits + in->node_bits);
	return p;
}

/* The wall clock as a uidgen tick. */
static inline uint64_t wall_tick(const struct uidgen_info *in)
{
	struct timespec ts;
	uint64_t ns;

	clock_gettime(CLOCK_REALTIME, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	return (ns - in->epoch_unix_ns) / in->tick_ns;
}

/* Read a sysfs file into buf; returns 0 or -errno. */
static inline int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* Write a string to a sysfs file; returns 0 or -errno. */
static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* A number from the device's sysfs directory (Documentation/ABI). */
static inline long long sysfs_long(const char *name)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), UIDGEN_SYSFS "%s", name);
	if (read_file(path, buf, sizeof(buf)))
		return -1000;
	return strtoll(buf, NULL, 0);
}

/*
 * A module parameter, for the tests of the parameters themselves only:
 * what the device does is read from UIDGEN_IOC_INFO and sysfs.
 */
static inline long long param_long(const char *name)
{
	char path[128], buf[64];

	snprintf(path, sizeof(path), UIDGEN_PARAM "%s", name);
	if (read_file(path, buf, sizeof(buf)))
		return -1000;
	return strtoll(buf, NULL, 0);
}

static inline int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Run fn() in a child that has dropped to uid/gid 65534 and return its
 * exit status: fn() returns the errno it saw (0 for success).
 */
static inline int as_nobody(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(255);
		_exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif /* UIDGEN_SELFTEST_UTIL_H */
