// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen observe ID: every ID this machine mints from then on is greater
 * than ID (UIDGEN_IOC_OBSERVE through uidgen_observe()), ID read as decode
 * reads it (read_id(), decode.c); and, when the module refuses it as too
 * far ahead (EDOM), by how much and what to check.
 */
#include <errno.h>
#include <stdio.h>

#include "cli/cli.h"

/* EDOM: @text (ID @id, parts @p) is too far ahead of this machine's clock. */
static void say_ahead(const char *text, const struct uidgen_parts *p)
{
	unsigned long long bound;
	char when[64];

	format_time(p->unix_ms, when, sizeof(when));
	fprintf(stderr, "%s: ID %s is more than observe_ahead_ms", prog, text);
	if (!read_u64(SYSFS_PARAM "observe_ahead_ms", &bound))
		fprintf(stderr, " (%llu ms)", bound);
	fprintf(stderr, " ahead of this machine's clock (its time, %s, is %lld ms after this machine's): refused and counted (observe_refused in " SYSFS_DEV "), nothing changed; check both machines' clocks (timedatectl, chronyc tracking), or load the module with a larger observe_ahead_ms if their offset is known to be larger\n",
		when, (long long)p->unix_ms - (long long)wall_ms());
}

int cmd_observe(const char *dev, char **argv, int argc,
		enum uidgen_format fmt, const char *fmt_arg,
		const char *key_file)
{
	struct uidgen_info info = { .size = sizeof(info) };
	struct uidgen_keys *keys = NULL;
	struct uidgen_parts p;
	struct uidgen *g = NULL;
	int ret, open_err;
	uint64_t id;

	if (argc != 1) {
		if (argc)
			fprintf(stderr, "%s: observe takes one ID ('%s' is one too many): ",
				prog, argv[1]);
		else
			fprintf(stderr, "%s: observe needs an ID: ", prog);
		see_help(CMD_OBSERVE);
		return 2;
	}
	if (key_file && fmt_arg) {
		fprintf(stderr, "%s: observe --key reads a public token: it takes no -f\n", prog);
		return 2;
	}
	/*
	 * The text is read before the device is needed, so that a typo is
	 * said as one; but a well-formed UUID or ULID maps to an ID (or not)
	 * by the device's layout, which only the device has.
	 */
	open_err = uidgen_open(&g, dev);
	if (open_err && !key_file && id_needs_layout(argv[0], fmt))
		return fail_open(open_err, dev);
	if (key_file && load_keys(key_file, &keys)) {
		if (!open_err)
			uidgen_close(g);
		return 1;
	}
	if (open_err) {
		uidgen_default_info(&info);
	} else {
		ret = uidgen_info(g, &info);
		if (ret < 0) {
			uidgen_close(g);
			uidgen_keys_free(keys);
			return fail(ret, "reading the layout");
		}
	}
	ret = read_id("observe", argv[0], fmt, fmt_arg, &info, keys, key_file, &id, &p);
	uidgen_keys_free(keys);
	if (ret) {
		if (!open_err)
			uidgen_close(g);
		return ret;
	}
	if (open_err)
		return fail_open(open_err, dev);
	ret = uidgen_observe(g, id);
	uidgen_close(g);
	if (!ret)
		return 0;
	fail(ret, "observe");
	if (ret == -EDOM)
		say_ahead(argv[0], &p);
	else if (ret == -EOVERFLOW)
		fprintf(stderr, "%s: ID %s is in the last tick this layout's timestamp holds: no ID can be greater (see '%s info')\n",
			prog, argv[0], prog);
	return 1;
}
