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
 *    flags bit the kernel does not know is set (since 1.4; 1.3 said
 *    EOPNOTSUPP), a __reserved field is not zero, a count is 0, or a read()
 *    buffer is shorter than one ID (8 bytes). UIDGEN_IOC_SET_NODE also
 *    gives EINVAL for a combination of flags that does not go together
 *    (see struct uidgen_node).
 *  - E2BIG: the structure is larger than the kernel knows and the unknown
 *    tail is not zero; or a BATCH count is above UIDGEN_BATCH_MAX, or a
 *    RESERVE count above ``1 << seq_bits``.
 *  - EFAULT: a pointer (the argument, or the ID array) is not valid,
 *    writable user memory. IDs minted for a copy that faulted are never
 *    handed out: they leave a gap, never a duplicate.
 *  - EADDRNOTAVAIL: no node ID is in force, so no ID can be issued: none
 *    was given yet, or it was revoked (by an administrator, by the lease
 *    deadline passing, or because the kernel saw this VM forked or restored
 *    from a snapshot). An administrator assigns one with
 *    UIDGEN_IOC_SET_NODE, or the node_id module parameter and its floor.
 *  - ENODATA: a node ID is set but pending: its floor (the floor of
 *    everything ever issued under it) is not known yet, so nothing is
 *    issued under it. It becomes active when the floor arrives
 *    (``uidgen state restore``, the lease agent, the floor_ms parameter) or
 *    an administrator states it never issued (node_new=1,
 *    ``uidgen set-node N --new``).
 *  - EPERM: UIDGEN_IOC_SET_NODE without CAP_SYS_ADMIN.
 *  - ERANGE: UIDGEN_IOC_SET_NODE with a node ID that does not fit node_bits.
 *  - EBUSY: UIDGEN_IOC_SET_NODE with a different node ID while one is
 *    already active (an active node ID is never changed under a running
 *    generator: revoke it first).
 *  - ESTALE: UIDGEN_IOC_SET_NODE with a fencing token below the highest
 *    this load has seen, or a renew or revoke whose token or node ID is not
 *    the one in force: the caller's claim was superseded.
 *  - ETIME: UIDGEN_IOC_SET_NODE with a lease deadline that has already
 *    passed.
 *  - EOVERFLOW: the timestamp field is exhausted for this layout and epoch
 *    (the module never wraps it); or a floor leaves no tick before it is.
 *  - EAGAIN: the file was opened O_NONBLOCK and the slot would have to
 *    wait, for a later tick or for the grant to be raised, before it could
 *    issue the next ID.
 *  - EINTR: a signal arrived while waiting for the next tick or for the
 *    grant (with SA_RESTART the call is restarted instead).
 *
 * Short returns. read() and UIDGEN_IOC_BATCH store IDs in chunks; once
 * some IDs are stored, a later failure ends the call early and it returns
 * what it stored instead of the errno: a signal (EINTR), O_NONBLOCK with
 * the slot spent (EAGAIN), a revoke or lease deadline in the middle of the
 * call (EADDRNOTAVAIL), a fault part way through the buffer (EFAULT), the
 * timestamp field running out (EOVERFLOW). Every ID returned is valid;
 * the next call reports the condition, if it persists.
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
 * stored, which is also written back to @count. It may store fewer than
 * asked: see "Short returns" above; if it stored none, it fails with the
 * errno instead. A batch may span ticks: when a tick's sequence numbers
 * run out, the caller sleeps until the next tick.
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

/* struct uidgen_info.node_id while no node ID is set. */
#define UIDGEN_NODE_NONE	0xffffffffU

/* struct uidgen_info.node_state */
#define UIDGEN_NODE_STATE_NONE		0	/* no node ID: nothing issued */
#define UIDGEN_NODE_STATE_PENDING	1	/* set, floor unknown: nothing issued */
#define UIDGEN_NODE_STATE_ACTIVE	2	/* IDs are issued under it */

/**
 * struct uidgen_info - ioctl(UIDGEN_IOC_INFO)
 * @size: in: sizeof(struct uidgen_info) as the caller knows it, at least
 *        48 (UIDGEN_INFO_SIZE_VER0); out: how many bytes the kernel filled,
 *        the smaller of the caller's size and its own
 * @flags: in: must be 0
 * @version: out: module version, (major << 16) | (minor << 8) | patch
 * @node_id: out: the node ID set (pending or active), or UIDGEN_NODE_NONE
 * @ts_bits: out: width of the timestamp field
 * @node_bits: out: width of the node field
 * @slot_bits: out: width of the slot field
 * @seq_bits: out: width of the sequence field
 * @nr_slots: out: number of slots, 1 << @slot_bits
 * @tick_us: out: length of one timestamp tick, in microseconds
 * @epoch_ms: out: Unix time in milliseconds of timestamp 0
 * @node_state: out (1.4): UIDGEN_NODE_STATE_NONE, _PENDING or _ACTIVE
 * @__reserved: out (1.4): 0
 * @floor_ms: out (1.4): the floor in force, Unix ms (0: none): no tick
 *            containing it or earlier is issued by this load
 * @grant_ms: out (1.4): the grant in force, Unix ms: no tick after the
 *            one containing it is issued; 0 while there is no grant limit
 * @deadline_ns: out (1.4): the lease deadline, in the caller's
 *               CLOCK_BOOTTIME ns, at which the kernel revokes the node ID
 *               by itself; 0 for none
 * @token: out (1.4): the fencing token of the node ID in force (0: none)
 * @high_water_ms: out (1.4): Unix ms at which the highest tick issued so
 *                 far ends (0 before any): a floor for the next load that
 *                 covers every ID issued until now
 *
 * Everything a program needs to decode an ID: the timestamp of @id is
 * ``id >> (node_bits + slot_bits + seq_bits)`` ticks after @epoch_ms.
 * A program built against 1.3 passes 48 and gets the first eleven fields.
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
	__u32 node_state;
	__u32 __reserved;
	__aligned_u64 floor_ms;
	__aligned_u64 grant_ms;
	__aligned_u64 deadline_ns;
	__aligned_u64 token;
	__aligned_u64 high_water_ms;
};

#define UIDGEN_INFO_SIZE_VER0	48	/* 1.3: up to epoch_ms */
#define UIDGEN_INFO_SIZE_VER1	96	/* 1.4: the node's floor, grant, lease */

/* struct uidgen_node.flags */
#define UIDGEN_NODE_REVOKE	0x1U	/* revoke the node ID in force */
#define UIDGEN_NODE_NEW		0x2U	/* assign: it never issued an ID */
#define UIDGEN_NODE_FLOOR	0x4U	/* assign: @floor_ms is its floor */
#define UIDGEN_NODE_RENEW	0x8U	/* raise the grant, move the deadline */

/**
 * struct uidgen_node - ioctl(UIDGEN_IOC_SET_NODE)
 * @size: in: sizeof(struct uidgen_node): 16 (UIDGEN_NODE_SIZE_VER0, 1.3)
 *        or 48 (UIDGEN_NODE_SIZE_VER1, 1.4)
 * @flags: in: what to do: UIDGEN_NODE_NEW or UIDGEN_NODE_FLOOR to assign,
 *         UIDGEN_NODE_RENEW, or UIDGEN_NODE_REVOKE
 * @node_id: in: the node ID, below 1 << node_bits; with
 *           UIDGEN_NODE_REVOKE, UIDGEN_NODE_NONE or the node ID in force
 * @__reserved: in: must be 0
 * @floor_ms: in (1.4), with UIDGEN_NODE_FLOOR: Unix ms at or after the end
 *            of every tick ever issued under @node_id; the tick containing
 *            it and all earlier ones are never issued again
 * @grant_ms: in (1.4): Unix ms up to which (the tick containing it
 *            included) the kernel may issue, because that much is already
 *            persisted as the next start's floor; 0 leaves the grant as it
 *            is (at assignment: no grant limit). Grants only rise: a lower
 *            one than in force is ignored
 * @deadline_ns: in (1.4): the caller's CLOCK_BOOTTIME, in ns, at which the
 *               kernel revokes the node ID by itself (a lease's end); 0
 *               leaves it as it is (at assignment: none). One already
 *               past is ETIME, whatever is in force: a request is checked
 *               before the node's state (EADDRNOTAVAIL, ESTALE, EBUSY)
 * @token: in (1.4): fencing token of the claim behind this call (0: none).
 *         A new assignment needs a token above the highest this load has
 *         seen, else ESTALE; an equal one is accepted only to assign the
 *         node ID in force, with that very token, again. A renew or revoke
 *         with a non-zero token must carry the token in force
 *
 * Assigns this machine's node ID, or renews or revokes it. Needs
 * CAP_SYS_ADMIN. "Persist before you issue": an assignment must say where
 * the node ID's history ends, with UIDGEN_NODE_FLOOR (its floor) or
 * UIDGEN_NODE_NEW (it never issued); one without either is refused
 * (EINVAL), since the kernel never guesses a floor. Node ID, floor, grant,
 * deadline and token take effect in one step, before any ID can be issued
 * under the node ID. Assigning the ID in force again raises its floor and
 * grant, and changes nothing else; assigning another one fails with EBUSY
 * until the current one is revoked. A node ID set by the node_id module
 * parameter or sysfs is pending (ENODATA) until an assignment like this
 * one, or its floor through the floor_ms parameter, completes it.
 *
 * Once a grant is set, no tick after it is issued: callers that reach it
 * wait (EAGAIN with O_NONBLOCK) until a renew raises it. At the deadline
 * the kernel revokes the node ID as UIDGEN_NODE_REVOKE would, and no ID is
 * issued under it from that instant on, whoever is late to run.
 *
 * Revoking is a fence: when the ioctl returns, no ID carrying the revoked
 * node ID will leave the kernel, including from calls that were already
 * running. Revoking when none is set succeeds (and clears a pending one).
 * After a new assignment every slot starts in a tick after the last one it
 * used, so per-slot order holds across the change.
 */
struct uidgen_node {
	__u32 size;
	__u32 flags;
	__u32 node_id;
	__u32 __reserved;
	__aligned_u64 floor_ms;
	__aligned_u64 grant_ms;
	__aligned_u64 deadline_ns;
	__aligned_u64 token;
};

#define UIDGEN_NODE_SIZE_VER0	16	/* 1.3: assign (with NEW) and revoke */
#define UIDGEN_NODE_SIZE_VER1	48	/* 1.4: floor, grant, deadline, token */

/**
 * struct uidgen_reserve - ioctl(UIDGEN_IOC_RESERVE)
 * @size: in: sizeof(struct uidgen_reserve)
 * @flags: in: must be 0
 * @count: in/out: number of IDs wanted, 1 to ``1 << seq_bits``; on return,
 *         the number of IDs in the run
 * @fence: out: the fence generation the run was reserved under (see
 *         struct uidgen_page)
 * @first: out: the first ID of the run
 * @expires_ns: out: the time, in the caller's CLOCK_BOOTTIME ns (its time
 *              namespace's, since 1.4), at which the run's tick ends
 *
 * Reserves a run of consecutive IDs, @first to @first + @count - 1, from
 * the calling CPU's slot, and returns only its bounds: the caller mints
 * the IDs itself, with no copy. The run never crosses a tick, so it may be
 * shorter than asked: it is what is left of the current tick's sequence
 * numbers (or, with max_borrow_ticks, of a tick ahead). When nothing is
 * left the caller sleeps until the next tick (or the grant rises), as with
 * UIDGEN_IOC_BATCH (EINTR, or EAGAIN with O_NONBLOCK). On success the
 * ioctl returns @count.
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
 *         revoked (by an administrator, at the lease deadline or on a VM
 *         fork), before the revoke returns
 *
 * ``mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0)`` on a descriptor
 * opened O_RDONLY. A program that caches runs from UIDGEN_IOC_RESERVE
 * compares @fence with the run's before handing out each ID, so a revoke
 * reaches cached runs too. The rest of the page is zero and reserved:
 * later versions may put more fields after @fence, never change it.
 * Errors: EACCES for PROT_WRITE or a descriptor open for writing, EINVAL
 * for MAP_PRIVATE, a non-zero offset or more than one page.
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
