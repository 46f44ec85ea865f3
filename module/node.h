/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node.c's interface: struct uidgen_node_ctl, the node ID a generator
 * issues under and its life (assign, renew, revoke, the lease deadline,
 * the fence).
 */
#ifndef _UIDGEN_NODE_H
#define _UIDGEN_NODE_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <linux/uidgen.h>

#include "gen.h"
#include "noderules.h"

/**
 * struct uidgen_node_ctl - the node ID a generator issues under, and its life
 * @gen: the generator whose IDs carry the node ID
 * @lock: serialises every change to the fields below and to @gen's floor
 *	and grant
 * @node: the node ID in force, or UIDGEN_NODE_NONE; read locklessly by
 *	minting paths
 * @floor_unix_ns: the highest floor applied to @gen (Unix ns, 0: none)
 * @grant_unix_ns: the grant of the assignment in force, as given (Unix
 *	ns, 0: none); @gen's grant_tick is what minting paths read
 * @deadline_boot_ns: CLOCK_BOOTTIME at which @node stops (U64_MAX: never);
 *	read locklessly by minting paths
 * @token: fencing token of the assignment in force
 * @max_token: the highest token any assignment carried
 * @page: the page mmap() shares: its fence moves on every revoke; the
 *	fence is read locklessly by minting paths
 * @grant_wq: callers waiting for the grant to be raised
 * @grant_waits: how many times a caller found the grant reached
 * @deadline_timer: fires at @deadline_boot_ns
 * @expire_work: revokes @node at its deadline, in process context
 *
 * Minting paths run in an RCU read-side critical section with preemption
 * and page faults disabled, so every one of them ends in bounded time: a revoke clears
 * @node, waits for a grace period (every minting path that could have
 * seen the old node ID has stored or dropped its IDs), then moves the
 * fence. Nothing userspace does can hold it up. The fields minting paths
 * read locklessly (@node, @deadline_boot_ns, the fence, @gen's grant_tick)
 * are written with WRITE_ONCE() or smp_store_release(); the others are
 * read and written under @lock only.
 */
struct uidgen_node_ctl {
	struct uidgen_gen *gen;
	struct mutex lock;	/* see @lock above */
	u32 node;
	u64 floor_unix_ns;
	u64 grant_unix_ns;
	u64 deadline_boot_ns;
	u64 token;
	u64 max_token;
	struct uidgen_page *page;
	wait_queue_head_t grant_wq;
	atomic64_t grant_waits;
	struct hrtimer deadline_timer;
	struct work_struct expire_work;
};

void uidgen_node_init(struct uidgen_node_ctl *n, struct uidgen_gen *gen,
		      struct uidgen_page *page);
void uidgen_node_destroy(struct uidgen_node_ctl *n);
int uidgen_node_assign(struct uidgen_node_ctl *n,
		       const struct uidgen_rules_req *req);
int uidgen_node_renew(struct uidgen_node_ctl *n,
		      const struct uidgen_rules_req *req);
int uidgen_node_revoke(struct uidgen_node_ctl *n, u32 node, u64 token,
		       const char *why);
u32 uidgen_node_state(struct uidgen_node_ctl *n, u32 *node);
void uidgen_node_vmfork(struct uidgen_node_ctl *n);

#endif /* _UIDGEN_NODE_H */
