// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen: the command line: print fresh IDs from /dev/uid, decode IDs,
 * show the layout and the node's state, assign and revoke the node ID with
 * its floor; every command's options, help and messages, and the node
 * calls. The state file and the persister (state save/restore/keep) are
 * persist.c's; cli.h is what the two share.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"


const char *prog = "uidgen";

/* Standard output failed: said once, by write_error(). */
static int write_failed;

/*
 * Writing standard output failed with @err (0 if unknown): say so, as
 * coreutils do, once. Returns 1, the exit status.
 */
static int write_error(int err)
{
	if (!write_failed && err)
		fprintf(stderr, "%s: write error: %s\n", prog, strerror(err));
	else if (!write_failed)
		fprintf(stderr, "%s: write error\n", prog);
	write_failed = 1;
	return 1;
}

/*
 * At exit, what coreutils' close_stdout() does: flush and close standard
 * output, and a write that failed then, or earlier unseen, is exit 1 with
 * "write error" (a full disk, a reader gone with SIGPIPE ignored, a
 * closed descriptor), never a silent @status.
 */
static int close_stdout(int status)
{
	int err;

	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		err = errno;
		fclose(stdout);
		return write_error(err);
	}
	if (fclose(stdout))
		return write_error(errno);
	return status;
}

/* A uapi time in ms, rounded up: a floor or grant mark never falls short. */
unsigned long long ns_ms(uint64_t ns)
{
	return ns / NS_PER_MS + !!(ns % NS_PER_MS);
}


/* state keep/restore: how far ahead the grant goes, how often. */
struct keep_opts {
	unsigned long long ahead_ms;
	unsigned long long every_ms;
};

/* The device the command works on: -d, or UIDGEN_DEVICE. */
static const char *device = UIDGEN_DEVICE;


/* Does @dev answer uidgen_info()? */
static int is_uidgen_dev(const char *dev)
{
	struct uidgen_info info;
	struct uidgen *g;
	int ok;

	if (uidgen_open(&g, dev))
		return 0;
	ok = !node_info(g, &info);
	uidgen_close(g);
	return ok;
}

/* No uidgen module: how to load it, the first time and every other. */
void say_not_loaded(void)
{
	fprintf(stderr, "%s: the uidgen module is not loaded: as root, 'modprobe uidgen', then '%s set-node N --new' for a node ID that has never issued an ID, else '%s state restore FILE' with its state file (what uidgen-state.service does at boot)\n",
		prog, prog, prog);
	fprintf(stderr, "%s: modprobe finds the module once 'make install' (or a package) has put it in place; from the source tree without that, 'insmod module/uidgen.ko'\n",
		prog);
}

int module_loaded(void)
{
	return !access("/sys/module/uidgen", F_OK);
}

int fail(int err, const char *what)
{
	/* /dev/null or any other file that is not the device. */
	if (err == -ENOTTY && !is_uidgen_dev(device)) {
		fprintf(stderr, "%s: %s: not a uidgen device (%s): give the uidgen device with -d PATH (default " UIDGEN_DEVICE ")\n",
			prog, device, strerror(ENOTTY));
		return 1;
	}
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(-err));
	if (err == -EADDRNOTAVAIL)
		fprintf(stderr, "%s: no node ID is active: as root, run '%s state restore FILE', or '%s set-node N --new' for a node ID that has never issued\n",
			prog, prog, prog);
	else if (err == -EPERM)
		fprintf(stderr, "%s: this needs CAP_SYS_ADMIN: run it as root\n", prog);
	else if (err == -ENOTTY)
		fprintf(stderr, "%s: the loaded uidgen module does not know this call: upgrade it (see '%s info')\n",
			prog, prog);
	return 1;
}

/* Opening the device failed: say what usually causes it. */
static int fail_open(int err, const char *dev)
{
	fail(err, dev);
	if (err == -EACCES)
		fprintf(stderr, "%s: the device's mode and group leave you out: udev sets them, from 60-uidgen.rules (see uid(4)): ask the administrator to add you to its group\n",
			prog);
	else if ((err == -ENOENT || err == -ENODEV || err == -ENXIO) && !module_loaded())
		say_not_loaded();
	else if (err == -ENOENT && strcmp(dev, UIDGEN_DEVICE))
		fprintf(stderr, "%s: the uidgen module is loaded, but %s is not its device: give its device with -d PATH (default " UIDGEN_DEVICE ")\n",
			prog, dev);
	else if (err == -ENOENT)
		fprintf(stderr, "%s: the uidgen module is loaded, but there is no " UIDGEN_DEVICE ": udev (or devtmpfs) makes it (see uid(4))\n",
			prog);
	return 1;
}

/*
 * A decimal number, nothing else: digits only (no sign, no blank, no 0x; a
 * leading 0 is not octal), at most @max. 0, -EINVAL or -ERANGE.
 */
int parse_dec(const char *s, unsigned long long max,
		     unsigned long long *v)
{
	unsigned long long n = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (n > (max - (*s - '0')) / 10)
			return -ERANGE;
		n = n * 10 + (*s - '0');
	}
	*v = n;
	return 0;
}

/*
 * parse_dec() for an option's value, @what it is ("a count"): -1 after
 * saying what is wrong, the usage way.
 */
static int parse_num(const char *opt, const char *s, unsigned long long min,
		     unsigned long long max, const char *what,
		     unsigned long long *v)
{
	int ret = parse_dec(s, max, v);

	if (ret == -EINVAL)
		fprintf(stderr, "%s: %s '%s': not %s in decimal\n", prog, opt, s, what);
	else if (ret)
		fprintf(stderr, "%s: %s '%s': too large, at most %llu\n", prog, opt, s, max);
	else if (*v < min)
		fprintf(stderr, "%s: %s '%s': must be at least %llu\n", prog, opt, s, min);
	return ret || *v < min ? -1 : 0;
}

static int parse_opt(const char *opt, const char *s, unsigned long long min,
		     unsigned long long max, unsigned long long *v)
{
	return parse_num(opt, s, min, max, "a count", v);
}

/*
 * decode --layout TS/NODE/SLOT/SEQ, the field widths 'uidgen info' shows,
 * into @info: -1 after saying what is wrong.
 */
static int parse_layout(const char *s, struct uidgen_info *info)
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
 * The CLI's formats beyond libuidgen's: an ID's UUIDv7 and ULID views
 * (uidgen_to_uuid(), Documentation/uuid.rst), which need the layout.
 */
#define FMT_UUID	((enum uidgen_format)(UIDGEN_FMT_B32 + 1))
#define FMT_ULID	((enum uidgen_format)(UIDGEN_FMT_B32 + 2))

static int parse_format(const char *s, enum uidgen_format *fmt, int allow_auto)
{
	if (!strcmp(s, "uuid"))
		*fmt = FMT_UUID;
	else if (!strcmp(s, "ulid"))
		*fmt = FMT_ULID;
	else if (!strcmp(s, "dec"))
		*fmt = UIDGEN_FMT_DEC;
	else if (!strcmp(s, "hex"))
		*fmt = UIDGEN_FMT_HEX;
	else if (!strcmp(s, "b32"))
		*fmt = UIDGEN_FMT_B32;
	else if (allow_auto && !strcmp(s, "auto"))
		*fmt = UIDGEN_FMT_AUTO;
	else
		return -1;
	return 0;
}

static void format_time(int64_t unix_ms, char *buf, size_t len)
{
	time_t secs = unix_ms / 1000;
	struct tm tm;

	if (!gmtime_r(&secs, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "(out of range)");
		return;
	}
	snprintf(buf + strlen(buf), len - strlen(buf), ".%03dZ",
		 (int)(unix_ms % 1000));
}

/* @id as @fmt; the UUID and ULID by the layout @info. */
static int format_id(const struct uidgen_info *info, uint64_t id,
		     enum uidgen_format fmt, char *buf, size_t len)
{
	uint8_t u[16];
	int ret;

	if (fmt != FMT_UUID && fmt != FMT_ULID)
		return uidgen_format(id, fmt, buf, len);
	ret = uidgen_to_uuid(info, id, 0, u);
	if (ret)
		return ret;
	return uidgen_format_uuid(u, fmt == FMT_UUID ? UIDGEN_UUID_TEXT :
				  UIDGEN_ULID_TEXT, buf, len);
}

static int cmd_generate(const char *dev, unsigned long count,
			enum uidgen_format fmt)
{
	char text[UIDGEN_UUID_STR_MAX];
	struct uidgen_info info;
	uint64_t ids[1024];
	struct uidgen *g;
	int ret;

	ret = uidgen_open(&g, dev);
	if (ret)
		return fail_open(ret, dev);
	if ((fmt == FMT_UUID || fmt == FMT_ULID) &&
	    (ret = node_info(g, &info))) {
		uidgen_close(g);
		return fail(ret, "reading the layout");
	}
	while (count) {
		size_t want = count < 1024 ? count : 1024;
		long got = uidgen_fill(g, ids, want);
		long i;

		if (got < 0) {
			uidgen_close(g);
			return fail(got, "reading IDs");
		}
		for (i = 0; i < got; i++) {
			ret = format_id(&info, ids[i], fmt, text, sizeof(text));
			if (ret < 0) {
				uidgen_close(g);
				return fail(ret, "formatting an ID");
			}
			fputs(text, stdout);
			putchar('\n');
		}
		count -= got;
		errno = 0;
		/*
		 * A full disk or a closed pipe (SIGPIPE ignored) shows here:
		 * stop now rather than mint the rest of COUNT for nobody.
		 */
		if (fflush(stdout) || ferror(stdout)) {
			ret = errno;
			uidgen_close(g);
			return write_error(ret);
		}
	}
	uidgen_close(g);
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

/* The hex digits of @s, after its 0x if it has one. */
static size_t hex_digits(const char *s)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	return strlen(s);
}

/* What decode reads, said after every text it cannot read. */
#define DECODE_READS "decode reads a decimal ID (digits only, at most 9223372036854775807), 0x and up to 16 hex digits, 13 Crockford base32 digits, a UUID (36 or 32 hex digits) or a ULID (26 base32 digits)"

/*
 * @s (read by its form, no -f) is no ID: uidgen_parse() or uidgen_decode()
 * returned @ret. Say what is wrong with it, then what decode reads.
 */
static void bad_id(const char *s, enum uidgen_format f, int ret)
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
	fprintf(stderr, "; " DECODE_READS "\n");
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

/*
 * decode: each ID's parts under the layout @given (--layout, --tick-us,
 * --epoch-ms), else the device's, else the default layout, said once
 * before the first ID decoded under it.
 */
static int cmd_decode(const char *dev, char **argv, int argc,
		      enum uidgen_format fmt, const char *fmt_arg,
		      const struct uidgen_info *given)
{
	char uuid[UIDGEN_UUID_STR_MAX];
	enum uidgen_format f;
	struct uidgen_info info = { .size = sizeof(info) };
	struct uidgen_parts p;
	struct uidgen *g;
	char when[64];
	uint8_t u[16];
	uint64_t id;
	int i, ret, parsed, status = 0, note = 0;
	size_t len;

	if (!argc) {
		fprintf(stderr, "%s: decode needs at least one ID: see '%s decode --help'\n",
			prog, prog);
		return 2;
	}
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
		f = auto_format(argv[i], fmt);
		if (f == FMT_UUID || f == FMT_ULID) {
			/* Either text: uidgen_parse_uuid() goes by length. */
			ret = uidgen_parse_uuid(argv[i], u);
			parsed = !ret;
			if (!ret)
				ret = uidgen_from_uuid(&info, u, &id);
			/*
			 * Which check failed; but a text of no UUID's or
			 * ULID's length that -f said to read so gets -f's
			 * message, below.
			 */
			len = strlen(argv[i]);
			if (ret && (parsed || fmt == UIDGEN_FMT_AUTO ||
				    len == 36 || len == 32 || len == 26)) {
				bad_uuid(argv[i], parsed ? u : NULL, &info, ret);
				status = 2;
				continue;
			}
		} else {
			ret = uidgen_parse(argv[i], f, &id);
			/* "up to 16 hex digits": a 0 before them is one more. */
			if (!ret && f == UIDGEN_FMT_HEX && hex_digits(argv[i]) > 16)
				ret = -EINVAL;
			parsed = !ret;
		}
		if (!ret)
			ret = uidgen_decode(&info, id, &p);
		if (ret && !parsed && ret == -EINVAL && fmt != UIDGEN_FMT_AUTO) {
			/* -f said how to read it, and it is not that. */
			fprintf(stderr, "%s: %s: not %s, which -f %s reads; without -f, decode reads each ID by its form\n",
				prog, argv[i], format_what(fmt), fmt_arg);
			status = 2;
			continue;
		}
		if (ret) {
			bad_id(argv[i], f, ret);
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
	return status;
}

static int cmd_info(const char *dev)
{
	struct uidgen_info info;
	struct uidgen_parts p;
	struct uidgen *g;
	char when[64], version[64];
	FILE *f;
	int ret;

	ret = uidgen_open(&g, dev);
	if (ret)
		return fail_open(ret, dev);
	ret = node_info(g, &info);
	uidgen_close(g);
	if (ret)
		return fail(ret, "reading the layout");

	printf("device:    %s\n", dev);
	/* The module's version is the module's to say (modinfo), not INFO's. */
	f = fopen("/sys/module/uidgen/version", "re");
	if (f && fgets(version, sizeof(version), f))
		printf("version:   %s", version);
	if (f)
		fclose(f);
	if (info.node_id == UIDGEN_NODE_NONE)
		printf("node_id:   unassigned (no ID is issued until one is)\n");
	else
		printf("node_id:   %u\n", info.node_id);
	printf("layout:    timestamp %u | node %u | slot %u | sequence %u bits\n",
	       info.ts_bits, info.node_bits, info.slot_bits, info.seq_bits);
	printf("slots:     %u\n", info.nr_slots);
	printf("tick:      %llu us, up to %llu IDs per tick per slot\n",
	       (unsigned long long)info.tick_ns / 1000, 1ULL << info.seq_bits);
	format_time(ns_ms(info.epoch_unix_ns), when, sizeof(when));
	printf("epoch:     %llu ms (%s)\n", ns_ms(info.epoch_unix_ns), when);
	/* The largest ID has every timestamp bit set. */
	if (uidgen_decode(&info, ~0ULL >> 1, &p) == 0) {
		format_time(p.unix_ms, when, sizeof(when));
		printf("last tick: %s\n", when);
	}
	return 0;
}


/* Read one unsigned number from a sysfs file; 0 or -errno. */
int read_u64(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (fscanf(f, "%llu", v) != 1)
		ret = -EINVAL;
	fclose(f);
	return ret;
}

/* Open the device for the node calls; NULL after saying why on stderr. */
struct uidgen *node_dev_open(const char *dev)
{
	struct uidgen *g;
	int ret = uidgen_open(&g, dev);

	if (ret) {
		fail_open(ret, dev);
		return NULL;
	}
	return g;
}

/* The node's state and the layout; 0 or -errno. */
int node_info(struct uidgen *g, struct uidgen_info *info)
{
	int ret;

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	ret = uidgen_info(g, info);
	return ret < 0 ? ret : 0;
}

/* Assign @node, new or with @floor_ms, and @grant_ms (0: none); 0 or -errno. */
int node_assign(struct uidgen *g, uint32_t node, int is_new,
		       unsigned long long floor_ms, unsigned long long grant_ms)
{
	struct uidgen_assign a = {
		.size = sizeof(a),
		.flags = is_new ? UIDGEN_ASSIGN_NEW : 0,
		.node_id = node,
		.floor_unix_ns = floor_ms * NS_PER_MS,
		.grant_unix_ns = grant_ms * NS_PER_MS,
	};

	return uidgen_assign(g, &a);
}

/* Raise the grant of @node, the node ID in force; 0 or -errno. */
int node_renew(struct uidgen *g, uint32_t node,
		      unsigned long long grant_ms)
{
	struct uidgen_renew r = {
		.size = sizeof(r),
		.node_id = node,
		.grant_unix_ns = grant_ms * NS_PER_MS,
	};

	return uidgen_renew(g, &r);
}

/* Revoke whatever node ID is in force; 0 or -errno. */
int node_revoke(struct uidgen *g)
{
	struct uidgen_revoke r = {
		.size = sizeof(r),
		.node_id = UIDGEN_NODE_NONE,
	};

	return uidgen_revoke(g, &r);
}

/* Say what a failed assign, renew or revoke means here, the errno first. */
int fail_node(int err, const char *what, uint32_t node)
{
	fail(err, what);
	switch (-err) {
	case EBUSY:
		fprintf(stderr, "%s: another node ID is already active: revoke it first ('%s revoke-node')\n",
			prog, prog);
		break;
	case ERANGE:
		fprintf(stderr, "%s: node ID %u does not fit the module's node_bits (see '%s info')\n",
			prog, node, prog);
		break;
	case E2BIG:
	case EOPNOTSUPP:
		fprintf(stderr, "%s: the loaded module is older than this program's uapi: upgrade it\n",
			prog);
		break;
	case ESTALE:
		fprintf(stderr, "%s: node ID %u is no longer the one in force\n", prog, node);
		break;
	}
	return 1;
}

/* Unix time in ms from the wall clock. */
unsigned long long wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

unsigned long long max_ull(unsigned long long a, unsigned long long b)
{
	return a > b ? a : b;
}

/* Where a node ID about to be assigned takes its floor from. */
struct floor_src {
	int is_new;			/* --new */
	int has_floor;			/* --floor MS */
	unsigned long long floor_ms;
	const char *state;		/* --state FILE */
};

/*
 * This machine's state file, the one its units keep: $UIDGEN_STATE, else
 * UIDGEN_STATE= in /etc/default/uidgen (the units' EnvironmentFile), else
 * the units' default. Into @buf.
 */
static const char *machine_state_file(char *buf, size_t len)
{
	const char *env = getenv("UIDGEN_STATE");
	char line[512];
	FILE *f;

	snprintf(buf, len, "%s", env && *env ? env : "/var/lib/uidgen/state");
	if (env && *env)
		return buf;
	f = fopen("/etc/default/uidgen", "re");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f)) {
		char *v = line + 13;

		if (strncmp(line, "UIDGEN_STATE=", 13))
			continue;
		v[strcspn(v, "\n")] = 0;
		if (*v == '"' || *v == '\'') {
			v[strcspn(v + 1, "\"'") + 1] = 0;
			v++;
		}
		if (*v)
			snprintf(buf, len, "%s", v);
	}
	fclose(f);
	return buf;
}

/*
 * The machine's state file is its record of its node ID and floor: a
 * set-node that contradicts it (another machine's number, copied with a
 * step; --new, or a lower floor, for the node ID whose floor it holds) is
 * a mistake, not a wish: refused, saying what to run. With --state FILE,
 * FILE is the word. 0, or the exit status.
 */
static int set_node_agrees(unsigned long long node, const struct floor_src *src)
{
	char file[512];
	struct state st;
	int ret;

	if (src->state)
		return 0;
	machine_state_file(file, sizeof(file));
	ret = state_read(file, &st);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret < 0 ? 1 : ret;
	if (st.node != UIDGEN_NODE_NONE && st.node != node) {
		fprintf(stderr, "%s: this machine's state file %s holds node ID %llu, not %llu: if %llu is this machine's node ID, run '%s state restore %s'; if not, move the file away first (it is node ID %llu's history)\n",
			prog, file, st.node, node, st.node, prog, file, st.node);
		return 1;
	}
	if (src->is_new || src->floor_ms < st.floor_ms) {
		fprintf(stderr, "%s: this machine's state file %s holds node ID %llu's floor, %llu ms: it has issued IDs, and %s could repeat them; run '%s state restore %s' (or set-node %llu --state %s)\n",
			prog, file, node, st.floor_ms,
			src->is_new ? "--new" : "a lower floor", prog, file, node, file);
		return 1;
	}
	return 0;
}

static int cmd_set_node(const char *dev, char **argv, int argc,
			const struct floor_src *src)
{
	unsigned long long node, floor = 0;
	struct state st;
	struct uidgen *g;
	int ret;

	if (argc != 1) {
		fprintf(stderr, "%s: set-node needs exactly one node ID: see '%s set-node --help'\n",
			prog, prog);
		return 2;
	}
	/* Decimal only: a zero-padded 010 is node 10, never octal 8. */
	if (parse_dec(argv[0], UIDGEN_NODE_NONE - 1, &node)) {
		fprintf(stderr, "%s: '%s': not a decimal node ID (0 to the module's largest, see 'uidgen info')\n",
			prog, argv[0]);
		return 2;
	}
	if (!!src->is_new + !!src->has_floor + !!src->state > 1) {
		fprintf(stderr, "%s: set-node: %s given together: give exactly one of --new, --floor MS and --state FILE, where node ID %llu's floor comes from\n",
			prog, src->is_new && src->has_floor && src->state ?
			"--new, --floor and --state" : src->is_new && src->has_floor ?
			"--new and --floor" : src->is_new ? "--new and --state" :
			"--floor and --state", node);
		return 2;
	}
	if (!!src->is_new + !!src->has_floor + !!src->state != 1) {
		fprintf(stderr,
			"%s: set-node needs where node ID %llu's floor comes from, exactly one of:\n"
			"  --state FILE  the state file 'uidgen state keep' or 'state save' wrote for it\n"
			"  --floor MS    a Unix time in ms at or after the end of every ID it ever issued\n"
			"  --new         it has never issued an ID (its first use, ever)\n"
			"%s: without its floor, a node ID that issued before (another load, reboot or\n"
			"machine) would issue the same IDs again if the clock is behind where it was\n",
			prog, node, prog);
		return 2;
	}
	if (src->has_floor) {
		floor = src->floor_ms;
	} else if (!src->is_new) {
		ret = state_read(src->state, &st);
		if (ret == -ENOENT)
			return fail(ret, src->state);
		if (ret)
			return ret;
		if (st.node != UIDGEN_NODE_NONE && st.node != node) {
			fprintf(stderr, "%s: %s holds the floor of node ID %llu, not %llu\n",
				prog, src->state, st.node, node);
			return 1;
		}
		floor = st.floor_ms;
	}
	ret = set_node_agrees(node, src);
	if (ret)
		return ret;
	g = node_dev_open(dev);
	if (!g)
		return 1;
	ret = node_assign(g, node, src->is_new, floor, 0);
	uidgen_close(g);
	if (ret)
		return fail_node(ret, "set-node", node);
	if (src->is_new)
		printf("node ID %llu active, new (no floor)\n", node);
	else
		printf("node ID %llu active, floor %llu ms\n", node, floor);
	return 0;
}

static int cmd_revoke(const char *dev)
{
	struct uidgen *g;
	int ret;

	ret = uidgen_open(&g, dev);
	if (ret)
		return fail_open(ret, dev);
	ret = node_revoke(g);
	uidgen_close(g);
	return ret ? fail(ret, "revoke-node") : 0;
}

static void print_ms(const char *label, unsigned long long ms)
{
	char when[64];

	format_time(ms, when, sizeof(when));
	printf("%-15s %llu (%s)\n", label, ms, when);
}

/* Print one sysfs value under @label if the file exists. */
static void print_sysfs_line(const char *sys, const char *label, const char *name)
{
	char path[256], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", sys, name);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		printf("%-15s %s", label, line);
	fclose(f);
}

/*
 * When the timestamp field runs out, in Unix ms: the start of tick
 * 2^ts_bits, rounded up, as the module says it in its log (ULLONG_MAX
 * beyond 64 bits of ms).
 */
static unsigned long long exhausts_at_ms(const struct uidgen_info *info)
{
	unsigned long long ticks = 1ULL << info->ts_bits;
	unsigned long long tick_us = info->tick_ns / 1000, ms, r;

	if (__builtin_mul_overflow(ticks / 1000, tick_us, &ms) ||
	    __builtin_add_overflow(ms, (ticks % 1000 * tick_us + 999) / 1000, &r) ||
	    __builtin_add_overflow(r, ns_ms(info->epoch_unix_ns), &r))
		return ULLONG_MAX;
	return r;
}

static int cmd_stats(const char *dev)
{
	/* The clocks sysfs has; INFO has the rest. */
	static const char *const times[] = { "now_ms", "anchor_ms" };
	static const char *const counters[] = { "issued", "waits", "behind" };
	static const char *const states[] = { "none", "active" };
	struct uidgen_info info;
	unsigned long long v;
	char path[256], line[256], sys[64];
	struct timespec boot;
	int ret;
	struct uidgen *g;
	struct stat st;
	FILE *f;
	size_t i;

	if (!module_loaded() && access(SYSFS_DEV, F_OK) && !strcmp(dev, UIDGEN_DEVICE)) {
		say_not_loaded();
		return 1;
	}
	/* -d's device, and its own sysfs directory (by its device number). */
	ret = uidgen_open(&g, dev);
	if (ret)
		return fail_open(ret, dev);
	ret = node_info(g, &info);
	uidgen_close(g);
	if (ret)
		return fail(ret, dev);
	snprintf(sys, sizeof(sys), SYSFS_DEV);
	if (!stat(dev, &st) && S_ISCHR(st.st_mode)) {
		snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u/",
			 major(st.st_rdev), minor(st.st_rdev));
		snprintf(path, sizeof(path), "%snow_ms", sys);
		if (access(path, F_OK))
			snprintf(sys, sizeof(sys), SYSFS_DEV);
	}
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", sys, times[i]);
		ret = read_u64(path, &v);
		if (ret)
			return fail(ret, path);
		print_ms(times[i], v);
	}
	if (info.high_water_unix_ns)
		print_ms("high_water_ms", ns_ms(info.high_water_unix_ns));
	else
		printf("%-15s 0 (none issued)\n", "high_water_ms");
	print_ms("exhausts_at_ms", exhausts_at_ms(&info));
	printf("%-15s %s\n", "node_state",
	       info.node_state < sizeof(states) / sizeof(states[0]) ?
	       states[info.node_state] : "?");
	if (info.node_id != UIDGEN_NODE_NONE)
		printf("%-15s %u\n", "node_id", info.node_id);
	else
		printf("%-15s none\n", "node_id");
	if (info.floor_unix_ns)
		print_ms("floor_ms", ns_ms(info.floor_unix_ns));
	else
		printf("%-15s 0 (none)\n", "floor_ms");
	if (info.grant_unix_ns) {
		print_ms("grant_ms", ns_ms(info.grant_unix_ns));
		printf("%-15s on: no tick after grant_ms is issued until a persister ('uidgen state keep' or a lease agent) persists a later mark as the next start's floor and raises it\n",
		       "grant mode");
		printf("%-15s this node ID on another machine, or a restored VM, without this machine's state file\n",
		       "not covered");
	} else {
		printf("%-15s 0 (none)\n", "grant_ms");
		printf("%-15s off: no grant limit\n", "grant mode");
		printf("%-15s after a crash, the IDs issued since the floor was last saved: run uidgen-persist.service ('uidgen state keep')\n",
		       "not covered");
	}
	if (info.deadline_boot_ns) {
		clock_gettime(CLOCK_BOOTTIME, &boot);
		printf("%-15s %llu (CLOCK_BOOTTIME ns; in %.3f s)\n", "deadline_ns",
		       (unsigned long long)info.deadline_boot_ns,
		       ((double)info.deadline_boot_ns -
			(boot.tv_sec * 1e9 + boot.tv_nsec)) / 1e9);
	} else {
		printf("%-15s 0 (none)\n", "deadline_ns");
	}
	printf("%-15s %llu\n", "token", (unsigned long long)info.token);
	print_sysfs_line(sys, "grant_waits", "grant_waits");
	print_sysfs_line(sys, "clock_offset_ms", "clock_offset_ms");
	if (!read_u64(SYSFS_PARAM "max_borrow_ticks", &v))
		printf("%-15s %llu\n", "max_borrow_ticks", v);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", sys, counters[i]);
		ret = read_u64(path, &v);
		if (ret)
			return fail(ret, path);
		printf("%-15s %llu\n", counters[i], v);
	}
	f = fopen(DEBUGFS_SLOTS, "re");
	if (!f) {
		printf("(per-slot counters: %s, needs root and debugfs)\n", DEBUGFS_SLOTS);
		return 0;
	}
	printf("per slot:\n");
	while (fgets(line, sizeof(line), f)) {
		unsigned long long issued;
		unsigned int slot;

		/* Idle slots are noise: show the header and slots that issued. */
		if (sscanf(line, "%u %llu", &slot, &issued) == 2 && !issued)
			continue;
		printf("  %s", line);
	}
	fclose(f);
	return 0;
}

/*
 * The commands and their options: each command has its own table, and an
 * option of another command is an error, never accepted and ignored. -d,
 * -h and -V are every command's, before or after it.
 */
enum {
	OPT_AHEAD = 256, OPT_EVERY, OPT_NEW, OPT_FLOOR, OPT_STATE,
	OPT_LAYOUT, OPT_TICK, OPT_EPOCH,
	OPT_LAST = OPT_EPOCH
};

#define OPT_DEVICE	{ "device", required_argument, NULL, 'd' }
#define OPT_HELP	{ "help", no_argument, NULL, 'h' }
#define OPT_VERSION	{ "version", no_argument, NULL, 'V' }
#define OPT_COUNT	{ "count", required_argument, NULL, 'n' }
#define OPT_FORMAT	{ "format", required_argument, NULL, 'f' }
#define OPT_AHEAD_MS	{ "ahead-ms", required_argument, NULL, OPT_AHEAD }
#define OPT_EVERY_MS	{ "every-ms", required_argument, NULL, OPT_EVERY }
#define OPT_LAYOUTS	{ "layout", required_argument, NULL, OPT_LAYOUT }, \
			{ "tick-us", required_argument, NULL, OPT_TICK }, \
			{ "epoch-ms", required_argument, NULL, OPT_EPOCH }
#define OPT_END		{ NULL, 0, NULL, 0 }

static const struct option opts_generate[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_COUNT, OPT_FORMAT, OPT_END,
};
static const struct option opts_decode[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_FORMAT, OPT_LAYOUTS, OPT_END,
};
static const struct option opts_plain[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_END,
};
static const struct option opts_set_node[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION,
	{ "new", no_argument, NULL, OPT_NEW },
	{ "floor", required_argument, NULL, OPT_FLOOR },
	{ "state", required_argument, NULL, OPT_STATE },
	OPT_END,
};
static const struct option opts_restore[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_AHEAD_MS, OPT_END,
};
static const struct option opts_keep[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_AHEAD_MS, OPT_EVERY_MS, OPT_END,
};
/* Every option of every command: to find the command words, and owners. */
static const struct option opts_all[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_COUNT, OPT_FORMAT,
	OPT_AHEAD_MS, OPT_EVERY_MS,
	{ "new", no_argument, NULL, OPT_NEW },
	{ "floor", required_argument, NULL, OPT_FLOOR },
	{ "state", required_argument, NULL, OPT_STATE },
	OPT_LAYOUTS,
	OPT_END,
};

enum cmd_id {
	CMD_GENERATE, CMD_DECODE, CMD_INFO, CMD_SET_NODE, CMD_REVOKE,
	CMD_STATS, CMD_RESTORE, CMD_KEEP, CMD_SAVE, CMD_HELP,
	CMD_STATE,	/* "state" without save, restore or keep */
	CMD_COUNT
};

struct command {
	const char *name;	/* NULL: printing IDs, no command word */
	const char *shortopts;	/* getopt_long's, ':' first */
	const struct option *opts;
	const char *synopsis;	/* after "uidgen [-d DEVICE] " */
	const char *summary;	/* for uidgen --help */
	const char *about;	/* for COMMAND --help */
	const char *options;	/* its own options, or NULL */
};

#define GLOBAL_HELP \
	"  -d, --device PATH   the uidgen device (default " UIDGEN_DEVICE ")\n" \
	"  -h, --help          this text\n" \
	"  -V, --version       the version\n"

static const struct command commands[CMD_COUNT] = {
	[CMD_GENERATE] = { NULL, ":d:n:f:hV", opts_generate,
		"[-n COUNT] [-f dec|hex|b32|uuid|ulid]", NULL,
		"Print COUNT (default 1) fresh 64-bit IDs from " UIDGEN_DEVICE ", one a line.\n",
		"  -n, --count N       how many IDs to print (decimal, at least 1)\n"
		"  -f, --format FMT    dec (default), hex (0x and 16 digits), b32 (13 Crockford\n"
		"                      base32 digits that sort like the IDs), uuid (the ID's\n"
		"                      lossless UUIDv7, which sorts like it) or ulid (the same\n"
		"                      128 bits as a ULID)\n" },
	[CMD_DECODE] = { "decode", ":d:f:hV", opts_decode,
		"decode [-f auto|dec|hex|b32|uuid|ulid] ID...",
		"an ID's time, node, slot, sequence, id= and UUID",
		"Print each ID's time (UTC), node, slot, sequence, the 64-bit ID in decimal\n"
		"(id=, whatever spelling it was given in) and its UUID, using the layout of\n"
		"the loaded module (the default layout if none is), or the one --layout,\n"
		"--tick-us and --epoch-ms give (the device is not read then).\n",
		"  -f, --format FMT    how to read the IDs: auto (default: 0x.. is hex, 36 or 32\n"
		"                      characters a UUID, 26 a ULID, 13 b32 unless all digits,\n"
		"                      else decimal), dec, hex, b32, or uuid or ulid (either)\n"
		"  --layout TS/N/S/Q   the field widths in bits the IDs were made under:\n"
		"                      timestamp, node, slot and sequence, as 'uidgen info'\n"
		"                      shows them there (default 41/5/5/12)\n"
		"  --tick-us US        their tick in us (default 1000)\n"
		"  --epoch-ms MS       their epoch, a Unix time in ms (default 1767225600000)\n" },
	[CMD_INFO] = { "info", ":d:hV", opts_plain, "info",
		"the loaded module's layout, tick, epoch and node ID",
		"Print the version, node ID, layout, slots, tick, epoch and last tick of the\n"
		"loaded module.\n", NULL },
	[CMD_SET_NODE] = { "set-node", ":d:hV", opts_set_node,
		"set-node NODE_ID --new|--floor MS|--state FILE",
		"assign the node ID with its floor (CAP_SYS_ADMIN)",
		"Assign the node ID (decimal: a leading 0 is not octal) with its floor, in\n"
		"one step (needs CAP_SYS_ADMIN). Exactly one of:\n",
		"  --state FILE        the floor a state file holds (its node_id must match)\n"
		"  --floor MS          a Unix time in ms at or after every ID it ever issued\n"
		"  --new               it has never issued an ID (its first start, ever)\n" },
	[CMD_REVOKE] = { "revoke-node", ":d:hV", opts_plain, "revoke-node",
		"stop issuing under the node ID (CAP_SYS_ADMIN)",
		"Stop issuing under the node ID; when it returns, no ID with that node ID\n"
		"leaves the kernel (needs CAP_SYS_ADMIN).\n", NULL },
	[CMD_STATS] = { "stats", ":d:hV", opts_plain, "stats",
		"clock, node state, floor, grant, counters, clock offset",
		"Print the generator's clock, node state, floor, grant, deadline, token,\n"
		"counters and clock offset.\n", NULL },
	[CMD_RESTORE] = { "state restore", ":d:hV", opts_restore,
		"state restore FILE [--ahead-ms MS]",
		"node ID and floor from FILE, a grant persisted first",
		"Assign FILE's node ID with FILE's floor; first persist to FILE, and grant,\n"
		"a mark --ahead-ms ahead (needs CAP_SYS_ADMIN). With no FILE yet it succeeds\n"
		"only if the node ID is already active as new (set-node N --new), and starts\n"
		"the file.\n",
		"  --ahead-ms MS       how far ahead (default 60000, 1 to 86400000; 0 is refused:\n"
		"                      with no grant a crash could repeat IDs)\n" },
	[CMD_KEEP] = { "state keep", ":d:hV", opts_keep,
		"state keep FILE [--ahead-ms MS] [--every-ms MS]",
		"the persister: keep a grant mark persisted ahead in FILE",
		"The persister (runs until SIGTERM): every --every-ms persist a mark\n"
		"--ahead-ms ahead to FILE, fsync'd, then raise the kernel's grant to it.\n",
		"  --ahead-ms MS       how far ahead (default 60000, 1 to 86400000)\n"
		"  --every-ms MS       how often (default 20000), below --ahead-ms\n" },
	[CMD_SAVE] = { "state save", ":d:hV", opts_plain, "state save FILE",
		"clean stop: revoke, then save the exact floor to FILE",
		"Clean stop: revoke the node ID (the fence), then save the exact high water\n"
		"to FILE as its floor (needs CAP_SYS_ADMIN).\n", NULL },
	[CMD_HELP] = { "help", ":d:hV", opts_plain, "help [COMMAND]",
		"this text, or COMMAND's usage and options",
		"Print the usage of uidgen, or of COMMAND with its options (the same as\n"
		"'uidgen COMMAND --help').\n", NULL },
	[CMD_STATE] = { "state", ":d:hV", opts_keep, NULL, NULL, NULL, NULL },
};

static const char *const command_list =
	"the commands are decode, info, set-node, revoke-node, stats, state and help";

static void print_synopsis(FILE *f, enum cmd_id id, const char *lead)
{
	if (id == CMD_HELP)
		fprintf(f, "%s%s %s\n", lead, prog, commands[id].synopsis);
	else
		fprintf(f, "%s%s [-d DEVICE] %s\n", lead, prog, commands[id].synopsis);
}

static void usage(FILE *f)
{
	int i;

	for (i = CMD_GENERATE; i <= CMD_HELP; i++)
		print_synopsis(f, i, i == CMD_GENERATE ? "Usage: " : "       ");
	fprintf(f, "\n%s\n%s" GLOBAL_HELP "\n", commands[CMD_GENERATE].about,
		commands[CMD_GENERATE].options);
	for (i = CMD_DECODE; i <= CMD_HELP; i++)
		fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"Each command takes its own options and -d, -h, -V, before or after it:\n"
		"'%s help COMMAND' (or '%s COMMAND --help') lists them.\n"
		"\n"
		"Exit status: 0 on success, 1 on failure, 2 on bad usage.\n",
		prog, prog);
}

/* COMMAND --help; for "state", all three of its commands. */
static int help(enum cmd_id id)
{
	static const enum cmd_id state[] = { CMD_RESTORE, CMD_KEEP, CMD_SAVE };
	size_t i;

	if (id == CMD_GENERATE) {
		usage(stdout);
		return 0;
	}
	if (id == CMD_STATE) {
		for (i = 0; i < 3; i++)
			print_synopsis(stdout, state[i], i ? "       " : "Usage: ");
		for (i = 0; i < 3; i++)
			printf("\n%s:\n%s%s%s", commands[state[i]].name,
			       commands[state[i]].about,
			       commands[state[i]].options ? "\n" : "",
			       commands[state[i]].options ? commands[state[i]].options : "");
		printf("\n" GLOBAL_HELP
		       "\nExit status: 0 on success, 1 on failure, 2 on bad usage.\n");
		return 0;
	}
	print_synopsis(stdout, id, "Usage: ");
	printf("\n%s\n%s" GLOBAL_HELP
	       "\nExit status: 0 on success, 1 on failure, 2 on bad usage.\n",
	       commands[id].about,
	       commands[id].options ? commands[id].options : "");
	return 0;
}

/* "see 'uidgen decode --help'", by command. */
static void see_help(enum cmd_id id)
{
	if (id == CMD_GENERATE)
		fprintf(stderr, "see '%s --help'\n", prog);
	else if (id == CMD_STATE)
		fprintf(stderr, "see '%s help state'\n", prog);
	else
		fprintf(stderr, "see '%s %s --help'\n", prog, commands[id].name);
}

static int has_opt(const struct option *o, int val)
{
	for (; o->name; o++)
		if (o->val == val)
			return 1;
	return 0;
}

/* The option of opts_all that --NAME (or its unique abbreviation) is. */
static const struct option *find_long(const char *name, size_t len)
{
	const struct option *o, *found = NULL;

	for (o = opts_all; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		if (strlen(o->name) == len)
			return o;
		if (found)
			return NULL;	/* ambiguous */
		found = o;
	}
	return found;
}

/* The commands that take option @val, as "printing IDs and decode". */
static void print_owners(int val)
{
	int i, n = 0, total = 0;

	for (i = CMD_GENERATE; i <= CMD_SAVE; i++)
		total += has_opt(commands[i].opts, val);
	for (i = CMD_GENERATE; i <= CMD_SAVE; i++) {
		if (!has_opt(commands[i].opts, val))
			continue;
		n++;
		fprintf(stderr, "%s%s", n == 1 ? "" : n == total ? " and " : ", ",
			commands[i].name ? commands[i].name : "printing IDs");
	}
}

/*
 * --NAME abbreviates more than one option (of opts_all), none of them
 * @id's: say which they are and whose. 0 if it abbreviates fewer than two.
 */
static int ambiguous(enum cmd_id id, const char *text, size_t len, const char *name)
{
	const struct option *o;
	int n = 0, total = 0;

	for (o = opts_all; o->name; o++)
		total += !strncmp(o->name, text, len);
	if (total < 2)
		return 0;
	fprintf(stderr, "%s: %s takes no %s (short for ", prog,
		commands[id].name ? commands[id].name : "printing IDs", name);
	for (o = opts_all; o->name; o++) {
		if (strncmp(o->name, text, len))
			continue;
		n++;
		fprintf(stderr, "%s--%s, an option of ", n == 1 ? "" :
			n == total ? ", or " : ", ", o->name);
		print_owners(o->val);
	}
	fprintf(stderr, "): ");
	see_help(id);
	return 1;
}

/* An option @id does not take: say whose it is, or that none has it. */
static int bad_option(enum cmd_id id, char **argv)
{
	const char *where = commands[id].name ? commands[id].name : "printing IDs";
	const char *text = argv[optind - 1];
	const struct option *o = NULL;
	char name[64];
	int val = optopt, i, n = 0, total = 0;
	size_t len;

	if (val >= OPT_AHEAD || val == 'h' || val == 'V') {
		/* --new=1: a long option of this command given a value. */
		for (o = commands[id].opts; o->name && o->val != val; o++)
			;
		fprintf(stderr, "%s: %s: --%s takes no value: ", prog, where, o->name);
		see_help(id);
		return 2;
	}
	if (!val && !strncmp(text, "--", 2)) {
		len = strcspn(text + 2, "=");
		snprintf(name, sizeof(name), "--%.*s", (int)len, text + 2);
		o = find_long(text + 2, len);
		val = o ? o->val : 0;
		if (!o && len && ambiguous(id, text + 2, len, name))
			return 2;
	} else {
		snprintf(name, sizeof(name), "-%c", val);
	}
	fprintf(stderr, "%s: %s takes no %s ", prog, where, name);
	for (i = CMD_GENERATE; i <= CMD_SAVE && val; i++)
		total += has_opt(commands[i].opts, val);
	if (!total)
		fprintf(stderr, "(no command does): ");
	for (i = CMD_GENERATE; i <= CMD_SAVE && total; i++) {
		if (!has_opt(commands[i].opts, val))
			continue;
		n++;
		fprintf(stderr, "%s%s", n == 1 ? "(an option of " :
			n == total ? " and " : ", ",
			commands[i].name ? commands[i].name : "printing IDs");
		if (n == total)
			fprintf(stderr, "): ");
	}
	see_help(id);
	return 2;
}

/*
 * Option @val given a second time (@now its value, @was the first one's;
 * NULL for one that takes none): refused, saying which.
 */
static int given_twice(enum cmd_id id, int val, const char *was, const char *now)
{
	const struct option *o;

	for (o = commands[id].opts; o->name && o->val != val; o++)
		;
	if (commands[id].name)
		fprintf(stderr, "%s: %s: ", prog, commands[id].name);
	else
		fprintf(stderr, "%s: ", prog);
	if (val < OPT_AHEAD)
		fprintf(stderr, "-%c (--%s) given twice", val, o->name);
	else
		fprintf(stderr, "--%s given twice", o->name);
	if (now)
		fprintf(stderr, " ('%s', then '%s')", was, now);
	fprintf(stderr, ": give it once: ");
	see_help(id);
	return 2;
}

static int missing_value(enum cmd_id id, char **argv)
{
	const char *text = argv[optind - 1];
	const struct option *o;

	if (commands[id].name)
		fprintf(stderr, "%s: %s: ", prog, commands[id].name);
	else
		fprintf(stderr, "%s: ", prog);
	if (!strncmp(text, "--", 2)) {
		for (o = commands[id].opts; o->name && o->val != optopt; o++)
			;
		fprintf(stderr, "--%s needs a value: ", o->name);
	} else {
		fprintf(stderr, "-%c needs a value: ", optopt);
	}
	see_help(id);
	return 2;
}

/*
 * Whether option word @arg takes the next word as its value: the command
 * words are found before the command's own options are known, so this
 * goes by every command's options (opts_all). "--NAME" without "=" takes
 * one if an option NAME abbreviates does (--f is --format or --floor: both
 * do); "-xyz" if the last letter that takes one is its end.
 */
static int takes_value(const char *arg)
{
	const struct option *o;
	size_t len;

	if (arg[0] != '-' || !arg[1])
		return 0;
	if (arg[1] == '-') {
		len = strlen(arg + 2);
		if (!len || strchr(arg, '='))
			return 0;
		for (o = opts_all; o->name; o++)
			if (!strncmp(o->name, arg + 2, len) && o->has_arg == required_argument)
				return 1;
		return 0;
	}
	for (arg++; *arg; arg++)
		if (strchr("dnf", *arg))
			return !arg[1];
	return 0;
}

static void find_word(const char *arg, const char **w1, const char **w2)
{
	if (!*w1)
		*w1 = arg;
	else if (!*w2)
		*w2 = arg;
}

/* A command name, one word or "state" and the next; CMD_COUNT if none. */
static enum cmd_id find_command(const char *w1, const char *w2)
{
	int i;

	if (!strcmp(w1, "state")) {
		for (i = CMD_RESTORE; i <= CMD_SAVE; i++)
			if (w2 && !strcmp(commands[i].name + 6, w2))
				return i;
		return CMD_STATE;
	}
	for (i = CMD_DECODE; i <= CMD_HELP; i++)
		if (!strcmp(commands[i].name, w1))
			return i;
	return CMD_COUNT;
}

/* uidgen help [COMMAND]. */
static int cmd_help(char **argv, int argc)
{
	enum cmd_id id;
	int words;

	if (!argc)
		return help(CMD_GENERATE);
	id = find_command(argv[0], argc > 1 ? argv[1] : NULL);
	if (id == CMD_COUNT) {
		fprintf(stderr, "%s: help: unknown command '%s': %s; see '%s --help'\n",
			prog, argv[0], command_list, prog);
		return 2;
	}
	if (id == CMD_STATE && argc > 1) {
		fprintf(stderr, "%s: help: unknown command 'state %s': state save, state restore or state keep; see '%s help state'\n",
			prog, argv[1], prog);
		return 2;
	}
	words = id >= CMD_RESTORE && id <= CMD_SAVE ? 2 : 1;
	if (argc > words) {
		fprintf(stderr, "%s: help takes one command ('%s' is one too many): see '%s --help'\n",
			prog, argv[words], prog);
		return 2;
	}
	return help(id);
}

/* A command that takes no arguments was given some. */
static int no_args(enum cmd_id id, char **argv, int argc)
{
	if (!argc)
		return 0;
	fprintf(stderr, "%s: %s takes no arguments ('%s'): ", prog,
		commands[id].name, argv[0]);
	see_help(id);
	return 2;
}

/* A state command's FILE: exactly one. */
static int one_file(enum cmd_id id, char **argv, int argc)
{
	if (argc == 1 && !*argv[0]) {
		fprintf(stderr, "%s: %s: FILE is empty: name the state file (the units use /var/lib/uidgen/state): ",
			prog, commands[id].name);
		see_help(id);
		return 2;
	}
	if (argc == 1)
		return 0;
	if (!argc)
		fprintf(stderr, "%s: %s needs FILE, the state file: ", prog,
			commands[id].name);
	else
		fprintf(stderr, "%s: %s takes one FILE ('%s' is one too many): ",
			prog, commands[id].name, argv[1]);
	see_help(id);
	return 2;
}

static int run(int argc, char **argv)
{
	enum uidgen_format fmt = UIDGEN_FMT_DEC;
	const char *fmt_arg = NULL, *w1 = NULL, *w2 = NULL;
	unsigned long count = 1;
	struct keep_opts ko = { .ahead_ms = 60000, .every_ms = 20000 };
	struct floor_src src = { 0 };
	struct uidgen_info layout;
	int has_layout = 0;
	unsigned long long v;
	static const char *seen_arg[OPT_LAST + 1];
	static char seen[OPT_LAST + 1];
	enum cmd_id id;
	int c, words;

	/*
	 * First the command words (the first two non-options), wherever the
	 * options are; then the options again, by that command's table.
	 */
	opterr = 0;
	uidgen_default_info(&layout);
	for (c = 1; c < argc; c++) {
		if (!strcmp(argv[c], "--")) {
			for (c++; c < argc && !w2; c++)
				find_word(argv[c], &w1, &w2);
			break;
		}
		if (takes_value(argv[c]))
			c++;
		else if (argv[c][0] != '-' || !argv[c][1])
			find_word(argv[c], &w1, &w2);
	}
	id = w1 ? find_command(w1, w2) : CMD_GENERATE;
	if (id == CMD_COUNT) {
		fprintf(stderr, "%s: unknown command '%s': %s; see '%s --help'\n",
			prog, w1, command_list, prog);
		return 2;
	}
	words = !w1 ? 0 : id == CMD_STATE || (id >= CMD_RESTORE && id <= CMD_SAVE) ? 2 : 1;

	optind = 0;
	while ((c = getopt_long(argc, argv, commands[id].shortopts,
				commands[id].opts, NULL)) != -1) {
		/* Each option once: a second one is refused, not the last kept. */
		if (c > 0 && c <= OPT_LAST && c != ':' && c != '?') {
			if (seen[c])
				return given_twice(id, c, seen_arg[c], optarg);
			seen[c] = 1;
			seen_arg[c] = optarg;
		}
		switch (c) {
		case 'd':
			if (!*optarg) {
				fprintf(stderr, "%s: -d: the device path is empty: give the uidgen device with -d PATH (default " UIDGEN_DEVICE ")\n",
					prog);
				return 2;
			}
			device = optarg;
			break;
		case 'n':
			if (parse_opt("-n", optarg, 1, ULONG_MAX, &v))
				return 2;
			count = v;
			break;
		case 'f':
			fmt_arg = optarg;
			break;
		case OPT_AHEAD:
			/* A day ahead is plenty; more would only wrap. */
			if (parse_opt("--ahead-ms", optarg, 0, AHEAD_MS_MAX, &ko.ahead_ms))
				return 2;
			break;
		case OPT_EVERY:
			if (parse_opt("--every-ms", optarg, 1, AHEAD_MS_MAX, &ko.every_ms))
				return 2;
			break;
		case OPT_NEW:
			src.is_new = 1;
			break;
		case OPT_FLOOR:
			if (parse_num("--floor", optarg, 0, INT64_MAX,
				      "a Unix time in ms,", &src.floor_ms))
				return 2;
			src.has_floor = 1;
			break;
		case OPT_STATE:
			src.state = optarg;
			break;
		case OPT_LAYOUT:
			if (parse_layout(optarg, &layout))
				return 2;
			has_layout = 1;
			break;
		case OPT_TICK:
			if (parse_num("--tick-us", optarg, 1, 60000000,
				      "a tick length in us,", &v))
				return 2;
			layout.tick_ns = v * 1000;
			has_layout = 1;
			break;
		case OPT_EPOCH:
			/* Its ns must fit the layout's 64 bits. */
			if (parse_num("--epoch-ms", optarg, 0, UINT64_MAX / NS_PER_MS,
				      "a Unix time in ms,", &v))
				return 2;
			layout.epoch_unix_ns = v * NS_PER_MS;
			has_layout = 1;
			break;
		case 'h':
			return help(id);
		case 'V':
			printf("uidgen %s\n", UIDGEN_VERSION);
			return 0;
		case ':':
			return missing_value(id, argv);
		default:
			/* set-node -1: a negative node ID, read as an option. */
			if (id == CMD_SET_NODE && optopt >= '0' && optopt <= '9') {
				for (c = 1; c < argc - 1 && (argv[c][0] != '-' ||
					argv[c][1] < '0' || argv[c][1] > '9'); c++)
					;
				fprintf(stderr, "%s: '%s': node IDs are 0 to the module's largest (2^node_bits - 1, see '%s info'), in decimal; to take the node ID away, '%s revoke-node'\n",
					prog, argv[c], prog, prog);
				return 2;
			}
			return bad_option(id, argv);
		}
	}
	/* What is left: the command's words, then its arguments. */
	argv += optind + words;
	argc -= optind + words;

	if (id == CMD_STATE) {
		if (!w2)
			fprintf(stderr, "%s: state needs save, restore or keep, then FILE: see '%s help state'\n",
				prog, prog);
		else
			fprintf(stderr, "%s: state: unknown command '%s': state save, state restore or state keep; see '%s help state'\n",
				prog, w2, prog);
		return 2;
	}
	if (fmt_arg) {
		if (id == CMD_DECODE)
			fmt = UIDGEN_FMT_AUTO;
		if (parse_format(fmt_arg, &fmt, id == CMD_DECODE)) {
			fprintf(stderr, "%s: -f '%s': unknown format: give %sdec, hex, b32, uuid or ulid\n",
				prog, fmt_arg, id == CMD_DECODE ? "auto, " : "");
			return 2;
		}
	} else if (id == CMD_DECODE) {
		fmt = UIDGEN_FMT_AUTO;
	}

	switch (id) {
	case CMD_GENERATE:
		return cmd_generate(device, count, fmt);
	case CMD_DECODE:
		return cmd_decode(device, argv, argc, fmt, fmt_arg,
				  has_layout ? &layout : NULL);
	case CMD_INFO:
		return no_args(id, argv, argc) ?: cmd_info(device);
	case CMD_SET_NODE:
		return cmd_set_node(device, argv, argc, &src);
	case CMD_REVOKE:
		return no_args(id, argv, argc) ?: cmd_revoke(device);
	case CMD_STATS:
		return no_args(id, argv, argc) ?: cmd_stats(device);
	case CMD_RESTORE:
		if (one_file(id, argv, argc))
			return 2;
		if (!ko.ahead_ms) {
			fprintf(stderr, "%s: state restore needs --ahead-ms above 0: with no grant the kernel would issue past what %s holds, and a crash could repeat IDs; leave it out for the default, 60000\n",
				prog, argv[0]);
			return 2;
		}
		return state_restore(device, argv[0], ko.ahead_ms);
	case CMD_KEEP:
		if (one_file(id, argv, argc))
			return 2;
		return state_keep(device, argv[0], ko.ahead_ms, ko.every_ms);
	case CMD_SAVE:
		if (one_file(id, argv, argc))
			return 2;
		return state_save(device, argv[0]);
	case CMD_HELP:
		return cmd_help(argv, argc);
	default:
		return 2;
	}
}

int main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
