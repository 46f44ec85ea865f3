/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uidgen-lease: the configuration (/etc/uidgen/lease.conf, then the
 * command line) and its defaults. Shared by uidgen-lease and
 * uidgen-cluster.
 */
#ifndef UIDGEN_LEASE_CONF_H
#define UIDGEN_LEASE_CONF_H

#include <stdint.h>

#define LEASE_CONF_DEFAULT "/etc/uidgen/lease.conf"
/* How many keys lease.conf has (conf.c's table) */
#define LEASE_CONF_NKEYS 21

struct lease_conf {
	char *endpoints;	/* comma-separated URLs */
	char *cluster;		/* keys live under /uidgen/<cluster>/ */
	char *cacert, *cert, *key;
	char *user, *password_file;
	char *password;		/* read from password_file */
	char *device;		/* /dev/uid */
	char *machine_id_file;	/* /etc/machine-id */
	char *machine_id;	/* its content, or given */
	char *boot_id_file;	/* /proc/sys/kernel/random/boot_id */
	char *sim;		/* --device-sim state file, or NULL */
	long sim_node_bits;
	long sim_epoch_ms;	/* the stand-in's epoch (0: uidgen's default) */
	long sim_tick_us;	/* the stand-in's tick (0: 1000) */
	long ttl_s;		/* lease TTL asked of etcd */
	long margin_ms;		/* taken off the kernel deadline */
	long rate_ppm;		/* clock-rate bound, parts per million */
	long grant_window_ms;	/* how far ahead of now grants reach; 0: 2/3 TTL */
	long timeout_ms;	/* per etcd request */
	long retry_ms;		/* wait between claim rounds when no ID is free */
	long clock_error_ms;	/* bound on any wall clock's error (P9's wait) */
	/* where each key was set ("FILE:LINE" or "-o"), NULL if not: named
	 * in what a check says */
	char *origin[LEASE_CONF_NKEYS];
};

void lease_conf_defaults(struct lease_conf *c);
/* Read FILE (key = value lines; # comments, at a line's start or after
 * a blank; a key given twice is an error); a missing file is an error
 * only if @must_exist. Returns 0 or -errno, with a message on stderr. */
int lease_conf_read(struct lease_conf *c, const char *file, int must_exist);
/* Set one key, set at @origin ("FILE:LINE" or "-o"); -EINVAL, said,
 * if unknown, quoted or out of range. */
int lease_conf_set(struct lease_conf *c, const char *key, const char *value,
		   const char *origin);
/* Fill machine_id and password; check every setting (endpoints are
 * http:// or https:// URLs, cert with key, the files readable, the
 * times against each other). Returns 0 or -errno, said. */
int lease_conf_finish(struct lease_conf *c);
/* read FILE, apply each "-o KEY=VALUE" in SETS, finish; prints as PROG */
int lease_conf_load(struct lease_conf *c, const char *file, int must_exist,
		    char **sets, int nsets, const char *prog);
struct etcd_conf;
/*
 * The etcd client's settings from @c: the endpoints split into an array
 * (free it with lease_conf_free_endpoints(ec->endpoints)) and the TLS,
 * user and timeout settings. Returns 0, or -errno after saying what is
 * wrong as PROG.
 */
int lease_conf_etcd(const struct lease_conf *c, struct etcd_conf *ec,
		    const char *prog);
void lease_conf_free_endpoints(char **arr);

struct option;
/*
 * A bad option, from getopt_long() with opterr 0 and an optstring that
 * starts with ':' (@opt is its '?' or ':'): one line saying what is wrong,
 * and where help is, on stderr as PROG. Returns 2, the exit status.
 */
int lease_usage_error(const char *prog, int opt, char **argv, const struct option *opts);
/* An argument where none is taken: said as PROG; returns 2. */
int lease_stray_argument(const char *prog, const char *arg);

#endif
