// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen decode: each ID's time, node, slot and sequence, its 64-bit value
 * and its UUID, from any of its spellings (decimal, hex, base32, UUID,
 * ULID, a public token with --key), under the device's layout, the default
 * one or --layout's; and for a text it cannot read, what is wrong with it
 * and what it reads. read_id(), the reading of one ID and its messages, is
 * observe's too (observe.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/*
 * decode --layout TS/NODE/SLOT/SEQ, the field widths 'uidgen info' shows,
 * into @info: -1 after saying what is wrong.
 */
int parse_layout(const char *s, struct uidgen_info *info)
{
	unsigned long long w[4];
	struct uidgen_parts p;
	const char *at = s;
	char part[24];
	size_t n;
	int i;

	for (i = 0; i < 4; i++) {
		n = strcspn(at, "/");
		/* Three slashes, each between two numbers. */
		if (n >= sizeof(part) || (at[n] == '/') != (i < 3))
			break;
		memcpy(part, at, n);
		part[n] = 0;
		if (parse_dec(part, 63, &w[i]))
			break;
		at += n + (i < 3);
	}
	if (i < 4) {
		fprintf(stderr, "%s: --layout '%s': not a layout: give the four field widths in bits as TS/NODE/SLOT/SEQ: the timestamp, node, slot and sequence that 'uidgen info' shows where the IDs were made (the default is 41/5/5/12)\n",
			prog, s);
		return -1;
	}
	if (w[0] + w[1] + w[2] + w[3] != 63) {
		fprintf(stderr, "%s: --layout '%s': its widths add up to %llu bits, and an ID's add up to 63: give the four that 'uidgen info' shows where the IDs were made\n",
			prog, s, w[0] + w[1] + w[2] + w[3]);
		return -1;
	}
	info->ts_bits = w[0];
	info->node_bits = w[1];
	info->slot_bits = w[2];
	info->seq_bits = w[3];
	info->nr_slots = 1U << (w[2] < 31 ? w[2] : 31);
	/* What else uidgen_decode() asks of a layout. */
	if (uidgen_decode(info, 0, &p)) {
		fprintf(stderr, "%s: --layout '%s': no ID has this layout: the timestamp field has at least 1 bit, and node, slot and sequence at most 31 each\n",
			prog, s);
		return -1;
	}
	return 0;
}

/*
 * How to read @s when the format is auto, as decode --help says it: 0x..
 * is hex; 36 or 32 characters a UUID, 26 a ULID (no ID has that many in
 * the other formats, digits only or not); 13 base32 unless all digits (a
 * 13-digit decimal ID is decimal); else decimal. uidgen_parse()'s own
 * UIDGEN_FMT_AUTO goes by length alone.
 */
static enum uidgen_format auto_format(const char *s, enum uidgen_format fmt)
{
	size_t len = strlen(s);

	if (fmt != UIDGEN_FMT_AUTO)
		return fmt;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return UIDGEN_FMT_HEX;
	/* A dash: only a UUID has one (its length is checked with it). */
	if (len == 36 || len == 32 || (len > 1 && strchr(s + 1, '-')))
		return FMT_UUID;
	if (len == 26)
		return FMT_ULID;
	if (len == 13 && strspn(s, "0123456789") != len)
		return UIDGEN_FMT_B32;
	return UIDGEN_FMT_DEC;
}

/*
 * Whether only a layout can tell if read_id() reads @s: a UUID or ULID (by
 * its form or -f) that parses, of uidgen's versions and variant. Of any
 * other text, read_id() under any layout says the same.
 */
int id_needs_layout(const char *s, enum uidgen_format fmt)
{
	enum uidgen_format f = auto_format(s, fmt);
	uint8_t u[16];

	if ((f != FMT_UUID && f != FMT_ULID) || uidgen_parse_uuid(s, u))
		return 0;
	return (u[6] >> 4 == 7 || u[6] >> 4 == 8) && (u[8] >> 4 & 0xc) == 0x8;
}

/* The hex digits of @s, after its 0x if it has one. */
static size_t hex_digits(const char *s)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	return strlen(s);
}

/* What decode (or observe) reads, said after every text it cannot read. */
#define ID_READS "reads a decimal ID (digits only, at most 9223372036854775807), 0x and up to 16 hex digits, 13 Crockford base32 digits, a UUID (36 or 32 hex digits) or a ULID (26 base32 digits)"

/*
 * @s (read by its form, no -f) is no ID: uidgen_parse() or uidgen_decode()
 * returned @ret. Say what is wrong with it, then what @cmd reads.
 */
static void bad_id(const char *cmd, const char *s, enum uidgen_format f, int ret)
{
	const char *digits = f == UIDGEN_FMT_HEX ? "0123456789abcdefABCDEF" :
		f == UIDGEN_FMT_B32 ? "0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyzIiLlOo" :
		"0123456789";
	const char *kind = f == UIDGEN_FMT_HEX ? "hex" :
		f == UIDGEN_FMT_B32 ? "Crockford base32" : "decimal";
	const char *d = f == UIDGEN_FMT_HEX ? s + 2 : s;
	size_t len = strlen(d), k = strspn(d, digits);

	fprintf(stderr, "%s: '%s': not an ID: ", prog, s);
	if (!*s)
		fprintf(stderr, "it is empty");
	else if (ret == -ERANGE)
		fprintf(stderr, "too large: an ID has 63 bits, at most 9223372036854775807 (0x7fffffffffffffff)");
	else if (f == UIDGEN_FMT_HEX && !len)
		fprintf(stderr, "0x and no hex digit after it");
	else if (k < len && (d[k] == ' ' || d[k] == '\t'))
		fprintf(stderr, "character %zu is a blank", (size_t)(d - s) + k + 1);
	else if (k < len)
		fprintf(stderr, "character %zu ('%c') is not a %s digit",
			(size_t)(d - s) + k + 1, d[k], kind);
	else if (f == UIDGEN_FMT_HEX)
		fprintf(stderr, "%zu hex digits, at most 16", len);
	else
		fprintf(stderr, "%s", strerror(-ret));
	fprintf(stderr, "; %s " ID_READS "\n", cmd);
}

/* What -f FMT reads, for decode's message when a text is not that. */
static const char *format_what(enum uidgen_format fmt)
{
	switch ((int)fmt) {
	case UIDGEN_FMT_DEC:
		return "a decimal ID";
	case UIDGEN_FMT_HEX:
		return "a hex ID (up to 16 hex digits, 0x optional)";
	case UIDGEN_FMT_B32:
		return "a base32 ID (13 Crockford base32 digits)";
	default:
		return "a UUID (36 or 32 hex digits) or ULID (26 Crockford base32 digits)";
	}
}

/*
 * @s, read as a UUID or ULID, is not one uidgen's view maps back to an ID
 * (uidgen_parse_uuid() or uidgen_from_uuid() returned @ret; @u: the 128
 * bits, if it parsed): say which check failed, and what to do. Where a
 * character is wrong, uidgen_parse_uuid() itself finds it: @s's character
 * put into a text that is right everywhere else.
 */
static void bad_uuid(const char *s, const uint8_t *u,
		     const struct uidgen_info *info, int ret)
{
	static const char uuid0[] = "00000000-0000-0000-0000-000000000000";
	static const char copied[] = "check that it was copied whole";
	char t[sizeof(uuid0)];
	size_t len = strlen(s), k;
	unsigned int ver, var;
	uint8_t tmp[16];

	fprintf(stderr, "%s: %s: ", prog, s);
	if (!u && len != 36 && len != 32 && len != 26) {
		fprintf(stderr, "not a UUID or ULID: %zu characters; a UUID has 36 (8-4-4-4-12 hex digits) or 32 (hex digits only), a ULID 26: %s\n",
			len, copied);
		return;
	}
	if (!u && len == 26 && ret == -ERANGE) {
		fprintf(stderr, "not a ULID: its first digit is '%c'; a ULID's is 0 to 7 (128 bits): %s\n",
			s[0], copied);
		return;
	}
	if (!u) {
		/* A template of the same length: 36 with dashes, 32 or 26 without. */
		if (len == 36)
			memcpy(t, uuid0, sizeof(t));
		else
			snprintf(t, sizeof(t), "%.*s", (int)len,
				 "000000000000000000000000000000000000");
		for (k = 0; k < len; k++) {
			t[k] = s[k];
			if (uidgen_parse_uuid(t, tmp) == -EINVAL)
				break;
			t[k] = len == 36 ? uuid0[k] : '0';
		}
		if (k == len)
			fprintf(stderr, "not a UUID or ULID (%s): %s\n", strerror(-ret), copied);
		else if (len == 26)
			fprintf(stderr, "not a ULID: character %zu ('%c') is not a Crockford base32 digit: %s\n",
				k + 1, s[k], copied);
		else if (len == 36 && uuid0[k] == '-')
			fprintf(stderr, "not a UUID: character %zu is '%c', not the '-' of 8-4-4-4-12: %s\n",
				k + 1, s[k], copied);
		else
			fprintf(stderr, "not a UUID: character %zu ('%c') is not a hex digit: %s\n",
				k + 1, s[k], copied);
		return;
	}
	ver = u[6] >> 4;
	var = u[8] >> 4;
	if ((ver != 7 && ver != 8) && strlen(s) == 26) {
		fprintf(stderr, "a ULID, but not one uidgen made: as a UUID its version (the 13th hex digit) is %u, and uidgen's are 7 (8 with UIDGEN_UUID_V8); decode what '%s -f ulid' or uidgen_to_uuid() printed\n",
			ver, prog);
		return;
	}
	if (ver != 7 && ver != 8) {
		fprintf(stderr, "a version %u UUID (its 13th hex digit), and uidgen's are version 7 (8 with UIDGEN_UUID_V8): not one uidgen made; decode what '%s -f uuid' or uidgen_to_uuid() printed\n",
			ver, prog);
		return;
	}
	if ((var & 0xc) != 0x8) {
		fprintf(stderr, "not an RFC 9562 UUID: its variant (the 17th hex digit, %x) is not 8, 9, a or b, as uidgen's always is: %s\n",
			var, copied);
		return;
	}
	fprintf(stderr, "a UUIDv%u, but not one uidgen's view maps back under the layout %u/%u/%u/%u, tick %llu us, epoch %llu ms (%s): decode it with the layout it was made under (where that module is loaded, -d its device, or --layout, --tick-us and --epoch-ms), or decode its 64-bit ID\n",
		ver, info->ts_bits, info->node_bits, info->slot_bits,
		info->seq_bits, (unsigned long long)info->tick_ns / 1000,
		ns_ms(info->epoch_unix_ns),
		ret == -ERANGE ? "its time is before the epoch or after the layout's last tick" :
		"it has bits set that uidgen's view of an ID never sets");
}

/* A public token that did not open (@err from uidgen_parse_public()). */
static void bad_token(const char *s, const char *file, int err)
{
	if (err == -ENOKEY)
		fprintf(stderr, "%s: %s: made under key %c, which %s does not hold\n",
			prog, s, s[0], file);
	else if (err == -EKEYREJECTED)
		fprintf(stderr, "%s: %s: not a token of %s's keys (its check fails, or it opens to no ID)\n",
			prog, s, file);
	else
		fprintf(stderr, "%s: %s: not a public token: 13 characters of 0-9A-Za-z, its 11-character short code, or the token in decimal\n",
			prog, s);
}

/*
 * Read @s as one ID of the layout @info, as decode reads it: by its form
 * (@fmt UIDGEN_FMT_AUTO) or as -f @fmt_arg says; a public token with
 * @keys (--key @key_file). 0 with *@id and its parts *@p; else 2 after
 * saying what is wrong with @s and what @cmd ("decode", "observe") reads.
 */
int read_id(const char *cmd, const char *s, enum uidgen_format fmt,
	    const char *fmt_arg, const struct uidgen_info *info,
	    struct uidgen_keys *keys, const char *key_file, uint64_t *id,
	    struct uidgen_parts *p)
{
	enum uidgen_format f = auto_format(s, fmt);
	int ret, parsed;
	uint8_t u[16];
	size_t len;

	if (keys) {
		/*
		 * A token: 13 characters; 11 not all digits its short code
		 * (as 13 are b32 unless all digits); else decimal.
		 */
		len = strlen(s);
		ret = uidgen_parse_public(keys, s,
					  len == UIDGEN_PUBLIC_LEN ? UIDGEN_PUBLIC_TEXT :
					  len == UIDGEN_PUBLIC_SHORT_LEN &&
					  strspn(s, "0123456789") != len ?
					  UIDGEN_PUBLIC_SHORT : UIDGEN_PUBLIC_DEC,
					  UIDGEN_KEY_CURRENT, id);
		if (ret) {
			bad_token(s, key_file, ret);
			return 2;
		}
		parsed = 1;
	} else if (f == FMT_UUID || f == FMT_ULID) {
		/* Either text: uidgen_parse_uuid() goes by length. */
		ret = uidgen_parse_uuid(s, u);
		parsed = !ret;
		if (!ret)
			ret = uidgen_from_uuid(info, u, id);
		/*
		 * Which check failed; but a text of no UUID's or ULID's
		 * length that -f said to read so gets -f's message, below.
		 */
		len = strlen(s);
		if (ret && (parsed || fmt == UIDGEN_FMT_AUTO ||
			    len == 36 || len == 32 || len == 26)) {
			bad_uuid(s, parsed ? u : NULL, info, ret);
			return 2;
		}
	} else {
		ret = uidgen_parse(s, f, id);
		/* "up to 16 hex digits": a 0 before them is one more. */
		if (!ret && f == UIDGEN_FMT_HEX && hex_digits(s) > 16)
			ret = -EINVAL;
		parsed = !ret;
	}
	if (!ret)
		ret = uidgen_decode(info, *id, p);
	if (ret && !parsed && ret == -EINVAL && fmt != UIDGEN_FMT_AUTO) {
		/* -f said how to read it, and it is not that. */
		fprintf(stderr, "%s: %s: not %s, which -f %s reads; without -f, %s reads each ID by its form\n",
			prog, s, format_what(fmt), fmt_arg, cmd);
		return 2;
	}
	if (ret) {
		bad_id(cmd, s, f, ret);
		return 2;
	}
	return 0;
}

/*
 * decode: each ID's parts under the layout @given (--layout, --tick-us,
 * --epoch-ms), else the device's, else the default layout, said once
 * before the first ID decoded under it.
 */
int cmd_decode(const char *dev, char **argv, int argc,
	       enum uidgen_format fmt, const char *fmt_arg,
	       const struct uidgen_info *given, const char *key_file)
{
	struct uidgen_keys *keys = NULL;
	char uuid[UIDGEN_UUID_STR_MAX];
	struct uidgen_info info = { .size = sizeof(info) };
	struct uidgen_parts p;
	struct uidgen *g;
	char when[64];
	uint64_t id;
	int i, ret, status = 0, note = 0;

	if (!argc) {
		fprintf(stderr, "%s: decode needs at least one ID: see '%s decode --help'\n",
			prog, prog);
		return 2;
	}
	if (key_file && fmt_arg) {
		fprintf(stderr, "%s: decode --key reads public tokens: it takes no -f\n", prog);
		return 2;
	}
	if (key_file && load_keys(key_file, &keys))
		return 1;
	if (given) {
		info = *given;
	} else if (uidgen_open(&g, dev) == 0) {
		ret = uidgen_info(g, &info);
		uidgen_close(g);
		if (ret < 0)
			return fail(ret, "reading the layout");
	} else {
		uidgen_default_info(&info);
		note = 1;
	}
	for (i = 0; i < argc; i++) {
		if (read_id("decode", argv[i], fmt, fmt_arg, &info, keys,
			    key_file, &id, &p)) {
			status = 2;
			continue;
		}
		if (note) {
			fprintf(stderr, "%s: %s is not available; decoding with the default layout %u/%u/%u/%u, tick %llu us, epoch %llu ms (--layout, --tick-us and --epoch-ms give another)\n",
				prog, dev, info.ts_bits, info.node_bits,
				info.slot_bits, info.seq_bits,
				(unsigned long long)info.tick_ns / 1000,
				ns_ms(info.epoch_unix_ns));
			note = 0;
		}
		format_time(p.unix_ms, when, sizeof(when));
		/* Only an ID past year 10889 has no UUID. */
		if (format_id(&info, id, FMT_UUID, uuid, sizeof(uuid)) < 0)
			strcpy(uuid, "-");
		/* id=: the 64-bit ID, whatever the spelling it was given in. */
		printf("%s time=%s node=%" PRIu32 " slot=%" PRIu32 " seq=%" PRIu32 " id=%" PRIu64 " uuid=%s\n",
		       argv[i], when, p.node, p.slot, p.seq, id, uuid);
	}
	uidgen_keys_free(keys);
	return status;
}
