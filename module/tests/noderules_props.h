/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node rules' properties, checked over every state and request of a
 * small domain (node IDs, tokens, floors, grants and deadlines around
 * each other), not only the table's rows: KUnit runs it against the
 * module's build of noderules.c, make check on the host against the
 * stand-in's (lease/tests/rules.c).
 *
 * The properties:
 *  P1 an untokened request (token 0, not forced) never changes a claim
 *     held under a token: refused (ESTALE, or a fault of the request
 *     itself, which is checked first), and the state as it was;
 *  P2 a request whose token is below the highest seen never changes the
 *     state, but for the lease's own end (a forced revoke excepted);
 *  P3 one call fences at most once (EXPIRE and REVOKE never together);
 *  P4 the highest token seen never falls, but by a forced revoke, which
 *     always succeeds and leaves nothing in force and no token;
 *  P5 the floor never falls;
 *  P6 an error leaves the state as it was, but for the lease's own end.
 */
#ifndef _UIDGEN_NODERULES_PROPS_H
#define _UIDGEN_NODERULES_PROPS_H

#include "noderules_cases.h"

/* The first property broken, for the report. */
struct uidgen_rules_violation {
	const char *prop;
	unsigned int op;
	struct uidgen_node_rules before, after;
	struct uidgen_rules_req req;
	int ret;
	unsigned int act;
};

static inline bool uidgen_rules_same(const struct uidgen_node_rules *a,
				     const struct uidgen_node_rules *b)
{
	return a->node == b->node && a->token == b->token &&
	       a->max_token == b->max_token &&
	       a->floor_unix_ns == b->floor_unix_ns &&
	       a->grant_unix_ns == b->grant_unix_ns &&
	       a->deadline_boot_ns == b->deadline_boot_ns;
}

/* Which property (if any) one call broke; NULL if none. */
static inline const char *
uidgen_rules_check(unsigned int op, const struct uidgen_node_rules *b,
		   const struct uidgen_rules_req *q,
		   const struct uidgen_node_rules *a, int ret, unsigned int act)
{
	bool ended = act & UIDGEN_RULES_EXPIRE;
	bool force = op == RULES_REVOKE && q->force;
	bool held = b->node != R_NONE && b->token && !ended;

	if (held && !q->token && !force && op != RULES_EXPIRE &&
	    (!ret || !uidgen_rules_same(a, b)))
		return "P1 an untokened request changed a tokened claim";
	if (q->token && q->token < b->max_token && !force && !ended &&
	    op != RULES_EXPIRE && !uidgen_rules_same(a, b))
		return "P2 a token below the highest seen changed the state";
	if ((act & UIDGEN_RULES_EXPIRE) && (act & UIDGEN_RULES_REVOKE))
		return "P3 one call fenced twice";
	if (force && (ret || a->node != R_NONE || a->max_token || a->token))
		return "P4 a forced revoke failed or kept a token";
	if (!force && a->max_token < b->max_token)
		return "P4 the highest token seen fell";
	if (a->floor_unix_ns < b->floor_unix_ns)
		return "P5 the floor fell";
	if (ret && !ended && !uidgen_rules_same(a, b))
		return "P6 an error changed the state";
	return NULL;
}

/*
 * Every consistent state and every request of the domain, through every
 * rule. Returns the number of calls checked; *bad is set to the number
 * of violations and *v to the first.
 */
static inline unsigned long
uidgen_rules_explore(unsigned long *bad, struct uidgen_rules_violation *v)
{
	static const u32 nodes[] = { R_NONE, 3, 4 };
	static const u64 toks[] = { 0, 6, 7, 8, R_BOGUS };
	static const u64 floors[] = { 0, 4000, 5000, 6000 };
	static const u64 grants[] = { 0, 9000, 9500 };
	static const u64 sdl[] = { R_NOW, R_LATER, R_NODL };
	static const u64 qdl[] = { 0, R_NOW, R_LATEST };
	/* Each combination is one number, read digit by digit (mixed radix). */
	const unsigned long states = 3 * 5 * 5 * 2 * 2 * 3;
	const unsigned long reqs = 4 * 3 * 5 * 4 * 3 * 3 * 2 * 2;
	unsigned long i, n = 0;

	*bad = 0;
	for (i = 0; i < states * reqs; i++) {
		unsigned long x = i;
		struct uidgen_node_rules b, a;
		struct uidgen_rules_case c;
		unsigned int act, op;
		const char *p;
		int ret;

		b = (struct uidgen_node_rules)RS_ON(nodes[x % 3],
						    toks[x / 3 % 5],
						    toks[x / 15 % 5],
						    floors[x / 75 % 2 * 2],
						    grants[x / 150 % 2],
						    sdl[x / 300 % 3]);
		x /= states;
		op = x % 4;
		c = (struct uidgen_rules_case) {
			.op = op, .before = b, .now_ns = R_NOW,
			.req = {
				.node_id = nodes[x / 4 % 3],
				.token = toks[x / 12 % 5],
				.floor_unix_ns = floors[x / 60 % 4],
				.grant_unix_ns = grants[x / 240 % 3],
				.deadline_boot_ns = qdl[x / 720 % 3],
				.new = x / 2160 % 2,
				.force = x / 4320 % 2,
			},
		};
		/* Consistent states only: what the rules can reach. */
		if (b.token && b.token != b.max_token)
			continue;
		if (b.node == R_NONE && (b.token || b.grant_unix_ns ||
					 b.deadline_boot_ns != R_NODL))
			continue;
		if (c.req.force && op != RULES_REVOKE)
			continue;
		ret = uidgen_rules_case_run(&c, &a, &act);
		n++;
		p = uidgen_rules_check(op, &b, &c.req, &a, ret, act);
		if (!p)
			continue;
		if (!(*bad)++)
			*v = (struct uidgen_rules_violation) {
				.prop = p, .op = op, .before = b, .after = a,
				.req = c.req, .ret = ret, .act = act,
			};
	}
	return n;
}

#endif /* _UIDGEN_NODERULES_PROPS_H */
