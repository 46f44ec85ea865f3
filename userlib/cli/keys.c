// SPDX-License-Identifier: GPL-2.0
/*
 * The public form's keys, as the CLI meets them: uidgen keygen FILE adds
 * a key, and -f public and decode --key load a key file, each saying what
 * to do when the file cannot serve (libuidgen's public.c does the rest).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* Say why @file's keys cannot be used (@err from uidgen_keys_load()). */
static void bad_keys(const char *file, int err, unsigned int line)
{
	switch (-err) {
	case ENOENT:
		fprintf(stderr, "%s: %s: no such key file: '%s keygen %s' makes one\n",
			prog, file, prog, file);
		break;
	case EPERM:
		fprintf(stderr, "%s: %s: others may read it, its group write it, or it is neither root's nor yours: keys are secret; chmod 640 %s (and chgrp the group that may read it)\n",
			prog, file, file);
		break;
	case ENOKEY:
		fprintf(stderr, "%s: %s: holds no key: '%s keygen %s' adds one\n",
			prog, file, prog, file);
		break;
	case EINVAL:
		if (line) {
			fprintf(stderr, "%s: %s:%u: not a key line: each is a key ID (one of 0-9A-Za-z) and 32 hex digits, as '%s keygen' writes them\n",
				prog, file, line, prog);
			break;
		}
		fprintf(stderr, "%s: %s: not a regular file of keys\n", prog, file);
		break;
	default:
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(-err));
	}
}

int load_keys(const char *file, struct uidgen_keys **keys)
{
	unsigned int line;
	int ret = uidgen_keys_load(keys, file, &line);

	if (ret)
		bad_keys(file, ret, line);
	return ret;
}

int cmd_keygen(char **argv, int argc)
{
	struct uidgen_keys *keys;
	unsigned int line;
	int ret, kid, made = 0;
	const char *file;

	if (argc != 1) {
		fprintf(stderr, "%s: keygen takes one FILE, the key file: see '%s keygen --help'\n",
			prog, prog);
		return 2;
	}
	file = argv[0];
	ret = uidgen_keys_load(&keys, file, &line);
	if (ret == -ENOENT) {
		ret = uidgen_keys_new(&keys);
		made = 1;
	}
	if (ret) {
		bad_keys(file, ret, line);
		return 1;
	}
	ret = uidgen_keys_generate(keys, &kid);
	if (!ret)
		ret = uidgen_keys_save(keys, file);
	uidgen_keys_free(keys);
	if (ret == -ENOSPC) {
		fprintf(stderr, "%s: %s: all %d key IDs are in use: remove the keys whose tokens need no longer open\n",
			prog, file, UIDGEN_KEY_IDS);
		return 1;
	}
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(-ret));
		return 1;
	}
	printf("key %c added to %s: new tokens use it; the keys before it still open theirs\n",
	       "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[kid],
	       file);
	if (made)
		printf("%s is new, mode 0640: give it to the group that may read it (chgrp GROUP %s)\n",
		       file, file);
	return 0;
}
