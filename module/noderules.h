/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The node rules: which assignment, renew and revoke of a node ID are
 * accepted, with what errno, and what state results. Pure functions over
 * a struct uidgen_node_rules, a request and a "now" (CLOCK_BOOTTIME in
 * ns, passed in), like the generator core in gen.c: no lock, no timer, no
 * generator. They return 0 or -errno and say in an action set what the
 * caller must carry out (fence, floor, grant, deadline, publish); node.c
 * does that with its lock, RCU and hrtimer, and uidgen-lease's device
 * stand-in (lease/dev.c, built with lease/kshim.h) with its state file.
 */
#ifndef _UIDGEN_NODERULES_H
#define _UIDGEN_NODERULES_H

#include <linux/types.h>

#include <linux/uidgen.h>

/* struct uidgen_node_rules.deadline_boot_ns when no lease deadline is set. */
#define UIDGEN_RULES_NO_DEADLINE	U64_MAX

/*
 * The action set: what the caller carries out, in this order, for a state
 * the rules have already moved. An error return carries at most
 * UIDGEN_RULES_EXPIRE, which the caller carries out all the same.
 */
/* The lease deadline passed: revoke the node ID in force (a fence). */
#define UIDGEN_RULES_EXPIRE	0x01U
/* A revoke: fence whatever is in force. */
#define UIDGEN_RULES_REVOKE	0x02U
/* Raise the generator's floor to @floor_unix_ns; this one step may fail. */
#define UIDGEN_RULES_FLOOR	0x04U
/* A new node ID: start every slot in a fresh tick (before publishing). */
#define UIDGEN_RULES_FENCE_SLOTS 0x08U
/* Set the grant to @grant_unix_ns exactly (0: none): a new node ID's own. */
#define UIDGEN_RULES_SET_GRANT	0x10U
/* Raise the grant to @grant_unix_ns (grants only rise). */
#define UIDGEN_RULES_RAISE_GRANT 0x20U
/* Move the lease deadline to @deadline_boot_ns (arm or cancel its timer). */
#define UIDGEN_RULES_DEADLINE	0x40U
/* Publish @node, last: all of the above comes with it. */
#define UIDGEN_RULES_PUBLISH	0x80U

/**
 * struct uidgen_rules_req - an assignment or renew, as the rules see it
 * @node_id: the node ID
 * @new: assign: the node ID never issued an ID, so it has no floor
 * @floor_unix_ns: assign without @new: the floor (Unix ns, not 0)
 * @grant_unix_ns: the grant (Unix ns); 0: none (assign), as it is (renew)
 * @deadline_boot_ns: CLOCK_BOOTTIME of this kernel at which the node ID
 *	stops; 0: none (assign), as it is (renew)
 * @token: fencing token of the claim (0: none)
 * @force: revoke: whatever is in force, whatever its node ID and token,
 *	and forget the highest token seen (the administrator's override)
 */
struct uidgen_rules_req {
	u32 node_id;
	bool new;
	u64 floor_unix_ns;
	u64 grant_unix_ns;
	u64 deadline_boot_ns;
	u64 token;
	bool force;
};

/**
 * struct uidgen_node_rules - the node's state, as the rules see it
 * @node_bits: width of the node field: node IDs are below 1 << @node_bits
 * @node: the node ID in force, or UIDGEN_NODE_NONE
 * @token: fencing token of the assignment in force (0: none)
 * @max_token: the highest token any assignment carried (this load)
 * @floor_unix_ns: the highest floor applied (Unix ns, 0: none); only rises,
 *	across revokes too, since it guards the generator's clock
 * @grant_unix_ns: the grant of the assignment in force (Unix ns, 0: none)
 * @deadline_boot_ns: CLOCK_BOOTTIME at which @node stops
 *	(UIDGEN_RULES_NO_DEADLINE: never)
 */
struct uidgen_node_rules {
	unsigned int node_bits;
	u32 node;
	u64 token;
	u64 max_token;
	u64 floor_unix_ns;
	u64 grant_unix_ns;
	u64 deadline_boot_ns;
};

void uidgen_rules_init(struct uidgen_node_rules *s, unsigned int node_bits);
void uidgen_rules_fence(struct uidgen_node_rules *s);
bool uidgen_rules_expire(struct uidgen_node_rules *s, u64 now_ns,
			 unsigned int *act);
int uidgen_rules_assign(struct uidgen_node_rules *s,
			const struct uidgen_rules_req *req, u64 now_ns,
			unsigned int *act);
int uidgen_rules_renew(struct uidgen_node_rules *s,
		       const struct uidgen_rules_req *req, u64 now_ns,
		       unsigned int *act);
int uidgen_rules_revoke(struct uidgen_node_rules *s,
			const struct uidgen_rules_req *req, u64 now_ns,
			unsigned int *act);

#endif /* _UIDGEN_NODERULES_H */
