/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node.c's interface: struct uidgen_node_ctl, the node ID a generator
 * issues under and its life (assign, renew, revoke, the lease deadline,
 * the fence), and the snapshot UIDGEN_IOC_INFO reads of it.
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
 * @node: the node ID in force, or UIDGEN_NODE_NONE; read locklessly by
 *	minting paths
 * @deadline_boot_ns: CLOCK_BOOTTIME at which @node stops
 *	(UIDGEN_RULES_NO_DEADLINE: never); read locklessly by minting paths
 * @page: the page mmap() shares: its fence moves on every revoke; the
 *	fence is read locklessly by minting paths
 * @lock: serialises every change to the fields of this struct and to
 *	@gen's floor, grant and clock (an observe's lead);
 *	uidgen_node_state() reads under it too
 * @floor_unix_ns: the highest floor applied to @gen (Unix ns, 0: none)
 * @grant_unix_ns: the grant of the assignment in force, as given (Unix
 *	ns, 0: none); @gen's grant_tick is what minting paths read
 * @token: fencing token of the assignment in force
 * @max_token: the highest token any assignment carried
 * @grant_wq: callers waiting for the grant to be raised
 * @grant_waits: how many times a caller found the grant reached
 * @deadline_timer: fires at @deadline_boot_ns
 * @expire_work: revokes @node at its deadline, in process context
 *
 * Minting paths run in an RCU read-side critical section with preemption
 * and page faults disabled, so every one of them ends in bounded time: a
 * revoke clears @node, waits for a grace period (every minting path that
 * could have seen the old node ID has stored or dropped its IDs), then
 * moves the fence. Nothing userspace does can hold it up. The fields minting paths
 * read locklessly (@node, @deadline_boot_ns, the fence, @gen's grant_tick)
 * are written with WRITE_ONCE() or smp_store_release(); the others are
 * read and written under @lock only.
 */
struct uidgen_node_ctl {
	struct uidgen_gen *gen;
	/* What minting paths read first, ahead of the lock. */
	u32 node;
	u64 deadline_boot_ns;
	struct uidgen_page *page;
	struct mutex lock;	/* see @lock above */
	u64 floor_unix_ns;
	u64 grant_unix_ns;
	u64 token;
	u64 max_token;
	wait_queue_head_t grant_wq;
	atomic64_t grant_waits;
	struct hrtimer deadline_timer;
	struct work_struct expire_work;
};

/**
 * struct uidgen_node_snapshot - a node's state at one instant
 * @state: UIDGEN_NODE_STATE_NONE or _ACTIVE
 * @node: the node ID in force, or UIDGEN_NODE_NONE
 * @floor_unix_ns: the highest floor applied (Unix ns, 0: none)
 * @grant_tick: the generator's grant (UIDGEN_NO_GRANT: none)
 * @deadline_boot_ns: CLOCK_BOOTTIME at which @node stops
 *	(UIDGEN_RULES_NO_DEADLINE: never)
 * @token: fencing token of the assignment in force (0: none)
 *
 * All read together under the node's lock: never half of one assignment
 * and half of the next.
 */
struct uidgen_node_snapshot {
	u32 state;
	u32 node;
	u64 floor_unix_ns;
	u64 grant_tick;
	u64 deadline_boot_ns;
	u64 token;
};

void uidgen_node_init(struct uidgen_node_ctl *n, struct uidgen_gen *gen,
		      struct uidgen_page *page);
void uidgen_node_destroy(struct uidgen_node_ctl *n);
int uidgen_node_assign(struct uidgen_node_ctl *n,
		       const struct uidgen_rules_req *req);
int uidgen_node_renew(struct uidgen_node_ctl *n,
		      const struct uidgen_rules_req *req);
int uidgen_node_revoke(struct uidgen_node_ctl *n,
		       const struct uidgen_rules_req *req, const char *why);
u32 uidgen_node_state(struct uidgen_node_ctl *n,
		      struct uidgen_node_snapshot *s);
void uidgen_node_vmfork(struct uidgen_node_ctl *n);
int uidgen_node_observe(struct uidgen_node_ctl *n, u64 id);

#endif /* _UIDGEN_NODE_H */
