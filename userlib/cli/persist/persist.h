/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The persister (persist.c): the state file and the three commands that
 * keep a node ID's floor across loads, reboots and crashes. It stands on
 * the CLI's base alone; the commands call it (state.c, and node.c reads
 * the state file), and it calls none of them.
 */
#ifndef UIDGEN_CLI_PERSIST_H
#define UIDGEN_CLI_PERSIST_H

#include "cli/base/base.h"

/*
 * The state file, what the next load of a node ID must start above:
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
