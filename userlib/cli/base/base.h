/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The base of the uidgen CLI: what the commands (the files of cli/) and the
 * persister (cli/persist/) share. Standard output and its errors
 * (output.c); messages that name the next step (errors.c); the node calls
 * (device.c); the commands' table (commands.c) and the reading and
 * diagnostics of their options (options.c). It depends on libuidgen
 * alone: nothing of the commands or the persister above it.
 */
#ifndef UIDGEN_CLI_BASE_H
#define UIDGEN_CLI_BASE_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "uidgen.h"

/* The CLI's times are Unix ms (state files, output); the uapi's ns. */
#define NS_PER_MS	1000000ULL

/*
 * The most --ahead-ms and --every-ms take: an hour. Each crash in a row
 * leaves the next floor up to a mark further ahead, and the kernel refuses
 * a floor a day ahead (UIDGEN_FLOOR_AHEAD_MAX_NS): an hour leaves room for
 * a day of crashes in a row (less what the reboots and the heal win back).
 */
#define AHEAD_MS_MAX	3600000ULL

#define SYSFS_PARAM	"/sys/module/uidgen/parameters/"
#define SYSFS_DEV	"/sys/class/misc/uid/"
#define DEBUGFS_SLOTS	"/sys/kernel/debug/uidgen/slots"

/* output.c: the name in every message; standard output; times. */
extern const char *prog;
int write_error(int err);
int close_stdout(int status);
void format_time(int64_t unix_ms, char *buf, size_t len);
unsigned long long ns_ms(uint64_t ns);
unsigned long long wall_ms(void);
unsigned long long max_ull(unsigned long long a, unsigned long long b);

/* errors.c: the device the command works on (-d), and what went wrong. */
extern const char *device;
int fail(int err, const char *what);
int fail_open(int err, const char *dev);
int fail_node(int err, const char *what, uint32_t node);
void say_held(struct uidgen *g);
void say_not_loaded(void);
int module_loaded(void);

/* device.c: the node calls; 0 or -errno. */
int read_u64(const char *path, unsigned long long *v);
struct uidgen *node_dev_open(const char *dev);
int node_info(struct uidgen *g, struct uidgen_info *info);
int node_assign(struct uidgen *g, uint32_t node, int is_new,
		unsigned long long floor_ms, unsigned long long grant_ms);
int node_renew(struct uidgen *g, uint32_t node, unsigned long long grant_ms);
int node_revoke(struct uidgen *g, int force);

/*
 * commands.c: the commands and their options. Each command has its own
 * table, and an option of another command is an error, never accepted and
 * ignored; -d, -h and -V are every command's, before or after it.
 */
enum {
	OPT_AHEAD = 256, OPT_EVERY, OPT_NEW, OPT_FLOOR, OPT_STATE,
	OPT_LAYOUT, OPT_TICK, OPT_EPOCH, OPT_FORCE, OPT_KEY,
	OPT_LAST = OPT_KEY
};

enum cmd_id {
	CMD_GENERATE, CMD_DECODE, CMD_OBSERVE, CMD_INFO, CMD_SET_NODE, CMD_REVOKE,
	CMD_STATS, CMD_RESTORE, CMD_KEEP, CMD_SAVE, CMD_KEYGEN, CMD_HELP,
	CMD_STATE,	/* "state" without save, restore or keep */
	CMD_COUNT
};

struct command {
	const char *name;	/* NULL: printing IDs, no command word */
	const char *shortopts;	/* getopt_long's, ':' first */
	const struct option *opts;
	const char *synopsis;	/* after "uidgen [-d DEVICE] " */
	const char *summary;	/* for uidgen --help */
	const char *about;	/* for COMMAND --help */
	const char *options;	/* its own options, or NULL */
};

extern const struct command commands[CMD_COUNT];
/* Every option of every command: to find the command words, and owners. */
extern const struct option opts_all[];
extern const char *const command_list;

/*
 * options.c: numbers in decimal; the command words; each usage error,
 * said with the command's --help (exit status 2, which they return).
 */
int parse_dec(const char *s, unsigned long long max, unsigned long long *v);
int parse_num(const char *opt, const char *s, unsigned long long min,
	      unsigned long long max, const char *what, unsigned long long *v);
int parse_opt(const char *opt, const char *s, unsigned long long min,
	      unsigned long long max, unsigned long long *v);
int takes_value(const char *arg);
void find_word(const char *arg, const char **w1, const char **w2);
enum cmd_id find_command(const char *w1, const char *w2);
void see_help(enum cmd_id id);
int bad_option(enum cmd_id id, char **argv);
int given_twice(enum cmd_id id, int val, const char *was, const char *now);
int missing_value(enum cmd_id id, char **argv);
int no_args(enum cmd_id id, char **argv, int argc);
int one_file(enum cmd_id id, char **argv, int argc);

#endif
