// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuidgen: a thin wrapper over /dev/uid. Nothing here is cached across
 * calls except the file descriptor, so nothing can go stale in a thread or
 * survive fork() into a child.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uidgen.h"

struct uidgen {
	int fd;
};

/* Return -errno and put errno back the way the caller had it. */
#define UIDGEN_ERR(saved) (ret = -errno, errno = (saved), ret)

int uidgen_open(struct uidgen **gp, const char *path)
{
	int saved = errno, ret;
	struct uidgen *g;

	g = malloc(sizeof(*g));
	if (!g) {
		errno = saved;
		return -ENOMEM;
	}
	g->fd = open(path ? path : UIDGEN_DEVICE, O_RDONLY | O_CLOEXEC);
	if (g->fd < 0) {
		ret = -errno;
		free(g);
		errno = saved;
		return ret;
	}
	*gp = g;
	return 0;
}

void uidgen_close(struct uidgen *g)
{
	int saved = errno;

	if (!g)
		return;
	close(g->fd);
	free(g);
	errno = saved;
}

int uidgen_next(struct uidgen *g, uint64_t *id)
{
	int saved = errno, ret;
	ssize_t r;

	r = read(g->fd, id, sizeof(*id));
	if (r < 0)
		return UIDGEN_ERR(saved);
	/* The device only ever returns whole IDs. */
	return r == sizeof(*id) ? 0 : -EIO;
}

long uidgen_fill(struct uidgen *g, uint64_t *ids, size_t n)
{
	int saved = errno, ret;
	size_t done = 0;

	if (n == 0 || n > LONG_MAX)
		return -EINVAL;
	while (done < n) {
		size_t want = n - done;
		struct uidgen_batch b = {
			.size = sizeof(b),
			.count = want > UIDGEN_BATCH_MAX ? UIDGEN_BATCH_MAX : want,
			.ids = (uintptr_t)(ids + done),
		};
		uint32_t asked = b.count;

		if (ioctl(g->fd, UIDGEN_IOC_BATCH, &b) < 0) {
			if (done)
				break;
			return UIDGEN_ERR(saved);
		}
		done += b.count;
		/* Short only on a signal or a fault: stop and report. */
		if (b.count < asked)
			break;
	}
	errno = saved;
	return done;
}

int uidgen_info(struct uidgen *g, struct uidgen_info *info)
{
	int saved = errno, ret;

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (ioctl(g->fd, UIDGEN_IOC_INFO, info) < 0)
		return UIDGEN_ERR(saved);
	return 0;
}

int uidgen_set_node(struct uidgen *g, uint32_t node)
{
	struct uidgen_node req = { .size = sizeof(req), .node_id = node };
	int saved = errno, ret;

	if (ioctl(g->fd, UIDGEN_IOC_SET_NODE, &req) < 0)
		return UIDGEN_ERR(saved);
	return 0;
}

int uidgen_revoke_node(struct uidgen *g)
{
	struct uidgen_node req = {
		.size = sizeof(req),
		.flags = UIDGEN_NODE_REVOKE,
		.node_id = UIDGEN_NODE_NONE,
	};
	int saved = errno, ret;

	if (ioctl(g->fd, UIDGEN_IOC_SET_NODE, &req) < 0)
		return UIDGEN_ERR(saved);
	return 0;
}

/* The layout a module loaded with no layout parameters uses. */
void uidgen_default_info(struct uidgen_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->node_id = UIDGEN_NODE_NONE;
	info->ts_bits = UIDGEN_DEFAULT_TS_BITS;
	info->node_bits = UIDGEN_DEFAULT_NODE_BITS;
	info->slot_bits = UIDGEN_DEFAULT_SLOT_BITS;
	info->seq_bits = UIDGEN_DEFAULT_SEQ_BITS;
	info->nr_slots = 1U << UIDGEN_DEFAULT_SLOT_BITS;
	info->tick_us = UIDGEN_DEFAULT_TICK_US;
	info->epoch_ms = UIDGEN_DEFAULT_EPOCH_MS;
}

int uidgen_decode(const struct uidgen_info *info, uint64_t id,
		  struct uidgen_parts *parts)
{
	unsigned int low = info->node_bits + info->slot_bits + info->seq_bits;
	uint64_t ms, whole, part;

	if (info->ts_bits + low != UIDGEN_ID_BITS || info->ts_bits == 0 ||
	    info->seq_bits >= 32 || info->slot_bits >= 32 ||
	    info->node_bits >= 32 || info->tick_us == 0)
		return -EINVAL;
	if (id >> UIDGEN_ID_BITS)
		return -ERANGE;

	parts->tick = id >> low;
	parts->node = (id >> (info->slot_bits + info->seq_bits)) &
		      ((1ULL << info->node_bits) - 1);
	parts->slot = (id >> info->seq_bits) & ((1ULL << info->slot_bits) - 1);
	parts->seq = id & ((1ULL << info->seq_bits) - 1);
	/* tick * tick_us / 1000 + epoch_ms, without overflowing on the way. */
	part = parts->tick % 1000 * info->tick_us / 1000;
	if (__builtin_mul_overflow(parts->tick / 1000, (uint64_t)info->tick_us,
				   &whole) ||
	    __builtin_add_overflow(whole, part, &ms) ||
	    __builtin_add_overflow(ms, (uint64_t)info->epoch_ms, &ms) ||
	    ms > INT64_MAX)
		return -ERANGE;
	parts->unix_ms = (int64_t)ms;
	return 0;
}

/* Crockford's alphabet: no I, L, O or U; in ASCII order, so text sorts. */
static const char b32_digits[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
#define B32_LEN	13	/* 13 * 5 = 65 bits >= 64 */

int uidgen_format(uint64_t id, enum uidgen_format fmt, char *buf, size_t len)
{
	char tmp[UIDGEN_FMT_MAX];
	size_t n = 0;
	int i;

	switch (fmt) {
	case UIDGEN_FMT_DEC:
		do {
			tmp[n++] = '0' + id % 10;
			id /= 10;
		} while (id);
		for (i = 0; i < (int)n / 2; i++) {
			char c = tmp[i];

			tmp[i] = tmp[n - 1 - i];
			tmp[n - 1 - i] = c;
		}
		break;
	case UIDGEN_FMT_HEX:
		/* The 0x keeps it apart from decimal when parsed back. */
		tmp[n++] = '0';
		tmp[n++] = 'x';
		for (i = 0; i < 16; i++)
			tmp[n++] = "0123456789abcdef"[(id >> (60 - 4 * i)) & 0xf];
		break;
	case UIDGEN_FMT_B32:
		for (n = 0; n < B32_LEN; n++) {
			int shift = 5 * (B32_LEN - 1 - n);

			tmp[n] = b32_digits[(shift >= 64 ? 0 : id >> shift) & 31];
		}
		break;
	default:
		return -EINVAL;
	}
	if (len < n + 1)
		return -ENOSPC;
	memcpy(buf, tmp, n);
	buf[n] = '\0';
	return n;
}

static int b32_value(char c)
{
	const char *p;

	switch (c) {
	case 'o': case 'O':
		return 0;
	case 'i': case 'I': case 'l': case 'L':
		return 1;
	}
	if (c >= 'a' && c <= 'z')
		c -= 'a' - 'A';
	p = c ? strchr(b32_digits, c) : NULL;
	return p ? p - b32_digits : -1;
}

int uidgen_parse(const char *s, enum uidgen_format fmt, uint64_t *id)
{
	unsigned int base, digits = 0;
	uint64_t v = 0;

	if (fmt == UIDGEN_FMT_AUTO) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			fmt = UIDGEN_FMT_HEX;
		else if (strlen(s) == B32_LEN)
			fmt = UIDGEN_FMT_B32;
		else
			fmt = UIDGEN_FMT_DEC;
	}
	switch (fmt) {
	case UIDGEN_FMT_DEC:
		base = 10;
		break;
	case UIDGEN_FMT_HEX:
		base = 16;
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			s += 2;
		break;
	case UIDGEN_FMT_B32:
		base = 32;
		break;
	default:
		return -EINVAL;
	}
	for (; *s; s++, digits++) {
		int d;

		if (base == 32)
			d = b32_value(*s);
		else if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			d = -1;
		if (d < 0 || (unsigned int)d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (!digits)
		return -EINVAL;
	*id = v;
	return 0;
}
