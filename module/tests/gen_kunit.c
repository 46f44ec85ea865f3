// SPDX-License-Identifier: GPL-2.0
#include <kunit/test.h>

static void uidgen_placeholder(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1, 1);
}

static struct kunit_case uidgen_cases[] = {
	KUNIT_CASE(uidgen_placeholder),
	{}
};

static struct kunit_suite uidgen_suite = {
	.name = "uidgen",
	.test_cases = uidgen_cases,
};
kunit_test_suite(uidgen_suite);
