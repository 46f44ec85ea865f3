// SPDX-License-Identifier: GPL-2.0
/*
 * The node ID's life: assignment with its floor, the pending state of a
 * node ID whose floor is not known yet, the grant (how far ahead userspace
 * has persisted), the lease deadline and fencing token, and the revoke
 * that fences all of it off, including on a VM fork.
 *
 * Locking: struct uidgen_node_ctl.lock serialises every change here.
 * Minting paths (dev.c) take no lock: they read @node and @deadline_ns
 * inside an RCU read-side critical section with page faults disabled, and
 * a revoke clears @node and waits for a grace period before it moves the
 * fence and returns. Since no minting path can sleep or fault while it
 * holds that section, a revoke ends in bounded time whatever userspace
 * does with its buffers.
 *
 * The rule this file keeps: persist before you issue. A node ID becomes
 * active only together with its floor (or the administrator's word that
 * it never issued), and once userspace grants a limit, no tick beyond
 * what it persisted leaves the kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <linux/uidgen.h>

#include "gen.h"
#include "internal.h"

#define UIDGEN_NO_DEADLINE	U64_MAX

/* Raise the generator's floor; the caller holds n->lock. */
static int uidgen_node_apply_floor(struct uidgen_node_ctl *n, u64 floor_ms,
				   u64 now_ns)
{
	int ret;

	if (floor_ms <= n->floor_ms)
		return 0;
	ret = uidgen_set_floor(n->gen, uidgen_ms_to_tick(n->gen, floor_ms),
			       now_ns);
	if (!ret)
		n->floor_ms = floor_ms;
	return ret;
}

/* The last tick a grant covers; never UIDGEN_NO_GRANT, however far. */
static u64 uidgen_grant_tick(const struct uidgen_gen *g, u64 grant_ms)
{
	return min(uidgen_ms_to_tick(g, grant_ms), g->max_tick);
}

static void uidgen_node_set_deadline(struct uidgen_node_ctl *n, u64 deadline)
{
	WRITE_ONCE(n->deadline_ns, deadline);
	if (deadline == UIDGEN_NO_DEADLINE)
		hrtimer_try_to_cancel(&n->deadline_timer);
	else
		hrtimer_start(&n->deadline_timer, ns_to_ktime(deadline),
			      HRTIMER_MODE_ABS);
}

/*
 * The revoke itself, with n->lock held: after it, no ID under the old node
 * ID leaves the kernel. @expedite for a VM fork, where a clone is already
 * running with the same node ID.
 */
static void uidgen_node_fence(struct uidgen_node_ctl *n, const char *why,
			      bool expedite)
{
	int old = n->node;

	WRITE_ONCE(n->node, -1);
	n->pending = UIDGEN_NODE_NONE;
	hrtimer_try_to_cancel(&n->deadline_timer);
	/* Every minting path that saw the old node ID has finished. */
	if (expedite)
		synchronize_rcu_expedited();
	else
		synchronize_rcu();
	/*
	 * Only now: a minting path reads the node ID, then the deadline, and
	 * one that saw the old node ID must still see the old deadline.
	 */
	WRITE_ONCE(n->deadline_ns, UIDGEN_NO_DEADLINE);
	WRITE_ONCE(n->page->fence, n->page->fence + 1);
	/* Nobody mints now: the next assignment brings its own grant. */
	WRITE_ONCE(n->gen->grant_tick, UIDGEN_NO_GRANT);
	n->token = 0;
	wake_up_all(&n->grant_wq);
	if (old >= 0)
		pr_warn("node ID %d revoked (%s): no ID is issued until a node ID is assigned\n",
			old, why);
}

/*
 * Revoke the node ID if its lease deadline has passed, with n->lock held.
 * Every change looks first, so that a renew or assignment that wins the
 * lock before the expiry work cannot bring an ended lease back.
 */
static bool uidgen_node_expired(struct uidgen_node_ctl *n, u64 now_ns)
{
	if (n->node < 0 || n->deadline_ns > now_ns)
		return false;
	uidgen_node_fence(n, "its lease deadline passed", true);
	return true;
}

static void uidgen_node_expire(struct work_struct *work)
{
	struct uidgen_node_ctl *n = container_of(work, struct uidgen_node_ctl,
						 expire_work);

	mutex_lock(&n->lock);
	uidgen_node_expired(n, ktime_get_boottime_ns());
	mutex_unlock(&n->lock);
}

static enum hrtimer_restart uidgen_node_deadline_fn(struct hrtimer *t)
{
	struct uidgen_node_ctl *n = container_of(t, struct uidgen_node_ctl,
						 deadline_timer);

	/* Minting paths stop by themselves; this makes the revoke visible. */
	schedule_work(&n->expire_work);
	return HRTIMER_NORESTART;
}

/**
 * uidgen_node_init() - Set up a node with none assigned.
 * @n: the node
 * @gen: the generator its IDs come from
 * @page: the shared page whose fence moves on every revoke
 *
 * Context: process.
 */
void uidgen_node_init(struct uidgen_node_ctl *n, struct uidgen_gen *gen,
		      struct uidgen_page *page)
{
	mutex_init(&n->lock);
	n->gen = gen;
	n->page = page;
	n->node = -1;
	n->pending = UIDGEN_NODE_NONE;
	n->floor_ms = 0;
	n->deadline_ns = UIDGEN_NO_DEADLINE;
	n->token = 0;
	n->max_token = 0;
	init_waitqueue_head(&n->grant_wq);
	atomic64_set(&n->grant_waits, 0);
	hrtimer_init(&n->deadline_timer, CLOCK_BOOTTIME, HRTIMER_MODE_ABS);
	n->deadline_timer.function = uidgen_node_deadline_fn;
	INIT_WORK(&n->expire_work, uidgen_node_expire);
}

/**
 * uidgen_node_destroy() - Stop a node's timer and work.
 * @n: the node, with no caller left that could assign or renew it
 *
 * Context: process.
 */
void uidgen_node_destroy(struct uidgen_node_ctl *n)
{
	hrtimer_cancel(&n->deadline_timer);
	cancel_work_sync(&n->expire_work);
	mutex_destroy(&n->lock);
}

/* Is @deadline (0: none) usable now? Converts 0 to no deadline. */
static int uidgen_node_check_deadline(u64 *deadline, u64 now_ns)
{
	if (!*deadline) {
		*deadline = UIDGEN_NO_DEADLINE;
		return 0;
	}
	return *deadline <= now_ns ? -ETIME : 0;
}

/* uidgen_node_assign() with n->lock held. */
static int uidgen_node_assign_locked(struct uidgen_node_ctl *n,
				     const struct uidgen_node *req)
{
	struct uidgen_gen *g = n->gen;
	u32 how = req->flags & (UIDGEN_NODE_NEW | UIDGEN_NODE_FLOOR);
	u64 deadline = req->deadline_ns;
	u64 now_ns = ktime_get_boottime_ns();
	int ret;

	if (how != UIDGEN_NODE_NEW && how != UIDGEN_NODE_FLOOR)
		return -EINVAL;
	/* A floor of 0 would be NEW without saying so. */
	if (how == UIDGEN_NODE_FLOOR && !req->floor_ms)
		return -EINVAL;
	if (req->node_id >= (1ULL << g->l.node_bits))
		return -ERANGE;
	ret = uidgen_node_check_deadline(&deadline, now_ns);
	if (ret)
		return ret;
	if (req->token && req->token < n->max_token)
		return -ESTALE;
	uidgen_node_expired(n, now_ns);
	if (n->node >= 0 && (u32)n->node != req->node_id)
		return -EBUSY;
	if (how == UIDGEN_NODE_FLOOR) {
		ret = uidgen_node_apply_floor(n, req->floor_ms, now_ns);
		if (ret)
			return ret;
	}
	if (req->token) {
		n->token = req->token;
		n->max_token = req->token;
	}
	if (n->node >= 0) {
		/* The same node ID again: floor (above), grant and lease. */
		if (req->grant_ms)
			uidgen_raise_grant(g, uidgen_grant_tick(g, req->grant_ms));
		if (deadline != UIDGEN_NO_DEADLINE)
			uidgen_node_set_deadline(n, deadline);
		wake_up_all(&n->grant_wq);
		return 0;
	}

	/* IDs under the new node start in a tick no slot used yet. */
	uidgen_fence_slots(g);
	WRITE_ONCE(g->grant_tick, req->grant_ms ?
		   uidgen_grant_tick(g, req->grant_ms) : UIDGEN_NO_GRANT);
	uidgen_node_set_deadline(n, deadline);
	n->pending = UIDGEN_NODE_NONE;
	/* Publish last: a minting path that sees it sees all of the above. */
	smp_store_release(&n->node, req->node_id);
	pr_info("node ID %u assigned (%s%llu ms; %s; %s)\n", req->node_id,
		how == UIDGEN_NODE_NEW ? "new, floor " : "floor ", n->floor_ms,
		req->grant_ms ? "grant mode" : "no grant limit",
		deadline == UIDGEN_NO_DEADLINE ? "no lease deadline" :
		"lease deadline set");
	return 0;
}

/**
 * uidgen_node_assign() - Assign a node ID with its floor, grant and lease.
 * @n: the node
 * @req: the request: node_id, flags (UIDGEN_NODE_NEW or UIDGEN_NODE_FLOOR),
 *	floor_ms, grant_ms, deadline_ns (CLOCK_BOOTTIME of this kernel, 0 for
 *	none) and token
 *
 * Everything is applied before the node ID becomes visible to a minting
 * path: the floor to the generator's clock and slots, the grant, the
 * deadline and token.
 *
 * Context: process; takes n->lock.
 * Return: 0; -EINVAL without exactly one of NEW and FLOOR; -ERANGE if the
 * node ID does not fit; -ESTALE for a token below the highest seen; -ETIME
 * for a deadline already past; -EBUSY if another node ID is active;
 * -EOVERFLOW if the floor leaves no tick. A node ID whose lease deadline
 * has passed is revoked first, so assigning it again starts afresh.
 */
int uidgen_node_assign(struct uidgen_node_ctl *n,
		       const struct uidgen_node *req)
{
	int ret;

	mutex_lock(&n->lock);
	ret = uidgen_node_assign_locked(n, req);
	mutex_unlock(&n->lock);
	return ret;
}

/**
 * uidgen_node_renew() - Raise the grant and move the deadline.
 * @n: the node
 * @req: node_id and token of the assignment in force, grant_ms (0: as it
 *	is), deadline_ns (0: as it is)
 *
 * Context: process; takes n->lock.
 * Return: 0; -EADDRNOTAVAIL if no node ID is active (its lease deadline
 * passed: it is revoked now if the expiry work has not yet); -ESTALE if
 * @req names another node ID or token; -ETIME for a deadline already past.
 */
int uidgen_node_renew(struct uidgen_node_ctl *n,
		      const struct uidgen_node *req)
{
	u64 deadline = req->deadline_ns;
	u64 now_ns;
	int ret;

	mutex_lock(&n->lock);
	now_ns = ktime_get_boottime_ns();
	ret = uidgen_node_check_deadline(&deadline, now_ns);
	/* A lease that ended stays ended, however soon the renew came. */
	if (!ret && (uidgen_node_expired(n, now_ns) || n->node < 0))
		ret = -EADDRNOTAVAIL;
	else if ((u32)n->node != req->node_id ||
		 (req->token && req->token != n->token))
		ret = -ESTALE;
	if (!ret) {
		if (req->grant_ms)
			uidgen_raise_grant(n->gen,
					   uidgen_grant_tick(n->gen, req->grant_ms));
		if (deadline != UIDGEN_NO_DEADLINE)
			uidgen_node_set_deadline(n, deadline);
		wake_up_all(&n->grant_wq);
	}
	mutex_unlock(&n->lock);
	return ret;
}

/**
 * uidgen_node_revoke() - Stop issuing under the node ID.
 * @n: the node
 * @node: UIDGEN_NODE_NONE, or the node ID the caller means to revoke
 * @token: 0, or the token of the assignment the caller means to revoke
 * @why: for the log
 *
 * When this returns, no ID with the old node ID will leave the kernel, and
 * the fence on the shared page has moved for runs cached in userspace. A
 * pending node ID is cleared too.
 *
 * Context: process; takes n->lock; waits for an RCU grace period.
 * Return: 0, or -ESTALE if @node or @token is not the one in force.
 */
int uidgen_node_revoke(struct uidgen_node_ctl *n, u32 node, u64 token,
		       const char *why)
{
	int ret = 0;

	mutex_lock(&n->lock);
	if ((node != UIDGEN_NODE_NONE && n->node >= 0 && (u32)n->node != node) ||
	    (token && token != n->token))
		ret = -ESTALE;
	else
		uidgen_node_fence(n, why, false);
	mutex_unlock(&n->lock);
	return ret;
}

/**
 * uidgen_node_vmfork() - This VM was cloned or restored: revoke at once.
 * @n: the node
 *
 * Context: process; takes n->lock; bounded (an expedited grace period).
 */
void uidgen_node_vmfork(struct uidgen_node_ctl *n)
{
	mutex_lock(&n->lock);
	uidgen_node_fence(n, "VM fork or snapshot restore detected", true);
	mutex_unlock(&n->lock);
}

/**
 * uidgen_node_set_pending() - Set a node ID whose floor is still to come.
 * @n: the node
 * @node: the node ID
 *
 * Nothing is issued under it until uidgen_node_floor() or
 * uidgen_node_new() completes it.
 *
 * Context: process; takes n->lock.
 * Return: 0 (also if @node is already active); -ERANGE if it does not
 * fit; -EBUSY if another node ID is active.
 */
int uidgen_node_set_pending(struct uidgen_node_ctl *n, u32 node)
{
	int ret = 0;

	if (node >= (1ULL << n->gen->l.node_bits))
		return -ERANGE;
	mutex_lock(&n->lock);
	if (n->node >= 0 && (u32)n->node != node) {
		ret = -EBUSY;
	} else if (n->node < 0) {
		n->pending = node;
		pr_notice("node ID %u pending: nothing is issued under it until its floor is restored (uidgen state restore, or floor_ms), or, for a node ID that never issued, node_new=1 or uidgen set-node %u --new\n",
			  node, node);
	}
	mutex_unlock(&n->lock);
	return ret;
}

/* Complete the pending node ID; the caller holds n->lock. */
static int uidgen_node_complete(struct uidgen_node_ctl *n, u32 flags,
				u64 floor_ms)
{
	struct uidgen_node req = {
		.flags = flags,
		.node_id = n->pending,
		.floor_ms = floor_ms,
	};

	return uidgen_node_assign_locked(n, &req);
}

/**
 * uidgen_node_floor() - Raise the floor; complete a pending node ID.
 * @n: the node
 * @floor_ms: Unix ms: the tick containing it and all earlier ones are
 *	never issued from now on
 *
 * Context: process; takes n->lock.
 * Return: 0, or -EOVERFLOW if no tick is left above @floor_ms.
 */
int uidgen_node_floor(struct uidgen_node_ctl *n, u64 floor_ms)
{
	int ret;

	mutex_lock(&n->lock);
	if (n->pending != UIDGEN_NODE_NONE)
		ret = uidgen_node_complete(n, UIDGEN_NODE_FLOOR, floor_ms);
	else
		ret = uidgen_node_apply_floor(n, floor_ms,
					      ktime_get_boottime_ns());
	mutex_unlock(&n->lock);
	return ret;
}

/**
 * uidgen_node_new() - Activate the pending node ID: it never issued.
 * @n: the node
 *
 * Context: process; takes n->lock.
 * Return: 0, or -ENOENT if no node ID is pending.
 */
int uidgen_node_new(struct uidgen_node_ctl *n)
{
	int ret;

	mutex_lock(&n->lock);
	if (n->pending != UIDGEN_NODE_NONE)
		ret = uidgen_node_complete(n, UIDGEN_NODE_NEW, 0);
	else
		ret = n->node >= 0 ? 0 : -ENOENT;
	mutex_unlock(&n->lock);
	return ret;
}

/**
 * uidgen_node_state() - Which node ID is set, and how.
 * @n: the node
 * @node: out: the node ID set, pending or active, or UIDGEN_NODE_NONE
 *
 * Context: any (a snapshot: may be stale when it returns).
 * Return: UIDGEN_NODE_STATE_NONE, _PENDING or _ACTIVE.
 */
u32 uidgen_node_state(struct uidgen_node_ctl *n, u32 *node)
{
	int active = READ_ONCE(n->node);
	u32 pending = READ_ONCE(n->pending);

	if (active >= 0) {
		*node = active;
		return UIDGEN_NODE_STATE_ACTIVE;
	}
	*node = pending;
	return pending == UIDGEN_NODE_NONE ? UIDGEN_NODE_STATE_NONE :
	       UIDGEN_NODE_STATE_PENDING;
}
