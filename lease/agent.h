/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uidgen-lease: the agent, the loop that claims a node ID in etcd, installs
 * it in the device and keeps both alive (agent.c). Its keys, under
 * /uidgen/<cluster>/:
 *
 *   node/<id>          the claim: {"machine", "host", "since_ms", "pid"},
 *                      bound to the agent's lease; its create_revision is
 *                      the fencing token
 *   floor/<id>         the highest grant ever given under <id>, Unix ms
 *                      (no lease: it outlives every holder)
 *   claimed/<id>       created with the first claim of <id> (no lease)
 *   machine/<machine>  the ID <machine> held last (no lease)
 */
#ifndef UIDGEN_LEASE_AGENT_H
#define UIDGEN_LEASE_AGENT_H

#include <signal.h>
#include <stdint.h>

#include "conf.h"
#include "dev.h"
#include "etcd.h"

struct agent;

/* set by a signal: LEASE_STOP (SIGTERM, SIGINT: the node is left for the
 * next start to adopt) or LEASE_STOP_HANDOVER (SIGUSR1: released) */
extern volatile sig_atomic_t lease_stop;
#define LEASE_STOP 1
#define LEASE_STOP_HANDOVER 2

int agent_new(struct agent **ap, struct lease_conf *c, struct etcd *e, int nr_endpoints,
	      struct lease_dev *d);
void agent_free(struct agent *a);
/* Run until lease_stop is set (returns 0 after releasing everything) or
 * an error an operator must fix (returns -errno, after releasing). */
int agent_run(struct agent *a);

/* The deadline for a keepalive sent at @sent_ns that etcd answered with
 * @ttl_s: see uidgen-lease(8), "Deadline". */
uint64_t agent_deadline(const struct lease_conf *c, uint64_t sent_ns, int64_t ttl_s);

#endif
