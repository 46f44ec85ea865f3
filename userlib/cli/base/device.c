// SPDX-License-Identifier: GPL-2.0
/*
 * The node calls of the uidgen CLI and the persister: the device opened
 * (saying why not), INFO, ASSIGN, RENEW and REVOKE with the CLI's times in
 * ms, and a number read from sysfs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/base/base.h"

/* Read one unsigned number from a sysfs file; 0 or -errno. */
int read_u64(const char *path, unsigned long long *v)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (fscanf(f, "%llu", v) != 1)
		ret = -EINVAL;
	fclose(f);
	return ret;
}

/* Open the device for the node calls; NULL after saying why on stderr. */
struct uidgen *node_dev_open(const char *dev)
{
	struct uidgen *g;
	int ret = uidgen_open(&g, dev);

	if (ret) {
		fail_open(ret, dev);
		return NULL;
	}
	return g;
}

/* The node's state and the layout; 0 or -errno. */
int node_info(struct uidgen *g, struct uidgen_info *info)
{
	int ret;

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	ret = uidgen_info(g, info);
	return ret < 0 ? ret : 0;
}

/* Assign @node, new or with @floor_ms, and @grant_ms (0: none); 0 or -errno. */
int node_assign(struct uidgen *g, uint32_t node, int is_new,
		       unsigned long long floor_ms, unsigned long long grant_ms)
{
	struct uidgen_assign a = {
		.size = sizeof(a),
		.flags = is_new ? UIDGEN_ASSIGN_NEW : 0,
		.node_id = node,
		.floor_unix_ns = floor_ms * NS_PER_MS,
		.grant_unix_ns = grant_ms * NS_PER_MS,
	};

	return uidgen_assign(g, &a);
}

/* Raise the grant of @node, the node ID in force; 0 or -errno. */
int node_renew(struct uidgen *g, uint32_t node,
		      unsigned long long grant_ms)
{
	struct uidgen_renew r = {
		.size = sizeof(r),
		.node_id = node,
		.grant_unix_ns = grant_ms * NS_PER_MS,
	};

	return uidgen_renew(g, &r);
}

/*
 * Revoke the node ID in force, if it has no fencing token (else ESTALE:
 * uidgen-lease's); with @force whatever is in force, the highest token
 * the module saw forgotten. 0 or -errno.
 */
int node_revoke(struct uidgen *g, int force)
{
	struct uidgen_revoke r = {
		.size = sizeof(r),
		.flags = force ? UIDGEN_REVOKE_FORCE : 0,
		.node_id = UIDGEN_NODE_NONE,
	};

	return uidgen_revoke(g, &r);
}
