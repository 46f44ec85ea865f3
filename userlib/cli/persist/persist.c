// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen's persister: the state file and the three commands that keep a
 * node ID's floor across loads, reboots and crashes (uidgen-state.service
 * and uidgen-persist.service run them):
 *
 *   state restore FILE  at start: assign FILE's node ID with FILE's floor
 *                       (and a grant at it), then persist a grant mark
 *                       ahead to FILE and raise the grant to it
 *   state keep FILE     the persister, a daemon (uidgen-persist.service):
 *                       every --every-ms persist the next mark, fsync'd,
 *                       and only then raise the kernel's grant to it
 *   state save FILE     at stop: revoke (the fence), then save the exact
 *                       high water as FILE's floor
 *
 * The state file is written whole (temp file, fsync, rename, fsync of the
 * directory) and locked (FILE.lock; FILE.keep for the one keeper). The
 * command line and its checks are the CLI's (cli/state.c); this file
 * stands on the CLI's base (cli/base/) alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/persist/persist.h"

/*
 * The state file (struct state, persist.h): node_id=N and floor_ms=MS lines.
 * Blank lines and # comments are allowed; anything else is an error.
 */

/* A state file is two short lines; anything this big is not one. */
#define STATE_MAX	4096

/*
 * 0, or 1 after saying what is wrong; -ENOENT (quietly) if there is no file.
 * Strict: the file is read whole (at most STATE_MAX bytes) and any bad
 * line fails it: a second line for the same key (never "the last one
 * wins": an earlier, higher floor would be lost), a NUL byte, a CR.
 */
int state_read(const char *file, struct state *st)
{
	int lineno = 0, have_floor = 0, have_node = 0, err;
	char buf[STATE_MAX + 1], *line, *nl, *end;
	size_t size;
	FILE *f;

	st->node = UIDGEN_NODE_NONE;
	st->floor_ms = 0;
	f = fopen(file, "re");
	if (!f) {
		if (errno == ENOENT)
			return -ENOENT;
		return fail(-errno, file);
	}
	size = fread(buf, 1, sizeof(buf), f);
	err = errno;
	if (ferror(f)) {
		fclose(f);
		return fail(err ? -err : -EIO, file);
	}
	fclose(f);
	if (size > STATE_MAX) {
		fprintf(stderr, "%s: %s: longer than %d bytes: not a state file\n",
			prog, file, STATE_MAX);
		return 1;
	}
	buf[size] = 0;
	for (line = buf, end = buf + size; line < end; line = nl + 1) {
		const char *what = NULL;
		size_t len;

		nl = memchr(line, '\n', end - line);
		if (!nl)
			nl = end;	/* the last line, with no newline */
		*nl = 0;
		len = nl - line;
		lineno++;
		if (strlen(line) != len)
			what = "a NUL byte in the line";
		else if (len && line[len - 1] == '\r')
			what = "a CR at the end (DOS line endings?)";
		else if (!len || line[0] == '#')
			continue;
		else if (!strncmp(line, "floor_ms=", 9)) {
			if (have_floor++)
				what = "a second floor_ms= line";
			else if (parse_dec(line + 9, INT64_MAX, &st->floor_ms))
				what = "not a decimal number in floor_ms=MS";
		} else if (!strncmp(line, "node_id=", 8)) {
			if (have_node++)
				what = "a second node_id= line";
			else if (parse_dec(line + 8, UIDGEN_NODE_NONE - 1, &st->node))
				what = "not a decimal node ID in node_id=N";
		} else {
			what = "neither node_id=N nor floor_ms=MS";
		}
		if (what) {
			if (len && line[len - 1] == '\r')
				line[--len] = 0;
			fprintf(stderr, "%s: %s:%d: '%.64s%s': %s\n", prog, file,
				lineno, line, len > 64 ? "..." : "", what);
			return 1;
		}
	}
	if (!have_floor) {
		fprintf(stderr, "%s: %s: no floor_ms= line\n", prog, file);
		return 1;
	}
	return 0;
}

/*
 * Write @file as a whole or not at all, and durably: a new file beside it,
 * fsync, rename over the old one, fsync the directory. Only when this
 * returns 0 may the kernel be told to issue up to @floor_ms. 0 or -errno.
 */
static int state_write(const char *file, uint32_t node,
		       unsigned long long floor_ms)
{
	char tmp[PATH_MAX], dir[PATH_MAX], text[256];
	int fd, len, ret = 0;
	char *slash;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", file) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	len = snprintf(text, sizeof(text),
		       "# uidgen state: no ID of this node ID ends after floor_ms\n"
		       "node_id=%u\nfloor_ms=%llu\n", node, floor_ms);
	/* A temp file of this call's own: no other writer can truncate it. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (fchmod(fd, 0644))
		ret = -errno;
	else if (write(fd, text, len) != len)
		ret = errno ? -errno : -EIO;
	else if (fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, file))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	/* The rename is durable only once the directory is. */
	snprintf(dir, sizeof(dir), "%s", file);
	slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = 0;
	else if (slash)
		*slash = 0;
	else
		strcpy(dir, ".");
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Hold FILE.lock for writing: every command that writes the state file and
 * then changes the kernel's grant does both under it, so two writers (two
 * keeps, keep and a restore or save) can never leave the kernel granted
 * above what the file holds. With @nonblock, -EWOULDBLOCK if held.
 * Returns the fd to close, or -errno.
 */
static int state_lock(const char *file, const char *suffix, int nonblock)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s%s", file, suffix) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | (nonblock ? LOCK_NB : 0))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * Locking @file failed with @err: say why, and what to do when its
 * directory is missing (not /proc's kind: there ENOENT means no file may be
 * made) or not this user's. Returns 1.
 */
static int fail_lock(int err, const char *file)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(file, '/');
	size_t len = slash ? (size_t)(slash - file) : 1;

	snprintf(dir, sizeof(dir), "%.*s", (int)len, slash ? (len ? file : "/") : ".");
	if (err == -ENOENT && access(dir, F_OK)) {
		fprintf(stderr, "%s: %s: no such directory for the state file %s: create it (mkdir -p %s; uidgen-state.service's StateDirectory= makes /var/lib/uidgen)\n",
			prog, dir, file, dir);
		return 1;
	}
	fprintf(stderr, "%s: %s: %s (locking it)\n", prog, file, strerror(-err));
	if (err == -EACCES || err == -EPERM || err == -EROFS)
		fprintf(stderr, "%s: %s and %s.lock must be writable: run it as root (uidgen-state.service does)\n",
			prog, file, file);
	return 1;
}


/*
 * The mark to persist and grant: @ahead_ms past the later of the wall
 * clock and the ID clock (ahead of the wall clock after a floor from a
 * clock that was ahead), never below what is already granted or floored.
 */
static unsigned long long grant_mark(const struct uidgen_info *info,
				     unsigned long long ahead_ms)
{
	unsigned long long now = wall_ms(), id_now = 0;

	read_u64(SYSFS_DEV "now_ms", &id_now);
	now = max_ull(max_ull(now, id_now), ns_ms(info->high_water_unix_ns));
	now = max_ull(now, ns_ms(info->floor_unix_ns)) + ahead_ms;
	return max_ull(now, ns_ms(info->grant_unix_ns));
}

/* The file must be this node ID's (or new): never clobber another's floor. */
static int state_owner_ok(const char *file, uint32_t node)
{
	struct state st;
	int ret = state_read(file, &st);

	if (ret == -ENOENT)
		return 1;
	if (ret)
		return 0;
	if (st.node != UIDGEN_NODE_NONE && st.node != node) {
		fprintf(stderr, "%s: %s holds the floor of node ID %llu, and node ID %u is active: move the file away (it is node ID %llu's history) or revoke this one\n",
			prog, file, st.node, node, st.node);
		return 0;
	}
	return 1;
}

/*
 * state save: a clean stop. Fence first (revoke: when it returns no ID of
 * the node leaves the kernel), then the exact high water is the floor, so a
 * clean reload starts where this one stopped, not --ahead-ms later.
 */
static int cmd_state_save(const char *dev, const char *file)
{
	struct uidgen_info info;
	unsigned long long floor;
	uint32_t node;
	struct uidgen *g;
	int ret;

	g = node_dev_open(dev);
	if (!g)
		return 1;
	ret = node_info(g, &info);
	if (ret) {
		uidgen_close(g);
		return fail(ret, "reading the node state");
	}
	if (info.node_state != UIDGEN_NODE_STATE_ACTIVE) {
		uidgen_close(g);
		printf("no node ID active: %s left as it is\n", file);
		return 0;
	}
	node = info.node_id;
	if (!state_owner_ok(file, node)) {
		uidgen_close(g);
		return 1;
	}
	ret = node_revoke(g, 0);
	if (!ret) {
		floor = ns_ms(info.floor_unix_ns);
		ret = node_info(g, &info);
	}
	uidgen_close(g);
	if (ret)
		return fail_node(ret, "revoking the node ID", node);
	floor = max_ull(floor, ns_ms(info.high_water_unix_ns));
	if (!floor) {
		/* Nothing issued, no floor: the file's last mark still holds. */
		printf("node ID %u revoked; it issued nothing: %s left as it is\n",
		       node, file);
		return 0;
	}
	ret = state_write(file, node, floor);
	if (ret)
		return fail(ret, file);
	printf("node ID %u revoked; saved node_id=%u floor_ms=%llu to %s\n",
	       node, node, floor, file);
	return 0;
}

/*
 * state restore: the node ID and its floor in one uidgen_assign(): the
 * file names the node ID (the module loads with none). With
 * --ahead-ms MS (default 60000; cli/state.c refuses 0, and the !ahead_ms
 * paths below are never taken from the CLI) the assignment's grant is the
 * floor itself; a grant mark is persisted next and only then granted, so
 * nothing is issued that the file does not cover even before 'state keep'
 * takes over, and a refused floor leaves the file as it was.
 */
/*
 * state restore with no state file yet: fine only for a node ID already
 * active as new (set-node --new): start the file and the grant.
 */
static int restore_first(struct uidgen *g, struct uidgen_info *info,
			 const char *file, unsigned long long ahead_ms)
{
	unsigned long long grant;
	int ret;

	if (info->node_state != UIDGEN_NODE_STATE_ACTIVE) {
		uidgen_close(g);
		fail(-ENOENT, file);
		fprintf(stderr, "%s: no state yet: if this machine's node ID N has never issued an ID, start it once with '%s set-node N --new'; if it has, bring its state file from where it ran\n",
			prog, prog);
		return 1;
	}
	if (!ahead_ms) {
		uidgen_close(g);
		printf("no %s yet; node ID %u is active\n", file, info->node_id);
		return 0;
	}
	grant = grant_mark(info, ahead_ms);
	ret = state_write(file, info->node_id, grant);
	if (!ret)
		ret = node_renew(g, info->node_id, grant);
	uidgen_close(g);
	if (ret)
		return fail(ret, file);
	printf("no %s yet; node ID %u is active: started it, grant %llu ms\n",
	       file, info->node_id, grant);
	return 0;
}

static int cmd_state_restore(const char *dev, const char *file,
			     unsigned long long ahead_ms)
{
	struct uidgen_info info;
	unsigned long long grant = 0;
	struct state st;
	uint32_t node;
	struct uidgen *g;
	int ret, err;

	ret = state_read(file, &st);
	if (ret > 0)
		return ret;
	g = node_dev_open(dev);
	if (!g)
		return 1;
	err = node_info(g, &info);
	if (err) {
		uidgen_close(g);
		return fail(err, "reading the node state");
	}
	if (ret == -ENOENT)
		return restore_first(g, &info, file, ahead_ms);
	if (st.node == UIDGEN_NODE_NONE) {
		/* A floor alone does not say whose it is: never guess. */
		uidgen_close(g);
		fprintf(stderr, "%s: %s has no node_id= line: it does not say which node ID its floor is for; give it with '%s set-node N --state %s'\n",
			prog, file, prog, file);
		return 1;
	}
	if (info.node_state == UIDGEN_NODE_STATE_ACTIVE && info.node_id != st.node) {
		uidgen_close(g);
		fprintf(stderr, "%s: %s is node ID %llu's state, but node ID %u is active\n",
			prog, file, st.node, info.node_id);
		return 1;
	}
	node = st.node;
	/*
	 * Active already, with the file's floor in force or granted by this
	 * load (the file holds this load's last grant mark): nothing to
	 * restore, and raising the floor to the mark would only jump ahead.
	 */
	if (info.node_state == UIDGEN_NODE_STATE_ACTIVE &&
	    (ns_ms(info.floor_unix_ns) >= st.floor_ms ||
	     ns_ms(info.grant_unix_ns) >= st.floor_ms)) {
		uidgen_close(g);
		printf("node ID %u already active, its floor or grant at or above %s's floor_ms=%llu: nothing to restore\n",
		       node, file, st.floor_ms);
		return 0;
	}
	if (info.node_state == UIDGEN_NODE_STATE_ACTIVE && !info.floor_unix_ns)
		fprintf(stderr, "%s: warning: node ID %u was already active with no floor (set-node --new after a start that had issued?): IDs issued before this restore may repeat older ones\n",
			prog, node);
	/*
	 * The kernel takes the floor first, with a grant no higher (nothing
	 * is issued yet): a floor it refuses (EDOM: a day ahead of the clock;
	 * EBUSY, ESTALE) leaves the file as it was, so a retry once the clock
	 * is right finds the same floor, not one a mark further ahead.
	 */
	ret = node_assign(g, node, 0, st.floor_ms, ahead_ms ? st.floor_ms : 0);
	if (ret) {
		uidgen_close(g);
		return fail_node(ret, "state restore", node);
	}
	if (ahead_ms) {
		info.floor_unix_ns = max_ull(info.floor_unix_ns,
					     st.floor_ms * NS_PER_MS);
		grant = grant_mark(&info, ahead_ms);
		ret = state_write(file, node, grant);
		if (!ret)
			ret = node_renew(g, node, grant);
		if (ret) {
			uidgen_close(g);
			return fail(ret, file);
		}
	}
	uidgen_close(g);
	if (grant)
		printf("node ID %u active, floor %llu ms, grant %llu ms\n", node,
		       st.floor_ms, grant);
	else
		printf("node ID %u active, floor %llu ms, no grant limit\n", node,
		       st.floor_ms);
	return 0;
}

static volatile sig_atomic_t keep_stop;

static void keep_on_signal(int sig)
{
	(void)sig;
	keep_stop = 1;
}

/* Sleep @ms, or less if a stop signal comes. */
static void keep_sleep(unsigned long long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };

	while (!keep_stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * One round of 'state keep': persist the next grant mark, then (only then)
 * raise the kernel's grant to it. Returns 0, or 1 on an error that ends
 * the loop (the file belongs to another node ID).
 */
static int keep_round(const char *dev, const char *file,
		      unsigned long long ahead_ms, int *said)
{
	struct uidgen_info info;
	unsigned long long grant;
	struct uidgen *g;
	int lock, ret;

	ret = uidgen_open(&g, dev);
	if (ret) {
		if (*said != 1) {
			fprintf(stderr, "%s: %s: %s; waiting for it\n", prog, dev,
				strerror(-ret));
			if (!module_loaded())
				say_not_loaded();
		}
		*said = 1;
		return 0;
	}
	ret = node_info(g, &info);
	if (ret) {
		uidgen_close(g);
		fail(ret, "reading the node state");
		return 1;
	}
	if (info.node_state != UIDGEN_NODE_STATE_ACTIVE) {
		uidgen_close(g);
		if (*said != 2)
			fprintf(stderr, "%s: no node ID active; waiting for one: as root, 'uidgen state restore %s' gives it its floor (uidgen-state.service does), or 'uidgen set-node N --new' for a node ID that has never issued\n",
				prog, file);
		*said = 2;
		return 0;
	}
	if (!state_owner_ok(file, info.node_id)) {
		uidgen_close(g);
		return 1;
	}
	lock = state_lock(file, ".lock", 0);
	if (lock < 0) {
		uidgen_close(g);
		fail(lock, "locking the state file");
		*said = 3;
		return 0;
	}
	/* Under the lock: the grant in force, then the mark above it. */
	ret = node_info(g, &info);
	grant = grant_mark(&info, ahead_ms);
	if (!ret)
		ret = state_write(file, info.node_id, grant);
	if (ret) {
		close(lock);
		uidgen_close(g);
		/* No renew: callers wait at the old grant rather than outrun the file. */
		fprintf(stderr, "%s: persisting to %s: %s; grant left at %llu ms\n",
			prog, file, strerror(-ret), ns_ms(info.grant_unix_ns));
		*said = 3;
		return 0;
	}
	ret = node_renew(g, info.node_id, grant);
	close(lock);
	uidgen_close(g);
	if (ret) {
		fail_node(ret, "raising the grant", info.node_id);
		*said = 3;
		return 0;
	}
	if (*said != 4)
		printf("node ID %u: grant mode on, persisted and granted up to %llu ms (%llu ms ahead) in %s\n",
		       info.node_id, grant, ahead_ms, file);
	fflush(stdout);
	*said = 4;
	return 0;
}

/*
 * state keep: the persister, for a Type=simple unit. Every @every_ms it
 * writes node_id and a grant mark @ahead_ms ahead to @file (temp file,
 * fsync, rename, fsync of the directory), then raises the kernel's grant
 * to that mark. A crash at any instant leaves a file whose floor is at or
 * above every tick issued. SIGTERM or SIGINT end it cleanly between rounds.
 */
static int cmd_state_keep(const char *dev, const char *file,
			  unsigned long long ahead_ms, unsigned long long every_ms)
{
	struct sigaction sa = { .sa_handler = keep_on_signal };
	int said = 0, keeper;

	if (!ahead_ms) {
		fprintf(stderr, "%s: state keep needs --ahead-ms above 0: the kernel issues nothing past the grant, and a grant of now would stop it at once; leave it out for the default, 60000\n",
			prog);
		return 2;
	}
	if (every_ms >= ahead_ms) {
		fprintf(stderr, "%s: state keep needs --every-ms (%llu) below --ahead-ms (%llu), so the grant is raised before it runs out\n",
			prog, every_ms, ahead_ms);
		return 2;
	}
	/* One keeper per file, for as long as it runs. */
	keeper = state_lock(file, ".keep", 1);
	if (keeper == -EWOULDBLOCK) {
		fprintf(stderr, "%s: %s: another 'state keep' is already keeping it\n",
			prog, file);
		return 1;
	}
	if (keeper < 0)
		return fail_lock(keeper, file);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (!keep_stop) {
		if (keep_round(dev, file, ahead_ms, &said))
			return 1;
		keep_sleep(every_ms);
	}
	printf("stopped; %s holds the last mark ('uidgen state save' records the exact floor)\n",
	       file);
	return 0;
}

static int cmd_state_save_ahead(const char *dev, const char *file,
				unsigned long long ahead_ms)
{
	(void)ahead_ms;
	return cmd_state_save(dev, file);
}

/* Run a state command with FILE.lock held (see state_lock()). */
static int state_locked(const char *dev, const char *file,
			unsigned long long ahead_ms,
			int (*cmd)(const char *, const char *, unsigned long long))
{
	int lock = state_lock(file, ".lock", 0), ret;

	if (lock < 0)
		return fail_lock(lock, file);
	ret = cmd(dev, file, ahead_ms);
	close(lock);
	return ret;
}


int state_save(const char *dev, const char *file)
{
	return state_locked(dev, file, 0, cmd_state_save_ahead);
}

int state_restore(const char *dev, const char *file, unsigned long long ahead_ms)
{
	return state_locked(dev, file, ahead_ms, cmd_state_restore);
}

int state_keep(const char *dev, const char *file, unsigned long long ahead_ms,
	       unsigned long long every_ms)
{
	return cmd_state_keep(dev, file, ahead_ms, every_ms);
}
