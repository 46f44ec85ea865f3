/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The uidgen commands, a file for each family, and what main.c calls of
 * them: printing IDs and the output formats (ids.c), decode (decode.c),
 * observe (observe.c), info and stats (info.c), set-node and revoke-node
 * (node.c), state restore, keep and save (state.c, over the persister),
 * help (help.c).
 * Below them: the base (base/); beside them: the persister (persist/).
 */
#ifndef UIDGEN_CLI_H
#define UIDGEN_CLI_H

#include "cli/base/base.h"

/*
 * ids.c. The CLI's formats beyond libuidgen's: an ID's UUIDv7 and ULID
 * views (uidgen_to_uuid(), Documentation/uuid.rst), which need the layout.
 */
#define FMT_UUID	((enum uidgen_format)(UIDGEN_FMT_B32 + 1))
#define FMT_ULID	((enum uidgen_format)(UIDGEN_FMT_B32 + 2))
#define FMT_PUBLIC	((enum uidgen_format)(UIDGEN_FMT_B32 + 3))
#define FMT_SHORT	((enum uidgen_format)(UIDGEN_FMT_B32 + 4))
int parse_format(const char *s, enum uidgen_format *fmt, int allow_auto);
int format_id(const struct uidgen_info *info, uint64_t id,
	      enum uidgen_format fmt, char *buf, size_t len);
int cmd_generate(const char *dev, unsigned long count, enum uidgen_format fmt,
		 const char *key_file);
/* keys.c: the public form's key file */
int load_keys(const char *file, struct uidgen_keys **keys);
int cmd_keygen(char **argv, int argc);

/* decode.c: decode, and the reading of one ID (decode's and observe's) */
int parse_layout(const char *s, struct uidgen_info *info);
int id_needs_layout(const char *s, enum uidgen_format fmt);
int read_id(const char *cmd, const char *s, enum uidgen_format fmt,
	    const char *fmt_arg, const struct uidgen_info *info,
	    struct uidgen_keys *keys, const char *key_file, uint64_t *id,
	    struct uidgen_parts *p);
int cmd_decode(const char *dev, char **argv, int argc,
	       enum uidgen_format fmt, const char *fmt_arg,
	       const struct uidgen_info *given, const char *key_file);

/* observe.c */
int cmd_observe(const char *dev, char **argv, int argc,
		enum uidgen_format fmt, const char *fmt_arg,
		const char *key_file);

/* info.c */
int cmd_info(const char *dev, const struct uidgen_info *given);
int cmd_stats(const char *dev);

/* node.c: where a node ID about to be assigned takes its floor from. */
struct floor_src {
	int is_new;			/* --new */
	int has_floor;			/* --floor MS */
	unsigned long long floor_ms;
	const char *state;		/* --state FILE */
};

int cmd_set_node(const char *dev, char **argv, int argc,
		 const struct floor_src *src);
int cmd_revoke(const char *dev, int force);

/* state.c: state keep/restore: how far ahead the grant goes, how often. */
struct keep_opts {
	unsigned long long ahead_ms;
	unsigned long long every_ms;
};

int cmd_state(enum cmd_id id, const char *word, const char *dev, char **argv,
	      int argc, const struct keep_opts *ko);

/* help.c */
int help(enum cmd_id id);
int cmd_help(char **argv, int argc);

#endif
