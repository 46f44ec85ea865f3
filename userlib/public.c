// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuidgen: the opaque public form of an ID. Owns the keyed permutation
 * of 64 bits that turns an ID into its token and back (a balanced Feistel
 * network, 8 rounds over 32-bit halves, SipHash-2-4 as the round
 * function), the token's two texts, and the key set: key IDs, the key
 * file's format, its permission checks, and new keys from getrandom().
 * Documentation/public-ids.rst has the reasoning; man 3 uidgen_public the
 * interface.
 *
 * Round i (0..7) of the permutation, halves L (bits 63..32) and R:
 *
 *   L, R = R, L ^ low32(SipHash-2-4(key, le64(i << 32 | R)))
 *
 * The round number in the message keys each round apart (eight
 * independent functions under SipHash's PRF claim). The text form's check
 * digit is SipHash-2-4(key, le64(token) || key ID) mod 62: a 9-byte
 * message, so no round input (8 bytes; SipHash hashes the length in) can
 * give it.
 *
 * The text form, 13 characters of 0-9A-Za-z:
 *
 *   [0]      the key ID, one base62 digit (key IDs 0..61)
 *   [1..11]  the token, 11 base62 digits, most significant first
 *   [12]     the check digit
 *
 * The short form is [1..11] alone, 11 characters, and the decimal form
 * the bare token: neither has a key ID or a check digit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uidgen.h"
#include "internal.h"

#define ROUNDS		UIDGEN_PUBLIC_ROUNDS
#define TOKEN_DIGITS	11		/* 62^11 > 2^64 > 62^10 */
#define KEY_HEX		(2 * UIDGEN_KEY_BYTES)

static const char b62[] =
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

struct pkey {
	uint64_t k0, k1;	/* the key as SipHash reads it */
	uint8_t raw[UIDGEN_KEY_BYTES];
	int present;
};

struct uidgen_keys {
	struct pkey key[UIDGEN_KEY_IDS];
	int order[UIDGEN_KEY_IDS];	/* key IDs in file order; the last is current */
	int n;
};

/* SipHash-2-4 (Aumasson and Bernstein, 2012). */
#define ROTL(x, b)	((uint64_t)((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND do {							\
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;			\
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;			\
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
	} while (0)

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t sip(uint64_t k0, uint64_t k1, const uint8_t *m, size_t len)
{
	uint64_t v0 = 0x736f6d6570736575ULL ^ k0;
	uint64_t v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ k0;
	uint64_t v3 = 0x7465646279746573ULL ^ k1;
	uint64_t b = (uint64_t)len << 56, w;
	size_t i, tail = len & 7;

	for (i = 0; i + 8 <= len; i += 8) {
		w = le64(m + i);
		v3 ^= w;
		SIPROUND;
		SIPROUND;
		v0 ^= w;
	}
	for (w = 0; tail; tail--)
		w |= (uint64_t)m[i + tail - 1] << (8 * (tail - 1));
	b |= w;
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t uidgen_siphash24(const uint8_t key[16], const void *m, size_t len)
{
	return sip(le64(key), le64(key + 8), m, len);
}

/* SipHash-2-4 of the 8 bytes le64(w): the round function's one shape. */
static inline uint64_t sip8(uint64_t k0, uint64_t k1, uint64_t w)
{
	uint64_t v0 = 0x736f6d6570736575ULL ^ k0;
	uint64_t v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ k0;
	uint64_t v3 = 0x7465646279746573ULL ^ k1;
	const uint64_t b = 8ULL << 56;

	v3 ^= w;
	SIPROUND;
	SIPROUND;
	v0 ^= w;
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t uidgen_feistel(const uint8_t key[16], unsigned int half_bits,
			uint64_t x, int decrypt)
{
	uint64_t k0 = le64(key), k1 = le64(key + 8);
	uint64_t mask = (1ULL << half_bits) - 1;
	uint64_t l = x >> half_bits & mask, r = x & mask, t;
	int i;

	if (!decrypt) {
		for (i = 0; i < ROUNDS; i++) {
			t = r;
			r = l ^ (sip8(k0, k1, (uint64_t)i << 32 | r) & mask);
			l = t;
		}
	} else {
		for (i = ROUNDS - 1; i >= 0; i--) {
			t = l;
			l = r ^ (sip8(k0, k1, (uint64_t)i << 32 | l) & mask);
			r = t;
		}
	}
	return l << half_bits | r;
}

static uint64_t enc64(const struct pkey *k, uint64_t x)
{
	uint64_t l = x >> 32, r = x & 0xffffffffULL, t;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		t = r;
		r = l ^ (sip8(k->k0, k->k1, (uint64_t)i << 32 | r) & 0xffffffffULL);
		l = t;
	}
	return l << 32 | r;
}

static uint64_t dec64(const struct pkey *k, uint64_t x)
{
	uint64_t l = x >> 32, r = x & 0xffffffffULL, t;
	int i;

	for (i = ROUNDS - 1; i >= 0; i--) {
		t = l;
		l = r ^ (sip8(k->k0, k->k1, (uint64_t)i << 32 | l) & 0xffffffffULL);
		r = t;
	}
	return l << 32 | r;
}

static int check_digit(const struct pkey *k, int key_id, uint64_t token)
{
	uint8_t m[9];
	int i;

	for (i = 0; i < 8; i++)
		m[i] = token >> (8 * i) & 0xff;
	m[8] = key_id;
	return sip(k->k0, k->k1, m, sizeof(m)) % 62;
}

static int b62_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 36;
	return -1;
}

/* The key @key_id names (UIDGEN_KEY_CURRENT: the current one). */
static int pick(const struct uidgen_keys *k, int key_id, const struct pkey **p)
{
	if (!k)
		return -ENOKEY;
	if (key_id == UIDGEN_KEY_CURRENT) {
		if (!k->n)
			return -ENOKEY;
		key_id = k->order[k->n - 1];
	}
	if (key_id < 0 || key_id >= UIDGEN_KEY_IDS)
		return -EINVAL;
	if (!k->key[key_id].present)
		return -ENOKEY;
	*p = &k->key[key_id];
	return key_id;
}

int uidgen_public(const struct uidgen_keys *k, int key_id, uint64_t id,
		  uint64_t *token)
{
	const struct pkey *p;
	int ret = pick(k, key_id, &p);

	if (ret < 0)
		return ret;
	if (id >> UIDGEN_ID_BITS)
		return -ERANGE;
	*token = enc64(p, id);
	return 0;
}

int uidgen_private(const struct uidgen_keys *k, int key_id, uint64_t token,
		   uint64_t *id)
{
	const struct pkey *p;
	int ret = pick(k, key_id, &p);
	uint64_t v;

	if (ret < 0)
		return ret;
	v = dec64(p, token);
	if (v >> UIDGEN_ID_BITS)
		return -EKEYREJECTED;	/* opens to no ID: not this key's */
	*id = v;
	return 0;
}

int uidgen_format_public(const struct uidgen_keys *k, int key_id, uint64_t id,
			 int text, char *buf, size_t len)
{
	const struct pkey *p;
	int kid = pick(k, key_id, &p), i, n;
	uint64_t t;

	if (kid < 0)
		return kid;
	if (text != UIDGEN_PUBLIC_TEXT && text != UIDGEN_PUBLIC_DEC &&
	    text != UIDGEN_PUBLIC_SHORT)
		return -EINVAL;
	if (id >> UIDGEN_ID_BITS)
		return -ERANGE;
	t = enc64(p, id);
	if (text == UIDGEN_PUBLIC_DEC) {
		n = snprintf(buf, len, "%llu", (unsigned long long)t);
		return n >= 0 && (size_t)n < len ? n : -ENOSPC;
	}
	if (text == UIDGEN_PUBLIC_SHORT) {
		if (len < UIDGEN_PUBLIC_SHORT_LEN + 1)
			return -ENOSPC;
		for (i = TOKEN_DIGITS - 1; i >= 0; i--, t /= 62)
			buf[i] = b62[t % 62];
		buf[UIDGEN_PUBLIC_SHORT_LEN] = '\0';
		return UIDGEN_PUBLIC_SHORT_LEN;
	}
	if (len < UIDGEN_PUBLIC_LEN + 1)
		return -ENOSPC;
	buf[0] = b62[kid];
	buf[UIDGEN_PUBLIC_LEN - 1] = b62[check_digit(p, kid, t)];
	for (i = TOKEN_DIGITS; i >= 1; i--, t /= 62)
		buf[i] = b62[t % 62];
	buf[UIDGEN_PUBLIC_LEN] = '\0';
	return UIDGEN_PUBLIC_LEN;
}

/* TOKEN_DIGITS base62 digits at @s into @tok: -EINVAL past 2^64 - 1. */
static int b62_token(const char *s, uint64_t *tok)
{
	unsigned __int128 t = 0;
	int i;

	for (i = 0; i < TOKEN_DIGITS; i++)
		t = t * 62 + b62_value(s[i]);
	if (t >> 64)
		return -EINVAL;		/* past 2^64: no token's text */
	*tok = (uint64_t)t;
	return 0;
}

static int parse_dec(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (x > (UINT64_MAX - (*s - '0')) / 10)
			return -EINVAL;
		x = x * 10 + (*s - '0');
	}
	*v = x;
	return 0;
}

int uidgen_parse_public(const struct uidgen_keys *k, const char *s, int text,
			int key_id, uint64_t *id)
{
	const struct pkey *p;
	int kid, i, d, ret;
	size_t len;
	uint64_t tok;

	if (!s)
		return -EINVAL;
	if (text == UIDGEN_PUBLIC_DEC) {
		ret = parse_dec(s, &tok);
		return ret ? ret : uidgen_private(k, key_id, tok, id);
	}
	len = strlen(s);
	if (!(text == UIDGEN_PUBLIC_TEXT && len == UIDGEN_PUBLIC_LEN) &&
	    !(text == UIDGEN_PUBLIC_SHORT && len == UIDGEN_PUBLIC_SHORT_LEN))
		return -EINVAL;
	for (i = 0; i < (int)len; i++)
		if (b62_value(s[i]) < 0)
			return -EINVAL;
	if (text == UIDGEN_PUBLIC_SHORT) {
		ret = b62_token(s, &tok);
		return ret ? ret : uidgen_private(k, key_id, tok, id);
	}
	ret = b62_token(s + 1, &tok);
	if (ret)
		return ret;
	kid = b62_value(s[0]);
	if (key_id != UIDGEN_KEY_CURRENT && key_id != kid)
		return -EKEYREJECTED;
	ret = pick(k, kid, &p);
	if (ret < 0)
		return ret;
	d = b62_value(s[UIDGEN_PUBLIC_LEN - 1]);
	if (d != check_digit(p, kid, tok))
		return -EKEYREJECTED;
	return uidgen_private(k, kid, tok, id);
}

/* The key set. */

int uidgen_keys_new(struct uidgen_keys **kp)
{
	*kp = calloc(1, sizeof(**kp));
	return *kp ? 0 : -ENOMEM;
}

void uidgen_keys_free(struct uidgen_keys *k)
{
	if (k) {
		explicit_bzero(k, sizeof(*k));
		free(k);
	}
}

int uidgen_keys_current(const struct uidgen_keys *k)
{
	return k && k->n ? k->order[k->n - 1] : -ENOKEY;
}

int uidgen_keys_add(struct uidgen_keys *k, int key_id,
		    const uint8_t key[UIDGEN_KEY_BYTES])
{
	struct pkey *p;

	if (key_id < 0 || key_id >= UIDGEN_KEY_IDS)
		return -EINVAL;
	p = &k->key[key_id];
	if (p->present)
		return -EEXIST;
	memcpy(p->raw, key, UIDGEN_KEY_BYTES);
	p->k0 = le64(key);
	p->k1 = le64(key + 8);
	p->present = 1;
	k->order[k->n++] = key_id;
	return 0;
}

int uidgen_keys_generate(struct uidgen_keys *k, int *key_id)
{
	uint8_t key[UIDGEN_KEY_BYTES];
	int id, i, ret;
	ssize_t n;

	/* The ID after the current one's (1 for the first), the first free. */
	id = k->n ? k->order[k->n - 1] + 1 : 1;
	for (i = 0; i < UIDGEN_KEY_IDS && k->key[id % UIDGEN_KEY_IDS].present; i++)
		id++;
	if (i == UIDGEN_KEY_IDS)
		return -ENOSPC;
	id %= UIDGEN_KEY_IDS;
	do
		n = getrandom(key, sizeof(key), 0);
	while (n < 0 && errno == EINTR);
	if (n != sizeof(key))
		return n < 0 ? -errno : -EIO;
	ret = uidgen_keys_add(k, id, key);
	explicit_bzero(key, sizeof(key));
	if (!ret && key_id)
		*key_id = id;
	return ret;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * One line of a key file (its "\r" at the end dropped): blank, a comment
 * ("#" first), or a key ID (one base62 digit), blanks, 32 hex digits,
 * optional trailing blanks.
 */
static int parse_line(struct uidgen_keys *k, const char *s, const char *end)
{
	uint8_t key[UIDGEN_KEY_BYTES];
	int id, i, hi, lo, ret;

	if (end > s && end[-1] == '\r')
		end--;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end || *s == '#')
		return 0;
	id = b62_value(*s++);
	if (id < 0 || s == end || (*s != ' ' && *s != '\t'))
		return -EINVAL;
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (end - s < KEY_HEX)
		return -EINVAL;
	for (i = 0; i < UIDGEN_KEY_BYTES; i++) {
		hi = hexval(s[2 * i]);
		lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		key[i] = hi << 4 | lo;
	}
	for (s += KEY_HEX; s < end; s++)
		if (*s != ' ' && *s != '\t')
			return -EINVAL;
	ret = uidgen_keys_add(k, id, key);
	explicit_bzero(key, sizeof(key));
	return ret;
}

int uidgen_keys_parse(struct uidgen_keys **kp, const char *text,
		      unsigned int *line)
{
	struct uidgen_keys *k;
	const char *s = text, *nl;
	unsigned int n = 0;
	int ret;

	if (line)
		*line = 0;
	ret = uidgen_keys_new(&k);
	if (ret)
		return ret;
	while (*s) {
		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s);
		n++;
		ret = parse_line(k, s, nl);
		if (ret) {
			if (line)
				*line = n;
			uidgen_keys_free(k);
			return ret;
		}
		s = *nl ? nl + 1 : nl;
	}
	if (!k->n) {
		uidgen_keys_free(k);
		return -ENOKEY;
	}
	*kp = k;
	return 0;
}

/* Safe to keep keys in: a regular file of root's or ours, no one else may write, others may not read. */
int uidgen_keys_check_fd(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_mode & (S_IRWXO | S_IWGRP))
		return -EPERM;
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return -EPERM;
	return 0;
}

#define KEYFILE_MAX	(64 * 1024)

int uidgen_keys_load(struct uidgen_keys **kp, const char *path,
		     unsigned int *line)
{
	char *buf;
	ssize_t n;
	size_t len = 0;
	int fd, ret;

	if (line)
		*line = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	ret = uidgen_keys_check_fd(fd);
	if (ret) {
		close(fd);
		return ret;
	}
	buf = malloc(KEYFILE_MAX + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		n = read(fd, buf + len, KEYFILE_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
		if (len > KEYFILE_MAX)
			break;
	}
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (!ret && len > KEYFILE_MAX)
		ret = -EFBIG;
	if (!ret && memchr(buf, '\0', len))
		ret = -EINVAL;
	if (!ret) {
		buf[len] = '\0';
		ret = uidgen_keys_parse(kp, buf, line);
	}
	explicit_bzero(buf, len);
	free(buf);
	return ret;
}

static int write_all(int fd, const char *s, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		s += n;
		len -= n;
	}
	return 0;
}

#define KEYFILE_HEAD \
	"# uidgen public-ID keys (man 3 uidgen_public): a key ID (one of 0-9A-Za-z)\n" \
	"# and 32 hex digits a line. The last key makes new tokens; every key\n" \
	"# listed opens the tokens made under it. Keep secret: a leak opens them all.\n"

int uidgen_keys_save(const struct uidgen_keys *k, const char *path)
{
	char *tmp, *dir, line[8 + KEY_HEX];
	mode_t mode = 0640;
	uid_t uid = (uid_t)-1;
	gid_t gid = (gid_t)-1;
	struct stat st;
	int fd, dfd, ret, i, j;
	const struct pkey *p;

	if (!k || !k->n)
		return -ENOKEY;
	if (!stat(path, &st)) {
		if (!S_ISREG(st.st_mode))
			return -EINVAL;
		mode = st.st_mode & 0750;
		uid = st.st_uid;
		gid = st.st_gid;
	} else if (errno != ENOENT) {
		return -errno;
	}
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkstemp(tmp);		/* mode 0600 */
	if (fd < 0) {
		ret = -errno;
		free(tmp);
		return ret;
	}
	ret = write_all(fd, KEYFILE_HEAD, strlen(KEYFILE_HEAD));
	for (i = 0; !ret && i < k->n; i++) {
		p = &k->key[k->order[i]];
		line[0] = b62[k->order[i]];
		line[1] = ' ';
		for (j = 0; j < UIDGEN_KEY_BYTES; j++)
			snprintf(line + 2 + 2 * j, 3, "%02x", p->raw[j]);
		line[2 + KEY_HEX] = '\n';
		ret = write_all(fd, line, 3 + KEY_HEX);
	}
	explicit_bzero(line, sizeof(line));
	if (!ret && (uid != (uid_t)-1 || gid != (gid_t)-1) &&
	    (st.st_uid != geteuid() || st.st_gid != getegid()) &&
	    fchown(fd, uid, gid))
		ret = -errno;
	if (!ret && fchmod(fd, mode))
		ret = -errno;
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		free(tmp);
		return ret;
	}
	/* The rename itself, on disk. */
	dir = strrchr(tmp, '/');
	if (dir)
		dir[dir == tmp ? 1 : 0] = '\0';
	dfd = open(dir ? tmp : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd))
			ret = -errno;
		close(dfd);
	}
	free(tmp);
	return ret;
}
