// SPDX-License-Identifier: GPL-2.0
/*
 * The node ID's life: assignment with its floor, the grant (how far ahead
 * userspace has persisted), the lease deadline and fencing token, and the
 * revoke that fences all of it off, including on a VM fork.
 *
 * Locking: struct uidgen_node_ctl.lock serialises every change here, and
 * uidgen_node_state() reads under it, so INFO sees one state. Minting
 * paths (mint.c) take no lock: they read @node, @deadline_boot_ns, the
 * fence and the generator's grant inside an RCU read-side critical
 * section with page faults disabled (those four are written with
 * WRITE_ONCE() or smp_store_release(), the rest plainly under the lock),
 * and a revoke clears @node and waits for a grace period before it moves
 * the fence and returns. Since no minting path can sleep or fault while it
 * holds that section, a revoke ends in bounded time whatever userspace
 * does with its buffers.
 *
 * Which changes are accepted, with what errno, and what state results is
 * for the rules to say (noderules.c, the same source uidgen-lease's device
 * stand-in builds); this file carries their verdict out, under the lock,
 * with the RCU fence, the timer and the generator.
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
#include "node.h"
#include "noderules.h"

#define UIDGEN_NO_DEADLINE	UIDGEN_RULES_NO_DEADLINE

/* The last tick a grant covers; never UIDGEN_NO_GRANT, however far. */
static u64 uidgen_grant_tick(const struct uidgen_gen *g, u64 grant_unix_ns)
{
	return min(uidgen_ns_to_tick(g, grant_unix_ns), g->max_tick);
}

/* Move the lease deadline and its timer; n->lock held. */
static void uidgen_node_set_deadline(struct uidgen_node_ctl *n, u64 deadline)
{
	lockdep_assert_held(&n->lock);
	WRITE_ONCE(n->deadline_boot_ns, deadline);
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
	u32 old = n->node;

	lockdep_assert_held(&n->lock);
	WRITE_ONCE(n->node, UIDGEN_NODE_NONE);
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
	WRITE_ONCE(n->deadline_boot_ns, UIDGEN_NO_DEADLINE);
	WRITE_ONCE(n->page->fence, n->page->fence + 1);
	/* Nobody mints now: the next assignment brings its own grant. */
	WRITE_ONCE(n->gen->grant_tick, UIDGEN_NO_GRANT);
	n->grant_unix_ns = 0;
	n->token = 0;
	wake_up_all(&n->grant_wq);
	if (old != UIDGEN_NODE_NONE)
		pr_warn("node ID %u revoked (%s): no ID is issued until a node ID is assigned\n",
			old, why);
}

/* The node's state as the rules (noderules.c) see it; n->lock held. */
static void uidgen_node_rules(const struct uidgen_node_ctl *n,
			      struct uidgen_node_rules *r)
{
	lockdep_assert_held(&n->lock);
	*r = (struct uidgen_node_rules) {
		.node_bits = n->gen->l.node_bits,
		.node = n->node,
		.token = n->token,
		.max_token = n->max_token,
		.floor_unix_ns = n->floor_unix_ns,
		.grant_unix_ns = n->grant_unix_ns,
		.deadline_boot_ns = n->deadline_boot_ns,
	};
}

/* Raise the floor the rules raised; the one step that can fail. */
static int uidgen_node_floor(struct uidgen_node_ctl *n,
			     const struct uidgen_node_rules *r, u64 now_ns)
{
	struct uidgen_gen *g = n->gen;
	int ret;

	lockdep_assert_held(&n->lock);
	if (r->floor_unix_ns <= n->floor_unix_ns)
		return 0;
	ret = uidgen_set_floor(g, uidgen_ns_to_tick(g, r->floor_unix_ns), now_ns);
	if (!ret)
		n->floor_unix_ns = r->floor_unix_ns;
	return ret;
}

/* The node ID in force, renewed or assigned again: grant and deadline. */
static void uidgen_node_extend(struct uidgen_node_ctl *n,
			       const struct uidgen_node_rules *r)
{
	lockdep_assert_held(&n->lock);
	if (r->grant_unix_ns > n->grant_unix_ns) {
		uidgen_raise_grant(n->gen, uidgen_grant_tick(n->gen, r->grant_unix_ns));
		n->grant_unix_ns = r->grant_unix_ns;
	}
	if (r->deadline_boot_ns != n->deadline_boot_ns)
		uidgen_node_set_deadline(n, r->deadline_boot_ns);
}

/*
 * The deadline timer's work: revoke the node ID if its lease deadline has
 * passed. Every change looks first too (the rules do, in noderules.c), so
 * that a renew or assignment that wins the lock before this work cannot
 * bring an ended lease back.
 */
static void uidgen_node_expire(struct work_struct *work)
{
	struct uidgen_node_ctl *n = container_of(work, struct uidgen_node_ctl,
						 expire_work);
	struct uidgen_node_rules r;
	unsigned int act = 0;
	u64 now_ns;

	mutex_lock(&n->lock);
	now_ns = ktime_get_boottime_ns();
	uidgen_node_rules(n, &r);
	if (uidgen_rules_expire(&r, now_ns, &act))
		uidgen_node_fence(n, "its lease deadline passed", true);
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
	struct uidgen_node_rules r;

	/* What "no node ID" is, the rules say. */
	uidgen_rules_init(&r, gen->l.node_bits);
	mutex_init(&n->lock);
	n->gen = gen;
	n->page = page;
	n->node = r.node;
	n->floor_unix_ns = r.floor_unix_ns;
	n->grant_unix_ns = r.grant_unix_ns;
	n->deadline_boot_ns = r.deadline_boot_ns;
	n->token = r.token;
	n->max_token = r.max_token;
	init_waitqueue_head(&n->grant_wq);
	atomic64_set(&n->grant_waits, 0);
	hrtimer_setup(&n->deadline_timer, uidgen_node_deadline_fn,
		      CLOCK_BOOTTIME, HRTIMER_MODE_ABS);
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

/* The log line of a new assignment (UIDGEN_RULES_PUBLISH). */
static void uidgen_node_assigned(const struct uidgen_node_rules *r,
				 bool new)
{
	/* In ms, rounded up: the floor's tick is what the reader wants. */
	pr_info("node ID %u assigned (%s%llu ms; %s; %s)\n", r->node,
		new ? "new, floor " : "floor ",
		DIV_ROUND_UP_ULL(r->floor_unix_ns, NSEC_PER_MSEC),
		r->grant_unix_ns ? "grant mode" : "no grant limit",
		r->deadline_boot_ns == UIDGEN_NO_DEADLINE ? "no lease deadline" :
		"lease deadline set");
}

/**
 * uidgen_node_assign() - Assign a node ID with its floor, grant and lease.
 * @n: the node
 * @req: the request: node_id, new or floor_unix_ns, grant_unix_ns,
 *	deadline_boot_ns (CLOCK_BOOTTIME of this kernel, 0 for none) and
 *	token
 *
 * Everything is applied before the node ID becomes visible to a minting
 * path: the floor to the generator's clock and slots, the grant, the
 * deadline and token. Which requests are accepted, and with what errno,
 * is uidgen_rules_assign()'s to say.
 *
 * Context: process; takes n->lock.
 * Return: 0; -EINVAL for a new node ID with a floor, or another without; -ERANGE if the
 * node ID does not fit; -ESTALE for a token below the highest seen, or
 * equal to it but not the assignment in force; -ETIME for a deadline
 * already past; -EBUSY if another node ID is active;
 * -EOVERFLOW if the floor leaves no tick; -EDOM if it is more than
 * UIDGEN_FLOOR_AHEAD_MAX_NS ahead of the clock. A node ID whose lease deadline
 * has passed is revoked first, so assigning it again starts afresh.
 */
int uidgen_node_assign(struct uidgen_node_ctl *n,
		       const struct uidgen_rules_req *req)
{
	struct uidgen_gen *g = n->gen;
	struct uidgen_node_rules r;
	unsigned int act;
	u64 now_ns;
	int ret;

	mutex_lock(&n->lock);
	now_ns = ktime_get_boottime_ns();
	uidgen_node_rules(n, &r);
	ret = uidgen_rules_assign(&r, req, now_ns, &act);
	if (act & UIDGEN_RULES_EXPIRE)
		uidgen_node_fence(n, "its lease deadline passed", true);
	if (ret)
		goto out;
	ret = uidgen_node_floor(n, &r, now_ns);
	if (ret)
		goto out;
	n->token = r.token;
	n->max_token = r.max_token;
	if (n->node == r.node) {
		/* The node ID in force again: its grant and lease. */
		uidgen_node_extend(n, &r);
	} else {
		/* A new node ID: every slot in a tick it has not used. */
		uidgen_fence_slots(g);
		WRITE_ONCE(g->grant_tick, r.grant_unix_ns ?
			   uidgen_grant_tick(g, r.grant_unix_ns) : UIDGEN_NO_GRANT);
		n->grant_unix_ns = r.grant_unix_ns;
		uidgen_node_set_deadline(n, r.deadline_boot_ns);
		/*
		 * Published last, with release semantics: a minting path that
		 * sees the node ID (an acquire) sees its floor, slots, grant
		 * and deadline too.
		 */
		smp_store_release(&n->node, r.node);
		uidgen_node_assigned(&r, req->new);
	}
	wake_up_all(&n->grant_wq);
out:
	mutex_unlock(&n->lock);
	return ret;
}

/**
 * uidgen_node_renew() - Raise the grant and move the deadline.
 * @n: the node
 * @req: node_id and token of the assignment in force, grant_unix_ns (0:
 *	as it is), deadline_boot_ns (0: as it is)
 *
 * Context: process; takes n->lock.
 * Return: 0; -ETIME for a deadline already past, whatever is in force;
 * -EADDRNOTAVAIL if no node ID is active (its lease deadline passed: it is
 * revoked now if the expiry work has not yet); -ESTALE if @req names
 * another node ID or token.
 */
int uidgen_node_renew(struct uidgen_node_ctl *n,
		      const struct uidgen_rules_req *req)
{
	struct uidgen_node_rules r;
	unsigned int act;
	u64 now_ns;
	int ret;

	mutex_lock(&n->lock);
	now_ns = ktime_get_boottime_ns();
	uidgen_node_rules(n, &r);
	ret = uidgen_rules_renew(&r, req, now_ns, &act);
	if (act & UIDGEN_RULES_EXPIRE)
		uidgen_node_fence(n, "its lease deadline passed", true);
	if (!ret) {
		uidgen_node_extend(n, &r);
		wake_up_all(&n->grant_wq);
	}
	mutex_unlock(&n->lock);
	return ret;
}

/**
 * uidgen_node_revoke() - Stop issuing under the node ID.
 * @n: the node
 * @req: node_id (UIDGEN_NODE_NONE, or the node ID the caller means to
 *	revoke), token (of the assignment in force, 0 if it has none) and
 *	force (any, and forget the highest token seen)
 * @why: for the log
 *
 * When this returns, no ID with the old node ID will leave the kernel, and
 * the fence on the shared page has moved for runs cached in userspace.
 *
 * Context: process; takes n->lock; waits for an RCU grace period.
 * Return: 0, or -ESTALE (unless forced) if the node ID or token is not
 * the one in force (a lease whose deadline passed is not, whether or not
 * the expiry work has run yet).
 */
int uidgen_node_revoke(struct uidgen_node_ctl *n,
		       const struct uidgen_rules_req *req, const char *why)
{
	struct uidgen_node_rules r;
	unsigned int act;
	u64 now_ns;
	int ret;

	mutex_lock(&n->lock);
	now_ns = ktime_get_boottime_ns();
	uidgen_node_rules(n, &r);
	ret = uidgen_rules_revoke(&r, req, now_ns, &act);
	/* One fence: the lease's end, if this call saw it, is the revoke's. */
	if (act & UIDGEN_RULES_EXPIRE)
		uidgen_node_fence(n, "its lease deadline passed", true);
	else if (act & UIDGEN_RULES_REVOKE)
		uidgen_node_fence(n, why, false);
	n->max_token = r.max_token;
	mutex_unlock(&n->lock);
	return ret;
}

/**
 * uidgen_node_vmfork() - This VM was cloned or restored: revoke, expedited.
 * @n: the node
 *
 * The copy has minted under the node ID since it resumed, until this runs
 * (from the VM generation ID's ACPI notification); nothing leaves after.
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
 * uidgen_node_state() - The node's state, as one snapshot.
 * @n: the node
 * @s: out: node ID, floor, grant, deadline and token, all of one instant
 *
 * Read under n->lock, not a seqcount: every change holds the lock from
 * the rules' verdict to the node ID's publication (a revoke across its
 * grace period too), so the snapshot is never part of one assignment and
 * part of the next, nor a revoke half done. A reader waits out a change in
 * progress, an RCU grace period at most; UIDGEN_IOC_INFO is no minting
 * path, and a seqcount reader would spin through that grace period
 * instead.
 *
 * Context: process; takes n->lock (the snapshot may be stale when it
 * returns, never mixed).
 * Return: @s->state, UIDGEN_NODE_STATE_NONE or _ACTIVE.
 */
u32 uidgen_node_state(struct uidgen_node_ctl *n,
		      struct uidgen_node_snapshot *s)
{
	mutex_lock(&n->lock);
	s->node = n->node;
	s->state = n->node == UIDGEN_NODE_NONE ? UIDGEN_NODE_STATE_NONE :
		   UIDGEN_NODE_STATE_ACTIVE;
	s->floor_unix_ns = n->floor_unix_ns;
	s->grant_tick = n->gen->grant_tick;
	s->deadline_boot_ns = n->deadline_boot_ns;
	s->token = n->token;
	mutex_unlock(&n->lock);
	return s->state;
}

/**
 * uidgen_node_observe() - UIDGEN_IOC_OBSERVE: every ID from now on above @id.
 * @n: the node
 * @id: the ID observed
 *
 * An ID from an earlier tick needs no lock: every ID issued from now on is
 * in the current tick or later. One from the current tick or later moves
 * the generator's clock and slots (uidgen_observe()) under n->lock, which
 * serialises it with floors. Either way the page's observed ID is raised
 * before this returns, for the runs cached in userspace.
 *
 * Context: process; may take n->lock.
 * Return: 1 if the clock or a slot moved, 0 if nothing had to, or the
 * errno uidgen_observe_check() gives (nothing changed).
 */
int uidgen_node_observe(struct uidgen_node_ctl *n, u64 id)
{
	u64 old;
	int ret;

	ret = uidgen_observe_check(n->gen, id, ktime_get_boottime_ns());
	if (ret > 0) {
		mutex_lock(&n->lock);
		ret = uidgen_observe(n->gen, id, ktime_get_boottime_ns());
		mutex_unlock(&n->lock);
	}
	if (ret < 0)
		return ret;
	old = READ_ONCE(n->page->observed);
	while (old < id && !try_cmpxchg(&n->page->observed, &old, id))
		;
	return ret;
}
