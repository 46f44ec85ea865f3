// SPDX-License-Identifier: GPL-2.0
/*
 * The uidgen CLI's options, read by the table of commands.c: numbers in
 * decimal, the command words found before the options are, and every
 * diagnostic of a usage error (an option of another command, an
 * ambiguous abbreviation, one given twice, a missing value, arguments a
 * command does not take), each naming the command's --help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/base/base.h"

/*
 * A decimal number, nothing else: digits only (no sign, no blank, no 0x; a
 * leading 0 is not octal), at most @max. 0, -EINVAL or -ERANGE.
 */
int parse_dec(const char *s, unsigned long long max, unsigned long long *v)
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
int parse_num(const char *opt, const char *s, unsigned long long min,
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

int parse_opt(const char *opt, const char *s, unsigned long long min,
	      unsigned long long max, unsigned long long *v)
{
	return parse_num(opt, s, min, max, "a count", v);
}

/* "see 'uidgen decode --help'", by command. */
void see_help(enum cmd_id id)
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
int bad_option(enum cmd_id id, char **argv)
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
int given_twice(enum cmd_id id, int val, const char *was, const char *now)
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

int missing_value(enum cmd_id id, char **argv)
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
int takes_value(const char *arg)
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

void find_word(const char *arg, const char **w1, const char **w2)
{
	if (!*w1)
		*w1 = arg;
	else if (!*w2)
		*w2 = arg;
}

/* A command name, one word or "state" and the next; CMD_COUNT if none. */
enum cmd_id find_command(const char *w1, const char *w2)
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

/* A command that takes no arguments was given some. */
int no_args(enum cmd_id id, char **argv, int argc)
{
	if (!argc)
		return 0;
	fprintf(stderr, "%s: %s takes no arguments ('%s'): ", prog,
		commands[id].name, argv[0]);
	see_help(id);
	return 2;
}

/* A state command's FILE: exactly one. */
int one_file(enum cmd_id id, char **argv, int argc)
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
