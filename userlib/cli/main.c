// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen: the command line's entry. It finds the command words wherever
 * the options are, reads the options by that command's table (commands.c;
 * each usage error said by options.c), and runs the command: printing IDs
 * (ids.c), decode (decode.c), observe (observe.c), info and stats
 * (info.c), set-node and revoke-node (node.c), state (state.c, over the
 * persister in persist/) and help (help.c). Standard output is checked at
 * exit (output.c).
 */
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

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
	int c, words, reads, force = 0;
	const char *key_file = NULL;

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
		case OPT_FORCE:
			force = 1;
			break;
		case OPT_KEY:
			key_file = optarg;
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

	/* decode and observe read IDs, by their form unless -f says. */
	reads = id == CMD_DECODE || id == CMD_OBSERVE;
	if (fmt_arg) {
		if (reads)
			fmt = UIDGEN_FMT_AUTO;
		if (parse_format(fmt_arg, &fmt, reads)) {
			fprintf(stderr, "%s: -f '%s': unknown format: give %sdec, hex, b32, uuid or ulid\n",
				prog, fmt_arg, reads ? "auto, " : "");
			return 2;
		}
	} else if (reads) {
		fmt = UIDGEN_FMT_AUTO;
	}

	switch (id) {
	case CMD_GENERATE:
		return cmd_generate(device, count, fmt, key_file);
	case CMD_DECODE:
		return cmd_decode(device, argv, argc, fmt, fmt_arg,
				  has_layout ? &layout : NULL, key_file);
	case CMD_OBSERVE:
		return cmd_observe(device, argv, argc, fmt, fmt_arg, key_file);
	case CMD_INFO:
		return no_args(id, argv, argc) ?:
		       cmd_info(device, has_layout ? &layout : NULL);
	case CMD_SET_NODE:
		return cmd_set_node(device, argv, argc, &src);
	case CMD_REVOKE:
		return no_args(id, argv, argc) ?: cmd_revoke(device, force);
	case CMD_KEYGEN:
		return cmd_keygen(argv, argc);
	case CMD_STATS:
		return no_args(id, argv, argc) ?: cmd_stats(device);
	case CMD_STATE:
	case CMD_RESTORE:
	case CMD_KEEP:
	case CMD_SAVE:
		return cmd_state(id, w2, device, argv, argc, &ko);
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
