// SPDX-License-Identifier: GPL-2.0
/*
 * The node rules (see noderules.h): one set, compiled into the module and
 * into uidgen-lease's device stand-in, and tested by KUnit and on the
 * host from one table (tests/noderules_cases.h).
 *
 * Every function takes the state, moves it to what results, and returns
 * 0 or -errno with the actions the caller must carry out. Nothing here
 * sleeps, locks or reads a clock: the caller holds whatever lock guards
 * the state and passes "now" in.
 *
 * Each rule first sees whether the lease deadline has passed, and if so
 * revokes (UIDGEN_RULES_EXPIRE) before anything else: a lease that ended
 * stays ended, and no answer depends on whether the caller's own expiry
 * (the module's timer work, the stand-in's next use) has run yet. Then
 * the request is checked, then the state.
 */
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/types.h>

#include <linux/uidgen.h>

#include "noderules.h"

/**
 * uidgen_rules_init() - No node ID, no token seen.
 * @s: the state
 * @node_bits: width of the layout's node field
 *
 * Context: any.
 */
void uidgen_rules_init(struct uidgen_node_rules *s, unsigned int node_bits)
{
	*s = (struct uidgen_node_rules) {
		.node_bits = node_bits,
		.node = UIDGEN_NODE_NONE,
		.deadline_boot_ns = UIDGEN_RULES_NO_DEADLINE,
	};
}

/**
 * uidgen_rules_fence() - The state a revoke leaves.
 * @s: the state
 *
 * No node ID in force, no token, grant or deadline. The floor
 * and the highest token seen stay: they outlive every assignment.
 *
 * Context: any.
 */
void uidgen_rules_fence(struct uidgen_node_rules *s)
{
	s->node = UIDGEN_NODE_NONE;
	s->token = 0;
	s->grant_unix_ns = 0;
	s->deadline_boot_ns = UIDGEN_RULES_NO_DEADLINE;
}

/**
 * uidgen_rules_expire() - Revoke the node ID if its lease deadline passed.
 * @s: the state
 * @now_ns: CLOCK_BOOTTIME now
 * @act: UIDGEN_RULES_EXPIRE is added if it did
 *
 * Context: any.
 * Return: true if the node ID in force was revoked.
 */
bool uidgen_rules_expire(struct uidgen_node_rules *s, u64 now_ns,
			 unsigned int *act)
{
	if (s->node == UIDGEN_NODE_NONE || s->deadline_boot_ns > now_ns)
		return false;
	uidgen_rules_fence(s);
	*act |= UIDGEN_RULES_EXPIRE;
	return true;
}

/* Is @deadline (0: none) usable now? Converts 0 to no deadline. */
static int uidgen_rules_check_deadline(u64 *deadline, u64 now_ns)
{
	if (!*deadline) {
		*deadline = UIDGEN_RULES_NO_DEADLINE;
		return 0;
	}
	return *deadline <= now_ns ? -ETIME : 0;
}

/*
 * Is @req's token one the rules refuse? A token must be unique and rise
 * for the life of what it guards, and a store that went back in time (an
 * etcd restored from a snapshot reissues revisions, which are our tokens)
 * must not be trusted: so a new assignment needs a token above every one
 * seen, and a token equal to the highest is only the assignment in force
 * again, with that very token. No token (0) claims nothing: it is refused
 * while a claim held under a token is in force, and not checked otherwise.
 */
static bool uidgen_rules_stale(const struct uidgen_node_rules *s,
			       const struct uidgen_rules_req *req)
{
	if (!req->token)
		return s->node != UIDGEN_NODE_NONE && s->token;
	if (req->token > s->max_token)
		return false;
	return req->token < s->max_token || s->node != req->node_id ||
	       s->token != req->token;
}

/* uidgen_rules_assign() once the lease's end has been seen to. */
static int uidgen_rules_do_assign(struct uidgen_node_rules *s,
				  const struct uidgen_rules_req *req, u64 now_ns,
				  unsigned int *act)
{
	u64 deadline = req->deadline_boot_ns;
	int ret;

	/* A new node ID has no floor; any other one needs one (0 says none). */
	if (req->new != !req->floor_unix_ns)
		return -EINVAL;
	if (req->node_id >= (1ULL << s->node_bits))
		return -ERANGE;
	ret = uidgen_rules_check_deadline(&deadline, now_ns);
	if (ret)
		return ret;
	if (uidgen_rules_stale(s, req))
		return -ESTALE;
	if (s->node != UIDGEN_NODE_NONE && s->node != req->node_id)
		return -EBUSY;
	if (req->floor_unix_ns > s->floor_unix_ns) {
		s->floor_unix_ns = req->floor_unix_ns;
		*act |= UIDGEN_RULES_FLOOR;
	}
	if (req->token) {
		s->token = req->token;
		s->max_token = req->token;
	}
	if (s->node != UIDGEN_NODE_NONE) {
		/* The same node ID again: floor (above), grant and lease. */
		if (req->grant_unix_ns > s->grant_unix_ns) {
			s->grant_unix_ns = req->grant_unix_ns;
			*act |= UIDGEN_RULES_RAISE_GRANT;
		}
		if (deadline != UIDGEN_RULES_NO_DEADLINE) {
			s->deadline_boot_ns = deadline;
			*act |= UIDGEN_RULES_DEADLINE;
		}
		return 0;
	}
	/* IDs under the new node start in a tick no slot used yet. */
	s->grant_unix_ns = req->grant_unix_ns;
	s->deadline_boot_ns = deadline;
	s->node = req->node_id;
	*act |= UIDGEN_RULES_FENCE_SLOTS | UIDGEN_RULES_SET_GRANT |
		UIDGEN_RULES_DEADLINE | UIDGEN_RULES_PUBLISH;
	return 0;
}

/**
 * uidgen_rules_assign() - Assign a node ID with its floor, grant and lease.
 * @s: the state
 * @req: node_id, new or floor_unix_ns, grant_unix_ns, deadline_boot_ns
 *	(0: none) and token (0: none)
 * @now_ns: CLOCK_BOOTTIME now
 * @act: out: the actions
 *
 * The errno order: the request first (EINVAL, ERANGE, ETIME), then the
 * state (ESTALE, EBUSY). A lease deadline that passed revokes the node ID
 * before anything is checked.
 *
 * Context: any.
 * Return: 0; -EINVAL for a new node ID with a floor, or another with a
 * floor of 0; -ERANGE if the node ID does not fit; -ETIME for a
 * deadline already past; -ESTALE for a token below the highest seen, or
 * equal to it but for another assignment than the one in force; -EBUSY if
 * another node ID is in force.
 */
int uidgen_rules_assign(struct uidgen_node_rules *s,
			const struct uidgen_rules_req *req, u64 now_ns,
			unsigned int *act)
{
	*act = 0;
	/* An ended lease is no assignment in force: this one starts afresh. */
	uidgen_rules_expire(s, now_ns, act);
	return uidgen_rules_do_assign(s, req, now_ns, act);
}

/**
 * uidgen_rules_renew() - Raise the grant and move the deadline.
 * @s: the state
 * @req: node_id and token of the assignment in force, grant_unix_ns (0: as it
 *	is), deadline_boot_ns (0: as it is)
 * @now_ns: CLOCK_BOOTTIME now
 * @act: out: the actions
 *
 * The errno order: the request first, then the state. A lease deadline
 * that passed revokes the node ID before anything is checked.
 *
 * Context: any.
 * Return: 0; -ETIME for a deadline already past (whatever is in force);
 * -EADDRNOTAVAIL if no node ID is in force (its lease deadline passed: it
 * is revoked now); -ESTALE if @req names another node ID or token.
 */
int uidgen_rules_renew(struct uidgen_node_rules *s,
		       const struct uidgen_rules_req *req, u64 now_ns,
		       unsigned int *act)
{
	u64 deadline = req->deadline_boot_ns;
	int ret;

	*act = 0;
	/* A lease that ended stays ended, however soon the renew came. */
	uidgen_rules_expire(s, now_ns, act);
	ret = uidgen_rules_check_deadline(&deadline, now_ns);
	if (ret)
		return ret;
	if (s->node == UIDGEN_NODE_NONE)
		return -EADDRNOTAVAIL;
	/* The claim in force renews with its own token, 0 if it has none. */
	if (s->node != req->node_id || req->token != s->token)
		return -ESTALE;
	if (req->grant_unix_ns > s->grant_unix_ns) {
		s->grant_unix_ns = req->grant_unix_ns;
		*act |= UIDGEN_RULES_RAISE_GRANT;
	}
	if (deadline != UIDGEN_RULES_NO_DEADLINE) {
		s->deadline_boot_ns = deadline;
		*act |= UIDGEN_RULES_DEADLINE;
	}
	return 0;
}

/**
 * uidgen_rules_revoke() - Stop issuing under the node ID.
 * @s: the state
 * @req: node_id (UIDGEN_NODE_NONE, or the node ID the caller means to
 *	revoke), token (the token of the claim in force, 0 if it has none)
 *	and force (any claim, and forget the highest token seen)
 * @now_ns: CLOCK_BOOTTIME now
 * @act: out: the actions
 *
 * Every accepted revoke fences once, even with nothing in force: a lease
 * whose end this call sees is fenced by that end (UIDGEN_RULES_EXPIRE),
 * not a second time. A forced revoke also forgets the highest token seen,
 * as a reload would: the administrator's way out of a bogus token that
 * refuses every later claim (ESTALE).
 *
 * Context: any.
 * Return: 0, or -ESTALE (not forced) if @req's node ID or token is not
 * the one in force (a lease that ended is not: its token is ESTALE).
 */
int uidgen_rules_revoke(struct uidgen_node_rules *s,
			const struct uidgen_rules_req *req, u64 now_ns,
			unsigned int *act)
{
	*act = 0;
	/* An ended lease's token is no longer in force. */
	uidgen_rules_expire(s, now_ns, act);
	if (req->force) {
		s->max_token = 0;
	} else if ((req->node_id != UIDGEN_NODE_NONE &&
		    s->node != UIDGEN_NODE_NONE && s->node != req->node_id) ||
		   req->token != s->token) {
		return -ESTALE;
	}
	uidgen_rules_fence(s);
	if (!(*act & UIDGEN_RULES_EXPIRE))
		*act |= UIDGEN_RULES_REVOKE;
	return 0;
}
