// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen-lease: reading the configuration (see conf.h and
 * uidgen-lease(8) for what each key means).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "conf.h"
#include "etcd.h"

/* Who says what is wrong: lease_conf_load()'s @prog. */
static const char *conf_prog = "uidgen-lease";

void lease_conf_defaults(struct lease_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->cluster = strdup("default");
	c->device = strdup("/dev/uid");
	c->machine_id_file = strdup("/etc/machine-id");
	c->boot_id_file = strdup("/proc/sys/kernel/random/boot_id");
	c->sim_node_bits = 10;
	c->ttl_s = 10;
	c->margin_ms = 1000;
	c->rate_ppm = 1000;
	c->timeout_ms = 2000;
	c->retry_ms = 1000;
	c->clock_error_ms = 500;
}

static int set_str(char **p, const char *v)
{
	free(*p);
	*p = *v ? strdup(v) : NULL;
	return 0;
}

static int set_long(long *p, const char *key, const char *v, long min, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < min || n > max) {
		fprintf(stderr, "%s: %s = %s: not a number from %ld to %ld\n", conf_prog,
			key, v, min, max);
		return -EINVAL;
	}
	*p = n;
	return 0;
}

int lease_conf_set(struct lease_conf *c, const char *k, const char *v)
{
	static const struct {
		const char *name;
		size_t off;
	} strs[] = {
#define S(f) { #f, offsetof(struct lease_conf, f) }
		S(endpoints), S(cluster), S(cacert), S(cert), S(key), S(user),
		S(password_file), S(device), S(machine_id_file), S(machine_id),
		S(boot_id_file),
#undef S
	};
	size_t i;

	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (!strcmp(k, strs[i].name))
			return set_str((char **)((char *)c + strs[i].off), v);
	if (!strcmp(k, "ttl"))
		return set_long(&c->ttl_s, k, v, 2, 3600);
	if (!strcmp(k, "margin_ms"))
		return set_long(&c->margin_ms, k, v, 0, 3600000);
	if (!strcmp(k, "rate_ppm"))
		return set_long(&c->rate_ppm, k, v, 0, 500000);
	if (!strcmp(k, "grant_window_ms"))
		return set_long(&c->grant_window_ms, k, v, 0, 86400000);
	if (!strcmp(k, "clock_error_ms")) {
		/* How far any machine's wall clock may be off the true time:
		 * a fresh claim waits grant_window_ms + 2 x this (P9). 0 would
		 * trust every clock exactly; over a minute, fix the clock. */
		if (set_long(&c->clock_error_ms, k, v, 1, 60000)) {
			fprintf(stderr, "%s: clock_error_ms bounds how far any machine's wall clock may be off the true time (NTP: tens of ms); a fresh claim waits grant_window_ms + 2 x clock_error_ms before it issues; use 1 to 60000 (default 500)\n",
				conf_prog);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(k, "timeout_ms"))
		return set_long(&c->timeout_ms, k, v, 50, 600000);
	if (!strcmp(k, "retry_ms"))
		return set_long(&c->retry_ms, k, v, 10, 3600000);
	if (!strcmp(k, "sim_node_bits"))
		return set_long(&c->sim_node_bits, k, v, 0, 30);
	if (!strcmp(k, "sim_epoch_ms"))
		return set_long(&c->sim_epoch_ms, k, v, 0, 4000000000000L);
	if (!strcmp(k, "sim_tick_us"))
		return set_long(&c->sim_tick_us, k, v, 0, 1000000);
	fprintf(stderr, "%s: unknown setting '%s'\n", conf_prog, k);
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int lease_conf_read(struct lease_conf *c, const char *file, int must_exist)
{
	char line[4096];
	int lineno = 0, r = 0;
	FILE *f = fopen(file, "r");

	if (!f) {
		if (errno == ENOENT && !must_exist)
			return 0;
		r = -errno;
		fprintf(stderr, "%s: %s: %s%s\n", conf_prog, file, strerror(errno),
			r == -ENOENT ? ": give the file you made; start from lease.conf.example (/usr/share/doc/uidgen-tools/examples/ from the package, /usr/local/share/doc/uidgen from make install, etc/ in the source; uidgen-lease(8))" : "");
		return r;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *eq;

		lineno++;
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			fprintf(stderr, "%s: %s:%d: not 'key = value'\n", conf_prog, file, lineno);
			r = -EINVAL;
			break;
		}
		*eq = 0;
		r = lease_conf_set(c, trim(s), trim(eq + 1));
		if (r) {
			fprintf(stderr, "%s: in %s:%d\n", conf_prog, file, lineno);
			break;
		}
	}
	/* A read that failed part way (EIO, or EINTR from a stop signal)
	 * is no configuration: never run on the lines before it. */
	if (!r && ferror(f)) {
		r = errno ? -errno : -EIO;
		fprintf(stderr, "%s: %s: %s\n", conf_prog, file, strerror(-r));
	}
	fclose(f);
	return r;
}

static char *read_line(const char *file)
{
	char buf[512];
	FILE *f = fopen(file, "r");

	if (!f)
		return NULL;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strdup(trim(buf));
}

int lease_conf_finish(struct lease_conf *c)
{
	const char *p;

	if (!c->endpoints || !*c->endpoints) {
		fprintf(stderr, "%s: no etcd endpoints: set endpoints = URL[,URL...] in %s (see lease.conf.example in the package's docs) or give -o endpoints=URL\n", conf_prog,
			LEASE_CONF_DEFAULT);
		return -EINVAL;
	}
	if (!c->cluster || !*c->cluster) {
		fprintf(stderr, "%s: cluster must be set (the name under /uidgen/ that machines sharing a layout share)\n", conf_prog);
		return -EINVAL;
	}
	for (p = c->cluster; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p)) {
			fprintf(stderr, "%s: cluster '%s': only letters, digits, - _ .\n", conf_prog,
				c->cluster);
			return -EINVAL;
		}
	if (!c->machine_id) {
		c->machine_id = read_line(c->machine_id_file);
		if (!c->machine_id || !*c->machine_id) {
			fprintf(stderr, "%s: %s: cannot read the machine ID: %s\n", conf_prog,
				c->machine_id_file, c->machine_id ? "empty" : strerror(errno));
			return -ENOENT;
		}
	}
	for (p = c->machine_id; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p)) {
			fprintf(stderr, "%s: machine ID '%s': only letters, digits, - _ .\n", conf_prog,
				c->machine_id);
			return -EINVAL;
		}
	if (c->user) {
		if (!c->password_file) {
			fprintf(stderr, "%s: user is set but password_file is not\n", conf_prog);
			return -EINVAL;
		}
		c->password = read_line(c->password_file);
		if (!c->password) {
			fprintf(stderr, "%s: %s: %s\n", conf_prog, c->password_file, strerror(errno));
			return -errno;
		}
	}
	/* The deadline is TTL x (1 - rate) - margin after a keepalive: it
	 * must come after it. */
	if (c->margin_ms >= c->ttl_s * (1000000 - c->rate_ppm) / 1000) {
		fprintf(stderr, "%s: margin_ms %ld is not below TTL x (1 - rate_ppm) = %ld ms (ttl %ld s, rate_ppm %ld): the deadline would come before the keepalive\n", conf_prog,
			c->margin_ms, c->ttl_s * (1000000 - c->rate_ppm) / 1000, c->ttl_s, c->rate_ppm);
		return -EINVAL;
	}
	/* The deadline must leave time to renew in: see uidgen-lease(8). */
	if (c->margin_ms >= c->ttl_s * 1000 * 2 / 3) {
		fprintf(stderr, "%s: margin_ms %ld leaves no time to renew in a %ld s TTL (keep it below 2/3 of it)\n", conf_prog,
			c->margin_ms, c->ttl_s);
		return -EINVAL;
	}
	if (!c->grant_window_ms) {
		c->grant_window_ms = c->ttl_s * 2000 / 3;
		if (c->grant_window_ms < c->ttl_s * 1000 / 3 + c->timeout_ms)
			c->grant_window_ms = c->ttl_s * 1000 / 3 + c->timeout_ms;
	}
	/* Grants are raised once a renewal round (TTL/3, plus a request's
	 * timeout when a member is slow): a shorter window leaves callers
	 * waiting at the grant between rounds with every clock right. */
	if (c->grant_window_ms < c->ttl_s * 1000 / 3 + c->timeout_ms) {
		fprintf(stderr, "%s: grant_window_ms %ld is shorter than a renewal round (ttl/3 + timeout_ms = %ld ms): callers would wait at the grant between rounds; use at least %ld, or 0 for the default (2/3 TTL = %ld ms)\n", conf_prog,
			c->grant_window_ms, c->ttl_s * 1000 / 3 + c->timeout_ms,
			c->ttl_s * 1000 / 3 + c->timeout_ms, c->ttl_s * 2000 / 3);
		return -EINVAL;
	}
	/* A crash leaves the last grant as the floor, and the ID is free again
	 * a TTL after the last keepalive: a window longer than the TTL would
	 * start every such successor further ahead (a ratchet). */
	if (c->grant_window_ms > c->ttl_s * 1000) {
		fprintf(stderr, "%s: grant_window_ms %ld is longer than the TTL (%ld ms): each crash hand-over would start the next holder's ID clock further ahead; use at most %ld%s\n", conf_prog,
			c->grant_window_ms, c->ttl_s * 1000, c->ttl_s * 1000,
			c->ttl_s * 1000 / 3 + c->timeout_ms > c->ttl_s * 1000 ?
			" (and a timeout_ms of at most 2/3 of the TTL, so that a renewal round fits)" : "");
		return -EINVAL;
	}
	/* Something must cover what the deadline's formula does not model
	 * (the timer's slack, the server's 500 ms expiry check). */
	if (c->margin_ms < 100) {
		fprintf(stderr, "%s: margin_ms %ld leaves the kernel's deadline no room before etcd may expire the lease (timer slack, a paused VM): use at least 100 (default 1000)\n", conf_prog,
			c->margin_ms);
		return -EINVAL;
	}
	return 0;
}

/*
 * The whole of a command line's configuration: the file, then every
 * -o KEY=VALUE over it, then the checks. 0, or -1 with the reason printed.
 */
int lease_conf_load(struct lease_conf *c, const char *file, int must_exist,
		    char **sets, int nsets, const char *prog)
{
	int i;

	conf_prog = prog;
	if (lease_conf_read(c, file, must_exist))
		return -1;
	for (i = 0; i < nsets; i++) {
		char *eq = strchr(sets[i], '=');

		if (!eq) {
			fprintf(stderr, "%s: -o %s: not KEY=VALUE\n", prog, sets[i]);
			return -1;
		}
		*eq = 0;
		if (lease_conf_set(c, sets[i], eq + 1))
			return -1;
	}
	return lease_conf_finish(c) ? -1 : 0;
}

/* Split endpoints into a NULL-terminated array; returns how many. */
static int split_endpoints(const struct lease_conf *c, char ***arr)
{
	char *s = strdup(c->endpoints), *tok, *save = NULL;
	char **a = calloc(strlen(c->endpoints) / 2 + 2, sizeof(*a));
	int n = 0;

	if (!s || !a) {
		free(s);
		free(a);
		return -ENOMEM;
	}
	for (tok = strtok_r(s, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		size_t len = strlen(tok);

		while (len && tok[len - 1] == '/')
			tok[--len] = 0;
		a[n] = strdup(tok);
		if (!a[n++]) {
			n = -ENOMEM;
			break;
		}
	}
	free(s);
	if (n <= 0) {
		lease_conf_free_endpoints(a);
		return n ? n : -EINVAL;
	}
	*arr = a;
	return n;
}

int lease_conf_etcd(const struct lease_conf *c, struct etcd_conf *ec,
		    const char *prog)
{
	int n = split_endpoints(c, &ec->endpoints);

	if (n < 0) {
		if (n == -EINVAL)
			fprintf(stderr, "%s: endpoints '%s': no URL\n", prog, c->endpoints);
		else
			fprintf(stderr, "%s: endpoints: %s\n", prog, strerror(-n));
		return n;
	}
	ec->nr_endpoints = n;
	ec->cacert = c->cacert;
	ec->cert = c->cert;
	ec->key = c->key;
	ec->user = c->user;
	ec->password = c->password;
	ec->timeout_ms = c->timeout_ms;
	return 0;
}

void lease_conf_free_endpoints(char **arr)
{
	char **p;

	for (p = arr; p && *p; p++)
		free(*p);
	free(arr);
}
