// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The public form's tests (userlib/public.c); no device needed, built with
 * ASan and UBSan. SipHash-2-4 against the 64 vectors of its reference
 * implementation; the token against the project's own vectors (the
 * bindings' tests hold the same); round trips over millions of IDs and of
 * random 64-bit values; the same Feistel network over 2x8-bit halves is a
 * permutation of all 65536 values; avalanche (one flipped ID bit flips
 * each token bit with probability 1/2); consecutive IDs' tokens in no
 * order; the text's refusals (length, alphabet, past 2^64, unknown key,
 * check digit, another key under the same key ID); the key file (format,
 * line numbers, modes refused, save and load, rotation).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uidgen.h"
#include "internal.h"
#include "tap.h"

/* The test key of the SipHash paper: bytes 00 01 .. 0f. */
static const uint8_t key0f[16] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
};

/*
 * SipHash-2-4 of the messages 00, 00 01, ..., 00 01 .. 3e (lengths 0..63)
 * under key0f: vectors_sip64 of the reference implementation
 * (github.com/veorq/SipHash, vectors.h), as little-endian 64-bit values.
 */
static const uint64_t sip_vectors[64] = {
	0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL, 0x0d6c8009d9a94f5aULL, 0x85676696d7fb7e2dULL,
	0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL, 0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL,
	0x93f5f5799a932462ULL, 0x9e0082df0ba9e4b0ULL, 0x7a5dbbc594ddb9f3ULL, 0xf4b32f46226bada7ULL,
	0x751e8fbc860ee5fbULL, 0x14ea5627c0843d90ULL, 0xf723ca908e7af2eeULL, 0xa129ca6149be45e5ULL,
	0x3f2acc7f57c29bdbULL, 0x699ae9f52cbe4794ULL, 0x4bc1b3f0968dd39cULL, 0xbb6dc91da77961bdULL,
	0xbed65cf21aa2ee98ULL, 0xd0f2cbb02e3b67c7ULL, 0x93536795e3a33e88ULL, 0xa80c038ccd5ccec8ULL,
	0xb8ad50c6f649af94ULL, 0xbce192de8a85b8eaULL, 0x17d835b85bbb15f3ULL, 0x2f2e6163076bcfadULL,
	0xde4daaaca71dc9a5ULL, 0xa6a2506687956571ULL, 0xad87a3535c49ef28ULL, 0x32d892fad841c342ULL,
	0x7127512f72f27cceULL, 0xa7f32346f95978e3ULL, 0x12e0b01abb051238ULL, 0x15e034d40fa197aeULL,
	0x314dffbe0815a3b4ULL, 0x027990f029623981ULL, 0xcadcd4e59ef40c4dULL, 0x9abfd8766a33735cULL,
	0x0e3ea96b5304a7d0ULL, 0xad0c42d6fc585992ULL, 0x187306c89bc215a9ULL, 0xd4a60abcf3792b95ULL,
	0xf935451de4f21df2ULL, 0xa9538f0419755787ULL, 0xdb9acddff56ca510ULL, 0xd06c98cd5c0975ebULL,
	0xe612a3cb9ecba951ULL, 0xc766e62cfcadaf96ULL, 0xee64435a9752fe72ULL, 0xa192d576b245165aULL,
	0x0a8787bf8ecb74b2ULL, 0x81b3e73d20b49b6fULL, 0x7fa8220ba3b2eceaULL, 0x245731c13ca42499ULL,
	0xb78dbfaf3a8d83bdULL, 0xea1ad565322a1a0bULL, 0x60e61c23a3795013ULL, 0x6606d7e446282b93ULL,
	0x6ca4ecb15c5f91e1ULL, 0x9f626da15c9625f3ULL, 0xe51b38608ef25f57ULL, 0x958a324ceb064572ULL,
};

static void test_siphash_vectors(void)
{
	uint8_t m[64];
	uint64_t h;
	int i;

	for (i = 0; i < 64; i++)
		m[i] = i;
	for (i = 0; i < 64; i++) {
		h = uidgen_siphash24(key0f, m, i);
		CHECK(h == sip_vectors[i], "length %d: %016llx, not %016llx", i,
		      (unsigned long long)h, (unsigned long long)sip_vectors[i]);
	}
}

static struct uidgen_keys *keys_of(int id, const uint8_t key[16])
{
	struct uidgen_keys *k;

	if (uidgen_keys_new(&k) || uidgen_keys_add(k, id, key)) {
		printf("# keys_of(%d): no key set\n", id);
		exit(1);
	}
	return k;
}

/*
 * The project's vectors: key 1 = 000102..0f. Each row: ID, token, text,
 * decimal. The bindings' tests (bindings/python, bindings/go) and the
 * PostgreSQL extension's regression test hold the same rows.
 */
static const struct {
	uint64_t id, token;
	const char *text, *dec;
} kats[] = {
#include "public_kats.h"
};

static void test_token_vectors(void)
{
	struct uidgen_keys *k = keys_of(1, key0f);
	char buf[UIDGEN_PUBLIC_STR_MAX];
	uint64_t t, id;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(kats) / sizeof(kats[0]); i++) {
		ret = uidgen_public(k, UIDGEN_KEY_CURRENT, kats[i].id, &t);
		CHECK(!ret && t == kats[i].token, "ID %llu: %d, token %016llx, not %016llx",
		      (unsigned long long)kats[i].id, ret, (unsigned long long)t,
		      (unsigned long long)kats[i].token);
		ret = uidgen_format_public(k, UIDGEN_KEY_CURRENT, kats[i].id,
					   UIDGEN_PUBLIC_TEXT, buf, sizeof(buf));
		CHECK(ret == 13 && !strcmp(buf, kats[i].text), "ID %llu: %d '%s', not '%s'",
		      (unsigned long long)kats[i].id, ret, buf, kats[i].text);
		ret = uidgen_format_public(k, 1, kats[i].id, UIDGEN_PUBLIC_DEC,
					   buf, sizeof(buf));
		CHECK(ret == (int)strlen(kats[i].dec) && !strcmp(buf, kats[i].dec),
		      "ID %llu: %d '%s', not '%s'", (unsigned long long)kats[i].id,
		      ret, buf, kats[i].dec);
		id = ~0ULL;
		ret = uidgen_parse_public(k, kats[i].text, UIDGEN_PUBLIC_TEXT,
					  UIDGEN_KEY_CURRENT, &id);
		CHECK(!ret && id == kats[i].id, "'%s': %d, %llu", kats[i].text, ret,
		      (unsigned long long)id);
		id = ~0ULL;
		ret = uidgen_parse_public(k, kats[i].dec, UIDGEN_PUBLIC_DEC, 1, &id);
		CHECK(!ret && id == kats[i].id, "'%s': %d, %llu", kats[i].dec, ret,
		      (unsigned long long)id);
		/* The short form is the text's 11 token digits. */
		ret = uidgen_format_public(k, UIDGEN_KEY_CURRENT, kats[i].id,
					   UIDGEN_PUBLIC_SHORT, buf, sizeof(buf));
		CHECK(ret == 11 && !strncmp(buf, kats[i].text + 1, 11) && !buf[11],
		      "ID %llu: short %d '%s', not '%.11s'", (unsigned long long)kats[i].id,
		      ret, buf, kats[i].text + 1);
		id = ~0ULL;
		ret = uidgen_parse_public(k, buf, UIDGEN_PUBLIC_SHORT, 1, &id);
		CHECK(!ret && id == kats[i].id, "short '%s': %d, %llu", buf, ret,
		      (unsigned long long)id);
	}
	uidgen_keys_free(k);
}

/* The 64-bit path (two 32-bit halves, inline SipHash) is the general one. */
static void test_fast_path_is_general(void)
{
	struct uidgen_keys *k = keys_of(7, key0f);
	uint64_t id, t, g;
	int i;

	for (i = 0; i < 200000; i++) {
		id = rnd() >> 1;
		uidgen_public(k, 7, id, &t);
		g = uidgen_feistel(key0f, 32, id, 0);
		CHECK(t == g, "%016llx: %016llx, general %016llx",
		      (unsigned long long)id, (unsigned long long)t,
		      (unsigned long long)g);
		CHECK(uidgen_feistel(key0f, 32, g, 1) == id, "%016llx",
		      (unsigned long long)id);
	}
	uidgen_keys_free(k);
}

#define ROUND_TRIPS	2000000

static void test_round_trip_ids(void)
{
	struct uidgen_keys *k;
	char buf[UIDGEN_PUBLIC_STR_MAX];
	uint64_t id, t, back, base = rnd() >> 1;
	int i, ret;

	uidgen_keys_new(&k);
	uidgen_keys_generate(k, NULL);
	for (i = 0; i < ROUND_TRIPS; i++) {
		/* Half random IDs, half a run of consecutive ones. */
		id = i & 1 ? rnd() >> 1 : (base + i) & ~(1ULL << 63);
		ret = uidgen_public(k, UIDGEN_KEY_CURRENT, id, &t);
		ret = ret ? ret : uidgen_private(k, UIDGEN_KEY_CURRENT, t, &back);
		CHECK(!ret && back == id, "%llu: %d %llu", (unsigned long long)id,
		      ret, (unsigned long long)back);
		if (i % 8)
			continue;
		ret = uidgen_format_public(k, UIDGEN_KEY_CURRENT, id,
					   UIDGEN_PUBLIC_TEXT, buf, sizeof(buf));
		ret = ret < 0 ? ret : uidgen_parse_public(k, buf, UIDGEN_PUBLIC_TEXT,
							  UIDGEN_KEY_CURRENT, &back);
		CHECK(!ret && back == id, "%llu '%s': %d %llu",
		      (unsigned long long)id, buf, ret, (unsigned long long)back);
		ret = uidgen_format_public(k, UIDGEN_KEY_CURRENT, id,
					   UIDGEN_PUBLIC_DEC, buf, sizeof(buf));
		ret = ret < 0 ? ret : uidgen_parse_public(k, buf, UIDGEN_PUBLIC_DEC,
							  UIDGEN_KEY_CURRENT, &back);
		CHECK(!ret && back == id, "%llu '%s': %d %llu",
		      (unsigned long long)id, buf, ret, (unsigned long long)back);
		ret = uidgen_format_public(k, UIDGEN_KEY_CURRENT, id,
					   UIDGEN_PUBLIC_SHORT, buf, sizeof(buf));
		CHECK(ret == 11 && strlen(buf) == 11, "%llu short: %d '%s'",
		      (unsigned long long)id, ret, buf);
		ret = ret < 0 ? ret : uidgen_parse_public(k, buf, UIDGEN_PUBLIC_SHORT,
							  UIDGEN_KEY_CURRENT, &back);
		CHECK(!ret && back == id, "%llu '%s': %d %llu",
		      (unsigned long long)id, buf, ret, (unsigned long long)back);
	}
	/* The ends, and an ID with the sign bit (not an ID). */
	for (id = 0; id < 4; id++) {
		uint64_t e[2] = { id, (~0ULL >> 1) - id };
		int j;

		for (j = 0; j < 2; j++) {
			ret = uidgen_public(k, UIDGEN_KEY_CURRENT, e[j], &t);
			ret = ret ? ret : uidgen_private(k, UIDGEN_KEY_CURRENT, t, &back);
			CHECK(!ret && back == e[j], "%llu", (unsigned long long)e[j]);
		}
	}
	ret = uidgen_public(k, UIDGEN_KEY_CURRENT, 1ULL << 63, &t);
	CHECK(ret == -ERANGE, "2^63: %d", ret);
	ret = uidgen_format_public(k, UIDGEN_KEY_CURRENT, ~0ULL, UIDGEN_PUBLIC_TEXT,
				   buf, sizeof(buf));
	CHECK(ret == -ERANGE, "2^64-1: %d", ret);
	uidgen_keys_free(k);
}

/*
 * Every 64-bit value opens to a 64-bit value that makes it again; about
 * half open to an ID (sign bit 0), the rest are refused with EKEYREJECTED.
 */
static void test_round_trip_values(void)
{
	struct uidgen_keys *k;
	uint64_t t, id, again, n = 0;
	int i, ret;
	double f;

	uidgen_keys_new(&k);
	uidgen_keys_generate(k, NULL);
	for (i = 0; i < ROUND_TRIPS; i++) {
		t = rnd();
		ret = uidgen_private(k, UIDGEN_KEY_CURRENT, t, &id);
		CHECK(!ret || ret == -EKEYREJECTED, "%016llx: %d",
		      (unsigned long long)t, ret);
		if (ret)
			continue;
		n++;
		CHECK(!(id >> 63), "%016llx: %016llx", (unsigned long long)t,
		      (unsigned long long)id);
		uidgen_public(k, UIDGEN_KEY_CURRENT, id, &again);
		CHECK(again == t, "%016llx: %016llx", (unsigned long long)t,
		      (unsigned long long)again);
	}
	f = (double)n / ROUND_TRIPS;
	/* Binomial(2e6, 1/2): sd 0.00035; 0.005 is 14 sd. */
	CHECK(fabs(f - 0.5) < 0.005, "%.4f of random values open to an ID", f);
	printf("# %.4f of %d random 64-bit values open to an ID\n", f, ROUND_TRIPS);
	uidgen_keys_free(k);
}

/* The same network over 2x8-bit halves: all 65536 inputs, 65536 outputs. */
static void test_permutation_small(void)
{
	static uint8_t seen[1 << 20];
	uint8_t key[16];
	unsigned int bits, x, y, dups, fixed;
	int r;

	for (r = 0; r < 4; r++) {
		for (x = 0; x < 16; x++)
			key[x] = rnd();
		for (bits = 8; bits <= 10; bits += 2) {
			memset(seen, 0, sizeof(seen));
			dups = fixed = 0;
			for (x = 0; x < 1U << (2 * bits); x++) {
				y = uidgen_feistel(key, bits, x, 0);
				CHECK(y < 1U << (2 * bits), "%u bits: %u -> %u", bits, x, y);
				if (y >= 1U << (2 * bits))
					continue;
				dups += seen[y]++ != 0;
				fixed += x == y;
				CHECK(uidgen_feistel(key, bits, y, 1) == x, "%u bits: %u", bits, x);
			}
			CHECK(!dups, "%u bits: %u outputs seen twice", bits, dups);
			/* A random permutation has ~Poisson(1) fixed points. */
			CHECK(fixed < 12, "%u bits: %u fixed points", bits, fixed);
		}
	}
}

/*
 * Avalanche: for each of the ID's 63 bits, flipping it flips each of the
 * token's 64 bits with probability 1/2 (the strict avalanche criterion),
 * measured over AVAL IDs.
 */
#define AVAL	50000

static void test_avalanche(void)
{
	static unsigned int flips[63][64];
	struct uidgen_keys *k;
	uint64_t id, t0, t1, d, total = 0;
	double p, worst = 0.5, mean;
	int i, b, o;

	uidgen_keys_new(&k);
	uidgen_keys_generate(k, NULL);
	for (i = 0; i < AVAL; i++) {
		id = rnd() >> 1;
		uidgen_public(k, UIDGEN_KEY_CURRENT, id, &t0);
		for (b = 0; b < 63; b++) {
			uidgen_public(k, UIDGEN_KEY_CURRENT, id ^ 1ULL << b, &t1);
			d = t0 ^ t1;
			total += __builtin_popcountll(d);
			for (o = 0; o < 64; o++)
				flips[b][o] += d >> o & 1;
		}
	}
	mean = (double)total / ((double)AVAL * 63);
	/* 32 per flip, sd 4/sqrt(3.15e6) = 0.0023: 0.05 is 20 sd. */
	CHECK(fabs(mean - 32) < 0.05, "mean %.4f token bits flipped", mean);
	for (b = 0; b < 63; b++)
		for (o = 0; o < 64; o++) {
			p = (double)flips[b][o] / AVAL;
			if (fabs(p - 0.5) > fabs(worst - 0.5))
				worst = p;
			/* sd 0.0022; 0.015 is 6.7 sd, over 4032 cells. */
			CHECK(fabs(p - 0.5) < 0.015, "ID bit %d flips token bit %d %.4f",
			      b, o, p);
		}
	printf("# avalanche: %.4f of 64 token bits per flipped ID bit; worst cell %.4f\n",
	       mean, worst);
	uidgen_keys_free(k);
}

/*
 * Order: IDs as a node makes them (tick, node, sequence) in a run; the
 * token of the next ID is larger in about half the pairs, and the text's
 * strcmp() order likewise.
 */
#define PAIRS	1000000

static void test_no_order(void)
{
	struct uidgen_keys *k;
	char a[UIDGEN_PUBLIC_STR_MAX], b[UIDGEN_PUBLIC_STR_MAX];
	uint64_t id = (123456789ULL << 22) | (5ULL << 12), t0, t1;
	unsigned int up = 0, tup = 0, n = 0;
	double f, ft;
	int i;

	uidgen_keys_new(&k);
	uidgen_keys_generate(k, NULL);
	uidgen_public(k, UIDGEN_KEY_CURRENT, id, &t0);
	uidgen_format_public(k, UIDGEN_KEY_CURRENT, id, UIDGEN_PUBLIC_TEXT, a, sizeof(a));
	for (i = 0; i < PAIRS; i++) {
		id++;
		uidgen_public(k, UIDGEN_KEY_CURRENT, id, &t1);
		up += t1 > t0;
		t0 = t1;
		if (i % 4 == 0) {
			uidgen_format_public(k, UIDGEN_KEY_CURRENT, id,
					     UIDGEN_PUBLIC_TEXT, b, sizeof(b));
			tup += strcmp(b, a) > 0;
			n++;
			memcpy(a, b, sizeof(a));
		}
	}
	f = (double)up / PAIRS;
	ft = (double)tup / n;
	/* sd 0.0005 and 0.001: 0.006 is 12 and 6 sd. */
	CHECK(fabs(f - 0.5) < 0.006, "%.4f of consecutive pairs in order", f);
	CHECK(fabs(ft - 0.5) < 0.006, "%.4f of texts in order", ft);
	printf("# order: %.4f of %d consecutive ID pairs keep it in the token, %.4f in the text\n",
	       f, PAIRS, ft);
	uidgen_keys_free(k);
}

/*
 * The short form: fixed length, digits in ASCII order, so strcmp() sorts
 * short codes as their tokens (and the tokens not as the IDs); and it
 * refuses what is no short code.
 */
static void test_short(void)
{
	struct uidgen_keys *k = keys_of(1, key0f);
	char a[UIDGEN_PUBLIC_STR_MAX], b[UIDGEN_PUBLIC_STR_MAX];
	uint64_t x, y, tx, ty, id;
	unsigned int agree = 0;
	int i, ret, c;

	for (i = 0; i < 200000; i++) {
		x = rnd() >> 1;
		/* Half the pairs close together: order in the low digits too. */
		y = i & 1 ? rnd() >> 1 : (x + (rnd() & 0xffff)) & (~0ULL >> 1);
		uidgen_public(k, UIDGEN_KEY_CURRENT, x, &tx);
		uidgen_public(k, UIDGEN_KEY_CURRENT, y, &ty);
		uidgen_format_public(k, UIDGEN_KEY_CURRENT, x, UIDGEN_PUBLIC_SHORT, a, sizeof(a));
		uidgen_format_public(k, UIDGEN_KEY_CURRENT, y, UIDGEN_PUBLIC_SHORT, b, sizeof(b));
		c = strcmp(a, b);
		agree += (c < 0) == (tx < ty) && (c == 0) == (tx == ty);
	}
	CHECK(agree == 200000, "%u of 200000 short-code pairs sort as their tokens", agree);
	ret = uidgen_format_public(k, UIDGEN_KEY_CURRENT, 5, UIDGEN_PUBLIC_SHORT, a, 11);
	CHECK(ret == -ENOSPC, "10 bytes and a NUL: %d", ret);
	ret = uidgen_format_public(k, UIDGEN_KEY_CURRENT, 5, 3, a, sizeof(a));
	CHECK(ret == -EINVAL, "text 3: %d", ret);
	uidgen_format_public(k, UIDGEN_KEY_CURRENT, 5, UIDGEN_PUBLIC_SHORT, a, sizeof(a));
	CHECK(uidgen_parse_public(k, "", UIDGEN_PUBLIC_SHORT, -1, &id) == -EINVAL, "empty");
	snprintf(b, sizeof(b), "%.10s", a);
	CHECK(uidgen_parse_public(k, b, UIDGEN_PUBLIC_SHORT, -1, &id) == -EINVAL, "10 chars");
	snprintf(b, sizeof(b), "%.11s0", a);
	CHECK(uidgen_parse_public(k, b, UIDGEN_PUBLIC_SHORT, -1, &id) == -EINVAL, "12 chars");
	CHECK(uidgen_parse_public(k, kats[1].text, UIDGEN_PUBLIC_SHORT, -1, &id) == -EINVAL,
	      "a 13-character text");
	snprintf(b, sizeof(b), "%s", a);
	b[4] = '_';
	CHECK(uidgen_parse_public(k, b, UIDGEN_PUBLIC_SHORT, -1, &id) == -EINVAL, "'_'");
	ret = uidgen_parse_public(k, "LygHa16AHYG", UIDGEN_PUBLIC_SHORT, -1, &id);
	CHECK(ret == -EINVAL, "2^64: %d", ret);
	ret = uidgen_parse_public(k, "zzzzzzzzzzz", UIDGEN_PUBLIC_SHORT, -1, &id);
	CHECK(ret == -EINVAL, "62^11 - 1: %d", ret);
	ret = uidgen_parse_public(k, a, UIDGEN_PUBLIC_SHORT, 2, &id);
	CHECK(ret == -ENOKEY, "key 2, not in the set: %d", ret);
	/* About half of all 11-digit values open to no ID (top bit set). */
	for (i = 0, c = 0; i < 10000; i++) {
		x = rnd();
		for (ret = 10; ret >= 0; ret--, x /= 62)
			b[ret] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[x % 62];
		b[11] = 0;
		ret = uidgen_parse_public(k, b, UIDGEN_PUBLIC_SHORT, -1, &id);
		CHECK(ret == 0 || ret == -EKEYREJECTED, "'%s': %d", b, ret);
		c += ret == -EKEYREJECTED;
	}
	CHECK(c > 4700 && c < 5300, "%d of 10000 random short codes refused (about half)", c);
	printf("# short: 200000 pairs sort as their tokens; %d of 10000 random codes open to no ID\n", c);
	uidgen_keys_free(k);
}

static void test_text_refusals(void)
{
	uint8_t other[16];
	struct uidgen_keys *k = keys_of(1, key0f), *o;
	char buf[UIDGEN_PUBLIC_STR_MAX], bad[UIDGEN_PUBLIC_STR_MAX];
	const char *s = kats[1].text;
	uint64_t id;
	unsigned int acc = 0, typo = 0, typos = 0;
	int i, j, ret;

	CHECK(uidgen_parse_public(k, "", UIDGEN_PUBLIC_TEXT, -1, &id) == -EINVAL, "empty");
	snprintf(bad, sizeof(bad), "%.12s", s);
	CHECK(uidgen_parse_public(k, bad, UIDGEN_PUBLIC_TEXT, -1, &id) == -EINVAL, "12 chars");
	snprintf(bad, sizeof(bad), "%s0", s);
	CHECK(uidgen_parse_public(k, bad, UIDGEN_PUBLIC_TEXT, -1, &id) == -EINVAL, "14 chars");
	snprintf(bad, sizeof(bad), "%s", s);
	bad[5] = '-';
	CHECK(uidgen_parse_public(k, bad, UIDGEN_PUBLIC_TEXT, -1, &id) == -EINVAL, "'-'");
	/* 11 digits past 2^64-1 (zzzzzzzzzzz = 62^11 - 1). */
	ret = uidgen_parse_public(k, "1zzzzzzzzzzz0", UIDGEN_PUBLIC_TEXT, -1, &id);
	CHECK(ret == -EINVAL, "past 2^64: %d", ret);
	/* 2^64 = LygHa16AHYG in base62; one less is the largest text. */
	ret = uidgen_parse_public(k, "1LygHa16AHYG0", UIDGEN_PUBLIC_TEXT, -1, &id);
	CHECK(ret == -EINVAL, "2^64: %d", ret);
	ret = uidgen_parse_public(k, "1LygHa16AHYF0", UIDGEN_PUBLIC_TEXT, -1, &id);
	CHECK(ret == -EKEYREJECTED || ret == 0, "2^64-1: %d", ret);
	/* A key ID the set does not hold; a key ID the caller did not ask for. */
	snprintf(bad, sizeof(bad), "%s", s);
	bad[0] = '2';
	ret = uidgen_parse_public(k, bad, UIDGEN_PUBLIC_TEXT, -1, &id);
	CHECK(ret == -ENOKEY, "'%s': %d", bad, ret);
	ret = uidgen_parse_public(k, s, UIDGEN_PUBLIC_TEXT, 3, &id);
	CHECK(ret == -EKEYREJECTED, "'%s' as key 3's: %d", s, ret);
	ret = uidgen_parse_public(NULL, s, UIDGEN_PUBLIC_TEXT, -1, &id);
	CHECK(ret == -ENOKEY, "no keys: %d", ret);
	/* Every other check digit. */
	for (j = 0; j < 62; j++) {
		snprintf(bad, sizeof(bad), "%s", s);
		bad[12] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[j];
		ret = uidgen_parse_public(k, bad, UIDGEN_PUBLIC_TEXT, -1, &id);
		if (bad[12] == s[12])
			CHECK(!ret, "'%s': %d", bad, ret);
		else
			CHECK(ret == -EKEYREJECTED, "'%s': %d", bad, ret);
	}
	/*
	 * Another key under the same key ID (a file made again, another
	 * site's token): the check digit and the sign bit let through 1 in
	 * 124. Likewise a one-character typo in the token's digits.
	 */
	for (i = 0; i < 16; i++)
		other[i] = rnd();
	o = keys_of(1, other);
	for (i = 0; i < 124000; i++) {
		uidgen_format_public(o, -1, rnd() >> 1, UIDGEN_PUBLIC_TEXT, buf, sizeof(buf));
		acc += !uidgen_parse_public(k, buf, UIDGEN_PUBLIC_TEXT, -1, &id);
		if (i % 4)
			continue;
		uidgen_format_public(k, -1, rnd() >> 1, UIDGEN_PUBLIC_TEXT, buf, sizeof(buf));
		j = 1 + rnd() % 11;
		buf[j] = buf[j] == 'a' ? 'b' : 'a';
		ret = uidgen_parse_public(k, buf, UIDGEN_PUBLIC_TEXT, -1, &id);
		typos++;
		typo += !ret;
		CHECK(!ret || ret == -EKEYREJECTED || ret == -EINVAL, "'%s': %d", buf, ret);
	}
	/* Expected 1000 of 124000 (sd 31); 31000 typos, 250 (sd 16). */
	CHECK(acc > 800 && acc < 1200, "%u of 124000 foreign tokens opened", acc);
	CHECK(typo > 150 && typo < 350, "%u of %u typos opened", typo, typos);
	printf("# another key, same key ID: %u of 124000 opened (1/124 expected); typos: %u of %u\n",
	       acc, typo, typos);
	/* Decimal: canonical only. */
	CHECK(uidgen_parse_public(k, "", UIDGEN_PUBLIC_DEC, -1, &id) == -EINVAL, "empty");
	CHECK(uidgen_parse_public(k, "01", UIDGEN_PUBLIC_DEC, -1, &id) == -EINVAL, "01");
	CHECK(uidgen_parse_public(k, "+1", UIDGEN_PUBLIC_DEC, -1, &id) == -EINVAL, "+1");
	CHECK(uidgen_parse_public(k, "18446744073709551616", UIDGEN_PUBLIC_DEC, -1, &id) ==
	      -EINVAL, "2^64");
	ret = uidgen_parse_public(k, "18446744073709551615", UIDGEN_PUBLIC_DEC, -1, &id);
	CHECK(!ret || ret == -EKEYREJECTED, "2^64-1: %d", ret);
	CHECK(uidgen_parse_public(k, kats[1].dec, UIDGEN_PUBLIC_DEC, 2, &id) == -ENOKEY, "key 2");
	CHECK(uidgen_parse_public(k, kats[1].dec, 7, -1, &id) == -EINVAL, "text 7");
	CHECK(uidgen_format_public(k, -1, 1, UIDGEN_PUBLIC_TEXT, buf, 13) == -ENOSPC, "13 bytes");
	uidgen_keys_free(o);
	uidgen_keys_free(k);
}

static void test_keys(void)
{
	struct uidgen_keys *k, *k2;
	char path[] = "/tmp/uidgen-public-XXXXXX", file[64], buf[32];
	uint64_t id, t, t2;
	unsigned int line;
	struct stat st;
	int i, ret, fd, kid;

	/* The format: comments, blanks, one key a line; line numbers. */
	ret = uidgen_keys_parse(&k, "# c\n\n 1 000102030405060708090a0b0c0d0e0f\n"
				"Z\t000102030405060708090A0B0C0D0E0F  \n", &line);
	CHECK(!ret && uidgen_keys_current(k) == 35, "%d, current %d", ret,
	      ret ? -1 : uidgen_keys_current(k));
	if (!ret)
		uidgen_keys_free(k);
	/* CRLF lines, a blank line of "\r" among them (the Python binding's test found it refused). */
	ret = uidgen_keys_parse(&k, "\r\n1 000102030405060708090a0b0c0d0e0f\r\n"
				"2\t000102030405060708090a0b0c0d0e0f \t\r\n", &line);
	CHECK(!ret && uidgen_keys_current(k) == 2, "CRLF: %d line %u", ret, line);
	if (!ret)
		uidgen_keys_free(k);
	{
		static const struct { const char *text; int err; unsigned int line; } bad[] = {
			{ "1 000102030405060708090a0b0c0d0e\n", -EINVAL, 1 },
			{ "1 000102030405060708090a0b0c0d0e0f0\n", -EINVAL, 1 },
			{ "# x\n1 000102030405060708090a0b0c0d0eXX\n", -EINVAL, 2 },
			{ "10 000102030405060708090a0b0c0d0e0f\n", -EINVAL, 1 },
			{ "- 000102030405060708090a0b0c0d0e0f\n", -EINVAL, 1 },
			{ "1 000102030405060708090a0b0c0d0e0f\n\n1 000102030405060708090a0b0c0d0e0f\n",
			  -EEXIST, 3 },
			{ "# nothing\n", -ENOKEY, 0 },
			{ "", -ENOKEY, 0 },
		};

		for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
			line = 99;
			ret = uidgen_keys_parse(&k, bad[i].text, &line);
			CHECK(ret == bad[i].err && line == bad[i].line,
			      "case %d: %d line %u, not %d line %u", i, ret, line,
			      bad[i].err, bad[i].line);
		}
	}
	/* Generation: IDs from 1 up, distinct keys, 62 at most. */
	uidgen_keys_new(&k);
	for (i = 0; i < UIDGEN_KEY_IDS; i++) {
		ret = uidgen_keys_generate(k, &kid);
		CHECK(!ret && kid == (i + 1) % UIDGEN_KEY_IDS, "key %d: %d, ID %d", i, ret, kid);
	}
	CHECK(uidgen_keys_generate(k, &kid) == -ENOSPC, "63rd key");
	uidgen_public(k, 1, 5, &t);
	uidgen_public(k, 2, 5, &t2);
	CHECK(t != t2, "keys 1 and 2 make the same token");
	CHECK(uidgen_keys_add(k, 62, key0f) == -EINVAL, "ID 62");
	uidgen_keys_free(k);

	/* Save, load, rotation: key 1's tokens still open once key 2 is current. */
	if (!mkdtemp(path)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(file, sizeof(file), "%s/keys", path);
	uidgen_keys_new(&k);
	uidgen_keys_generate(k, &kid);
	CHECK(kid == 1, "first key's ID %d", kid);
	ret = uidgen_keys_save(k, file);
	CHECK(!ret, "save: %d", ret);
	CHECK(!stat(file, &st) && (st.st_mode & 07777) == 0640, "mode %o", st.st_mode & 07777);
	uidgen_format_public(k, -1, 42, UIDGEN_PUBLIC_TEXT, buf, sizeof(buf));
	uidgen_keys_generate(k, &kid);
	CHECK(kid == 2, "second key's ID %d", kid);
	chmod(file, 0600);
	ret = uidgen_keys_save(k, file);
	CHECK(!ret && !stat(file, &st) && (st.st_mode & 07777) == 0600,
	      "save again: %d, mode %o (kept)", ret, st.st_mode & 07777);
	uidgen_keys_free(k);
	ret = uidgen_keys_load(&k2, file, &line);
	CHECK(!ret, "load: %d line %u", ret, line);
	if (!ret) {
		CHECK(uidgen_keys_current(k2) == 2, "current %d", uidgen_keys_current(k2));
		ret = uidgen_parse_public(k2, buf, UIDGEN_PUBLIC_TEXT, -1, &id);
		CHECK(!ret && id == 42, "key 1's '%s' after rotation: %d %llu", buf, ret,
		      (unsigned long long)id);
		uidgen_format_public(k2, -1, 42, UIDGEN_PUBLIC_TEXT, buf, sizeof(buf));
		CHECK(buf[0] == '2', "'%s' not under key 2", buf);
		uidgen_keys_free(k2);
	}
	/* Modes refused: others may read or write; the group may write. */
	{
		static const struct { mode_t mode; int err; } modes[] = {
			{ 0600, 0 }, { 0640, 0 }, { 0400, 0 }, { 0644, -EPERM },
			{ 0604, -EPERM }, { 0602, -EPERM }, { 0601, -EPERM },
			{ 0660, -EPERM }, { 0666, -EPERM },
		};

		for (i = 0; i < (int)(sizeof(modes) / sizeof(modes[0])); i++) {
			chmod(file, modes[i].mode);
			ret = uidgen_keys_load(&k, file, &line);
			CHECK(ret == modes[i].err, "mode %o: %d, not %d", modes[i].mode, ret,
			      modes[i].err);
			if (!ret)
				uidgen_keys_free(k);
		}
	}
	chmod(file, 0600);
	ret = uidgen_keys_load(&k, path, &line);
	CHECK(ret == -EISDIR || ret == -EINVAL, "a directory: %d", ret);
	snprintf(file + strlen(file), sizeof(file) - strlen(file), "-none");
	ret = uidgen_keys_load(&k, file, &line);
	CHECK(ret == -ENOENT, "no file: %d", ret);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	if (fd >= 0) {
		ret = write(fd, "1 00\n", 5) == 5 ? 0 : -EIO;
		close(fd);
		ret = ret ? ret : uidgen_keys_load(&k, file, &line);
		CHECK(ret == -EINVAL && line == 1, "a bad line: %d line %u", ret, line);
		unlink(file);
	}
	snprintf(file, sizeof(file), "%s/keys", path);
	unlink(file);
	rmdir(path);
}

int main(void)
{
	RUN(test_siphash_vectors);
	RUN(test_token_vectors);
	RUN(test_fast_path_is_general);
	RUN(test_round_trip_ids);
	RUN(test_round_trip_values);
	RUN(test_permutation_small);
	RUN(test_avalanche);
	RUN(test_no_order);
	RUN(test_text_refusals);
	RUN(test_short);
	RUN(test_keys);
	return tap_totals();
}
