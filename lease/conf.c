// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen-lease: reading the configuration and checking every setting
 * at start (see conf.h and uidgen-lease(8) for what each key means): a
 * bad one is "PROG: FILE:LINE: what is wrong: what to do" (or "-o: ..."
 * for a command line's), and the caller exits 2. And what both commands
 * say of a bad option (lease_usage_error()).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "conf.h"
#include "etcd.h"

/* Who says what is wrong: lease_conf_load()'s @prog. */
static const char *conf_prog = "uidgen-lease";

/* Every key: a string, or a number from min to max. Its index is its
 * slot in lease_conf's origin[]. */
static const struct conf_key {
	const char *name;
	int is_long;
	size_t off;
	long min, max;
} keys[] = {
#define S(f) { #f, 0, offsetof(struct lease_conf, f), 0, 0 }
#define N(n, f, lo, hi) { n, 1, offsetof(struct lease_conf, f), lo, hi }
	S(endpoints), S(cluster), S(cacert), S(cert), S(key), S(user),
	S(password_file), S(device), S(machine_id_file), S(machine_id),
	S(boot_id_file),
	N("ttl", ttl_s, 2, 3600),
	N("margin_ms", margin_ms, 0, 3600000),
	N("rate_ppm", rate_ppm, 0, 500000),
	N("grant_window_ms", grant_window_ms, 0, 86400000),
	/* How far any machine's wall clock may be off the true time: a
	 * fresh claim waits grant_window_ms + 2 x this (P9). 0 would trust
	 * every clock exactly; over a minute, fix the clock. */
	N("clock_error_ms", clock_error_ms, 1, 60000),
	N("timeout_ms", timeout_ms, 50, 600000),
	N("retry_ms", retry_ms, 10, 3600000),
	N("sim_node_bits", sim_node_bits, 0, 30),
	N("sim_epoch_ms", sim_epoch_ms, 0, 4000000000000L),
	N("sim_tick_us", sim_tick_us, 0, 1000000),
#undef S
#undef N
};

_Static_assert(sizeof(keys) / sizeof(keys[0]) == LEASE_CONF_NKEYS,
	       "LEASE_CONF_NKEYS is the number of keys");

static int key_index(const char *k)
{
	int i;

	for (i = 0; i < LEASE_CONF_NKEYS; i++)
		if (!strcmp(k, keys[i].name))
			return i;
	return -1;
}

/* Where @k was set ("FILE:LINE" or "-o"), or NULL for its default. */
static const char *origin_of(const struct lease_conf *c, const char *k)
{
	int i = key_index(k);

	return i < 0 ? NULL : c->origin[i];
}

/* The first of two keys that was set, for a check of both. */
static const char *origin_of2(const struct lease_conf *c, const char *k1, const char *k2)
{
	return origin_of(c, k1) ? origin_of(c, k1) : origin_of(c, k2);
}

/* "PROG: ORIGIN: message" (no ORIGIN for a default). */
__attribute__((format(printf, 2, 3)))
static void say(const char *origin, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", conf_prog);
	if (origin)
		fprintf(stderr, "%s: ", origin);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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

int lease_conf_set(struct lease_conf *c, const char *k, const char *v, const char *origin)
{
	const struct conf_key *key;
	int i = key_index(k);

	if (i < 0) {
		say(origin, "unknown setting '%s': the keys are uidgen-lease(8)'s (CONFIGURATION)", k);
		return -EINVAL;
	}
	key = &keys[i];
	/* "value" or 'value': the quotes would be part of it. */
	if (*v == '"' || *v == '\'') {
		size_t len = strlen(v + 1);

		if (len && v[len] == *v)
			len--;
		say(origin, "%s: a value takes no quotes: write %s = %.*s", k, k, (int)len, v + 1);
		return -EINVAL;
	}
	if (key->is_long) {
		char *end;
		long n;

		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || end == v || *end || n < key->min || n > key->max) {
			say(origin, "%s = %s: not a number from %ld to %ld", k, v, key->min, key->max);
			if (!strcmp(k, "clock_error_ms"))
				fprintf(stderr, "%s: clock_error_ms bounds how far any machine's wall clock may be off the true time (NTP: tens of ms); a fresh claim waits grant_window_ms + 2 x clock_error_ms before it issues; use 1 to 60000 (default 500)\n",
					conf_prog);
			return -EINVAL;
		}
		*(long *)((char *)c + key->off) = n;
	} else {
		char **p = (char **)((char *)c + key->off);

		free(*p);
		*p = *v ? strdup(v) : NULL;
	}
	free(c->origin[i]);
	c->origin[i] = origin ? strdup(origin) : NULL;
	return 0;
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

/* A comment: '#' at the start of a line, or after a blank (a value of
 * its own never holds " #"). */
static void strip_comment(char *s)
{
	char *h;

	for (h = s; (h = strchr(h, '#')); h++)
		if (h == s || h[-1] == ' ' || h[-1] == '\t') {
			*h = 0;
			return;
		}
}

int lease_conf_read(struct lease_conf *c, const char *file, int must_exist)
{
	char line[4096], where[4200];
	int lineno = 0, r = 0, seen[LEASE_CONF_NKEYS] = { 0 };
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
		char *s, *eq, *k;
		int i;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", file, lineno);
		strip_comment(line);
		s = trim(line);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			say(where, "not 'key = value'");
			r = -EINVAL;
			break;
		}
		*eq = 0;
		k = trim(s);
		i = key_index(k);
		if (i >= 0 && seen[i]) {
			say(where, "%s given twice (first on line %d): give it once", k, seen[i]);
			r = -EINVAL;
			break;
		}
		r = lease_conf_set(c, k, trim(eq + 1), where);
		if (r)
			break;
		seen[i] = lineno;
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

/* Each endpoint an http:// or https:// URL with a host; 0 or -EINVAL
 * after saying which is not. */
static int check_endpoints(const struct lease_conf *c)
{
	char *s = strdup(c->endpoints), *tok, *save = NULL;
	int n = 0, r = 0;

	if (!s)
		return -ENOMEM;
	for (tok = strtok_r(s, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		const char *host = !strncmp(tok, "http://", 7) ? tok + 7 :
				   !strncmp(tok, "https://", 8) ? tok + 8 : NULL;

		n++;
		if (!host || !*host || *host == '/') {
			say(origin_of(c, "endpoints"),
			    "endpoints: '%s' is not an http:// or https:// URL: give etcd's client URLs, comma-separated (http://HOST:2379)",
			    tok);
			r = -EINVAL;
			break;
		}
	}
	if (!r && !n) {
		say(origin_of(c, "endpoints"),
		    "endpoints '%s': no URL: give etcd's client URLs, comma-separated (http://HOST:2379)",
		    c->endpoints);
		r = -EINVAL;
	}
	free(s);
	return r;
}

/* @k's file, if set, can be read; else say so, and what it is for. */
static int check_file(const struct lease_conf *c, const char *k, const char *path,
		      const char *what)
{
	FILE *f;

	if (!path)
		return 0;
	f = fopen(path, "r");
	if (!f) {
		int e = errno;

		say(origin_of(c, k), "%s %s: %s: give %s", k, path, strerror(e), what);
		return -e;
	}
	fclose(f);
	return 0;
}

int lease_conf_finish(struct lease_conf *c)
{
	const char *p;
	int r;

	if (!c->endpoints || !*c->endpoints) {
		fprintf(stderr, "%s: no etcd endpoints: set endpoints = URL[,URL...] in %s (see lease.conf.example in the package's docs) or give -o endpoints=URL\n", conf_prog,
			LEASE_CONF_DEFAULT);
		return -EINVAL;
	}
	r = check_endpoints(c);
	if (r)
		return r;
	if (!c->cluster || !*c->cluster) {
		say(origin_of(c, "cluster"), "cluster must be set (the name under /uidgen/ that machines sharing a layout share)");
		return -EINVAL;
	}
	for (p = c->cluster; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p)) {
			say(origin_of(c, "cluster"), "cluster '%s': only letters, digits, - _ .",
			    c->cluster);
			return -EINVAL;
		}
	if (c->cert && !c->key) {
		say(origin_of(c, "cert"), "cert is set but key is not: give the client certificate's private key too (key = FILE)");
		return -EINVAL;
	}
	if (c->key && !c->cert) {
		say(origin_of(c, "key"), "key is set but cert is not: give the client certificate too (cert = FILE)");
		return -EINVAL;
	}
	r = check_file(c, "cacert", c->cacert,
		       "the PEM file of the CA that signed etcd's server certificates");
	if (!r)
		r = check_file(c, "cert", c->cert, "this machine's client certificate (PEM)");
	if (!r)
		r = check_file(c, "key", c->key, "the client certificate's private key (PEM)");
	if (r)
		return r;
	if (c->password_file && !c->user) {
		say(origin_of(c, "password_file"), "password_file is set but user is not: give the etcd user too (user = NAME)");
		return -EINVAL;
	}
	if (!c->machine_id) {
		c->machine_id = read_line(c->machine_id_file);
		if (!c->machine_id || !*c->machine_id) {
			say(origin_of(c, "machine_id_file"), "%s: cannot read the machine ID: %s",
			    c->machine_id_file, c->machine_id ? "empty" : strerror(errno));
			return -ENOENT;
		}
	}
	for (p = c->machine_id; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p)) {
			say(origin_of(c, "machine_id"), "machine ID '%s': only letters, digits, - _ .",
			    c->machine_id);
			return -EINVAL;
		}
	if (c->user) {
		if (!c->password_file) {
			say(origin_of(c, "user"), "user is set but password_file is not: give the file holding its password (password_file = FILE)");
			return -EINVAL;
		}
		c->password = read_line(c->password_file);
		if (!c->password) {
			r = -errno;
			say(origin_of(c, "password_file"), "%s: %s", c->password_file, strerror(-r));
			return r;
		}
	}
	/* The deadline is TTL x (1 - rate) - margin after a keepalive: it
	 * must come after it. */
	if (c->margin_ms >= c->ttl_s * (1000000 - c->rate_ppm) / 1000) {
		say(origin_of2(c, "margin_ms", "ttl") ? origin_of2(c, "margin_ms", "ttl") :
		    origin_of(c, "rate_ppm"),
		    "margin_ms %ld is not below TTL x (1 - rate_ppm) = %ld ms (ttl %ld s, rate_ppm %ld): the deadline would come before the keepalive",
		    c->margin_ms, c->ttl_s * (1000000 - c->rate_ppm) / 1000, c->ttl_s, c->rate_ppm);
		return -EINVAL;
	}
	/* The deadline must leave time to renew in: see uidgen-lease(8). */
	if (c->margin_ms >= c->ttl_s * 1000 * 2 / 3) {
		say(origin_of2(c, "margin_ms", "ttl"),
		    "margin_ms %ld leaves no time to renew in a %ld s TTL (keep it below 2/3 of it)",
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
		say(origin_of2(c, "grant_window_ms", "timeout_ms") ?
		    origin_of2(c, "grant_window_ms", "timeout_ms") : origin_of(c, "ttl"),
		    "grant_window_ms %ld is shorter than a renewal round (ttl/3 + timeout_ms = %ld ms): callers would wait at the grant between rounds; use at least %ld, or 0 for the default (2/3 TTL = %ld ms)",
		    c->grant_window_ms, c->ttl_s * 1000 / 3 + c->timeout_ms,
		    c->ttl_s * 1000 / 3 + c->timeout_ms, c->ttl_s * 2000 / 3);
		return -EINVAL;
	}
	/* A crash leaves the last grant as the floor, and the ID is free again
	 * a TTL after the last keepalive: a window longer than the TTL would
	 * start every such successor further ahead (a ratchet). */
	if (c->grant_window_ms > c->ttl_s * 1000) {
		say(origin_of2(c, "grant_window_ms", "timeout_ms") ?
		    origin_of2(c, "grant_window_ms", "timeout_ms") : origin_of(c, "ttl"),
		    "grant_window_ms %ld is longer than the TTL (%ld ms): each crash hand-over would start the next holder's ID clock further ahead; use at most %ld%s",
		    c->grant_window_ms, c->ttl_s * 1000, c->ttl_s * 1000,
		    c->ttl_s * 1000 / 3 + c->timeout_ms > c->ttl_s * 1000 ?
		    " (and a timeout_ms of at most 2/3 of the TTL, so that a renewal round fits)" : "");
		return -EINVAL;
	}
	/* Something must cover what the deadline's formula does not model
	 * (the timer's slack, the server's 500 ms expiry check). */
	if (c->margin_ms < 100) {
		say(origin_of(c, "margin_ms"),
		    "margin_ms %ld leaves the kernel's deadline no room before etcd may expire the lease (timer slack, a paused VM): use at least 100 (default 1000)",
		    c->margin_ms);
		return -EINVAL;
	}
	return 0;
}

/*
 * The whole of a command line's configuration: the file, then every
 * -o KEY=VALUE over it (a later -o over an earlier one), then the checks.
 * 0, or -1 with the reason printed.
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
		if (lease_conf_set(c, sets[i], eq + 1, "-o"))
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

int lease_usage_error(const char *prog, int opt, char **argv, const struct option *opts)
{
	const char *arg = argv[optind - 1];
	size_t len = strcspn(arg, "=");
	const struct option *o;

	if (opt == ':') {
		fprintf(stderr, "%s: option '%s' needs a value\n", prog, arg);
	} else if (!strncmp(arg, "--", 2) && arg[len] == '=') {
		/* --name=value: a known option that takes none, or no option */
		for (o = opts; o->name; o++)
			if (o->has_arg == no_argument && len > 2 && !strncmp(o->name, arg + 2, len - 2))
				break;
		if (o->name)
			fprintf(stderr, "%s: option '--%s' takes no value\n", prog, o->name);
		else
			fprintf(stderr, "%s: unknown option '%.*s'\n", prog, (int)len, arg);
	} else if (!strncmp(arg, "--", 2)) {
		fprintf(stderr, "%s: unknown option '%s'\n", prog, arg);
	} else {
		fprintf(stderr, "%s: unknown option '-%c'\n", prog, optopt);
	}
	fprintf(stderr, "Try '%s --help'.\n", prog);
	return 2;
}

int lease_stray_argument(const char *prog, const char *arg)
{
	fprintf(stderr, "%s: unexpected argument '%s'\nTry '%s --help'.\n", prog, arg, prog);
	return 2;
}
