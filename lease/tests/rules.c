// SPDX-License-Identifier: GPL-2.0
/*
 * The node rules' table (module/tests/noderules_cases.h) on the host,
 * against module/noderules.c as uidgen-lease's device stand-in builds it
 * (with kshim.h): the same rows KUnit runs against the module's build.
 * Prints kselftest TAP with a "# Totals:" line; exit status 1 on any
 * failure.
 */
#include <stdio.h>

#include "../kshim.h"
#include "../../module/tests/noderules_cases.h"

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

	printf("TAP version 13\n1..%zu\n", N_CASES);
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
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 error:0\n", pass, fail);
	return fail ? 1 : 0;
}
