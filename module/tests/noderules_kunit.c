// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the node rules (noderules.c): the table in
 * noderules_cases.h and the properties in noderules_props.h, which make
 * check also runs on the host against uidgen-lease's build of the same
 * rules (lease/tests/rules.c).
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "noderules_props.h"

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

/* Every state and request of the small domain, through every rule. */
static void uidgen_rules_props_test(struct kunit *test)
{
	struct uidgen_rules_violation v = { .prop = "" };
	unsigned long bad, n = uidgen_rules_explore(&bad, &v);

	KUNIT_EXPECT_GT(test, n, 1000000UL);
	KUNIT_EXPECT_EQ_MSG(test, 0UL, bad,
			    "%s: op %u on node %u token %llu max %llu, request node %u token %llu force %d: %d, actions %#x",
			    v.prop, v.op, v.before.node,
			    v.before.token, v.before.max_token, v.req.node_id,
			    v.req.token, v.req.force, v.ret, v.act);
}

static struct kunit_case uidgen_rules_test_cases[] = {
	KUNIT_CASE_PARAM(uidgen_rules_test, rules_gen_params),
	KUNIT_CASE_SLOW(uidgen_rules_props_test),
	{}
};

static struct kunit_suite uidgen_rules_suite = {
	.name = "uidgen_rules",
	.test_cases = uidgen_rules_test_cases,
};

kunit_test_suite(uidgen_rules_suite);
