/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uidgen-lease: the uapi 1.4 node-life names the agent uses, as struct
 * lease_node / struct lease_info. With a 1.4 header they are the
 * header's own structs; with an older one (a tree before 1.4 landed)
 * they are spelled out here, field for field as the 1.4 ABI text has
 * them, so that the agent and its stand-in build and the agent refuses
 * a pre-1.4 module at run time (INFO returns the smaller size).
 */
#ifndef UIDGEN_LEASE_COMPAT_H
#define UIDGEN_LEASE_COMPAT_H

#include <linux/uidgen.h>

#ifdef UIDGEN_NODE_RENEW
#define lease_node uidgen_node
#define lease_info uidgen_info
#else
#define UIDGEN_NODE_NEW		0x2U
#define UIDGEN_NODE_FLOOR	0x4U
#define UIDGEN_NODE_RENEW	0x8U
#define UIDGEN_NODE_STATE_NONE		0
#define UIDGEN_NODE_STATE_PENDING	1
#define UIDGEN_NODE_STATE_ACTIVE	2

struct lease_node {
	__u32 size;
	__u32 flags;
	__u32 node_id;
	__u32 __reserved;
	__aligned_u64 floor_ms;
	__aligned_u64 grant_ms;
	__aligned_u64 deadline_ns;
	__aligned_u64 token;
};

struct lease_info {
	__u32 size;
	__u32 flags;
	__u32 version;
	__u32 node_id;
	__u32 ts_bits;
	__u32 node_bits;
	__u32 slot_bits;
	__u32 seq_bits;
	__u32 nr_slots;
	__u32 tick_us;
	__aligned_u64 epoch_ms;
	__u32 node_state;
	__u32 __reserved;
	__aligned_u64 floor_ms;
	__aligned_u64 grant_ms;
	__aligned_u64 deadline_ns;
	__aligned_u64 token;
	__aligned_u64 high_water_ms;
};
#endif

_Static_assert(sizeof(struct lease_node) == 48, "uapi 1.4 struct uidgen_node is 48 bytes");
_Static_assert(sizeof(struct lease_info) == 96, "uapi 1.4 struct uidgen_info is 96 bytes");

#endif
