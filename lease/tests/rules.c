// SPDX-License-Identifier: GPL-2.0
/*
 * The node rules' table (module/tests/noderules_cases.h) on the host,
 * against module/noderules.c as uidgen-lease's device stand-in builds it
 * (with kshim.h): the same rows KUnit runs against the module's build,
 * then the rules' properties over every state and request of a small
 * domain (noderules_props.h). Prints kselftest TAP with a "# Totals:" line; exit status 1 on any
 * failure.
 */
#include <stdio.h>

#include "../kshim.h"
#include "../../module/tests/noderules_props.h"

#define N_CASES (sizeof(uidgen_rules_cases) / sizeof(uidgen_rules_cases[0]))

static int fails;

static void expect(const char *what, unsigned long long want, unsigned long long got)
{
	if (want == got)
		return;
	printf("#   %s: expected %llu (%#llx), got %llu (%#llx)\n", what, want, want, got, got);
	fails++;
}

static void expect_ret(int want, int got)
{
	if (want == got)
		return;
	printf("#   errno: expected %d, got %d\n", want, got);
	fails++;
}

int main(void)
{
	unsigned int i, pass = 0, fail = 0;

	printf("TAP version 13\n1..%zu\n", N_CASES + 1);
	for (i = 0; i < N_CASES; i++) {
		const struct uidgen_rules_case *c = &uidgen_rules_cases[i];
		const struct uidgen_node_rules *w = &c->after;
		struct uidgen_node_rules s;
		unsigned int act;
		int ret = uidgen_rules_case_run(c, &s, &act);

		fails = 0;
		expect_ret(c->ret, ret);
		expect("actions", c->act, act);
		expect("node", w->node, s.node);
		expect("token", w->token, s.token);
		expect("max_token", w->max_token, s.max_token);
		expect("floor_unix_ns", w->floor_unix_ns, s.floor_unix_ns);
		expect("grant_unix_ns", w->grant_unix_ns, s.grant_unix_ns);
		expect("deadline_boot_ns", w->deadline_boot_ns, s.deadline_boot_ns);
		expect("node_bits", w->node_bits, s.node_bits);
		if (fails) {
			fail++;
			printf("not ok %u %s\n", i + 1, c->name);
		} else {
			pass++;
			printf("ok %u %s\n", i + 1, c->name);
		}
	}
	{
		struct uidgen_rules_violation v;
		unsigned long bad, n = uidgen_rules_explore(&bad, &v);

		if (bad) {
			fail++;
			printf("#   %lu of %lu calls break a property; the first: %s\n",
			       bad, n, v.prop);
			printf("#   op %u, node %u token %llu max %llu floor %llu grant %llu deadline %llu\n",
			       v.op, v.before.node, (unsigned long long)v.before.token,
			       (unsigned long long)v.before.max_token,
			       (unsigned long long)v.before.floor_unix_ns,
			       (unsigned long long)v.before.grant_unix_ns,
			       (unsigned long long)v.before.deadline_boot_ns);
			printf("#   request node %u token %llu new %d force %d floor %llu grant %llu deadline %llu: %d, actions %#x\n",
			       v.req.node_id, (unsigned long long)v.req.token, v.req.new,
			       v.req.force, (unsigned long long)v.req.floor_unix_ns,
			       (unsigned long long)v.req.grant_unix_ns,
			       (unsigned long long)v.req.deadline_boot_ns, v.ret, v.act);
			printf("not ok %zu properties over %lu calls\n", N_CASES + 1, n);
		} else {
			pass++;
			printf("ok %zu properties over %lu calls\n", N_CASES + 1, n);
		}
	}
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n", pass, fail);
	return fail ? 1 : 0;
}
