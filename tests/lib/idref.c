// SPDX-License-Identifier: GPL-2.0
/*
 * libuidgen's answers, for the bindings' tests to compare theirs with: for
 * each decimal ID on stdin, one line
 *   ID tick unix_ms node slot seq uuid uuid-v8 ulid
 * by the device's layout (or the default one with -d), or "ID error -ERRNO"
 * where libuidgen refuses. With -u, each line of stdin is a UUID or ULID
 * text and the line is "TEXT ID" or "TEXT error -ERRNO".
 *
 * The public form (man 3 uidgen_public), with the keys of FILE: with
 * -k FILE, for each decimal ID on stdin, "ID TOKEN TEXT DECIMAL" under the
 * current key (TOKEN as 16 hex digits), or "ID error -ERRNO"; with -k FILE
 * -o, each line is a 13-character text, with -k FILE -O a decimal token
 * and with -k FILE -s an 11-character short code (opened with the current
 * key): "LINE ID" or "LINE error -ERRNO". With -k FILE -S, for each decimal
 * ID, "ID SHORT" (its short code under the current key) or "ID error -ERRNO".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "uidgen.h"

static int public_form(const char *path, int open_text, int make_short)
{
	char line[128], text[UIDGEN_PUBLIC_STR_MAX], dec[UIDGEN_PUBLIC_STR_MAX];
	struct uidgen_keys *keys;
	unsigned int bad;
	uint64_t id, token;
	int ret = uidgen_keys_load(&keys, path, &bad);

	if (ret) {
		fprintf(stderr, "idref: %s line %u: %s\n", path, bad, strerror(-ret));
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (open_text >= 0) {
			ret = uidgen_parse_public(keys, line, open_text,
						  UIDGEN_KEY_CURRENT, &id);
			if (ret)
				printf("%s error %d\n", line, ret);
			else
				printf("%s %" PRIu64 "\n", line, id);
			continue;
		}
		ret = uidgen_parse(line, UIDGEN_FMT_DEC, &id);
		if (make_short) {
			if (!ret)
				ret = uidgen_format_public(keys, UIDGEN_KEY_CURRENT, id,
							   UIDGEN_PUBLIC_SHORT, text, sizeof(text));
			if (ret < 0)
				printf("%s error %d\n", line, ret);
			else
				printf("%s %s\n", line, text);
			continue;
		}
		if (!ret)
			ret = uidgen_public(keys, UIDGEN_KEY_CURRENT, id, &token);
		if (!ret)
			ret = uidgen_format_public(keys, UIDGEN_KEY_CURRENT, id,
						   UIDGEN_PUBLIC_TEXT, text, sizeof(text));
		if (ret >= 0)
			ret = uidgen_format_public(keys, UIDGEN_KEY_CURRENT, id,
						   UIDGEN_PUBLIC_DEC, dec, sizeof(dec));
		if (ret < 0)
			printf("%s error %d\n", line, ret);
		else
			printf("%s %016" PRIx64 " %s %s\n", line, token, text, dec);
	}
	uidgen_keys_free(keys);
	return 0;
}

int main(int argc, char **argv)
{
	char line[128], u7[UIDGEN_UUID_STR_MAX], u8t[UIDGEN_UUID_STR_MAX];
	char ulid[UIDGEN_UUID_STR_MAX];
	int def = 0, uuids = 0, open_text = -1, make_short = 0, i, ret;
	const char *keyfile = NULL;
	struct uidgen_info info = { .size = sizeof(info) };
	struct uidgen_parts p;
	uint8_t u[16], v[16];
	struct uidgen *g;
	uint64_t id;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d"))
			def = 1;
		else if (!strcmp(argv[i], "-u"))
			uuids = 1;
		else if (!strcmp(argv[i], "-k") && i + 1 < argc)
			keyfile = argv[++i];
		else if (!strcmp(argv[i], "-o"))
			open_text = UIDGEN_PUBLIC_TEXT;
		else if (!strcmp(argv[i], "-O"))
			open_text = UIDGEN_PUBLIC_DEC;
		else if (!strcmp(argv[i], "-s"))
			open_text = UIDGEN_PUBLIC_SHORT;
		else if (!strcmp(argv[i], "-S"))
			make_short = 1;
		else {
			fprintf(stderr, "usage: idref [-d] [-u] [-k KEYFILE [-o|-O|-s|-S]] < lines\n");
			return 2;
		}
	}
	if (keyfile)
		return public_form(keyfile, open_text, make_short);
	if (def) {
		uidgen_default_info(&info);
	} else if ((ret = uidgen_open(&g, NULL)) || (ret = uidgen_info(g, &info)) < 0) {
		fprintf(stderr, "idref: /dev/uid: %s\n", strerror(-ret));
		return 1;
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (uuids) {
			ret = uidgen_parse_uuid(line, u);
			if (!ret)
				ret = uidgen_from_uuid(&info, u, &id);
			if (ret)
				printf("%s error %d\n", line, ret);
			else
				printf("%s %" PRIu64 "\n", line, id);
			continue;
		}
		ret = uidgen_parse(line, UIDGEN_FMT_DEC, &id);
		if (!ret)
			ret = uidgen_decode(&info, id, &p);
		if (!ret)
			ret = uidgen_to_uuid(&info, id, 0, u);
		if (!ret)
			ret = uidgen_to_uuid(&info, id, UIDGEN_UUID_V8, v);
		if (ret) {
			printf("%s error %d\n", line, ret);
			continue;
		}
		uidgen_format_uuid(u, UIDGEN_UUID_TEXT, u7, sizeof(u7));
		uidgen_format_uuid(v, UIDGEN_UUID_TEXT, u8t, sizeof(u8t));
		uidgen_format_uuid(u, UIDGEN_ULID_TEXT, ulid, sizeof(ulid));
		printf("%" PRIu64 " %" PRIu64 " %" PRId64 " %u %u %u %s %s %s\n", id,
		       p.tick, p.unix_ms, p.node, p.slot, p.seq, u7, u8t, ulid);
	}
	return 0;
}
