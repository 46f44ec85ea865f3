// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuidgen: the UUID and ULID views of an ID. Owns the mapping between a
 * 63-bit uidgen ID (under a given layout) and an RFC 9562 UUIDv7 (or v8),
 * and the two texts of those 128 bits: the RFC's 8-4-4-4-12 hex and a
 * 26-digit Crockford base32 ULID. Pure arithmetic: no device, no state.
 *
 * The 128 bits, most significant first (Documentation/uuid.rst has the
 * reasoning and a worked example):
 *
 *   127..80  unix_ts_ms  the Unix ms in which the ID's tick starts
 *    79..76  ver         0111 (7), or 1000 (8) with UIDGEN_UUID_V8
 *    75..64  rand_a      the tick start's sub-millisecond part, as
 *                        floor(us * 4096 / 1000) (RFC 9562 §6.2, method 3)
 *    63..62  var         10
 *    61..0   rand_b      the ID's node, slot and sequence bits
 *                        (63 - ts_bits of them), then zeros
 *
 * The tick start is exact in microseconds (epoch_unix_ns / 1000 + tick *
 * tick_ns / 1000, for a layout whose tick and epoch are whole
 * microseconds, as every module layout is), so unix_ts_ms and rand_a together give back the tick, and
 * rand_b the rest: nothing is lost. Each field only grows with the ID, so
 * memcmp() order of the UUIDs is the numeric order of the IDs.
 */
#include <errno.h>
#include <string.h>

#include "uidgen.h"
#include "internal.h"

#define UUID_US_PER_MS	1000ULL
#define UUID_NS_PER_US	1000ULL
#define UUID_FRAC	4096ULL		/* rand_a: 12 bits of fraction */
#define UUID_MS_BITS	48
#define UUID_RAND_B	62		/* rand_b's width */
#define ULID_LEN	26		/* 26 * 5 = 130 bits >= 128 */
#define UUID_LEN	36

static void put_be64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = v & 0xff;
}

static uint64_t get_be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * The layout's tick and epoch in microseconds; -EINVAL if either is not a
 * whole number of them (the mapping would lose the tick).
 */
static int layout_us(const struct uidgen_info *info, uint64_t *tick_us,
		     uint64_t *epoch_us)
{
	if (info->tick_ns % UUID_NS_PER_US || info->epoch_unix_ns % UUID_NS_PER_US)
		return -EINVAL;
	*tick_us = info->tick_ns / UUID_NS_PER_US;
	*epoch_us = info->epoch_unix_ns / UUID_NS_PER_US;
	return 0;
}

/*
 * The tick start of tick @tick in Unix microseconds, or -ERANGE if that
 * is beyond what 64 bits (or the UUID's 48-bit ms field) can hold.
 */
static int tick_start_us(const struct uidgen_info *info, uint64_t tick,
			 uint64_t *us)
{
	uint64_t tick_us, epoch_us, t;
	int ret = layout_us(info, &tick_us, &epoch_us);

	if (ret)
		return ret;
	if (__builtin_mul_overflow(tick, tick_us, &t) ||
	    __builtin_add_overflow(t, epoch_us, &t) ||
	    (t / UUID_US_PER_MS) >> UUID_MS_BITS)
		return -ERANGE;
	*us = t;
	return 0;
}

int uidgen_to_uuid(const struct uidgen_info *info, uint64_t id,
		   unsigned int flags, uint8_t uuid[16])
{
	unsigned int low_bits;
	struct uidgen_parts p;
	uint64_t us, hi, lo;
	int ret;

	if (flags & ~UIDGEN_UUID_V8)
		return -EINVAL;
	/* Checks the layout and that @id has no bit 63. */
	ret = uidgen_decode(info, id, &p);
	if (ret)
		return ret;
	ret = tick_start_us(info, p.tick, &us);
	if (ret)
		return ret;
	low_bits = UIDGEN_ID_BITS - info->ts_bits;

	hi = (us / UUID_US_PER_MS) << 16 |
	     (uint64_t)(flags & UIDGEN_UUID_V8 ? 8 : 7) << 12 |
	     us % UUID_US_PER_MS * UUID_FRAC / UUID_US_PER_MS;
	lo = 2ULL << UUID_RAND_B |
	     (id & ((1ULL << low_bits) - 1)) << (UUID_RAND_B - low_bits);
	put_be64(uuid, hi);
	put_be64(uuid + 8, lo);
	return 0;
}

int uidgen_from_uuid(const struct uidgen_info *info, const uint8_t uuid[16],
		     uint64_t *id)
{
	uint64_t hi = get_be64(uuid), lo = get_be64(uuid + 8);
	uint64_t frac = hi & 0xfff, sub, us, epoch_us, tick_us, tick, rest, tail;
	unsigned int ver = (hi >> 12) & 0xf, low_bits;
	struct uidgen_parts p;
	int ret;

	/* A layout uidgen_decode() refuses is refused here too. */
	ret = uidgen_decode(info, 0, &p);
	if (!ret)
		ret = layout_us(info, &tick_us, &epoch_us);
	if (ret)
		return ret;
	if ((ver != 7 && ver != 8) || lo >> UUID_RAND_B != 2)
		return -EINVAL;
	/* The one microsecond count rand_a can have come from. */
	sub = (frac * UUID_US_PER_MS + UUID_FRAC - 1) / UUID_FRAC;
	if (sub >= UUID_US_PER_MS || sub * UUID_FRAC / UUID_US_PER_MS != frac)
		return -EINVAL;
	us = (hi >> 16) * UUID_US_PER_MS + sub;	/* < 2^58: no overflow */
	if (us < epoch_us)
		return -ERANGE;
	if ((us - epoch_us) % tick_us)
		return -EINVAL;		/* not the start of a tick */
	tick = (us - epoch_us) / tick_us;
	if (tick >> info->ts_bits)
		return -ERANGE;
	low_bits = UIDGEN_ID_BITS - info->ts_bits;
	rest = lo & ((1ULL << UUID_RAND_B) - 1);
	tail = rest & ((1ULL << (UUID_RAND_B - low_bits)) - 1);
	if (tail)
		return -EINVAL;		/* uidgen leaves these bits 0 */
	*id = tick << low_bits | rest >> (UUID_RAND_B - low_bits);
	return 0;
}

/* Crockford's alphabet, as in uidgen_format(): text order is byte order. */
static const char ulid_digits[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

int uidgen_format_uuid(const uint8_t uuid[16], int text, char *buf,
		       size_t len)
{
	uint64_t hi = get_be64(uuid), lo = get_be64(uuid + 8);
	char tmp[UIDGEN_UUID_STR_MAX];
	size_t n = 0;
	int i;

	switch (text) {
	case UIDGEN_UUID_TEXT:
		for (i = 0; i < 16; i++) {
			if (i == 4 || i == 6 || i == 8 || i == 10)
				tmp[n++] = '-';
			tmp[n++] = "0123456789abcdef"[uuid[i] >> 4];
			tmp[n++] = "0123456789abcdef"[uuid[i] & 0xf];
		}
		break;
	case UIDGEN_ULID_TEXT:
		/* Digit i holds bits 129 - 5i .. 125 - 5i of a 130-bit number. */
		for (i = 0; i < ULID_LEN; i++) {
			int shift = 5 * (ULID_LEN - 1 - i);
			uint64_t d;

			if (shift >= 64)
				d = hi >> (shift - 64);
			else if (shift > 59)
				d = lo >> shift | hi << (64 - shift);
			else
				d = lo >> shift;
			tmp[n++] = ulid_digits[d & 31];
		}
		break;
	default:
		return -EINVAL;
	}
	if (len < n + 1)
		return -ENOSPC;
	memcpy(buf, tmp, n);
	buf[n] = '\0';
	return n;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int uidgen_parse_uuid(const char *s, uint8_t uuid[16])
{
	size_t len = strlen(s);
	uint64_t hi = 0, lo = 0;
	int i, d, nib = 0;
	uint8_t tmp[16];

	if (len == UUID_LEN || len == 32) {
		for (i = 0; s[i]; i++) {
			if (len == UUID_LEN &&
			    (i == 8 || i == 13 || i == 18 || i == 23)) {
				if (s[i] != '-')
					return -EINVAL;
				continue;
			}
			d = hex_value(s[i]);
			if (d < 0)
				return -EINVAL;
			tmp[nib / 2] = nib % 2 ? (tmp[nib / 2] | d) : d << 4;
			nib++;
		}
		memcpy(uuid, tmp, sizeof(tmp));
		return 0;
	}
	if (len != ULID_LEN)
		return -EINVAL;
	for (i = 0; i < ULID_LEN; i++) {
		d = uidgen_b32_value(s[i]);
		if (d < 0)
			return -EINVAL;
		if (i == 0 && d > 7)
			return -ERANGE;		/* more than 128 bits */
		hi = hi << 5 | lo >> 59;
		lo = lo << 5 | d;
	}
	put_be64(uuid, hi);
	put_be64(uuid + 8, lo);
	return 0;
}
