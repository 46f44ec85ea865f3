// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen-lease: the device backends (see dev.h), one table of operations
 * each, chosen at open. The kernel backend is libuidgen's node calls
 * (uidgen_info(), uidgen_assign(), uidgen_renew(), uidgen_revoke()):
 * the library is the one wrapper of the ABI. The stand-in keeps the
 * node's state in a file and decides every assign, renew and revoke by
 * the kernel's own rules: module/noderules.c, compiled here with kshim.h
 * (one node in force, assignment needs a floor or NEW, tokens only rise, a
 * deadline revokes by itself, renew and revoke with a token must match,
 * and the same errno in the same order). The agent speaks Unix ms, the
 * ABI and the rules Unix ns: this file converts, rounding what comes back
 * from the kernel up (a floor or grant mark never falls short).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <uidgen.h>
#include "dev.h"
#include "etcd.h"
#include "kshim.h"
#include "../module/noderules.h"

/* What each backend does; lease_dev_open() picks one. */
struct lease_dev_ops {
	int (*state)(struct lease_dev *d, struct lease_dev_state *st);
	int (*install)(struct lease_dev *d, uint32_t node, uint64_t floor_ms,
		       uint64_t grant_ms, uint64_t deadline_ns, uint64_t token);
	int (*renew)(struct lease_dev *d, uint32_t node, uint64_t grant_ms,
		     uint64_t deadline_ns, uint64_t token);
	int (*revoke)(struct lease_dev *d, uint64_t token);
};

struct lease_dev {
	const struct lease_dev_ops *ops;
	/* the kernel */
	struct uidgen *g;	/* /dev/uid through libuidgen */
	int lockfd;		/* /dev/uid again, flock()ed: one agent per device */
	/* the stand-in */
	char *sim;		/* state file */
	int logfd;		/* its event log, sim + ".log" */
	char *who;
	struct uidgen_node_rules r;	/* max_token: "this load" */
	struct lease_dev_state layout;	/* the stand-in's layout fields */
	int64_t clock_off_ms;	/* the ID clock minus the wall clock (a floor ahead moved it) */
	uint64_t high_water_ms;	/* what it could have issued, as of its last revoke */
	uint32_t fence;		/* the fence generation, as the kernel's page has it */
};

#define NS_PER_MS	1000000ULL

/* uidgen's default epoch, 2026-01-01T00:00:00Z: the stand-in's layout. */
#define LEASE_DEFAULT_EPOCH_MS	1767225600000ULL

static uint64_t ns_ms(uint64_t ns)
{
	return ns / NS_PER_MS + !!(ns % NS_PER_MS);
}

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The stand-in's ID clock: the wall clock, moved ahead by a floor ahead
 * of it and kept there (the kernel's anchor, uidgen_set_floor()). */
static uint64_t sim_clock_ms(const struct lease_dev *d)
{
	return wall_ms() + (uint64_t)d->clock_off_ms;
}

static void sim_apply_floor(struct lease_dev *d, uint64_t floor_ms)
{
	if (floor_ms + 1 > sim_clock_ms(d))
		d->clock_off_ms = (int64_t)(floor_ms + 1 - wall_ms());
}

/* What the stand-in could have issued while in force: up to its ID clock,
 * within its grant. Taken at every revoke, as the kernel's high water. */
static void sim_note_high_water(struct lease_dev *d)
{
	uint64_t c = sim_clock_ms(d);
	uint64_t grant = ns_ms(d->r.grant_unix_ns);

	if (d->r.node == UIDGEN_NODE_NONE)
		return;
	d->high_water_ms = grant && grant < c ? grant : c;
}

/* The kernel's ID clock (sysfs now_ms), or the wall clock without it. */
static uint64_t read_clock_ms(void)
{
	unsigned long long v;
	FILE *f = fopen("/sys/class/misc/uid/now_ms", "r");
	int ok = f && fscanf(f, "%llu", &v) == 1;

	static int warned;

	if (f)
		fclose(f);
	if (!ok && !warned++)
		fprintf(stderr, "uidgen-lease: /sys/class/misc/uid/now_ms: %s: grants follow the wall clock only, and callers wait at the grant if the ID clock is ahead of it (sysfs not mounted here?)\n",
			f ? "not a number" : strerror(errno));
	return ok ? v : wall_ms();
}

/* One agent per device: a second one would adopt the first's claim and
 * revoke it on its way out. */
static int lock_one(int fd)
{
	return flock(fd, LOCK_EX | LOCK_NB) ? -errno : 0;
}

/* The state file: "NODE_BITS ACTIVE NODE TOKEN FLOOR GRANT DEADLINE
 * MAX_TOKEN CLOCK_OFFSET EPOCH FENCE", a deadline of 0 for none. */
static int sim_save(struct lease_dev *d)
{
	const struct uidgen_node_rules *r = &d->r;
	int active = r->node != UIDGEN_NODE_NONE;
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", d->sim);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "%u %d %u %llu %llu %llu %llu %llu %lld %llu %u\n", r->node_bits, active,
		active ? r->node : 0, (unsigned long long)r->token,
		(unsigned long long)ns_ms(r->floor_unix_ns),
		(unsigned long long)ns_ms(r->grant_unix_ns),
		(unsigned long long)(r->deadline_boot_ns == UIDGEN_RULES_NO_DEADLINE ?
				     0 : r->deadline_boot_ns),
		(unsigned long long)r->max_token, (long long)d->clock_off_ms,
		(unsigned long long)d->layout.epoch_ms, d->fence);
	if (fclose(f) || rename(tmp, d->sim))
		return -errno;
	return 0;
}

/* Could a node ID in force in @r issue anything, now or later? Not with
 * a grant at or below the floor, or one the ID clock has passed (it never
 * goes back): the lease agent installs a claim so before it checks that
 * the device was not forked since it made the claim. */
static int sim_open_now(const struct lease_dev *d, const struct uidgen_node_rules *r)
{
	uint64_t c = sim_clock_ms(d);

	if (r->node == UIDGEN_NODE_NONE)
		return 0;
	return !r->grant_unix_ns ||
	       (r->grant_unix_ns > r->floor_unix_ns && ns_ms(r->grant_unix_ns) > c);
}

/* One line per change, appended in one write(): "TIME_NS EVENT node=N
 * token=T floor=MS grant=MS deadline=NS open=0|1 who=AGENT" (open: see
 * sim_open_now()); TIME_NS is CLOCK_BOOTTIME, for
 * "expire" the deadline itself. The fields are @r's: for a revoke, the
 * state before it. */
static void sim_log(struct lease_dev *d, const struct uidgen_node_rules *r, uint64_t t,
		    const char *ev)
{
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "%llu %s node=%u token=%llu floor=%llu grant=%llu deadline=%llu open=%d who=%s\n",
		     (unsigned long long)t, ev, r->node == UIDGEN_NODE_NONE ? 0 : r->node,
		     (unsigned long long)r->token,
		     (unsigned long long)ns_ms(r->floor_unix_ns),
		     (unsigned long long)ns_ms(r->grant_unix_ns),
		     (unsigned long long)(r->deadline_boot_ns == UIDGEN_RULES_NO_DEADLINE ?
					  0 : r->deadline_boot_ns),
		     sim_open_now(d, r), d->who);
	if (write(d->logfd, line, (size_t)n) != n)
		perror("uidgen-lease: device-sim log");
}

/* The kernel revokes at the deadline by itself: so does the stand-in,
 * on its next use, logging the deadline as the time. It also revokes, as
 * the kernel does on a VM fork or snapshot restore, when a file
 * <state>.fork appears (a test's stand-in for the fork: the agent keeps
 * its lease and token, the device does not). Returns "now", for the
 * rules: with it, their own look at the deadline finds nothing more. */
static uint64_t sim_expire(struct lease_dev *d)
{
	struct uidgen_node_rules was = d->r;
	uint64_t now = etcd_boottime_ns();
	unsigned int act = 0;
	char fork[4096];

	snprintf(fork, sizeof(fork), "%s.fork", d->sim);
	if (!unlink(fork)) {
		/* The kernel's fence moves on a fork with or without a node. */
		if (d->r.node != UIDGEN_NODE_NONE)
			sim_log(d, &d->r, now, "fork");
		sim_note_high_water(d);
		uidgen_rules_fence(&d->r);
		d->fence++;
		sim_save(d);
		return now;
	}
	sim_note_high_water(d);
	if (uidgen_rules_expire(&d->r, now, &act)) {
		sim_log(d, &was, was.deadline_boot_ns, "expire");
		d->fence++;
		sim_save(d);
	}
	return now;
}

/*
 * A test's stand-in for a VM cloned between a claim and its install: with
 * UIDGEN_LEASE_SIM_CLONE=PATH, the first install forks this very process
 * (its memory, lease, claim and token, as a clone's agent has them); with
 * PATH@renew, the first renew (the one that opens an install). The child
 * becomes the copy: its device is the state file PATH, a copy of this one
 * whose kernel saw the fork (the fence moved, what was in force revoked),
 * with its own log PATH.log and "-clone" after its name. Both then go on
 * with the call.
 */
static void sim_clone_hook(struct lease_dev *d, int at_renew)
{
	const char *env = getenv("UIDGEN_LEASE_SIM_CLONE");
	char logp[4096], *who, *path, *at;
	struct dirent *de;
	DIR *dir;
	pid_t pid;

	if (!env || !*env)
		return;
	at = strrchr(env, '@');
	if (!!at_renew != (at && !strcmp(at, "@renew")))
		return;
	path = strndup(env, at && at_renew ? (size_t)(at - env) : strlen(env));
	unsetenv("UIDGEN_LEASE_SIM_CLONE");
	pid = path ? fork() : -1;
	if (pid) {
		if (pid < 0)
			perror("uidgen-lease: device-sim clone");
		free(path);
		return;
	}
	/* A clone has its own connections: not the original's sockets
	 * (etcd's client reconnects on its next request). */
	dir = opendir("/proc/self/fd");
	while (dir && (de = readdir(dir))) {
		int fd = atoi(de->d_name);
		struct stat sb;

		if (fd > 2 && fd != dirfd(dir) && !fstat(fd, &sb) && S_ISSOCK(sb.st_mode))
			close(fd);
	}
	if (dir)
		closedir(dir);
	snprintf(logp, sizeof(logp), "%s.log", path);
	close(d->logfd);
	d->logfd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	who = malloc(strlen(d->who) + sizeof("-clone"));
	if (d->logfd < 0 || !who || lock_one(d->logfd))
		_exit(1);
	sprintf(who, "%s-clone", d->who);
	free(d->who);
	d->who = who;
	free(d->sim);
	d->sim = path;
	if (d->r.node != UIDGEN_NODE_NONE)
		sim_log(d, &d->r, etcd_boottime_ns(), "fork");
	uidgen_rules_fence(&d->r);	/* uidgen_node_vmfork() */
	d->fence++;
	sim_save(d);
	fprintf(stderr, "uidgen-lease: device-sim: this is the clone (pid %d), device %s\n",
		(int)getpid(), path);
}

/* --- The kernel: /dev/uid through libuidgen ------------------------------ */

static int kernel_state(struct lease_dev *d, struct lease_dev_state *st)
{
	struct uidgen_info info = { .size = sizeof(info) };
	int ret;

	ret = uidgen_info(d->g, &info);
	if (ret < 0)
		return ret;
	memset(st, 0, sizeof(*st));
	st->node_bits = info.node_bits;
	st->active = info.node_state == UIDGEN_NODE_STATE_ACTIVE;
	st->node = info.node_id;
	st->token = info.token;
	st->floor_ms = ns_ms(info.floor_unix_ns);
	st->grant_ms = ns_ms(info.grant_unix_ns);
	st->deadline_ns = info.deadline_boot_ns;
	st->ts_bits = info.ts_bits;
	st->slot_bits = info.slot_bits;
	st->seq_bits = info.seq_bits;
	st->tick_us = info.tick_ns / 1000;
	st->epoch_ms = ns_ms(info.epoch_unix_ns);
	st->high_water_ms = ns_ms(info.high_water_unix_ns);
	/*
	 * The ID clock, not the high water: with max_borrow_ticks a slot
	 * under a saturating reader runs ahead of it, up to the grant. A
	 * grant that followed the borrowed ticks would ratchet to the wall
	 * clock + the borrow + the window, past what a claim wait covers
	 * (P9); from the ID clock it stays above the high water (at most the
	 * last grant) and within the window.
	 */
	st->clock_ms = read_clock_ms();
	/* kernel_open() made sure there is a fence page */
	uidgen_fence_gen(d->g, &st->fence);
	return 0;
}

static int kernel_install(struct lease_dev *d, uint32_t node, uint64_t floor_ms,
			  uint64_t grant_ms, uint64_t deadline_ns, uint64_t token)
{
	struct uidgen_assign a = {
		.size = sizeof(a),
		.flags = floor_ms == LEASE_FLOOR_NEW ? UIDGEN_ASSIGN_NEW : 0,
		.node_id = node,
		.floor_unix_ns = floor_ms == LEASE_FLOOR_NEW ? 0 : floor_ms * NS_PER_MS,
		.grant_unix_ns = grant_ms * NS_PER_MS,
		.deadline_boot_ns = deadline_ns,
		.token = token,
	};

	return uidgen_assign(d->g, &a);
}

static int kernel_renew(struct lease_dev *d, uint32_t node, uint64_t grant_ms,
			uint64_t deadline_ns, uint64_t token)
{
	struct uidgen_renew r = {
		.size = sizeof(r),
		.node_id = node,
		.grant_unix_ns = grant_ms * NS_PER_MS,
		.deadline_boot_ns = deadline_ns,
		.token = token,
	};

	return uidgen_renew(d->g, &r);
}

static int kernel_revoke(struct lease_dev *d, uint64_t token)
{
	struct uidgen_revoke r = {
		.size = sizeof(r),
		.node_id = UIDGEN_NODE_NONE,
		.token = token,
	};

	return uidgen_revoke(d->g, &r);
}

static const struct lease_dev_ops kernel_ops = {
	.state = kernel_state,
	.install = kernel_install,
	.renew = kernel_renew,
	.revoke = kernel_revoke,
};

/* --- The stand-in: the kernel's rules on a state file -------------------- */

/*
 * A test's stand-in for slots borrowing ahead of the clock
 * (max_borrow_ticks, with a reader using up every tick's sequence): with
 * UIDGEN_LEASE_SIM_BORROW_MS=N, the high water the state reports is what
 * the kernel's INFO reports then, the highest tick issued: up to N ms
 * ahead of the clock, never past the grant (the kernel issues no tick
 * after it).
 */
static void sim_borrow_hook(struct lease_dev_state *st)
{
	const char *p = getenv("UIDGEN_LEASE_SIM_BORROW_MS");
	uint64_t hw;

	if (!p || !*p || !st->active || !st->grant_ms)
		return;
	hw = st->clock_ms + strtoull(p, NULL, 10);
	if (hw > st->grant_ms)
		hw = st->grant_ms;
	if (hw > st->high_water_ms)
		st->high_water_ms = hw;
}

static int sim_state(struct lease_dev *d, struct lease_dev_state *st)
{
	const struct uidgen_node_rules *r = &d->r;

	sim_expire(d);
	*st = d->layout;
	st->active = r->node != UIDGEN_NODE_NONE;
	st->node = st->active ? r->node : 0;
	st->token = r->token;
	st->floor_ms = ns_ms(r->floor_unix_ns);
	st->grant_ms = ns_ms(r->grant_unix_ns);
	st->deadline_ns = r->deadline_boot_ns == UIDGEN_RULES_NO_DEADLINE ? 0 : r->deadline_boot_ns;
	st->clock_ms = sim_clock_ms(d);
	st->high_water_ms = d->high_water_ms;	/* sim_expire() took it */
	st->fence = d->fence;
	sim_borrow_hook(st);
	return 0;
}

enum sim_op { SIM_ASSIGN, SIM_RENEW, SIM_REVOKE };

/* One assign, renew or revoke, as the kernel's UIDGEN_IOC_ASSIGN, _RENEW
 * and _REVOKE take it, decided by the kernel's own rules
 * (module/noderules.c) and carried out on the state file and its log. */
static int sim_change(struct lease_dev *d, enum sim_op op,
		      const struct uidgen_rules_req *req)
{
	uint64_t now = sim_expire(d);
	struct uidgen_node_rules was = d->r;
	unsigned int act;
	int ret;

	sim_note_high_water(d);
	/* The kernel's uidgen_set_floor(): a floor a day ahead is refused. */
	if (op == SIM_ASSIGN && !req->new &&
	    ns_ms(req->floor_unix_ns) > wall_ms() + UIDGEN_FLOOR_AHEAD_MAX_NS / NS_PER_MS)
		return -EDOM;
	if (op == SIM_REVOKE)
		ret = uidgen_rules_revoke(&d->r, req, now, &act);
	else if (op == SIM_RENEW)
		ret = uidgen_rules_renew(&d->r, req, now, &act);
	else
		ret = uidgen_rules_assign(&d->r, req, now, &act);
	if (!ret && op == SIM_ASSIGN && !req->new)
		sim_apply_floor(d, ns_ms(req->floor_unix_ns));
	/* sim_expire() saw to the deadline at this very now */
	if (act & UIDGEN_RULES_EXPIRE)
		sim_log(d, &was, was.deadline_boot_ns, "expire");
	if (act & (UIDGEN_RULES_REVOKE | UIDGEN_RULES_EXPIRE))
		d->fence++;
	if ((act & UIDGEN_RULES_REVOKE) && was.node != UIDGEN_NODE_NONE)
		sim_log(d, &was, now, "revoke");
	else if (!ret && op == SIM_RENEW)
		sim_log(d, &d->r, now, "renew");
	else if (!ret && op == SIM_ASSIGN)
		sim_log(d, &d->r, now, "install");
	if (act || !ret) {
		int e = sim_save(d);

		if (e && !ret)
			ret = e;
	}
	return ret;
}

static int sim_install(struct lease_dev *d, uint32_t node, uint64_t floor_ms,
		       uint64_t grant_ms, uint64_t deadline_ns, uint64_t token)
{
	struct uidgen_rules_req req = {
		.node_id = node,
		.new = floor_ms == LEASE_FLOOR_NEW,
		.floor_unix_ns = floor_ms == LEASE_FLOOR_NEW ? 0 : floor_ms * NS_PER_MS,
		.grant_unix_ns = grant_ms * NS_PER_MS,
		.deadline_boot_ns = deadline_ns,
		.token = token,
	};

	sim_clone_hook(d, 0);
	return sim_change(d, SIM_ASSIGN, &req);
}

/*
 * A test's stand-in for a pause between a keepalive and the renew after
 * it (SIGSTOP, a starved CPU): with UIDGEN_LEASE_SIM_PAUSE=MS@N, the Nth
 * renew sleeps MS ms before the device takes it.
 */
static void sim_pause_hook(void)
{
	const char *p = getenv("UIDGEN_LEASE_SIM_PAUSE");
	static unsigned long renews;
	unsigned long ms, nth;
	struct timespec ts;

	if (!p || sscanf(p, "%lu@%lu", &ms, &nth) != 2 || ++renews != nth)
		return;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000;
	fprintf(stderr, "uidgen-lease: device-sim: renew %lu paused for %lu ms\n", nth, ms);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int sim_renew(struct lease_dev *d, uint32_t node, uint64_t grant_ms,
		     uint64_t deadline_ns, uint64_t token)
{
	struct uidgen_rules_req req = {
		.node_id = node,
		.grant_unix_ns = grant_ms * NS_PER_MS,
		.deadline_boot_ns = deadline_ns,
		.token = token,
	};

	sim_pause_hook();
	sim_clone_hook(d, 1);
	return sim_change(d, SIM_RENEW, &req);
}

static int sim_revoke(struct lease_dev *d, uint64_t token)
{
	struct uidgen_rules_req req = {
		.node_id = UIDGEN_NODE_NONE,
		.token = token,
	};

	return sim_change(d, SIM_REVOKE, &req);
}

static const struct lease_dev_ops sim_ops = {
	.state = sim_state,
	.install = sim_install,
	.renew = sim_renew,
	.revoke = sim_revoke,
};

/* --- Opening one or the other, and the calls ------------------------------ */

static int kernel_open(struct lease_dev *d, const char *path)
{
	struct uidgen_info info = { .size = sizeof(info) };
	uint32_t fence;
	int e;

	d->ops = &kernel_ops;
	d->lockfd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->lockfd < 0)
		return -errno;
	e = lock_one(d->lockfd);
	if (e)
		return e;
	e = uidgen_open(&d->g, path);
	if (e)
		return e;
	/* A file that is not a 2.0 uidgen device (a module older than 2.0
	 * among them) answers no INFO: ENOTTY, which the caller explains. */
	e = uidgen_info(d->g, &info);
	if (e < 0)
		return e;
	/* The fence page: the agent's check for a VM fork during a claim. */
	if (uidgen_fence_gen(d->g, &fence)) {
		fprintf(stderr, "uidgen-lease: %s: no fence page (mmap): not a uidgen device\n",
			path);
		return -ENODEV;
	}
	return 0;
}

static int sim_open(struct lease_dev *d, const char *sim, uint32_t sim_node_bits,
		    uint64_t sim_epoch_ms, uint32_t sim_tick_us, const char *who)
{
	char logp[4096];
	FILE *f;
	int e;

	d->ops = &sim_ops;
	d->sim = strdup(sim);
	d->who = strdup(who);
	snprintf(logp, sizeof(logp), "%s.log", sim);
	d->logfd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (!d->sim || !d->who || d->logfd < 0)
		return -EIO;
	/* The lock is on the log: the state file is replaced on each save. */
	e = lock_one(d->logfd);
	if (e)
		return e;
	uidgen_rules_init(&d->r, sim_node_bits);
	d->layout.ts_bits = 63 - sim_node_bits - 5 - 12;
	d->layout.node_bits = sim_node_bits;
	d->layout.slot_bits = 5;
	d->layout.seq_bits = 12;
	d->layout.tick_us = sim_tick_us ? sim_tick_us : 1000;
	d->layout.epoch_ms = sim_epoch_ms ? sim_epoch_ms : LEASE_DEFAULT_EPOCH_MS;
	f = fopen(sim, "r");
	if (f) {
		unsigned long long t, fl, g, dl, mt, ep = 0;
		unsigned int nb, node, fence = 0;
		long long off = 0;
		int act, got;

		got = fscanf(f, "%u %d %u %llu %llu %llu %llu %llu %lld %llu %u", &nb, &act, &node,
			     &t, &fl, &g, &dl, &mt, &off, &ep, &fence);
		/* Another layout is another load: start afresh, as a reload. */
		if (got >= 8 && nb == sim_node_bits && (got < 10 || ep == d->layout.epoch_ms)) {
			d->clock_off_ms = got >= 9 ? off : 0;
			d->r.floor_unix_ns = fl * NS_PER_MS;
			d->r.max_token = mt;
			d->fence = fence;
			if (act && node < UIDGEN_NODE_NONE) {
				d->r.node = node;
				d->r.token = t;
				d->r.grant_unix_ns = g * NS_PER_MS;
				d->r.deadline_boot_ns = dl ? dl : UIDGEN_RULES_NO_DEADLINE;
			}
		}
		fclose(f);
	}
	return sim_save(d);
}

int lease_dev_open(struct lease_dev **dp, const char *path, const char *sim,
		   uint32_t sim_node_bits, uint64_t sim_epoch_ms, uint32_t sim_tick_us,
		   const char *who)
{
	struct lease_dev *d = calloc(1, sizeof(*d));
	int e;

	if (!d)
		return -ENOMEM;
	d->lockfd = -1;
	d->logfd = -1;
	e = sim ? sim_open(d, sim, sim_node_bits, sim_epoch_ms, sim_tick_us, who) :
		  kernel_open(d, path);
	if (e) {
		lease_dev_close(d);
		return e;
	}
	*dp = d;
	return 0;
}

void lease_dev_close(struct lease_dev *d)
{
	if (!d)
		return;
	uidgen_close(d->g);
	if (d->lockfd >= 0)
		close(d->lockfd);
	if (d->logfd >= 0)
		close(d->logfd);
	free(d->sim);
	free(d->who);
	free(d);
}

int lease_dev_state(struct lease_dev *d, struct lease_dev_state *st)
{
	return d->ops->state(d, st);
}

int lease_dev_install(struct lease_dev *d, uint32_t node, uint64_t floor_ms,
		      uint64_t grant_ms, uint64_t deadline_ns, uint64_t token)
{
	return d->ops->install(d, node, floor_ms, grant_ms, deadline_ns, token);
}

int lease_dev_renew(struct lease_dev *d, uint32_t node, uint64_t grant_ms,
		    uint64_t deadline_ns, uint64_t token)
{
	return d->ops->renew(d, node, grant_ms, deadline_ns, token);
}

int lease_dev_revoke(struct lease_dev *d, uint64_t token)
{
	return d->ops->revoke(d, token);
}
