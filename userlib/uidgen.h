/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libuidgen: IDs from /dev/uid, and the arithmetic to read them back.
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure, and leaves errno as it found it. A struct uidgen may be shared
 * by threads; uidgen_set_cache() must not run concurrently with other calls
 * on the same handle.
 *
 * uidgen_next() hands out IDs from a per-thread run reserved with
 * UIDGEN_IOC_RESERVE (see uidgen_set_cache() and man 3 uidgen_next);
 * uidgen_fill() always asks the kernel.
 */
#ifndef UIDGEN_H
#define UIDGEN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/uidgen.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UIDGEN_DEVICE	"/dev/uid"

struct uidgen;

/* The parts of one ID. */
struct uidgen_parts {
	uint64_t tick;		/* ticks since the epoch */
	int64_t unix_ms;	/* Unix time in ms the tick began at */
	uint32_t node;
	uint32_t slot;
	uint32_t seq;
};

enum uidgen_format {
	UIDGEN_FMT_AUTO = -1,	/* uidgen_parse(): "0x" hex; 13 chars not all digits b32; else dec */
	UIDGEN_FMT_DEC,		/* decimal, no padding */
	UIDGEN_FMT_HEX,		/* 0x and 16 lowercase hex digits */
	UIDGEN_FMT_B32,		/* 13 Crockford base32 digits, sorts like the ID */
};

/* uidgen_set_cache(): the default staleness bound, and the largest. */
#define UIDGEN_STALE_TICKS_DEFAULT	1
#define UIDGEN_STALE_TICKS_MAX		1000000

/* Longest formatted ID, with its NUL: 20 decimal digits. */
#define UIDGEN_FMT_MAX	21

int uidgen_open(struct uidgen **gp, const char *path);
/* flags: 0 or O_NONBLOCK (uidgen_next() and uidgen_fill() give -EAGAIN). */
int uidgen_open_flags(struct uidgen **gp, const char *path, int flags);
void uidgen_close(struct uidgen *g);
int uidgen_next(struct uidgen *g, uint64_t *id);
int uidgen_set_cache(struct uidgen *g, uint32_t max_run, uint32_t stale_ticks);
long uidgen_fill(struct uidgen *g, uint64_t *ids, size_t n);

/*
 * The ioctls on the node and the layout, one call each (man 3
 * uidgen_info, man 3 uidgen_assign). Each takes the uapi struct of its
 * ioctl, <linux/uidgen.h>, with @size set by the caller to sizeof the
 * struct as it knows it; the kernel checks it as it does any caller's
 * (below the struct: -EINVAL; larger, with a tail that is not zero:
 * -E2BIG; an unknown flag: -EOPNOTSUPP; __reserved not 0: -EINVAL).
 * uidgen_info() returns the number of bytes the kernel filled; the
 * others 0. Assign, renew and revoke need CAP_SYS_ADMIN.
 */
int uidgen_info(struct uidgen *g, struct uidgen_info *info);
int uidgen_assign(struct uidgen *g, const struct uidgen_assign *req);
int uidgen_renew(struct uidgen *g, const struct uidgen_renew *req);
int uidgen_revoke(struct uidgen *g, const struct uidgen_revoke *req);
/*
 * The device's fence generation (struct uidgen_page.fence): it changes at
 * every revoke, lease deadline and VM fork, with or without a node ID in
 * force. A node's agent reads it before a claim and again once the claim
 * is installed: a change means this may be a clone of the VM that made
 * the claim. 0, or -EOPNOTSUPP if the handle has no fence page.
 */
int uidgen_fence_gen(struct uidgen *g, uint32_t *fence);
/*
 * Causal order (man 3 uidgen_observe): every ID this machine mints after
 * the call returns, by any process, cached runs included, is greater than
 * @id, an ID of this layout received from anywhere. 0; -EDOM if @id is
 * more than the module's observe_ahead_ms ahead of this machine's clock
 * (refused, nothing changed); -EINVAL for bit 63 set; -ENOTTY from a
 * module older than 2.1.
 */
int uidgen_observe(struct uidgen *g, uint64_t id);

/* The layout a module loaded with no layout parameters uses. */
void uidgen_default_info(struct uidgen_info *info);
int uidgen_decode(const struct uidgen_info *info, uint64_t id,
		  struct uidgen_parts *parts);
int uidgen_format(uint64_t id, enum uidgen_format fmt, char *buf, size_t len);
int uidgen_parse(const char *s, enum uidgen_format fmt, uint64_t *id);

/*
 * The UUID and ULID views of an ID (userlib/uuid.c; man 3 uidgen_to_uuid).
 * An RFC 9562 UUIDv7 (or v8) whose 48-bit Unix ms field is the ID's tick
 * start, whose 12-bit rand_a is the tick's sub-millisecond fraction and
 * whose rand_b holds the node, slot and sequence bits: lossless, and UUIDs
 * compare (memcmp) in the same order as the IDs. A ULID is the same 128
 * bits in 26 Crockford base32 digits.
 */
#define UIDGEN_UUID_V8		0x1U	/* uidgen_to_uuid(): version 8, not 7 */
#define UIDGEN_UUID_TEXT	0	/* 8-4-4-4-12 lowercase hex */
#define UIDGEN_ULID_TEXT	1	/* 26 Crockford base32 digits */
/* Longest text, with its NUL: a UUID's 36 characters. */
#define UIDGEN_UUID_STR_MAX	37

int uidgen_to_uuid(const struct uidgen_info *info, uint64_t id,
		   unsigned int flags, uint8_t uuid[16]);
int uidgen_from_uuid(const struct uidgen_info *info, const uint8_t uuid[16],
		     uint64_t *id);
int uidgen_format_uuid(const uint8_t uuid[16], int text, char *buf,
		       size_t len);
int uidgen_parse_uuid(const char *s, uint8_t uuid[16]);

/*
 * The opaque public form of an ID (userlib/public.c; man 3 uidgen_public).
 * A keyed permutation of 64 bits (an 8-round Feistel network over SipHash-2-4)
 * turns an ID into a token that shows neither its time nor its order, and
 * back. Keys are 128 bits, each named by a key ID 0..61 (written as one
 * base62 digit, 0-9A-Za-z); the last key of a set is its current one.
 * The text form is 13 base62 characters: key ID, 11 token digits, a check
 * digit; the short form the 11 token digits alone, and the decimal form
 * the bare 64-bit token (neither names its key nor has a check digit).
 */
#define UIDGEN_KEY_BYTES	16
#define UIDGEN_KEY_IDS		62
#define UIDGEN_KEY_CURRENT	(-1)	/* the set's current key */
#define UIDGEN_PUBLIC_ROUNDS	8
#define UIDGEN_PUBLIC_TEXT	0	/* 13 characters of 0-9A-Za-z */
#define UIDGEN_PUBLIC_DEC	1	/* the token in decimal */
#define UIDGEN_PUBLIC_SHORT	2	/* the token's 11 base62 digits alone */
#define UIDGEN_PUBLIC_LEN	13
#define UIDGEN_PUBLIC_SHORT_LEN	11
/* Longest text, with its NUL: a decimal token's 20 digits. */
#define UIDGEN_PUBLIC_STR_MAX	21

struct uidgen_keys;

int uidgen_public(const struct uidgen_keys *keys, int key_id, uint64_t id,
		  uint64_t *token);
int uidgen_private(const struct uidgen_keys *keys, int key_id, uint64_t token,
		   uint64_t *id);
int uidgen_format_public(const struct uidgen_keys *keys, int key_id,
			 uint64_t id, int text, char *buf, size_t len);
int uidgen_parse_public(const struct uidgen_keys *keys, const char *s,
			int text, int key_id, uint64_t *id);

int uidgen_keys_new(struct uidgen_keys **keys);
void uidgen_keys_free(struct uidgen_keys *keys);
int uidgen_keys_add(struct uidgen_keys *keys, int key_id,
		    const uint8_t key[UIDGEN_KEY_BYTES]);
int uidgen_keys_generate(struct uidgen_keys *keys, int *key_id);
int uidgen_keys_current(const struct uidgen_keys *keys);
int uidgen_keys_parse(struct uidgen_keys **keys, const char *text,
		      unsigned int *line);
int uidgen_keys_check_fd(int fd);
int uidgen_keys_load(struct uidgen_keys **keys, const char *path,
		     unsigned int *line);
int uidgen_keys_save(const struct uidgen_keys *keys, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* UIDGEN_H */
