// SPDX-License-Identifier: GPL-2.0
/*
 * Printing IDs (uidgen with no command word) and the output formats it and
 * decode share: dec, hex and b32 are libuidgen's, uuid and ulid the ID's
 * UUIDv7 and ULID views, which need the layout; public and short the
 * opaque token's text and short code, which need the key file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* -f FMT into @fmt (auto only for decode, @allow_auto); 0, or -1 if unknown. */
int parse_format(const char *s, enum uidgen_format *fmt, int allow_auto)
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
	else if (!allow_auto && !strcmp(s, "public"))
		*fmt = FMT_PUBLIC;
	else if (!allow_auto && !strcmp(s, "short"))
		*fmt = FMT_SHORT;
	else if (allow_auto && !strcmp(s, "auto"))
		*fmt = UIDGEN_FMT_AUTO;
	else
		return -1;
	return 0;
}

/* @id as @fmt; the UUID and ULID by the layout @info. */
int format_id(const struct uidgen_info *info, uint64_t id,
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

int cmd_generate(const char *dev, unsigned long count,
		 enum uidgen_format fmt, const char *key_file)
{
	struct uidgen_keys *keys = NULL;
	char text[UIDGEN_UUID_STR_MAX];
	struct uidgen_info info;
	uint64_t ids[1024];
	struct uidgen *g;
	int ret;

	if ((fmt == FMT_PUBLIC || fmt == FMT_SHORT) != !!key_file) {
		if (key_file)
			fprintf(stderr, "%s: --key is the key file of -f public: give -f public too\n",
				prog);
		else
			fprintf(stderr, "%s: -f %s needs --key FILE, the key file ('%s keygen FILE' makes one)\n",
				prog, fmt == FMT_SHORT ? "short" : "public", prog);
		return 2;
	}
	if (key_file && load_keys(key_file, &keys))
		return 1;
	ret = uidgen_open(&g, dev);
	if (ret) {
		uidgen_keys_free(keys);
		return fail_open(ret, dev);
	}
	/* The layout, for UUIDs; and a file that is not the device says so. */
	ret = node_info(g, &info);
	if (ret) {
		uidgen_close(g);
		return fail(ret, "reading the layout");
	}
	while (count) {
		size_t want = count < 1024 ? count : 1024;
		long got = uidgen_fill(g, ids, want);
		long i;

		if (got < 0) {
			uidgen_close(g);
			uidgen_keys_free(keys);
			return fail(got, "reading IDs");
		}
		for (i = 0; i < got; i++) {
			ret = keys ? uidgen_format_public(keys, UIDGEN_KEY_CURRENT, ids[i],
							  fmt == FMT_SHORT ? UIDGEN_PUBLIC_SHORT :
							  UIDGEN_PUBLIC_TEXT, text, sizeof(text)) :
			      format_id(&info, ids[i], fmt, text, sizeof(text));
			if (ret < 0) {
				uidgen_keys_free(keys);
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
			uidgen_keys_free(keys);
			return write_error(ret);
		}
	}
	uidgen_close(g);
	uidgen_keys_free(keys);
	return 0;
}
