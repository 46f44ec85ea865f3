// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen-lease: the device backends (see dev.h). The kernel backend is a
 * thin wrapper of UIDGEN_IOC_SET_NODE / UIDGEN_IOC_INFO. The stand-in
 * implements the rules of UIDGEN_IOC_SET_NODE (uapi 1.4) in userspace: one
 * node in force, assignment needs NEW or FLOOR, tokens only rise, a
 * deadline revokes by itself, RENEW/REVOKE with a token must match.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/uidgen.h>
#include "dev.h"
#include "etcd.h"

struct lease_dev {
	int fd;			/* /dev/uid, or -1 for the stand-in */
	/* the stand-in */
	char *sim;		/* state file */
	int logfd;		/* its event log, sim + ".log" */
	char *who;
	uint64_t max_token;	/* highest token seen ("this load") */
	struct lease_dev_state st;
};

static int sim_save(struct lease_dev *d)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", d->sim);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "%u %d %u %llu %llu %llu %llu %llu\n", d->st.node_bits, d->st.active,
		d->st.node, (unsigned long long)d->st.token,
		(unsigned long long)d->st.floor_ms, (unsigned long long)d->st.grant_ms,
		(unsigned long long)d->st.deadline_ns, (unsigned long long)d->max_token);
	if (fclose(f) || rename(tmp, d->sim))
		return -errno;
	return 0;
}

/* One line per change, appended in one write(): "TIME_NS EVENT node=N
 * token=T deadline=NS who=AGENT"; TIME_NS is CLOCK_BOOTTIME, for
 * "expire" the deadline itself. */
static void sim_log(struct lease_dev *d, uint64_t t, const char *ev)
{
	char line[512];
	int n;

	n = snprintf(line, sizeof(line), "%llu %s node=%u token=%llu floor=%llu grant=%llu deadline=%llu who=%s\n",
		     (unsigned long long)t, ev, d->st.node, (unsigned long long)d->st.token,
		     (unsigned long long)d->st.floor_ms, (unsigned long long)d->st.grant_ms,
		     (unsigned long long)d->st.deadline_ns, d->who);
	if (write(d->logfd, line, (size_t)n) != n)
		perror("uidgen-lease: device-sim log");
}

/* The kernel revokes at the deadline by itself: so does the stand-in,
 * on its next use, logging the deadline as the time. It also revokes, as
 * the kernel does on a VM fork or snapshot restore, when a file
 * <state>.fork appears (a test's stand-in for the fork: the agent keeps
 * its lease and token, the device does not). */
static void sim_expire(struct lease_dev *d)
{
	char fork[4096];

	snprintf(fork, sizeof(fork), "%s.fork", d->sim);
	if (!unlink(fork) && d->st.active) {
		sim_log(d, etcd_boottime_ns(), "fork");
		d->st.active = 0;
		sim_save(d);
	}
	if (d->st.active && d->st.deadline_ns && etcd_boottime_ns() >= d->st.deadline_ns) {
		sim_log(d, d->st.deadline_ns, "expire");
		d->st.active = 0;
		sim_save(d);
	}
}

int lease_dev_open(struct lease_dev **dp, const char *path, const char *sim,
		   uint32_t sim_node_bits, const char *who)
{
	struct lease_dev *d = calloc(1, sizeof(*d));
	char logp[4096];
	FILE *f;

	if (!d)
		return -ENOMEM;
	d->fd = -1;
	d->logfd = -1;
	if (!sim) {
		d->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (d->fd < 0) {
			int e = -errno;

			free(d);
			return e;
		}
		*dp = d;
		return 0;
	}
	d->sim = strdup(sim);
	d->who = strdup(who);
	snprintf(logp, sizeof(logp), "%s.log", sim);
	d->logfd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (!d->sim || !d->who || d->logfd < 0) {
		lease_dev_close(d);
		return -EIO;
	}
	d->st.node_bits = sim_node_bits;
	f = fopen(sim, "r");
	if (f) {
		unsigned long long t, fl, g, dl, mt;
		unsigned int nb, node;
		int act;

		if (fscanf(f, "%u %d %u %llu %llu %llu %llu %llu", &nb, &act, &node,
			   &t, &fl, &g, &dl, &mt) == 8 && nb == sim_node_bits) {
			d->st.active = act;
			d->st.node = node;
			d->st.token = t;
			d->st.floor_ms = fl;
			d->st.grant_ms = g;
			d->st.deadline_ns = dl;
			d->max_token = mt;
		}
		fclose(f);
	}
	*dp = d;
	return sim_save(d);
}

void lease_dev_close(struct lease_dev *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	if (d->logfd >= 0)
		close(d->logfd);
	free(d->sim);
	free(d->who);
	free(d);
}

int lease_dev_state(struct lease_dev *d, struct lease_dev_state *st)
{
	struct uidgen_info info = { .size = sizeof(info) };

	if (d->fd < 0) {
		sim_expire(d);
		*st = d->st;
		return 0;
	}
	if (ioctl(d->fd, UIDGEN_IOC_INFO, &info) < 0)
		return -errno;
	memset(st, 0, sizeof(*st));
	st->node_bits = info.node_bits;
	if (info.size < UIDGEN_INFO_SIZE_VER1) {
		/* a module older than 1.4: no node life to guard */
		return -EOPNOTSUPP;
	}
	st->active = info.node_state == UIDGEN_NODE_STATE_ACTIVE;
	st->node = info.node_id;
	st->token = info.token;
	st->floor_ms = info.floor_ms;
	st->grant_ms = info.grant_ms;
	st->deadline_ns = info.deadline_ns;
	return 0;
}

static int set_node(struct lease_dev *d, struct uidgen_node *n)
{
	return ioctl(d->fd, UIDGEN_IOC_SET_NODE, n) < 0 ? -errno : 0;
}

int lease_dev_install(struct lease_dev *d, uint32_t node, uint64_t floor_ms,
		      uint64_t grant_ms, uint64_t deadline_ns, uint64_t token)
{
	struct uidgen_node n = {
		.size = sizeof(n),
		.flags = floor_ms == LEASE_FLOOR_NEW ? UIDGEN_NODE_NEW : UIDGEN_NODE_FLOOR,
		.node_id = node,
		.floor_ms = floor_ms == LEASE_FLOOR_NEW ? 0 : floor_ms,
		.grant_ms = grant_ms,
		.deadline_ns = deadline_ns,
		.token = token,
	};

	if (d->fd >= 0)
		return set_node(d, &n);
	sim_expire(d);
	if (node >= 1U << d->st.node_bits)
		return -ERANGE;
	if (d->st.active && d->st.node != node)
		return -EBUSY;
	if (token < d->max_token)
		return -ESTALE;
	if (deadline_ns && deadline_ns <= etcd_boottime_ns())
		return -ETIME;
	d->st.active = 1;
	d->st.node = node;
	d->st.token = token;
	d->st.floor_ms = n.floor_ms;
	if (grant_ms > d->st.grant_ms || !d->st.grant_ms)
		d->st.grant_ms = grant_ms;
	d->st.deadline_ns = deadline_ns;
	d->max_token = token;
	sim_log(d, etcd_boottime_ns(), "install");
	return sim_save(d);
}

int lease_dev_renew(struct lease_dev *d, uint32_t node, uint64_t grant_ms,
		    uint64_t deadline_ns, uint64_t token)
{
	struct uidgen_node n = {
		.size = sizeof(n),
		.flags = UIDGEN_NODE_RENEW,
		.node_id = node,
		.grant_ms = grant_ms,
		.deadline_ns = deadline_ns,
		.token = token,
	};

	if (d->fd >= 0)
		return set_node(d, &n);
	sim_expire(d);
	if (!d->st.active)
		return -EADDRNOTAVAIL;
	if (node != d->st.node || (token && token != d->st.token))
		return -ESTALE;
	if (deadline_ns && deadline_ns <= etcd_boottime_ns())
		return -ETIME;
	if (grant_ms > d->st.grant_ms)
		d->st.grant_ms = grant_ms;
	if (deadline_ns)
		d->st.deadline_ns = deadline_ns;
	sim_log(d, etcd_boottime_ns(), "renew");
	return sim_save(d);
}

int lease_dev_revoke(struct lease_dev *d, uint64_t token)
{
	struct uidgen_node n = {
		.size = sizeof(n),
		.flags = UIDGEN_NODE_REVOKE,
		.node_id = UIDGEN_NODE_NONE,
		.token = token,
	};

	if (d->fd >= 0)
		return set_node(d, &n);
	sim_expire(d);
	/* as the kernel: a token must be the one in force, even if none is */
	if (token && (!d->st.active || token != d->st.token))
		return -ESTALE;
	if (!d->st.active)
		return 0;
	d->st.active = 0;
	sim_log(d, etcd_boottime_ns(), "revoke");
	return sim_save(d);
}
