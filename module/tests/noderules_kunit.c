// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the node rules (noderules.c): the table in
 * noderules_cases.h, which make check also runs on the host against
 * uidgen-lease's build of the same rules (lease/tests/rules.c).
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "noderules_cases.h"

static void rules_case_desc(const struct uidgen_rules_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rules, uidgen_rules_cases, rules_case_desc);

static void uidgen_rules_test(struct kunit *test)
{
	const struct uidgen_rules_case *c = test->param_value;
	const struct uidgen_node_rules *want = &c->after;
	struct uidgen_node_rules s;
	unsigned int act;

	KUNIT_EXPECT_EQ(test, c->ret, uidgen_rules_case_run(c, &s, &act));
	KUNIT_EXPECT_EQ(test, c->act, act);
	KUNIT_EXPECT_EQ(test, want->node, s.node);
	KUNIT_EXPECT_EQ(test, want->token, s.token);
	KUNIT_EXPECT_EQ(test, want->max_token, s.max_token);
	KUNIT_EXPECT_EQ(test, want->floor_unix_ns, s.floor_unix_ns);
	KUNIT_EXPECT_EQ(test, want->grant_unix_ns, s.grant_unix_ns);
	KUNIT_EXPECT_EQ(test, want->deadline_boot_ns, s.deadline_boot_ns);
	KUNIT_EXPECT_EQ(test, want->node_bits, s.node_bits);
}

static struct kunit_case uidgen_rules_test_cases[] = {
	KUNIT_CASE_PARAM(uidgen_rules_test, rules_gen_params),
	{}
};

static struct kunit_suite uidgen_rules_suite = {
	.name = "uidgen_rules",
	.test_cases = uidgen_rules_test_cases,
};

kunit_test_suite(uidgen_rules_suite);
