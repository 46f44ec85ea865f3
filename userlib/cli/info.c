// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen info and uidgen stats: the loaded module's layout, tick, epoch,
 * node ID and whether its IDs are exact as JavaScript numbers (or those of
 * a layout given with --layout); the generator's clocks, node state,
 * floor, grant and counters, from INFO and sysfs (and debugfs's per-slot
 * counters).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

/*
 * When the timestamp field runs out, in Unix ms: the start of tick
 * 2^ts_bits, rounded up (ULLONG_MAX beyond 64 bits of ms).
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

/*
 * What the module said in its log until 2.1, said where it is asked for
 * (info and stats, on stderr): a timestamp field with under a year left.
 */
static void warn_life(const struct uidgen_info *info)
{
	unsigned long long end = exhausts_at_ms(info), now = wall_ms();
	char when[64];

	if (end <= now || end - now >= 365ULL * 86400000)
		return;
	format_time(end, when, sizeof(when));
	fprintf(stderr, "%s: warning: the timestamp field runs out in %llu days (at %s): plan a new layout or epoch\n",
		prog, (end - now) / 86400000, when);
}

/*
 * The other: the ID clock and the wall clock more than a second apart (a
 * wall-clock step during this load, or a floor ahead of the clock).
 */
static void warn_offset(const char *sys)
{
	char path[256], line[64];
	long long off;
	FILE *f;

	snprintf(path, sizeof(path), "%sclock_offset_ms", sys);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && sscanf(line, "%lld", &off) == 1 &&
	    (off > 1000 || off < -1000))
		fprintf(stderr, "%s: warning: the ID clock is %lld ms %s the wall clock (a clock step, or a floor ahead of it): a floor's lead heals at 1/16 of real time, a step stays until the next load; see the admin guide, \"A node ID's life\"\n",
			prog, off < 0 ? -off : off, off > 0 ? "ahead of" : "behind");
	fclose(f);
}

/*
 * The JS-safe line: whether the layout's IDs are below 2^53, the largest
 * integer a JavaScript number (a double) holds exactly with all below it.
 * The widths add up to 63, so every layout's IDs pass 2^53 once the
 * timestamp reaches tick 2^(53 - node - slot - seq): say when that is
 * (the start of ID 2^53's tick), and whether it has come.
 */
static void print_js_safe(const struct uidgen_info *info)
{
	struct uidgen_parts p;
	char when[64];

	if (uidgen_decode(info, 1ULL << 53, &p))
		return;
	format_time(p.unix_ms, when, sizeof(when));
	if ((unsigned long long)p.unix_ms > wall_ms())
		printf("js-safe:   yes, until %s: every ID made before then is below 2^53, exact as a JavaScript number\n",
		       when);
	else
		printf("js-safe:   no, IDs made since %s are 2^53 or more: send them to JavaScript as strings\n",
		       when);
}

int cmd_info(const char *dev, const struct uidgen_info *given)
{
	struct uidgen_info info;
	struct uidgen_parts p;
	struct uidgen *g;
	char when[64], version[64];
	FILE *f;
	int ret;

	if (given) {
		/* --layout and friends: the layout alone, the device not read. */
		info = *given;
		goto layout;
	}
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
layout:
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
	print_js_safe(&info);
	warn_life(&info);
	return 0;
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


int cmd_stats(const char *dev)
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
	/* 'uidgen observe' (uidgen_observe()): moved the clock, refused (EDOM). */
	print_sysfs_line(sys, "observe_moved", "observe_moved");
	print_sysfs_line(sys, "observe_refused", "observe_refused");
	warn_offset(sys);
	warn_life(&info);
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
