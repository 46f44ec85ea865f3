/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uidgen-lease: the node-life operations on the device the agent guards.
 * Two backends: the kernel's /dev/uid (UIDGEN_IOC_SET_NODE and
 * UIDGEN_IOC_INFO of uapi 1.4), and a stand-in that keeps the same state
 * and rules in a file, for running hundreds of agents on one machine
 * (--device-sim). The stand-in logs every change with its
 * CLOCK_BOOTTIME time so that a checker can prove no node ID was in force
 * on two agents at once.
 */
#ifndef UIDGEN_LEASE_DEV_H
#define UIDGEN_LEASE_DEV_H

#include <stdint.h>

struct lease_dev;

struct lease_dev_state {
	uint32_t node_bits;
	int active;		/* a node ID is in force */
	uint32_t node;		/* which (if active) */
	uint64_t token;		/* its fencing token, 0 none */
	uint64_t floor_ms;
	uint64_t grant_ms;	/* 0 none */
	uint64_t deadline_ns;	/* CLOCK_BOOTTIME, 0 none */
};

/* @sim: NULL for the device at @path, else the stand-in's state file
 * (created if absent) with @sim_node_bits; @who names the agent in its log. */
int lease_dev_open(struct lease_dev **dp, const char *path, const char *sim,
		   uint32_t sim_node_bits, const char *who);
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
