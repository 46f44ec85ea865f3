/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the uidgen CLI's two parts share: uidgen.c (the commands, their
 * options and messages, the node calls) and persist.c (the state file and
 * the persister behind "uidgen state save/restore/keep"). Not installed.
 */
#ifndef UIDGEN_CLI_H
#define UIDGEN_CLI_H

#include <stdint.h>

#include "uidgen.h"

/* The CLI's times are Unix ms (state files, output); the uapi's ns. */
#define NS_PER_MS	1000000ULL

/* The most --ahead-ms and --every-ms take: a day. */
#define AHEAD_MS_MAX	86400000ULL

#define SYSFS_PARAM	"/sys/module/uidgen/parameters/"
#define SYSFS_DEV	"/sys/class/misc/uid/"
#define DEBUGFS_SLOTS	"/sys/kernel/debug/uidgen/slots"

extern const char *prog;

/* uidgen.c: messages that name the next step, and the node calls. */
int fail(int err, const char *what);
int fail_node(int err, const char *what, uint32_t node);
void say_not_loaded(void);
int module_loaded(void);
int parse_dec(const char *s, unsigned long long max, unsigned long long *v);
int read_u64(const char *path, unsigned long long *v);
struct uidgen *node_dev_open(const char *dev);
int node_info(struct uidgen *g, struct uidgen_info *info);
int node_assign(struct uidgen *g, uint32_t node, int is_new,
		unsigned long long floor_ms, unsigned long long grant_ms);
int node_renew(struct uidgen *g, uint32_t node, unsigned long long grant_ms);
int node_revoke(struct uidgen *g);
unsigned long long ns_ms(uint64_t ns);
unsigned long long wall_ms(void);
unsigned long long max_ull(unsigned long long a, unsigned long long b);

/*
 * persist.c: the state file, what the next load of a node ID must start
 * above:
 *   node_id=N     the node ID the floor belongs to
 *   floor_ms=MS   Unix ms at or above the end of every tick issued under it
 */
struct state {
	unsigned long long node;	/* UIDGEN_NODE_NONE: no node_id= line */
	unsigned long long floor_ms;
};

int state_read(const char *file, struct state *st);

/* The state commands, each with FILE; exit statuses as main's. */
int state_save(const char *dev, const char *file);
int state_restore(const char *dev, const char *file, unsigned long long ahead_ms);
int state_keep(const char *dev, const char *file, unsigned long long ahead_ms,
	       unsigned long long every_ms);

#endif
