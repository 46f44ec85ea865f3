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
	unsigned int sn, st, sm, sf, sg, sd;
	unsigned int op, qn, qt, qf, qg, qd, qnew, qforce;
	unsigned long n = 0;

	*bad = 0;
	for (sn = 0; sn < ARRAY_SIZE(nodes); sn++)
	for (st = 0; st < ARRAY_SIZE(toks); st++)
	for (sm = 0; sm < ARRAY_SIZE(toks); sm++)
	for (sf = 0; sf < 2; sf++)
	for (sg = 0; sg < 2; sg++)
	for (sd = 0; sd < ARRAY_SIZE(sdl); sd++) {
		struct uidgen_node_rules b = RS_ON(nodes[sn], toks[st], toks[sm],
						    floors[sf * 2], grants[sg],
						    sdl[sd]);

		/* Consistent states only: what the rules can reach. */
		if (b.token && b.token != b.max_token)
			continue;
		if (b.node == R_NONE && (b.token || b.grant_unix_ns ||
					 b.deadline_boot_ns != R_NODL))
			continue;
		for (op = RULES_ASSIGN; op <= RULES_EXPIRE; op++)
		for (qn = 0; qn < ARRAY_SIZE(nodes); qn++)
		for (qt = 0; qt < ARRAY_SIZE(toks); qt++)
		for (qf = 0; qf < ARRAY_SIZE(floors); qf++)
		for (qg = 0; qg < ARRAY_SIZE(grants); qg++)
		for (qd = 0; qd < ARRAY_SIZE(qdl); qd++)
		for (qnew = 0; qnew < 2; qnew++)
		for (qforce = 0; qforce < 2; qforce++) {
			struct uidgen_rules_case c = {
				.op = op, .before = b, .now_ns = R_NOW,
				.req = {
					.node_id = nodes[qn], .token = toks[qt],
					.floor_unix_ns = floors[qf],
					.grant_unix_ns = grants[qg],
					.deadline_boot_ns = qdl[qd],
					.new = qnew, .force = qforce,
				},
			};
			struct uidgen_node_rules a;
			unsigned int act;
			const char *p;
			int ret;

			if (qforce && op != RULES_REVOKE)
				continue;
			ret = uidgen_rules_case_run(&c, &a, &act);
			n++;
			p = uidgen_rules_check(op, &b, &c.req, &a, ret, act);
			if (!p)
				continue;
			if (!(*bad)++)
				*v = (struct uidgen_rules_violation) {
					.prop = p, .op = op, .before = b,
					.after = a, .req = c.req, .ret = ret,
					.act = act,
				};
		}
	}
	return n;
}

#endif /* _UIDGEN_NODERULES_PROPS_H */
