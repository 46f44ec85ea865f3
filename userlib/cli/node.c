// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen set-node and uidgen revoke-node: assign the node ID with its
 * floor (--new, --floor or a state file's), never against this machine's
 * state file, and revoke it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/persist/persist.h"

/*
 * This machine's state file, the one its units keep: $UIDGEN_STATE, else
 * UIDGEN_STATE= in /etc/default/uidgen (the units' EnvironmentFile), else
 * the units' default. Into @buf.
 */
static const char *machine_state_file(char *buf, size_t len)
{
	const char *env = getenv("UIDGEN_STATE");
	char line[512];
	FILE *f;

	snprintf(buf, len, "%s", env && *env ? env : "/var/lib/uidgen/state");
	if (env && *env)
		return buf;
	f = fopen("/etc/default/uidgen", "re");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f)) {
		char *v = line + 13;

		if (strncmp(line, "UIDGEN_STATE=", 13))
			continue;
		v[strcspn(v, "\n")] = 0;
		if (*v == '"' || *v == '\'') {
			v[strcspn(v + 1, "\"'") + 1] = 0;
			v++;
		}
		if (*v)
			snprintf(buf, len, "%s", v);
	}
	fclose(f);
	return buf;
}

/*
 * The machine's state file is its record of its node ID and floor: a
 * set-node that contradicts it (another machine's number, copied with a
 * step; --new, or a lower floor, for the node ID whose floor it holds) is
 * a mistake, not a wish: refused, saying what to run. With --state FILE,
 * FILE is the word. 0, or the exit status.
 */
static int set_node_agrees(unsigned long long node, const struct floor_src *src)
{
	char file[512];
	struct state st;
	int ret;

	if (src->state)
		return 0;
	machine_state_file(file, sizeof(file));
	ret = state_read(file, &st);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret < 0 ? 1 : ret;
	if (st.node != UIDGEN_NODE_NONE && st.node != node) {
		fprintf(stderr, "%s: this machine's state file %s holds node ID %llu, not %llu: if %llu is this machine's node ID, run '%s state restore %s'; if not, move the file away first (it is node ID %llu's history)\n",
			prog, file, st.node, node, st.node, prog, file, st.node);
		return 1;
	}
	if (src->is_new || src->floor_ms < st.floor_ms) {
		fprintf(stderr, "%s: this machine's state file %s holds node ID %llu's floor, %llu ms: it has issued IDs, and %s could repeat them; run '%s state restore %s' (or set-node %llu --state %s)\n",
			prog, file, node, st.floor_ms,
			src->is_new ? "--new" : "a lower floor", prog, file, node, file);
		return 1;
	}
	return 0;
}

int cmd_set_node(const char *dev, char **argv, int argc,
		 const struct floor_src *src)
{
	unsigned long long node, floor = 0;
	struct state st;
	struct uidgen *g;
	int ret;

	if (argc != 1) {
		fprintf(stderr, "%s: set-node needs exactly one node ID: see '%s set-node --help'\n",
			prog, prog);
		return 2;
	}
	/* Decimal only: a zero-padded 010 is node 10, never octal 8. */
	if (parse_dec(argv[0], UIDGEN_NODE_NONE - 1, &node)) {
		fprintf(stderr, "%s: '%s': not a decimal node ID (0 to the module's largest, see 'uidgen info')\n",
			prog, argv[0]);
		return 2;
	}
	if (!!src->is_new + !!src->has_floor + !!src->state > 1) {
		fprintf(stderr, "%s: set-node: %s given together: give exactly one of --new, --floor MS and --state FILE, where node ID %llu's floor comes from\n",
			prog, src->is_new && src->has_floor && src->state ?
			"--new, --floor and --state" : src->is_new && src->has_floor ?
			"--new and --floor" : src->is_new ? "--new and --state" :
			"--floor and --state", node);
		return 2;
	}
	if (!!src->is_new + !!src->has_floor + !!src->state != 1) {
		fprintf(stderr,
			"%s: set-node needs where node ID %llu's floor comes from, exactly one of:\n"
			"  --state FILE  the state file 'uidgen state keep' or 'state save' wrote for it\n"
			"  --floor MS    a Unix time in ms at or after the end of every ID it ever issued\n"
			"  --new         it has never issued an ID (its first use, ever)\n"
			"%s: without its floor, a node ID that issued before (another load, reboot or\n"
			"machine) would issue the same IDs again if the clock is behind where it was\n",
			prog, node, prog);
		return 2;
	}
	if (src->has_floor) {
		floor = src->floor_ms;
	} else if (!src->is_new) {
		ret = state_read(src->state, &st);
		if (ret == -ENOENT)
			return fail(ret, src->state);
		if (ret)
			return ret;
		if (st.node != UIDGEN_NODE_NONE && st.node != node) {
			fprintf(stderr, "%s: %s holds the floor of node ID %llu, not %llu\n",
				prog, src->state, st.node, node);
			return 1;
		}
		floor = st.floor_ms;
	}
	ret = set_node_agrees(node, src);
	if (ret)
		return ret;
	g = node_dev_open(dev);
	if (!g)
		return 1;
	ret = node_assign(g, node, src->is_new, floor, 0);
	uidgen_close(g);
	if (ret)
		return fail_node(ret, "set-node", node);
	if (src->is_new)
		printf("node ID %llu active, new (no floor)\n", node);
	else
		printf("node ID %llu active, floor %llu ms\n", node, floor);
	return 0;
}

int cmd_revoke(const char *dev, int force)
{
	struct uidgen *g;
	int ret;

	ret = uidgen_open(&g, dev);
	if (ret)
		return fail_open(ret, dev);
	ret = node_revoke(g, force);
	if (ret == -ESTALE)
		say_held(g);
	uidgen_close(g);
	return ret ? fail(ret, "revoke-node") : 0;
}
