// SPDX-License-Identifier: GPL-2.0
/*
 * The uidgen commands' table: each command's name, its own options
 * (getopt_long's tables), its synopsis and its help text. Data only: the
 * options are read in main.c, checked in options.c, the help printed by
 * help.c.
 */
#include <getopt.h>
#include <stddef.h>

#include "cli/base/base.h"

/*
 * The commands and their options: each command has its own table, and an
 * option of another command is an error, never accepted and ignored. -d,
 * -h and -V are every command's, before or after it.
 */
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
#define OPT_KEYFILE	{ "key", required_argument, NULL, OPT_KEY }
#define OPT_END		{ NULL, 0, NULL, 0 }

static const struct option opts_generate[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_COUNT, OPT_FORMAT, OPT_KEYFILE,
	OPT_END,
};
static const struct option opts_decode[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_FORMAT, OPT_LAYOUTS, OPT_KEYFILE,
	OPT_END,
};
static const struct option opts_info[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_LAYOUTS, OPT_END,
};
static const struct option opts_observe[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_FORMAT, OPT_KEYFILE, OPT_END,
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
static const struct option opts_revoke[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION,
	{ "force", no_argument, NULL, OPT_FORCE },
	OPT_END,
};
static const struct option opts_restore[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_AHEAD_MS, OPT_END,
};
static const struct option opts_keep[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_AHEAD_MS, OPT_EVERY_MS, OPT_END,
};
/* Every option of every command: to find the command words, and owners. */
const struct option opts_all[] = {
	OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_COUNT, OPT_FORMAT,
	OPT_AHEAD_MS, OPT_EVERY_MS,
	{ "new", no_argument, NULL, OPT_NEW },
	{ "floor", required_argument, NULL, OPT_FLOOR },
	{ "state", required_argument, NULL, OPT_STATE },
	{ "force", no_argument, NULL, OPT_FORCE },
	OPT_LAYOUTS, OPT_KEYFILE,
	OPT_END,
};

const struct command commands[CMD_COUNT] = {
	[CMD_GENERATE] = { NULL, ":d:n:f:hV", opts_generate,
		"[-n COUNT] [-f dec|hex|b32|uuid|ulid|public] [--key F]", NULL,
		"Print COUNT (default 1) fresh 64-bit IDs from " UIDGEN_DEVICE ", one a line.\n",
		"  -n, --count N       how many IDs to print (decimal, at least 1)\n"
		"  -f, --format FMT    dec (default), hex (0x and 16 digits), b32 (13 Crockford\n"
		"                      base32 digits that sort like the IDs), uuid (the ID's\n"
		"                      lossless UUIDv7, which sorts like it), ulid (the same\n"
		"                      128 bits as a ULID), public (the opaque token, 13\n"
		"                      characters: neither time nor order shows; --key) or\n"
		"                      short (the token's 11 digits alone, for short URLs:\n"
		"                      no key ID, no check digit; --key)\n"
		"  --key FILE          the key file of -f public and short ('uidgen keygen\n"
		"                      FILE')\n" },
	[CMD_DECODE] = { "decode", ":d:f:hV", opts_decode,
		"decode [-f auto|dec|hex|b32|uuid|ulid] [--key F] ID...",
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
		"  --epoch-ms MS       their epoch, a Unix time in ms (default 1767225600000)\n"
		"  --key FILE          read public tokens (uidgen -f public) with FILE's keys:\n"
		"                      13 characters; 11, not all digits, a short code (-f\n"
		"                      short, opened with the current key); or the token in\n"
		"                      decimal\n" },
	[CMD_OBSERVE] = { "observe", ":d:f:hV", opts_observe,
		"observe [-f auto|dec|hex|b32|uuid|ulid] [--key F] ID",
		"make every ID minted from now on greater than ID",
		"Tell the device that ID, an ID of this layout from any machine, was seen:\n"
		"every ID this machine mints once it returns, by any process, is greater\n"
		"than ID. Observe the ID a message carries before minting the IDs of what\n"
		"answers it, and they sort after it whatever the two machines' clocks say.\n"
		"An ID more than the module's observe_ahead_ms (default 500) ahead of this\n"
		"machine's clock is refused (exit status 1) and counted, and nothing changes.\n"
		"Prints nothing.\n",
		"  -f, --format FMT    how to read ID, as decode does: auto (default), dec, hex,\n"
		"                      b32, or uuid or ulid (either; by the device's layout)\n"
		"  --key FILE          read ID as a public token (uidgen -f public) with FILE's\n"
		"                      keys: 13 characters; 11, not all digits, a short code\n"
		"                      (-f short); or the token in decimal\n" },
	[CMD_INFO] = { "info", ":d:hV", opts_info,
		"info [--layout L] [--tick-us US] [--epoch-ms MS]",
		"the loaded module's layout, tick, epoch and node ID",
		"Print the version, node ID, layout, slots, tick, epoch and last tick of the\n"
		"loaded module, and whether its IDs are below 2^53 (js-safe: exact as\n"
		"JavaScript numbers), until when. With --layout, --tick-us or --epoch-ms,\n"
		"the same for that layout (the rest as the default's), the device not read.\n",
		"  --layout TS/N/S/Q   the field widths in bits: timestamp, node, slot and\n"
		"                      sequence (default 41/5/5/12)\n"
		"  --tick-us US        the tick in us (default 1000)\n"
		"  --epoch-ms MS       the epoch, a Unix time in ms (default 1767225600000)\n" },
	[CMD_SET_NODE] = { "set-node", ":d:hV", opts_set_node,
		"set-node NODE_ID --new|--floor MS|--state FILE",
		"assign the node ID with its floor (CAP_SYS_ADMIN)",
		"Assign the node ID (decimal: a leading 0 is not octal) with its floor, in\n"
		"one step (needs CAP_SYS_ADMIN). Exactly one of:\n",
		"  --state FILE        the floor a state file holds (its node_id must match)\n"
		"  --floor MS          a Unix time in ms at or after every ID it ever issued\n"
		"  --new               it has never issued an ID (its first start, ever)\n" },
	[CMD_REVOKE] = { "revoke-node", ":d:hV", opts_revoke,
		"revoke-node [--force]",
		"stop issuing under the node ID (CAP_SYS_ADMIN)",
		"Stop issuing under the node ID; when it returns, no ID with that node ID\n"
		"leaves the kernel (needs CAP_SYS_ADMIN). A node ID uidgen-lease holds (under\n"
		"a fencing token) is its own: stop the agent, or give --force.\n",
		"  --force             revoke whatever is in force, a fencing token's too, and\n"
		"                      make the module forget the highest token it saw (as a\n"
		"                      reload would)\n" },
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
		"  --ahead-ms MS       how far ahead (default 60000, 1 to 3600000; 0 is refused:\n"
		"                      with no grant a crash could repeat IDs)\n" },
	[CMD_KEEP] = { "state keep", ":d:hV", opts_keep,
		"state keep FILE [--ahead-ms MS] [--every-ms MS]",
		"the persister: keep a grant mark persisted ahead in FILE",
		"The persister (runs until SIGTERM): every --every-ms persist a mark\n"
		"--ahead-ms ahead to FILE, fsync'd, then raise the kernel's grant to it.\n",
		"  --ahead-ms MS       how far ahead (default 60000, 1 to 3600000)\n"
		"  --every-ms MS       how often (default 20000), below --ahead-ms\n" },
	[CMD_SAVE] = { "state save", ":d:hV", opts_plain, "state save FILE",
		"clean stop: revoke, then save the exact floor to FILE",
		"Clean stop: revoke the node ID (the fence), then save the exact high water\n"
		"to FILE as its floor (needs CAP_SYS_ADMIN).\n", NULL },
	[CMD_KEYGEN] = { "keygen", ":d:hV", opts_plain, "keygen FILE",
		"add a new current key for public tokens to FILE",
		"Add a new key, from getrandom(), to the key file of public tokens (-f public,\n"
		"decode --key), making it the one new tokens use; the keys already there still\n"
		"open the tokens made under them. FILE is made mode 0640 if it does not exist\n"
		"(give it to the group that may read it: chgrp GROUP FILE); a file that others\n"
		"may read, or its group write, is refused.\n", NULL },
	[CMD_HELP] = { "help", ":d:hV", opts_plain, "help [COMMAND]",
		"this text, or COMMAND's usage and options",
		"Print the usage of uidgen, or of COMMAND with its options (the same as\n"
		"'uidgen COMMAND --help').\n", NULL },
	[CMD_STATE] = { "state", ":d:hV", opts_keep, NULL, NULL, NULL, NULL },
};

const char *const command_list =
	"the commands are decode, observe, info, set-node, revoke-node, stats, state, keygen and help";
