// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen --help, COMMAND --help and uidgen help [COMMAND]: the usage and
 * options of each command, from the table in commands.c.
 */
#include <stdio.h>

#include "cli/cli.h"

#define GLOBAL_HELP \
	"  -d, --device PATH   the uidgen device (default " UIDGEN_DEVICE ")\n" \
	"  -h, --help          this text\n" \
	"  -V, --version       the version\n"

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
int help(enum cmd_id id)
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

/* uidgen help [COMMAND]. */
int cmd_help(char **argv, int argc)
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
