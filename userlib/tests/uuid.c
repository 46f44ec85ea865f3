// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The UUID/ULID mapping's property test (userlib/uuid.c). For every layout
 * the module accepts (ts_bits 20..60 with field-width edges, tick_us
 * 1..60000000, epochs from 0 to now), over random IDs and field edges:
 * the UUID parses back to the same ID, memcmp() order of UUIDs (and strcmp
 * order of ULIDs) is the IDs' numeric order, version and variant bits are
 * v7's, and the 48-bit ms field is the ID's tick start in Unix ms; an ID
 * whose tick starts past the 48-bit ms field fails with ERANGE, and only
 * then. No device needed; built with ASan and UBSan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uidgen.h"

#define CHECK_COUNTS
#include "tap.h"

/* The module's default epoch, 2026-01-01T00:00:00Z. */
#define DEFAULT_EPOCH_MS	1767225600000ULL

static void layout(struct uidgen_info *in, unsigned int ts, unsigned int node,
		   unsigned int slot, uint32_t tick_us, uint64_t epoch_ms)
{
	uidgen_default_info(in);
	in->ts_bits = ts;
	in->node_bits = node;
	in->slot_bits = slot;
	in->seq_bits = UIDGEN_ID_BITS - ts - node - slot;
	in->nr_slots = 1U << slot;
	in->tick_ns = tick_us * 1000ULL;
	in->epoch_unix_ns = epoch_ms * 1000000ULL;
}

/* The tick start in Unix ms, computed apart from the library (128 bits). */
static unsigned __int128 start_ms(const struct uidgen_info *in, uint64_t id)
{
	uint64_t tick = id >> (UIDGEN_ID_BITS - in->ts_bits);

	return ((unsigned __int128)tick * in->tick_ns +
		in->epoch_unix_ns) / 1000000;
}

static const char *uuid_str(const uint8_t u[16])
{
	static char buf[UIDGEN_UUID_STR_MAX];

	uidgen_format_uuid(u, UIDGEN_UUID_TEXT, buf, sizeof(buf));
	return buf;
}

/* Every property for one ID; returns 1 if it mapped (0 for ERANGE). */
static int check_id(const struct uidgen_info *in, uint64_t id, uint8_t u[16])
{
	unsigned __int128 ms = start_ms(in, id);
	char t[UIDGEN_UUID_STR_MAX];
	struct uidgen_parts p;
	uint8_t u8[16], v[16];
	uint64_t back, field;
	int ret, i;

	ret = uidgen_to_uuid(in, id, 0, u);
	if (ms >> 48) {
		CHECK(ret == -ERANGE, "id %llu (ms beyond 48 bits) gave %d",
		      (unsigned long long)id, ret);
		return 0;
	}
	CHECK(ret == 0, "id %llu: %d", (unsigned long long)id, ret);
	if (ret)
		return 0;
	back = ~0ULL;
	ret = uidgen_from_uuid(in, u, &back);
	CHECK(ret == 0 && back == id, "id %llu -> %s -> %d, %llu",
	      (unsigned long long)id, uuid_str(u), ret, (unsigned long long)back);
	CHECK(u[6] >> 4 == 7, "version nibble %x", u[6] >> 4);
	CHECK(u[8] >> 6 == 2, "variant bits %x", u[8] >> 6);
	for (field = 0, i = 0; i < 6; i++)
		field = field << 8 | u[i];
	CHECK(field == (uint64_t)ms, "ms field %llu, tick start %llu",
	      (unsigned long long)field, (unsigned long long)ms);
	if (uidgen_decode(in, id, &p) == 0)
		CHECK(field == (uint64_t)p.unix_ms, "ms field %llu, decode %lld",
		      (unsigned long long)field, (long long)p.unix_ms);

	/* v8: the same bits but the version; parses back the same. */
	CHECK(uidgen_to_uuid(in, id, UIDGEN_UUID_V8, u8) == 0 && u8[6] >> 4 == 8 &&
	      !memcmp(u8 + 7, u + 7, 9) && !memcmp(u8, u, 6) &&
	      (u8[6] & 0xf) == (u[6] & 0xf), "v8 of %llu", (unsigned long long)id);
	CHECK(uidgen_from_uuid(in, u8, &back) == 0 && back == id, "v8 back");

	/* Both texts parse back to the same 128 bits. */
	CHECK(uidgen_format_uuid(u, UIDGEN_UUID_TEXT, t, sizeof(t)) == 36, "uuid len");
	CHECK(uidgen_parse_uuid(t, v) == 0 && !memcmp(u, v, 16), "uuid text %s", t);
	CHECK(uidgen_format_uuid(u, UIDGEN_ULID_TEXT, t, sizeof(t)) == 26, "ulid len");
	CHECK(uidgen_parse_uuid(t, v) == 0 && !memcmp(u, v, 16), "ulid text %s", t);
	return 1;
}

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

/* a < b as IDs: UUIDs and ULID texts in the same order. */
static void check_order(const struct uidgen_info *in, uint64_t a, uint64_t b)
{
	char ta[UIDGEN_UUID_STR_MAX], tb[UIDGEN_UUID_STR_MAX];
	uint8_t ua[16], ub[16];
	int want;

	if (uidgen_to_uuid(in, a, 0, ua) || uidgen_to_uuid(in, b, 0, ub))
		return;
	want = sign((a > b) - (a < b));
	CHECK(sign(memcmp(ua, ub, 16)) == want, "%llu vs %llu: %s",
	      (unsigned long long)a, (unsigned long long)b, uuid_str(ua));
	uidgen_format_uuid(ua, UIDGEN_ULID_TEXT, ta, sizeof(ta));
	uidgen_format_uuid(ub, UIDGEN_ULID_TEXT, tb, sizeof(tb));
	CHECK(sign(strcmp(ta, tb)) == want, "ULID %s vs %s", ta, tb);
}

/* The layouts: every ts_bits, the other widths at their edges. */
static const uint32_t ticks[] = { 1, 2, 3, 7, 125, 333, 999, 1000, 1001, 1024,
				  4096, 65536, 999999, 1000000, 1000003,
				  2000000, 59999999, 60000000 };

static unsigned int nr_layouts, nr_ids, nr_unmapped;

static void one_layout(const struct uidgen_info *in, int n)
{
	unsigned int low = UIDGEN_ID_BITS - in->ts_bits;
	uint64_t max = (1ULL << UIDGEN_ID_BITS) - 1, lowmask = (1ULL << low) - 1;
	uint64_t seqmax = (1ULL << in->seq_bits) - 1, prev = 0;
	uint64_t edges[] = {
		0, 1, seqmax, seqmax + 1, lowmask, lowmask + 1, lowmask + 2,
		(1ULL << in->ts_bits >> 1) << low, max - 1, max,
		/* Tick edges around now (about 2026) for this layout. */
	};
	uint8_t u[16];
	int i;

	nr_layouts++;
	for (i = 0; i < (int)(sizeof(edges) / sizeof(edges[0])); i++) {
		nr_ids++;
		nr_unmapped += !check_id(in, edges[i], u);
		if (i)
			check_order(in, edges[i - 1], edges[i]);
	}
	for (i = 0; i < n; i++) {
		/* Random bits, biased to short ticks so most IDs map. */
		uint64_t id = (rnd() & max) >> (rnd() % 64);

		nr_ids++;
		nr_unmapped += !check_id(in, id, u);
		check_order(in, prev, id);
		check_order(in, id, id + 1 > max ? id : id + 1);
		/* The last ID of a tick and the first of the next. */
		check_order(in, id | lowmask, ((id | lowmask) + 1) & max);
		prev = id;
	}
}

static void test_every_layout(void)
{
	static const uint64_t epochs[] = { 0, 1, 999, DEFAULT_EPOCH_MS,
					   1764460800123ULL };
	struct uidgen_info in;
	unsigned int ts, t, e, k, node, slot, seq;

	for (ts = 20; ts <= 60; ts++) {
		for (t = 0; t < sizeof(ticks) / sizeof(ticks[0]); t++) {
			for (e = 0; e < sizeof(epochs) / sizeof(epochs[0]); e++) {
				/* Widths: edges of node 0..20, slot 0..10, seq 1..30. */
				for (k = 0; k < 4; k++) {
					unsigned int rest = UIDGEN_ID_BITS - ts;

					seq = k == 0 ? (rest < 30 ? rest : 30) :
					      k == 1 ? 1 : 1 + rnd() % (rest < 30 ? rest : 30);
					if (rest - seq > 30)
						seq = rest - 30;
					slot = rest - seq > 10 ? 10 : rest - seq;
					if (k == 2)
						slot = 0;
					node = rest - seq - slot;
					if (node > 20) {
						node = 20;
						slot = rest - seq - node;
					}
					if (slot > 10 || seq > 30 || seq < 1)
						continue;
					layout(&in, ts, node, slot, ticks[t], epochs[e]);
					one_layout(&in, 40);
				}
			}
		}
	}
	/* Random layouts besides. */
	for (k = 0; k < 2000; k++) {
		unsigned int rest;

		ts = 20 + rnd() % 41;
		rest = UIDGEN_ID_BITS - ts;
		seq = 1 + rnd() % (rest < 30 ? rest : 30);
		if (rest - seq > 30)
			continue;
		slot = rnd() % ((rest - seq < 10 ? rest - seq : 10) + 1);
		node = rest - seq - slot;
		if (node > 20)
			continue;
		layout(&in, ts, node, slot, 1 + rnd() % 60000000,
		       rnd() % 1764460800000ULL);
		one_layout(&in, 100);
	}
	printf("# %u layouts, %u IDs (%u past the 48-bit ms field: ERANGE), %llu checks\n",
	       nr_layouts, nr_ids, nr_unmapped, checked);
}

/* A layout whose every tick fits 48 bits of ms maps every ID. */
static void test_whole_layout_maps(void)
{
	struct uidgen_info in;
	uint8_t u[16];
	uint64_t id;

	uidgen_default_info(&in);
	for (id = (1ULL << 63) - 1; id > 0x1000; id -= id / 3)
		CHECK(uidgen_to_uuid(&in, id, 0, u) == 0, "default %llu",
		      (unsigned long long)id);
	/* 60 bits of 60 s ticks: the first ID past year 10889 is ERANGE. */
	layout(&in, 60, 0, 0, 60000000, 0);
	in.seq_bits = 3;
	id = (281474976710656ULL / 60000 + 1) << 3;	/* 2^48 ms / 60 s */
	CHECK(uidgen_to_uuid(&in, id, 0, u) == -ERANGE, "past 2^48 ms");
	CHECK(uidgen_to_uuid(&in, id - 8, 0, u) == 0, "last tick below 2^48 ms");
}

/* One example worked by hand in Documentation/uuid.rst. */
static void test_known(void)
{
	char t[UIDGEN_UUID_STR_MAX];
	struct uidgen_info in;
	uint64_t id;
	uint8_t u[16];

	uidgen_default_info(&in);
	/* 120772217587765248: 2026-11-30T06:25:40.512Z node 7 slot 1 seq 0. */
	CHECK(uidgen_to_uuid(&in, 120772217587765248ULL, 0, u) == 0, "known");
	uidgen_format_uuid(u, UIDGEN_UUID_TEXT, t, sizeof(t));
	CHECK(!strcmp(t, "01a22b21-6ca0-7000-8e10-000000000000"), "got %s", t);
	uidgen_format_uuid(u, UIDGEN_ULID_TEXT, t, sizeof(t));
	CHECK(!strcmp(t, "01M8NJ2V50E008W40000000000"), "ulid %s", t);
	CHECK(uidgen_parse_uuid("01A22B21-6CA0-7000-8E10-000000000000", u) == 0 &&
	      uidgen_from_uuid(&in, u, &id) == 0 && id == 120772217587765248ULL,
	      "upper case parses: %llu", (unsigned long long)id);
	CHECK(uidgen_parse_uuid("01a22b216ca070008e10000000000000", u) == 0 &&
	      uidgen_from_uuid(&in, u, &id) == 0 && id == 120772217587765248ULL,
	      "32 hex digits parse");

	/* 1 us ticks: the sub-ms part shows in rand_a. */
	layout(&in, 52, 3, 2, 1, DEFAULT_EPOCH_MS);
	id = (1000ULL * 1000 + 999) << 11 | 5;	/* 1000.999 s after the epoch */
	CHECK(uidgen_to_uuid(&in, id, 0, u) == 0, "1 us");
	CHECK(((u[6] & 0xf) << 8 | u[7]) == 999 * 4096 / 1000,
	      "rand_a %d", (u[6] & 0xf) << 8 | u[7]);
}

static void test_errors(void)
{
	char t[UIDGEN_UUID_STR_MAX];
	struct uidgen_info in, bad;
	uint8_t u[16], w[16];
	uint64_t id = 42;
	int i;

	uidgen_default_info(&in);
	CHECK(uidgen_to_uuid(&in, 1ULL << 63, 0, u) == -ERANGE, "bit 63");
	CHECK(uidgen_to_uuid(&in, 1, 2, u) == -EINVAL, "unknown flag");
	bad = in;
	bad.ts_bits = 40;
	CHECK(uidgen_to_uuid(&bad, 1, 0, u) == -EINVAL, "widths not 63");
	CHECK(uidgen_from_uuid(&bad, u, &id) == -EINVAL, "from: widths not 63");
	bad = in;
	bad.tick_ns = 0;
	CHECK(uidgen_to_uuid(&bad, 1, 0, u) == -EINVAL, "tick_ns 0");
	CHECK(uidgen_from_uuid(&bad, u, &id) == -EINVAL, "from: tick_ns 0");
	/* The mapping is exact in us: a tick or epoch that is not refused. */
	bad = in;
	bad.tick_ns = 1500;
	CHECK(uidgen_to_uuid(&bad, 1, 0, u) == -EINVAL, "tick_ns 1500");
	CHECK(uidgen_from_uuid(&bad, u, &id) == -EINVAL, "from: tick_ns 1500");
	bad = in;
	bad.epoch_unix_ns += 1;
	CHECK(uidgen_to_uuid(&bad, 1, 0, u) == -EINVAL, "epoch not whole us");

	CHECK(uidgen_to_uuid(&in, 120772217587765248ULL, 0, u) == 0, "base");
	/* Other versions and variants are no uidgen UUID. */
	for (i = 0; i < 16; i++) {
		memcpy(w, u, 16);
		w[6] = (w[6] & 0x0f) | i << 4;
		CHECK(uidgen_from_uuid(&in, w, &id) == (i == 7 || i == 8 ? 0 : -EINVAL),
		      "version %d", i);
	}
	for (i = 0; i < 4; i++) {
		memcpy(w, u, 16);
		w[8] = (w[8] & 0x3f) | i << 6;
		CHECK(uidgen_from_uuid(&in, w, &id) == (i == 2 ? 0 : -EINVAL),
		      "variant %d", i);
	}
	/* A bit in rand_b's unused tail, a random v4, a v7 from elsewhere. */
	memcpy(w, u, 16);
	w[15] |= 1;
	CHECK(uidgen_from_uuid(&in, w, &id) == -EINVAL, "tail bit");
	CHECK(uidgen_parse_uuid("3f2504e0-4f89-41d3-9a0c-0305e82c3301", w) == 0 &&
	      uidgen_from_uuid(&in, w, &id) == -EINVAL, "v4");
	CHECK(uidgen_parse_uuid("01a22b21-6ca0-7cc3-98c4-dc0c0c07398f", w) == 0 &&
	      uidgen_from_uuid(&in, w, &id) == -EINVAL, "foreign v7");
	/* rand_a 4095 is no microsecond count (it would be 1000 us). */
	memcpy(w, u, 16);
	w[6] |= 0x0f;
	w[7] = 0xff;
	CHECK(uidgen_from_uuid(&in, w, &id) == -EINVAL, "rand_a 4095");
	/* Mid-tick (1 ms ticks, 1 us into one) and before the epoch. */
	memcpy(w, u, 16);
	w[7] = 0x05;	/* floor(1 * 4096 / 1000) = 4 is 1 us; 5 is 2 us */
	CHECK(uidgen_from_uuid(&in, w, &id) == -EINVAL, "not on a tick");
	memset(w, 0, 16);
	w[6] = 0x70;
	w[8] = 0x80;
	CHECK(uidgen_from_uuid(&in, w, &id) == -ERANGE, "before the epoch");
	/* Past the last tick of a short layout (20 bits of 1 ms ticks). */
	layout(&bad, 20, 20, 10, 1000, 0);
	bad.seq_bits = 13;
	w[3] = 0x10;	/* ms = 2^20 */
	CHECK(uidgen_from_uuid(&bad, w, &id) == -ERANGE, "after the last tick");
	CHECK(id == 120772217587765248ULL, "id untouched on failure: %llu",
	      (unsigned long long)id);

	/* Texts. */
	CHECK(uidgen_format_uuid(u, UIDGEN_UUID_TEXT, t, 36) == -ENOSPC, "uuid ENOSPC");
	CHECK(uidgen_format_uuid(u, UIDGEN_ULID_TEXT, t, 26) == -ENOSPC, "ulid ENOSPC");
	CHECK(uidgen_format_uuid(u, 2, t, sizeof(t)) == -EINVAL, "unknown text");
	memset(w, 0xaa, 16);
	CHECK(uidgen_parse_uuid("", w) == -EINVAL, "empty");
	CHECK(uidgen_parse_uuid("01a22b21-6ca0-7000-8e10-00000000000g", w) == -EINVAL, "g");
	CHECK(uidgen_parse_uuid("01a22b21-6ca0-7000-8e10+000000000000", w) == -EINVAL, "+");
	CHECK(uidgen_parse_uuid("01a22b21-6ca0-7000-8e10-0000000000000", w) == -EINVAL, "37");
	CHECK(uidgen_parse_uuid("01M8NJ2V50E008W4000000U000", w) == -EINVAL, "U");
	CHECK(uidgen_parse_uuid("81M8NJ2V50E008W40000000000", w) == -ERANGE, "129 bits");
	CHECK(w[0] == 0xaa && w[15] == 0xaa, "output untouched on failure");
	CHECK(uidgen_parse_uuid("7ZZZZZZZZZZZZZZZZZZZZZZZZZ", w) == 0 &&
	      w[0] == 0xff && w[15] == 0xff, "largest ULID");
	CHECK(uidgen_parse_uuid("01m8nj2v50e008w4000000000o", w) == 0, "lower case, O");
}

int main(void)
{
	printf("TAP version 13\n1..4\n");
	RUN(test_known);
	RUN(test_errors);
	RUN(test_whole_layout_maps);
	RUN(test_every_layout);
	return tap_totals();
}
