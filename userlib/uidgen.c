// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen: print fresh IDs from /dev/uid, decode IDs, show the layout,
 * assign the node ID.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "uidgen.h"

static const char *prog = "uidgen";

/* The most --ahead-ms and --every-ms take: a day. */
#define AHEAD_MS_MAX	86400000ULL

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %1$s [-d DEVICE] [-n COUNT] [-f dec|hex|b32]\n"
		"       %1$s [-d DEVICE] decode [-f auto|dec|hex|b32] ID...\n"
		"       %1$s [-d DEVICE] info\n"
		"       %1$s [-d DEVICE] set-node NODE_ID\n"
		"       %1$s [-d DEVICE] revoke-node\n"
		"       %1$s stats\n"
		"       %1$s state save|restore FILE [--ahead-ms MS]\n"
		"\n"
		"Print COUNT (default 1) fresh 64-bit IDs from " UIDGEN_DEVICE ", one a line.\n"
		"\n"
		"  -d, --device PATH   the uidgen device (default " UIDGEN_DEVICE ")\n"
		"  -n, --count N       how many IDs to print\n"
		"  -f, --format FMT    dec (default), hex (0x and 16 digits) or b32 (13 Crockford\n"
		"                      base32 digits that sort like the IDs); for decode,\n"
		"                      how to read the IDs (default auto: 0x.. is hex,\n"
		"                      13 characters is b32, else decimal)\n"
		"  -h, --help          this text\n"
		"  -V, --version       the version\n"
		"\n"
		"decode   print each ID's time (UTC), node, slot and sequence, using the\n"
		"         layout of the loaded module (the default layout if none is)\n"
		"info     print the layout, tick, epoch and node ID of the loaded module\n"
		"set-node assign the node ID (needs CAP_SYS_ADMIN)\n"
		"revoke-node  stop issuing under the node ID; when it returns, no ID\n"
		"         with that node ID leaves the kernel (needs CAP_SYS_ADMIN)\n"
		"stats    the generator's clock, floor, node and counters\n"
		"state save FILE     write a floor covering every ID issued so far plus\n"
		"         --ahead-ms (default 60000) ms to come; run it periodically\n"
		"state restore FILE  raise the module's floor to FILE's (as root, after\n"
		"         loading): no ID at or before it is ever issued\n"
		"\n"
		"Exit status: 0 on success, 1 on failure, 2 on bad usage.\n",
		prog);
}

static int fail(int err, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(-err));
	if (err == -EADDRNOTAVAIL)
		fprintf(stderr, "%s: no node ID is assigned: as root, run '%s set-node N' or load the module with node_id=N\n",
			prog, prog);
	return 1;
}

/* Opening the device failed: say what usually causes it. */
static int fail_open(int err, const char *dev)
{
	fail(err, dev);
	if (err == -EACCES)
		fprintf(stderr, "%s: the device's mode and group leave you out: the administrator sets them with the module's dev_mode and dev_gid parameters (see uid(4))\n",
			prog);
	else if (err == -ENOENT)
		fprintf(stderr, "%s: is the uidgen module loaded? As root: modprobe uidgen node_id=N\n",
			prog);
	return 1;
}

/*
 * A decimal number, nothing else: digits only (no sign, no blank, no 0x; a
 * leading 0 is not octal), at most @max. 0, -EINVAL or -ERANGE.
 */
static int parse_dec(const char *s, unsigned long long max,
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

/* parse_dec() for an option's value: exits the usage way on failure. */
static int parse_opt(const char *opt, const char *s, unsigned long long min,
		     unsigned long long max, unsigned long long *v)
{
	int ret = parse_dec(s, max, v);

	if (ret == -EINVAL)
		fprintf(stderr, "%s: %s '%s': not a count in decimal\n", prog, opt, s);
	else if (ret)
		fprintf(stderr, "%s: %s '%s': too large, at most %llu\n", prog, opt, s, max);
	else if (*v < min)
		fprintf(stderr, "%s: %s '%s': must be at least %llu\n", prog, opt, s, min);
	return ret || *v < min ? -1 : 0;
}

static int parse_format(const char *s, enum uidgen_format *fmt, int allow_auto)
{
	if (!strcmp(s, "dec"))
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

static int cmd_generate(const char *dev, unsigned long count,
			enum uidgen_format fmt)
{
	uint64_t ids[1024];
	struct uidgen *g;
	char text[UIDGEN_FMT_MAX];
	int ret;

	ret = uidgen_open(&g, dev);
	if (ret)
		return fail_open(ret, dev);
	while (count) {
		size_t want = count < 1024 ? count : 1024;
		long got = uidgen_fill(g, ids, want);
		long i;

		if (got < 0) {
			uidgen_close(g);
			return fail(got, "reading IDs");
		}
		for (i = 0; i < got; i++) {
			uidgen_format(ids[i], fmt, text, sizeof(text));
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
			ret = errno ? -errno : -EIO;
			uidgen_close(g);
			return fail(ret, "writing IDs to standard output");
		}
	}
	uidgen_close(g);
	return 0;
}

/*
 * How to read @s when the format is auto: 0x.. is hex; base32 only when
 * the text cannot be decimal (a 13-digit decimal ID is decimal, not
 * base32). uidgen_parse()'s own UIDGEN_FMT_AUTO goes by length alone.
 */
static enum uidgen_format auto_format(const char *s, enum uidgen_format fmt)
{
	if (fmt != UIDGEN_FMT_AUTO)
		return fmt;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return UIDGEN_FMT_HEX;
	if (*s && strspn(s, "0123456789") == strlen(s))
		return UIDGEN_FMT_DEC;
	return strlen(s) == 13 ? UIDGEN_FMT_B32 : UIDGEN_FMT_DEC;
}

static int cmd_decode(const char *dev, char **argv, int argc,
		      enum uidgen_format fmt)
{
	struct uidgen_info info;
	struct uidgen_parts p;
	struct uidgen *g;
	char when[64];
	uint64_t id;
	int i, ret, status = 0;

	if (!argc) {
		fprintf(stderr, "%s: decode needs at least one ID\n", prog);
		return 2;
	}
	if (uidgen_open(&g, dev) == 0) {
		ret = uidgen_info(g, &info);
		uidgen_close(g);
		if (ret)
			return fail(ret, "reading the layout");
	} else {
		uidgen_default_info(&info);
		fprintf(stderr, "%s: %s is not available; decoding with the default layout %u/%u/%u/%u, tick %u us, epoch %llu ms\n",
			prog, dev, info.ts_bits, info.node_bits, info.slot_bits,
			info.seq_bits, info.tick_us,
			(unsigned long long)info.epoch_ms);
	}
	for (i = 0; i < argc; i++) {
		ret = uidgen_parse(argv[i], auto_format(argv[i], fmt), &id);
		if (!ret)
			ret = uidgen_decode(&info, id, &p);
		if (ret) {
			fprintf(stderr, "%s: %s: not a uidgen ID (%s)\n", prog,
				argv[i], strerror(-ret));
			status = 1;
			continue;
		}
		format_time(p.unix_ms, when, sizeof(when));
		printf("%s time=%s node=%" PRIu32 " slot=%" PRIu32 " seq=%" PRIu32 "\n",
		       argv[i], when, p.node, p.slot, p.seq);
	}
	return status;
}

static int cmd_info(const char *dev)
{
	struct uidgen_info info;
	struct uidgen_parts p;
	struct uidgen *g;
	char when[64];
	int ret;

	ret = uidgen_open(&g, dev);
	if (ret)
		return fail_open(ret, dev);
	ret = uidgen_info(g, &info);
	uidgen_close(g);
	if (ret)
		return fail(ret, "reading the layout");

	printf("device:    %s\n", dev);
	printf("version:   %u.%u.%u\n", info.version >> 16,
	       (info.version >> 8) & 0xff, info.version & 0xff);
	if (info.node_id == UIDGEN_NODE_NONE)
		printf("node_id:   unassigned (no ID is issued until one is)\n");
	else
		printf("node_id:   %u\n", info.node_id);
	printf("layout:    timestamp %u | node %u | slot %u | sequence %u bits\n",
	       info.ts_bits, info.node_bits, info.slot_bits, info.seq_bits);
	printf("slots:     %u\n", info.nr_slots);
	printf("tick:      %u us, up to %llu IDs per tick per slot\n",
	       info.tick_us, 1ULL << info.seq_bits);
	format_time(info.epoch_ms, when, sizeof(when));
	printf("epoch:     %llu ms (%s)\n", (unsigned long long)info.epoch_ms,
	       when);
	/* The largest ID has every timestamp bit set. */
	if (uidgen_decode(&info, ~0ULL >> 1, &p) == 0) {
		format_time(p.unix_ms, when, sizeof(when));
		printf("last tick: %s\n", when);
	}
	return 0;
}

static int cmd_set_node(const char *dev, char **argv, int argc)
{
	struct uidgen *g;
	unsigned long long node;
	int ret;

	if (argc != 1) {
		fprintf(stderr, "%s: set-node needs exactly one node ID\n", prog);
		return 2;
	}
	/* Decimal only: a zero-padded 010 is node 10, never octal 8. */
	if (parse_dec(argv[0], UIDGEN_NODE_NONE - 1, &node)) {
		fprintf(stderr, "%s: '%s': not a decimal node ID (0 to the module's largest, see 'uidgen info')\n",
			prog, argv[0]);
		return 2;
	}
	ret = uidgen_open(&g, dev);
	if (ret)
		return fail_open(ret, dev);
	ret = uidgen_set_node(g, node);
	uidgen_close(g);
	if (ret == -EBUSY)
		fprintf(stderr, "%s: another node ID is already assigned\n", prog);
	return ret ? fail(ret, "set-node") : 0;
}

#define SYSFS_PARAM	"/sys/module/uidgen/parameters/"
#define SYSFS_DEV	"/sys/class/uidgen/uid/"
#define DEBUGFS_SLOTS	"/sys/kernel/debug/uidgen/slots"

/* Read one unsigned number from a sysfs file; 0 or -errno. */
static int read_u64(const char *path, unsigned long long *v)
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

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "we");
	int ret = 0;

	if (!f)
		return -errno;
	if (fputs(s, f) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static int cmd_revoke(const char *dev)
{
	struct uidgen *g;
	int ret;

	ret = uidgen_open(&g, dev);
	if (ret)
		return fail_open(ret, dev);
	ret = uidgen_revoke_node(g);
	uidgen_close(g);
	return ret ? fail(ret, "revoke-node") : 0;
}

static void print_ms(const char *label, unsigned long long ms)
{
	char when[64];

	format_time(ms, when, sizeof(when));
	printf("%-15s %llu (%s)\n", label, ms, when);
}

static int cmd_stats(void)
{
	static const char *const times[] = {
		"now_ms", "anchor_ms", "high_water_ms", "exhausts_at_ms",
	};
	static const char *const counters[] = { "issued", "waits", "behind" };
	unsigned long long v;
	char path[256], line[256];
	FILE *f;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		snprintf(path, sizeof(path), SYSFS_DEV "%s", times[i]);
		ret = read_u64(path, &v);
		if (ret)
			return fail(ret, path);
		print_ms(times[i], v);
	}
	ret = read_u64(SYSFS_PARAM "floor_ms", &v);
	if (ret)
		return fail(ret, SYSFS_PARAM "floor_ms");
	if (v)
		print_ms("floor_ms", v);
	else
		printf("%-15s 0 (none)\n", "floor_ms");
	f = fopen(SYSFS_PARAM "node_id", "re");
	if (f && fgets(line, sizeof(line), f))
		printf("%-15s %s", "node_id", line);
	if (f)
		fclose(f);
	if (!read_u64(SYSFS_PARAM "max_borrow_ticks", &v))
		printf("%-15s %llu\n", "max_borrow_ticks", v);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		snprintf(path, sizeof(path), SYSFS_DEV "%s", counters[i]);
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

static int cmd_state_save(const char *file, unsigned long long ahead_ms)
{
	unsigned long long high, now, floor;
	char tmp[4096], text[256];
	FILE *f;
	int ret;

	ret = read_u64(SYSFS_DEV "high_water_ms", &high);
	if (!ret)
		ret = read_u64(SYSFS_DEV "now_ms", &now);
	if (ret)
		return fail(ret, "reading " SYSFS_DEV);
	floor = (high > now ? high : now) + ahead_ms;
	snprintf(text, sizeof(text),
		 "# uidgen state: a floor above every ID issued so far\n"
		 "floor_ms=%llu\n", floor);
	/* Write a new file and rename it over the old: never a torn state. */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= (int)sizeof(tmp))
		return fail(-ENAMETOOLONG, file);
	f = fopen(tmp, "we");
	if (!f)
		return fail(-errno, tmp);
	if (fputs(text, f) < 0 || fflush(f) || fsync(fileno(f))) {
		ret = -errno;
		fclose(f);
		unlink(tmp);
		return fail(ret, tmp);
	}
	if (fclose(f))
		return fail(-errno, tmp);
	if (rename(tmp, file))
		return fail(-errno, file);
	printf("saved floor_ms=%llu to %s\n", floor, file);
	return 0;
}

static int cmd_state_restore(const char *file)
{
	unsigned long long floor = 0, cur;
	char line[256], num[32];
	int found = 0, ret, lineno = 0;
	FILE *f;

	f = fopen(file, "re");
	if (!f)
		return fail(-errno, file);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		lineno++;
		if (!line[0] || line[0] == '#')
			continue;
		if (strncmp(line, "floor_ms=", 9) ||
		    parse_dec(line + 9, INT64_MAX, &floor)) {
			fprintf(stderr, "%s: %s:%d: '%s': not a decimal number in floor_ms=MS\n",
				prog, file, lineno, line);
			fclose(f);
			return 1;
		}
		found = 1;
	}
	fclose(f);
	if (!found) {
		fprintf(stderr, "%s: %s: no floor_ms= line\n", prog, file);
		return 1;
	}
	ret = read_u64(SYSFS_PARAM "floor_ms", &cur);
	if (ret)
		return fail(ret, SYSFS_PARAM "floor_ms");
	if (floor <= cur) {
		printf("floor_ms already %llu, at or above %llu from %s\n", cur,
		       floor, file);
		return 0;
	}
	snprintf(num, sizeof(num), "%llu", floor);
	ret = write_str(SYSFS_PARAM "floor_ms", num);
	if (ret)
		return fail(ret, "setting " SYSFS_PARAM "floor_ms");
	printf("floor_ms set to %llu (was %llu)\n", floor, cur);
	return 0;
}

static int cmd_state(char **argv, int argc, unsigned long long ahead_ms)
{
	if (argc == 2 && !strcmp(argv[0], "save"))
		return cmd_state_save(argv[1], ahead_ms);
	if (argc == 2 && !strcmp(argv[0], "restore"))
		return cmd_state_restore(argv[1]);
	fprintf(stderr, "%s: usage: %s state save|restore FILE\n", prog, prog);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "ahead-ms", required_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	enum uidgen_format fmt = UIDGEN_FMT_DEC;
	const char *dev = UIDGEN_DEVICE;
	const char *fmt_arg = NULL;
	unsigned long count = 1;
	unsigned long long ahead_ms = 60000, v;
	int c;

	/* Options may come before or after the subcommand. */
	while ((c = getopt_long(argc, argv, "d:n:f:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'n':
			if (parse_opt("-n", optarg, 1, ULONG_MAX, &v))
				return 2;
			count = v;
			break;
		case 'f':
			fmt_arg = optarg;
			break;
		case 'A':
			/* A day ahead is plenty; more would only wrap. */
			if (parse_opt("--ahead-ms", optarg, 0, AHEAD_MS_MAX, &ahead_ms))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("uidgen %s\n", UIDGEN_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	argv += optind;
	argc -= optind;

	if (argc && !strcmp(argv[0], "decode")) {
		fmt = UIDGEN_FMT_AUTO;
		if (fmt_arg && parse_format(fmt_arg, &fmt, 1)) {
			fprintf(stderr, "%s: unknown format '%s'\n", prog, fmt_arg);
			return 2;
		}
		return cmd_decode(dev, argv + 1, argc - 1, fmt);
	}
	if (fmt_arg && parse_format(fmt_arg, &fmt, 0)) {
		fprintf(stderr, "%s: unknown format '%s'\n", prog, fmt_arg);
		return 2;
	}
	if (argc && !strcmp(argv[0], "info") && argc == 1)
		return cmd_info(dev);
	if (argc && !strcmp(argv[0], "set-node"))
		return cmd_set_node(dev, argv + 1, argc - 1);
	if (argc == 1 && !strcmp(argv[0], "revoke-node"))
		return cmd_revoke(dev);
	if (argc == 1 && !strcmp(argv[0], "stats"))
		return cmd_stats();
	if (argc && !strcmp(argv[0], "state"))
		return cmd_state(argv + 1, argc - 1, ahead_ms);
	if (argc) {
		fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[0]);
		usage(stderr);
		return 2;
	}
	return cmd_generate(dev, count, fmt);
}
