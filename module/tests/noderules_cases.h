/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node rules' table: state + request + now -> errno, actions and the
 * state that results. The one source of truth for what assignment, renew
 * and revoke do: KUnit runs it against the module's build of noderules.c
 * (noderules_kunit.c), and make check on the host against the build
 * uidgen-lease's device stand-in uses (lease/tests/rules.c, with
 * lease/kshim.h).
 */
#ifndef _UIDGEN_NODERULES_CASES_H
#define _UIDGEN_NODERULES_CASES_H

#include <linux/errno.h>
#include <linux/types.h>

#include <linux/uidgen.h>

#include "../noderules.h"

enum uidgen_rules_op {
	RULES_ASSIGN,
	RULES_RENEW,
	RULES_REVOKE,
	RULES_EXPIRE,
};

/**
 * struct uidgen_rules_case - one row of the table
 * @name: what it shows
 * @op: which rule
 * @before: the state it starts from
 * @req: the request (RULES_REVOKE: node_id, token and force;
 *	RULES_EXPIRE: nothing)
 * @now_ns: CLOCK_BOOTTIME at the call
 * @ret: the errno expected (0 or negative)
 * @act: the actions expected
 * @after: the state expected
 */
struct uidgen_rules_case {
	const char *name;
	enum uidgen_rules_op op;
	struct uidgen_node_rules before;
	struct uidgen_rules_req req;
	u64 now_ns;
	int ret;
	unsigned int act;
	struct uidgen_node_rules after;
};

#define R_BITS		5
#define R_NOW		1000000000000ULL	/* 1000 s after boot */
#define R_LATER		(R_NOW + 10000000000ULL)
#define R_LATEST	(R_NOW + 20000000000ULL)
#define R_NONE		UIDGEN_NODE_NONE
#define R_NODL		UIDGEN_RULES_NO_DEADLINE
#define R_NEW		true
#define R_FLOOR		false
/* What a new node ID's assignment carries out (with its floor, if any). */
#define R_PUBLISH	(UIDGEN_RULES_FENCE_SLOTS | UIDGEN_RULES_SET_GRANT | \
			 UIDGEN_RULES_DEADLINE | UIDGEN_RULES_PUBLISH)

/* A state: node in force, token, max_token, floor, grant, deadline. */
#define RS_ON(nd, tok, max, fl, gr, dl) {				\
	.node_bits = R_BITS, .node = (nd),				\
	.token = (tok), .max_token = (max), .floor_unix_ns = (fl),		\
	.grant_unix_ns = (gr), .deadline_boot_ns = (dl) }
/* Nothing in force (after a revoke: @max and @fl stay). */
#define RS_OFF(max, fl)		RS_ON(R_NONE, 0, max, fl, 0, R_NODL)
/* The usual holder: node 3, token 7, floor 5000, grant 9000, a lease. */
#define RS_HELD		RS_ON(3, 7, 7, 5000, 9000, R_LATER)
/* The same, its lease deadline reached now. */
#define RS_ENDED	RS_ON(3, 7, 7, 5000, 9000, R_NOW)
/* A request: new, node_id, floor, grant, deadline, token. */
#define RQ(nw, nd, flo, gr, dl, tok) {					\
	.new = (nw), .node_id = (nd), .floor_unix_ns = (flo),		\
	.grant_unix_ns = (gr), .deadline_boot_ns = (dl), .token = (tok) }
#define RQ_NONE		RQ(0, R_NONE, 0, 0, 0, 0)
/* A revoke: node_id, token, force. */
#define RV(nd, tok, frc) {						\
	.node_id = (nd), .token = (tok), .force = (frc) }
/* A token far above any a store hands out: a bogus claim's. */
#define R_BOGUS		(U64_MAX >> 4)

static const struct uidgen_rules_case uidgen_rules_cases[] = {
	/* Assignment */
	{ "assign NEW, nothing in force", RULES_ASSIGN, RS_OFF(0, 0),
	  RQ(R_NEW, 3, 0, 0, 0, 0), R_NOW, 0, R_PUBLISH,
	  RS_ON(3, 0, 0, 0, 0, R_NODL) },
	{ "assign FLOOR with grant, lease and token", RULES_ASSIGN, RS_OFF(0, 0),
	  RQ(R_FLOOR, 3, 5000, 9000, R_LATER, 7), R_NOW, 0,
	  UIDGEN_RULES_FLOOR | R_PUBLISH, RS_HELD },
	{ "assign NEW with a floor", RULES_ASSIGN, RS_OFF(0, 0),
	  RQ(R_NEW, 3, 1, 0, 0, 0), R_NOW, -EINVAL, 0, RS_OFF(0, 0) },
	{ "assign with a floor of 0 and not NEW", RULES_ASSIGN, RS_OFF(0, 0),
	  RQ(R_FLOOR, 3, 0, 0, 0, 0), R_NOW, -EINVAL, 0, RS_OFF(0, 0) },
	{ "assign NEW with a floor, another node ID in force", RULES_ASSIGN,
	  RS_HELD, RQ(R_NEW, 4, 1, 0, 0, 8), R_NOW, -EINVAL, 0, RS_HELD },
	{ "assign with a floor of 0 once the lease ended", RULES_ASSIGN,
	  RS_ENDED, RQ(R_FLOOR, 3, 0, 0, 0, 8), R_NOW, -EINVAL,
	  UIDGEN_RULES_EXPIRE, RS_OFF(7, 5000) },
	{ "assign a node ID beyond node_bits", RULES_ASSIGN, RS_OFF(0, 0),
	  RQ(R_NEW, 32, 0, 0, 0, 0), R_NOW, -ERANGE, 0, RS_OFF(0, 0) },
	{ "assign with a deadline now", RULES_ASSIGN, RS_OFF(0, 0),
	  RQ(R_NEW, 3, 0, 0, R_NOW, 0), R_NOW, -ETIME, 0, RS_OFF(0, 0) },
	{ "assign with a token below the highest seen", RULES_ASSIGN,
	  RS_OFF(10, 0), RQ(R_NEW, 3, 0, 0, 0, 9), R_NOW, -ESTALE, 0,
	  RS_OFF(10, 0) },
	{ "assign a higher token", RULES_ASSIGN, RS_OFF(10, 0),
	  RQ(R_NEW, 3, 0, 0, 0, 11), R_NOW, 0, R_PUBLISH,
	  RS_ON(3, 11, 11, 0, 0, R_NODL) },
	/*
	 * A new assignment needs a token above every one seen: an etcd
	 * restored from a snapshot hands out the same revisions again.
	 */
	{ "assign NEW after a revoke with the token revoked", RULES_ASSIGN,
	  RS_OFF(7, 5000), RQ(R_NEW, 3, 0, 0, 0, 7), R_NOW, -ESTALE, 0,
	  RS_OFF(7, 5000) },
	{ "assign another node ID with the token in force", RULES_ASSIGN,
	  RS_HELD, RQ(R_NEW, 4, 0, 0, 0, 7), R_NOW, -ESTALE, 0, RS_HELD },
	{ "assign once the lease ended with its token", RULES_ASSIGN, RS_ENDED,
	  RQ(R_NEW, 3, 0, 0, 0, 7), R_NOW, -ESTALE, UIDGEN_RULES_EXPIRE,
	  RS_OFF(7, 5000) },
	{ "re-assign with the very token in force", RULES_ASSIGN, RS_HELD,
	  RQ(R_FLOOR, 3, 6000, 0, 0, 7), R_NOW, 0, UIDGEN_RULES_FLOOR,
	  RS_ON(3, 7, 7, 6000, 9000, R_LATER) },
	{ "re-assign with the highest token, another in force", RULES_ASSIGN,
	  RS_ON(3, 0, 7, 5000, 0, R_NODL), RQ(R_NEW, 3, 0, 0, 0, 7), R_NOW,
	  -ESTALE, 0, RS_ON(3, 0, 7, 5000, 0, R_NODL) },
	{ "re-assign with no token, a tokened claim in force", RULES_ASSIGN,
	  RS_HELD, RQ(R_FLOOR, 3, 6000, 9500, R_LATEST, 0), R_NOW, -ESTALE, 0,
	  RS_HELD },
	{ "assign with no token keeps the highest seen", RULES_ASSIGN,
	  RS_OFF(10, 0), RQ(R_NEW, 3, 0, 0, 0, 0), R_NOW, 0, R_PUBLISH,
	  RS_ON(3, 0, 10, 0, 0, R_NODL) },
	{ "assign while another node ID is in force", RULES_ASSIGN, RS_HELD,
	  RQ(R_NEW, 4, 0, 0, 0, 8), R_NOW, -EBUSY, 0, RS_HELD },
	{ "re-assign raises floor and grant, moves the deadline", RULES_ASSIGN,
	  RS_HELD, RQ(R_FLOOR, 3, 6000, 9500, R_LATEST, 8), R_NOW, 0,
	  UIDGEN_RULES_FLOOR | UIDGEN_RULES_RAISE_GRANT | UIDGEN_RULES_DEADLINE,
	  RS_ON(3, 8, 8, 6000, 9500, R_LATEST) },
	{ "re-assign lower floor and grant, no deadline: no change",
	  RULES_ASSIGN, RS_HELD, RQ(R_FLOOR, 3, 4000, 8000, 0, 7), R_NOW, 0, 0,
	  RS_HELD },
	{ "a floor only rises, across a revoke too", RULES_ASSIGN,
	  RS_OFF(7, 5000), RQ(R_FLOOR, 3, 4000, 0, 0, 8), R_NOW, 0, R_PUBLISH,
	  RS_ON(3, 8, 8, 5000, 0, R_NODL) },
	{ "assign another node ID once the lease ended", RULES_ASSIGN, RS_ENDED,
	  RQ(R_NEW, 4, 0, 0, 0, 8), R_NOW, 0, UIDGEN_RULES_EXPIRE | R_PUBLISH,
	  RS_ON(4, 8, 8, 5000, 0, R_NODL) },
	{ "assign the same node ID once the lease ended starts afresh",
	  RULES_ASSIGN, RS_ENDED, RQ(R_NEW, 3, 0, 0, 0, 8), R_NOW, 0,
	  UIDGEN_RULES_EXPIRE | R_PUBLISH, RS_ON(3, 8, 8, 5000, 0, R_NODL) },

	/* Renew */
	{ "renew raises the grant and moves the deadline", RULES_RENEW, RS_HELD,
	  RQ(0, 3, 0, 9500, R_LATEST, 7), R_NOW, 0,
	  UIDGEN_RULES_RAISE_GRANT | UIDGEN_RULES_DEADLINE,
	  RS_ON(3, 7, 7, 5000, 9500, R_LATEST) },
	{ "renew with no grant or deadline changes nothing", RULES_RENEW,
	  RS_HELD, RQ(0, 3, 0, 0, 0, 7), R_NOW, 0, 0, RS_HELD },
	{ "renew with a lower grant leaves it", RULES_RENEW, RS_HELD,
	  RQ(0, 3, 0, 8000, 0, 7), R_NOW, 0, 0, RS_HELD },
	/*
	 * A claim held under a token is renewed with that token only: an
	 * untokened caller (a second tool, an old agent, the persister) can
	 * neither extend its lease nor raise its grant.
	 */
	{ "renew with no token, a tokened claim in force", RULES_RENEW, RS_HELD,
	  RQ(0, 3, 0, 9500, R_LATEST, 0), R_NOW, -ESTALE, 0, RS_HELD },
	{ "renew with no token, an untokened node ID in force", RULES_RENEW,
	  RS_ON(3, 0, 7, 5000, 9000, R_LATER), RQ(0, 3, 0, 9500, R_LATEST, 0),
	  R_NOW, 0, UIDGEN_RULES_RAISE_GRANT | UIDGEN_RULES_DEADLINE,
	  RS_ON(3, 0, 7, 5000, 9500, R_LATEST) },
	{ "renew with a token, an untokened node ID in force", RULES_RENEW,
	  RS_ON(3, 0, 7, 5000, 9000, R_LATER), RQ(0, 3, 0, 9500, R_LATEST, 7),
	  R_NOW, -ESTALE, 0, RS_ON(3, 0, 7, 5000, 9000, R_LATER) },
	{ "renew with nothing in force", RULES_RENEW, RS_OFF(7, 5000),
	  RQ(0, 3, 0, 0, R_LATER, 7), R_NOW, -EADDRNOTAVAIL, 0,
	  RS_OFF(7, 5000) },
	{ "renew once the lease ended: it stays ended", RULES_RENEW, RS_ENDED,
	  RQ(0, 3, 0, 9500, R_LATEST, 7), R_NOW, -EADDRNOTAVAIL,
	  UIDGEN_RULES_EXPIRE, RS_OFF(7, 5000) },
	{ "renew another node ID", RULES_RENEW, RS_HELD,
	  RQ(0, 4, 0, 0, R_LATEST, 7), R_NOW, -ESTALE, 0,
	  RS_HELD },
	{ "renew another token", RULES_RENEW, RS_HELD,
	  RQ(0, 3, 0, 0, R_LATEST, 6), R_NOW, -ESTALE, 0,
	  RS_HELD },
	{ "renew with a deadline now", RULES_RENEW, RS_HELD,
	  RQ(0, 3, 0, 0, R_NOW, 7), R_NOW, -ETIME, 0, RS_HELD },
	/*
	 * One errno order: the request first (a deadline already past is
	 * ETIME whatever is in force), then the state (EADDRNOTAVAIL, then
	 * ESTALE); the lease's own end is seen before either.
	 */
	{ "renew with a deadline now, another node ID", RULES_RENEW, RS_HELD,
	  RQ(0, 4, 0, 0, R_NOW, 7), R_NOW, -ETIME, 0, RS_HELD },
	{ "renew with a deadline now, another token", RULES_RENEW, RS_HELD,
	  RQ(0, 3, 0, 0, R_NOW, 6), R_NOW, -ETIME, 0, RS_HELD },
	{ "renew with a deadline now, nothing in force", RULES_RENEW,
	  RS_OFF(7, 5000), RQ(0, 3, 0, 0, R_NOW, 7), R_NOW,
	  -ETIME, 0, RS_OFF(7, 5000) },
	{ "renew with a deadline now, once the lease ended", RULES_RENEW,
	  RS_ENDED, RQ(0, 3, 0, 0, R_NOW, 7), R_NOW, -ETIME,
	  UIDGEN_RULES_EXPIRE, RS_OFF(7, 5000) },

	/* Revoke */
	{ "revoke with nothing in force still fences", RULES_REVOKE,
	  RS_OFF(7, 5000), RQ_NONE, R_NOW, 0, UIDGEN_RULES_REVOKE,
	  RS_OFF(7, 5000) },
	{ "revoke the node ID in force: floor and highest token stay",
	  RULES_REVOKE, RS_HELD, RV(R_NONE, 7, false), R_NOW, 0,
	  UIDGEN_RULES_REVOKE, RS_OFF(7, 5000) },
	{ "revoke an untokened node ID with no token", RULES_REVOKE,
	  RS_ON(3, 0, 7, 5000, 0, R_NODL), RQ_NONE, R_NOW, 0,
	  UIDGEN_RULES_REVOKE, RS_OFF(7, 5000) },
	{ "revoke with no token, a tokened claim in force", RULES_REVOKE,
	  RS_HELD, RQ_NONE, R_NOW, -ESTALE, 0, RS_HELD },
	/*
	 * The administrator's override (uidgen revoke-node --force): any
	 * claim, and the highest token is forgotten, as a reload would, so
	 * that one bogus token cannot refuse every later claim.
	 */
	{ "a forced revoke, a tokened claim in force", RULES_REVOKE, RS_HELD,
	  RV(R_NONE, 0, true), R_NOW, 0, UIDGEN_RULES_REVOKE, RS_OFF(0, 5000) },
	{ "a forced revoke forgets a bogus highest token", RULES_REVOKE,
	  RS_ON(3, R_BOGUS, R_BOGUS, 5000, 9000, R_LATER), RV(4, 6, true),
	  R_NOW, 0, UIDGEN_RULES_REVOKE, RS_OFF(0, 5000) },
	{ "a bogus highest token refuses every lower claim", RULES_ASSIGN,
	  RS_OFF(R_BOGUS, 5000), RQ(R_FLOOR, 3, 6000, 0, 0, 8), R_NOW, -ESTALE,
	  0, RS_OFF(R_BOGUS, 5000) },
	{ "after a forced revoke a claim is taken again", RULES_ASSIGN,
	  RS_OFF(0, 5000), RQ(R_FLOOR, 3, 6000, 0, 0, 8), R_NOW, 0,
	  UIDGEN_RULES_FLOOR | R_PUBLISH, RS_ON(3, 8, 8, 6000, 0, R_NODL) },
	{ "revoke naming the node ID and token in force", RULES_REVOKE, RS_HELD,
	  RQ(0, 3, 0, 0, 0, 7), R_NOW, 0, UIDGEN_RULES_REVOKE,
	  RS_OFF(7, 5000) },
	{ "revoke naming another node ID", RULES_REVOKE, RS_HELD,
	  RQ(0, 4, 0, 0, 0, 7), R_NOW, -ESTALE, 0, RS_HELD },
	{ "revoke naming another token", RULES_REVOKE, RS_HELD,
	  RQ(0, R_NONE, 0, 0, 0, 6), R_NOW, -ESTALE, 0,
	  RS_HELD },
	{ "revoke naming a node ID, nothing in force", RULES_REVOKE,
	  RS_OFF(7, 5000), RQ(0, 3, 0, 0, 0, 0), R_NOW, 0,
	  UIDGEN_RULES_REVOKE, RS_OFF(7, 5000) },
	{ "revoke naming a token, nothing in force", RULES_REVOKE,
	  RS_OFF(7, 5000), RQ(0, R_NONE, 0, 0, 0, 7), R_NOW,
	  -ESTALE, 0, RS_OFF(7, 5000) },
	/*
	 * Every rule sees first whether the lease ended, so that the answer
	 * never depends on whether the expiry work has run yet.
	 */
	{ "revoke with the token of a lease that ended", RULES_REVOKE, RS_ENDED,
	  RQ(0, R_NONE, 0, 0, 0, 7), R_NOW, -ESTALE,
	  UIDGEN_RULES_EXPIRE, RS_OFF(7, 5000) },
	/* The lease's end is this revoke's fence: one grace period, not two. */
	{ "revoke with no token once the lease ended", RULES_REVOKE, RS_ENDED,
	  RQ_NONE, R_NOW, 0, UIDGEN_RULES_EXPIRE, RS_OFF(7, 5000) },

	{ "assign a node ID beyond node_bits once the lease ended",
	  RULES_ASSIGN, RS_ENDED, RQ(R_NEW, 32, 0, 0, 0, 8), R_NOW, -ERANGE,
	  UIDGEN_RULES_EXPIRE, RS_OFF(7, 5000) },

	/* The deadline */
	{ "before the deadline nothing ends", RULES_EXPIRE, RS_HELD, RQ_NONE,
	  R_NOW, 0, 0, RS_HELD },
	{ "at the deadline the node ID is revoked", RULES_EXPIRE, RS_ENDED,
	  RQ_NONE, R_NOW, 0, UIDGEN_RULES_EXPIRE, RS_OFF(7, 5000) },
	{ "no deadline, no end", RULES_EXPIRE,
	  RS_ON(3, 7, 7, 5000, 9000, R_NODL), RQ_NONE, R_NOW, 0, 0,
	  RS_ON(3, 7, 7, 5000, 9000, R_NODL) },

	/*
	 * The lease agent's own requests (a token, a lease, a floor or NEW):
	 * the rows model/fleet.pml's kernel is checked against too.
	 */
	{ "agent: a claim whose token equals the highest seen (etcd rewound)",
	  RULES_ASSIGN, RS_OFF(7, 5000), RQ(R_FLOOR, 3, 6000, 9000, R_LATER, 7),
	  R_NOW, -ESTALE, 0, RS_OFF(7, 5000) },
	{ "agent: the claim in force assigned again, with its token",
	  RULES_ASSIGN, RS_HELD, RQ(R_FLOOR, 3, 6000, 9500, R_LATEST, 7), R_NOW,
	  0, UIDGEN_RULES_FLOOR | UIDGEN_RULES_RAISE_GRANT | UIDGEN_RULES_DEADLINE,
	  RS_ON(3, 7, 7, 6000, 9500, R_LATEST) },
	{ "agent: a claim with a lower token once the lease ended",
	  RULES_ASSIGN, RS_ENDED, RQ(R_NEW, 4, 0, 9000, R_LATER, 6), R_NOW,
	  -ESTALE, UIDGEN_RULES_EXPIRE, RS_OFF(7, 5000) },
	{ "agent: a renew with a lower grant leaves the grant, moves the deadline",
	  RULES_RENEW, RS_HELD, RQ(0, 3, 0, 8000, R_LATEST, 7), R_NOW, 0,
	  UIDGEN_RULES_DEADLINE, RS_ON(3, 7, 7, 5000, 9000, R_LATEST) },
	{ "agent: the opening renew raises the grant, leaves the deadline",
	  RULES_RENEW, RS_ON(3, 7, 7, 5000, 5000, R_LATER), RQ(0, 3, 0, 9000, 0, 7),
	  R_NOW, 0, UIDGEN_RULES_RAISE_GRANT, RS_HELD },
	{ "agent: a new claim after a revoke, a higher token",
	  RULES_ASSIGN, RS_OFF(7, 5000), RQ(R_FLOOR, 4, 6000, 9000, R_LATER, 8),
	  R_NOW, 0, UIDGEN_RULES_FLOOR | R_PUBLISH,
	  RS_ON(4, 8, 8, 6000, 9000, R_LATER) },
};

/* Run case @c: the state it leaves in @s, the actions in @act. */
static inline int uidgen_rules_case_run(const struct uidgen_rules_case *c,
					struct uidgen_node_rules *s,
					unsigned int *act)
{
	*s = c->before;
	*act = 0;
	switch (c->op) {
	case RULES_ASSIGN:
		return uidgen_rules_assign(s, &c->req, c->now_ns, act);
	case RULES_RENEW:
		return uidgen_rules_renew(s, &c->req, c->now_ns, act);
	case RULES_REVOKE:
		return uidgen_rules_revoke(s, &c->req, c->now_ns, act);
	case RULES_EXPIRE:
		uidgen_rules_expire(s, c->now_ns, act);
		return 0;
	}
	return -EINVAL;
}

#endif /* _UIDGEN_NODERULES_CASES_H */
