/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * uidgen: 64-bit, time-sortable, machine-unique IDs from /dev/uid.
 *
 * This header is the ABI contract between the uidgen kernel module and
 * userspace. libuidgen, the uidgen CLI, the selftests and the documentation
 * all include it; none of them copies a number out of it.
 */
#ifndef _UAPI_LINUX_UIDGEN_H
#define _UAPI_LINUX_UIDGEN_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * DOC: ID layout
 *
 * An ID is a native-endian __u64 whose sign bit (bit 63) is always 0. The
 * remaining 63 bits hold, from most to least significant::
 *
 *   | timestamp (ts_bits) | node (node_bits) | slot (slot_bits) | seq (seq_bits) |
 *
 * The four widths add up to 63. The timestamp counts ticks of tick_us
 * microseconds since epoch_ms (milliseconds since the Unix epoch). The
 * defaults are 41/5/5/12 with a 1000 us tick and an epoch of
 * 2026-01-01T00:00:00Z (UIDGEN_DEFAULT_EPOCH_MS). Read the layout in force
 * with UIDGEN_IOC_INFO; never assume the defaults.
 */
#define UIDGEN_ID_BITS			63
#define UIDGEN_DEFAULT_TS_BITS		41
#define UIDGEN_DEFAULT_NODE_BITS	5
#define UIDGEN_DEFAULT_SLOT_BITS	5
#define UIDGEN_DEFAULT_SEQ_BITS		12
#define UIDGEN_DEFAULT_TICK_US		1000
#define UIDGEN_DEFAULT_EPOCH_MS		1767225600000ULL

/**
 * DOC: General ioctl format and errnos
 *
 * Each ioctl takes a pointer to a structure whose first __u32 is its size
 * and whose second __u32 is a flags word. The kernel accepts a smaller
 * structure from an older program as long as it covers every field the
 * ioctl needs, and a larger one from a newer program as long as the bytes it
 * does not know are zero. Fields named __reserved must be zero.
 *
 * The errnos below mean the same thing for every uidgen ioctl and for read():
 *
 *  - ENOTTY: the ioctl number is not a uidgen ioctl.
 *  - EINVAL: size is smaller than the oldest version of the structure, a
 *    __reserved field is not zero, a count is 0, or a read() buffer is
 *    shorter than one ID (8 bytes).
 *  - E2BIG: the structure is larger than the kernel knows and the unknown
 *    tail is not zero; or a BATCH count is above UIDGEN_BATCH_MAX, or a
 *    RESERVE count above ``1 << seq_bits``.
 *  - EOPNOTSUPP: a flags bit the kernel does not know is set.
 *  - EFAULT: a pointer (the argument, or the ID array) is not valid,
 *    writable user memory. IDs minted for a copy that faulted are never
 *    handed out: they leave a gap, never a duplicate.
 *  - EADDRNOTAVAIL: no node ID is assigned, so no ID can be issued: none
 *    was given yet, or it was revoked (by an administrator, or because the
 *    kernel saw this VM forked or restored from a snapshot). An
 *    administrator assigns one with the node_id module parameter, its sysfs
 *    file, or UIDGEN_IOC_SET_NODE.
 *  - EPERM: UIDGEN_IOC_SET_NODE without CAP_SYS_ADMIN.
 *  - ERANGE: UIDGEN_IOC_SET_NODE with a node ID that does not fit node_bits.
 *  - EBUSY: UIDGEN_IOC_SET_NODE with a different node ID while one is
 *    already assigned (an assigned node ID is never changed under a
 *    running generator).
 *  - EAGAIN: the file was opened O_NONBLOCK and the slot would have to
 *    wait for a later tick before it could issue the next ID. With some IDs
 *    copied, the call returns those instead.
 *  - EINTR: a signal arrived while waiting for the next tick before any ID
 *    was copied (with SA_RESTART the call is restarted instead). With some
 *    IDs copied, the call returns those instead.
 *  - EOVERFLOW: the timestamp field is exhausted for this layout and epoch;
 *    the module never wraps it.
 */

/**
 * struct uidgen_batch - ioctl(UIDGEN_IOC_BATCH)
 * @size: in: sizeof(struct uidgen_batch)
 * @flags: in: must be 0
 * @count: in/out: number of IDs wanted, 1 to UIDGEN_BATCH_MAX; on return,
 *         the number of IDs stored at @ids
 * @__reserved: in: must be 0
 * @ids: in: user pointer to an array of @count __u64
 *
 * Fills @ids with fresh IDs. On success the ioctl returns the number of IDs
 * stored, which is also written back to @count. It stores fewer than asked
 * only if a signal arrives or the array faults part way; if it stored none,
 * it fails with the errno instead (EINTR, EFAULT, ...). A batch may span
 * ticks: when a tick's sequence numbers run out, the caller sleeps until
 * the next tick.
 */
struct uidgen_batch {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 __reserved;
	__aligned_u64 ids;
};

/* Most IDs one UIDGEN_IOC_BATCH call will store (512 KiB of IDs). */
#define UIDGEN_BATCH_MAX	65536

/* struct uidgen_info.node_id while no node ID is assigned. */
#define UIDGEN_NODE_NONE	0xffffffffU

/**
 * struct uidgen_info - ioctl(UIDGEN_IOC_INFO)
 * @size: in: sizeof(struct uidgen_info)
 * @flags: in: must be 0
 * @version: out: module version, (major << 16) | (minor << 8) | patch
 * @node_id: out: the assigned node ID, or UIDGEN_NODE_NONE
 * @ts_bits: out: width of the timestamp field
 * @node_bits: out: width of the node field
 * @slot_bits: out: width of the slot field
 * @seq_bits: out: width of the sequence field
 * @nr_slots: out: number of slots, 1 << @slot_bits
 * @tick_us: out: length of one timestamp tick, in microseconds
 * @epoch_ms: out: Unix time in milliseconds of timestamp 0
 *
 * Everything a program needs to decode an ID: the timestamp of @id is
 * ``id >> (node_bits + slot_bits + seq_bits)`` ticks after @epoch_ms.
 */
struct uidgen_info {
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
};

/* struct uidgen_node.flags: revoke the node ID instead of assigning one. */
#define UIDGEN_NODE_REVOKE	0x1U

/**
 * struct uidgen_node - ioctl(UIDGEN_IOC_SET_NODE)
 * @size: in: sizeof(struct uidgen_node)
 * @flags: in: 0 to assign, or UIDGEN_NODE_REVOKE
 * @node_id: in: the node ID to assign, below 1 << node_bits; with
 *           UIDGEN_NODE_REVOKE, must be UIDGEN_NODE_NONE
 * @__reserved: in: must be 0
 *
 * Assigns this machine's node ID, or revokes it. Needs CAP_SYS_ADMIN.
 * Assigning the ID that is already assigned succeeds and changes nothing;
 * assigning another one fails with EBUSY until the current one is revoked.
 *
 * Revoking is a fence: when the ioctl returns, no ID carrying the revoked
 * node ID will leave the kernel, including from calls that were already
 * running. Revoking when none is assigned succeeds. After a new assignment
 * every slot starts in a tick after the last one it used, so per-slot
 * order holds across the change.
 */
struct uidgen_node {
	__u32 size;
	__u32 flags;
	__u32 node_id;
	__u32 __reserved;
};

/**
 * struct uidgen_reserve - ioctl(UIDGEN_IOC_RESERVE)
 * @size: in: sizeof(struct uidgen_reserve)
 * @flags: in: must be 0
 * @count: in/out: number of IDs wanted, 1 to ``1 << seq_bits``; on return,
 *         the number of IDs in the run
 * @fence: out: the fence generation the run was reserved under (see
 *         struct uidgen_page)
 * @first: out: the first ID of the run
 * @expires_ns: out: the CLOCK_BOOTTIME time, in ns, at which the run's
 *              tick ends
 *
 * Reserves a run of consecutive IDs, @first to @first + @count - 1, from
 * the calling CPU's slot, and returns only its bounds: the caller mints
 * the IDs itself, with no copy. The run never crosses a tick, so it may be
 * shorter than asked: it is what is left of the current tick's sequence
 * numbers (or, with max_borrow_ticks, of a tick ahead). When nothing is
 * left the caller sleeps until the next tick, as with UIDGEN_IOC_BATCH
 * (EINTR, or EAGAIN with O_NONBLOCK). On success the ioctl returns
 * @count.
 *
 * The IDs are unique however late they are used, but their timestamps
 * grow stale: a cache should stop handing out a run once the clock is
 * past @expires_ns (plus whatever staleness it accepts), and as soon as
 * struct uidgen_page.fence differs from @fence.
 */
struct uidgen_reserve {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 fence;
	__aligned_u64 first;
	__aligned_u64 expires_ns;
};

/**
 * struct uidgen_page - the read-only page mmap() of /dev/uid maps
 * @fence: the fence generation: it changes every time the node ID is
 *         revoked (by an administrator or on a VM fork), before the revoke
 *         returns
 *
 * ``mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0)`` on a descriptor
 * opened O_RDONLY. A program that caches runs from UIDGEN_IOC_RESERVE
 * compares @fence with the run's before handing out each ID, so a revoke
 * reaches cached runs too. Errors: EACCES for PROT_WRITE or a descriptor
 * open for writing, EINVAL for MAP_PRIVATE, a non-zero offset or more
 * than one page.
 */
struct uidgen_page {
	__u32 fence;
};

/* 0xB9 is unused in Documentation/userspace-api/ioctl/ioctl-number.rst. */
#define UIDGEN_IOC_TYPE		0xB9

#define UIDGEN_IOC_BATCH	_IO(UIDGEN_IOC_TYPE, 0x01)
#define UIDGEN_IOC_INFO		_IO(UIDGEN_IOC_TYPE, 0x02)
#define UIDGEN_IOC_SET_NODE	_IO(UIDGEN_IOC_TYPE, 0x03)
#define UIDGEN_IOC_RESERVE	_IO(UIDGEN_IOC_TYPE, 0x04)

#endif /* _UAPI_LINUX_UIDGEN_H */
