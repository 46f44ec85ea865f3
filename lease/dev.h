/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uidgen-lease: the node-life operations on the device the agent guards.
 * Two backends: the kernel's /dev/uid (libuidgen's uidgen_assign(),
 * uidgen_renew(), uidgen_revoke() and uidgen_info()),
 * and a stand-in that keeps the same state and rules in a file, for
 * running hundreds of agents on one machine (--device-sim). The stand-in
 * logs every change with its CLOCK_BOOTTIME time so that a checker can
 * prove no node ID was in force on two agents at once.
 */
#ifndef UIDGEN_LEASE_DEV_H
#define UIDGEN_LEASE_DEV_H

#include <stdint.h>

struct lease_dev;

struct lease_dev_state {
	/* the layout, fixed at load: every machine of a cluster must agree */
	uint32_t ts_bits, node_bits, slot_bits, seq_bits, tick_us;
	uint64_t epoch_ms;
	int active;		/* a node ID is in force */
	uint32_t node;		/* which (if active) */
	uint64_t token;		/* its fencing token, 0 none */
	uint64_t floor_ms;
	uint64_t grant_ms;	/* 0 none */
	uint64_t deadline_ns;	/* CLOCK_BOOTTIME, 0 none */
	/* the ID clock (Unix ms it reads now: at or ahead of the wall clock
	 * after a floor ahead of it) and the end of the highest tick issued
	 * (0: none yet), under any node ID of this load */
	uint64_t clock_ms;
	uint64_t high_water_ms;
	/* the fence generation: changes at every revoke, deadline and VM
	 * fork, with or without a node ID in force (uidgen_fence_gen()) */
	uint32_t fence;
};

/* @sim: NULL for the device at @path, else the stand-in's state file
 * (created if absent) with @sim_node_bits and @sim_epoch_ms (0: uidgen's
 * default); @who names the agent in its log. The device (or the state
 * file) is locked for this agent alone: -EWOULDBLOCK if another holds
 * it. -ENOTTY: @path is not a 2.0 uidgen device (it answers no INFO). */
int lease_dev_open(struct lease_dev **dp, const char *path, const char *sim,
		   uint32_t sim_node_bits, uint64_t sim_epoch_ms, uint32_t sim_tick_us,
		   const char *who);
void lease_dev_close(struct lease_dev *d);
int lease_dev_state(struct lease_dev *d, struct lease_dev_state *st);
/* Assign @node: @floor_ms UINT64_MAX means NEW (it never issued). */
int lease_dev_install(struct lease_dev *d, uint32_t node, uint64_t floor_ms,
		      uint64_t grant_ms, uint64_t deadline_ns, uint64_t token);
/* Raise the grant (0: leave it) and move the deadline (0: leave it). */
int lease_dev_renew(struct lease_dev *d, uint32_t node, uint64_t grant_ms,
		    uint64_t deadline_ns, uint64_t token);
int lease_dev_revoke(struct lease_dev *d, uint64_t token);

#define LEASE_FLOOR_NEW UINT64_MAX

#endif
