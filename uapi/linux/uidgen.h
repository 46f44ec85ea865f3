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
 * The four widths add up to 63. The timestamp counts ticks of tick_ns
 * nanoseconds since epoch_unix_ns. The widths, the tick and the epoch are
 * fixed when the module is loaded: read them with UIDGEN_IOC_INFO.
 */
#define UIDGEN_ID_BITS			63

/**
 * DOC: General ioctl format and errnos
 *
 * Each ioctl takes a pointer to a structure whose first __u32 is its size
 * and whose second __u32 is a flags word. The size must cover the whole
 * structure as this header first defined it; a larger structure, from a
 * program built against a later header, is accepted if every byte the
 * kernel does not know is zero. Fields named __reserved must be zero.
 * Times are in nanoseconds, and each field's name says on which clock:
 * _unix_ns is CLOCK_REALTIME (ns since the Unix epoch), _boot_ns the
 * caller's CLOCK_BOOTTIME (its time namespace's).
 *
 * The errnos below mean the same thing for every uidgen ioctl and for read():
 *
 *  - ENOTTY: the ioctl number is not a uidgen ioctl.
 *  - EOPNOTSUPP: a flags bit this kernel does not know is set.
 *  - EINVAL: size is smaller than the structure, a __reserved field is not
 *    zero, a field's value is outside what the call takes (a count of 0 or
 *    above its maximum, a floor with UIDGEN_ASSIGN_NEW or none without, a
 *    deadline beyond what a clock can reach: above 2^63 - 1), or a read()
 *    buffer is shorter than one ID (8 bytes).
 *  - E2BIG: the structure is larger than the kernel knows and the part it
 *    does not know is not zero.
 *  - EFAULT: a pointer (the argument, or the ID array) is not valid,
 *    writable user memory. IDs minted for a copy that faulted are never
 *    handed out: they leave a gap, never a duplicate.
 *  - EADDRNOTAVAIL: no node ID is in force, so no ID can be issued: none
 *    was assigned since the module was loaded (it loads with none), or it
 *    was revoked (by an administrator, by the lease deadline passing, or
 *    because the kernel saw this VM forked or restored from a snapshot).
 *    UIDGEN_IOC_ASSIGN assigns one.
 *  - EPERM: UIDGEN_IOC_ASSIGN, _RENEW or _REVOKE without CAP_SYS_ADMIN,
 *    checked before any field of the call.
 *  - ERANGE: UIDGEN_IOC_ASSIGN with a node ID that does not fit node_bits.
 *  - EBUSY: UIDGEN_IOC_ASSIGN of another node ID while one is in force
 *    (a node ID is never changed under a running generator: revoke it
 *    first).
 *  - ESTALE: a fencing token below the highest this load has seen, or an
 *    assignment, renew or revoke whose token or node ID is not the one in
 *    force (token 0 while a claim held under a token is in force
 *    included): the caller's claim was superseded, or was never the one
 *    in force.
 *  - ETIME: UIDGEN_IOC_ASSIGN or _RENEW with a lease deadline that has
 *    already passed, whatever node ID is in force.
 *  - EOVERFLOW: the timestamp field is exhausted for this layout and epoch
 *    (the module never wraps it); or a floor leaves no tick after it.
 *  - EDOM: UIDGEN_IOC_ASSIGN with a floor further ahead of this machine's
 *    clock than UIDGEN_FLOOR_AHEAD_MAX_NS: the clock or the floor is wrong.
 *  - EAGAIN: the file was opened O_NONBLOCK and the slot would have to
 *    wait, for a later tick or for the grant to be raised, before it could
 *    issue the next ID.
 *  - EINTR: a signal arrived while waiting for the next tick or for the
 *    grant (with SA_RESTART the call is restarted instead).
 *  - EDOM: UIDGEN_IOC_OBSERVE with an ID whose tick begins more than
 *    the module's observe_ahead_ms after this machine's clock: refused,
 *    counted (observe_refused in sysfs), nothing changed.
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
 * stored, which is also written back to @count if that memory is
 * writable (the return value is what counts: IDs stored are never taken
 * back). It may store fewer than asked: see "Short returns" above; if it
 * stored none, it fails with the errno instead. A batch may span ticks:
 * when a tick's sequence numbers run out, the caller sleeps until the
 * next tick.
 *
 * BATCH does what read() of 8 * @count bytes does, with the same errnos
 * and short returns; it stays for programs built against uidgen 2.0.
 * New code uses read().
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

/* No node ID: in struct uidgen_info.node_id, and for UIDGEN_IOC_REVOKE. */
#define UIDGEN_NODE_NONE	0xffffffffU

/* struct uidgen_info.node_state */
#define UIDGEN_NODE_STATE_NONE		0	/* no node ID: nothing issued */
#define UIDGEN_NODE_STATE_ACTIVE	1	/* IDs are issued under it */

/**
 * struct uidgen_info - ioctl(UIDGEN_IOC_INFO)
 * @size: in: sizeof(struct uidgen_info) as the caller knows it; out: how
 *        many bytes the kernel filled, the smaller of that and its own
 * @flags: in: must be 0
 * @node_id: out: the node ID in force, or UIDGEN_NODE_NONE
 * @node_state: out: UIDGEN_NODE_STATE_NONE or _ACTIVE
 * @ts_bits: out: width of the timestamp field
 * @node_bits: out: width of the node field
 * @slot_bits: out: width of the slot field
 * @seq_bits: out: width of the sequence field
 * @nr_slots: out: number of slots, 1 << @slot_bits
 * @__reserved: in: must be 0; out: 0
 * @tick_ns: out: length of one timestamp tick
 * @epoch_unix_ns: out: the Unix time of timestamp 0
 * @floor_unix_ns: out: the floor in force (0: none): no tick containing
 *                 it or an earlier time is issued by this load
 * @grant_unix_ns: out: the end of the last tick that may be issued until
 *                 the grant is raised; 0 while there is no grant limit
 * @deadline_boot_ns: out: the lease deadline, at which the kernel revokes
 *                    the node ID by itself; 0 for none
 * @token: out: the fencing token of the node ID in force (0: none)
 * @high_water_unix_ns: out: the end of the highest tick issued so far (0
 *                      before any): a floor for the next load that covers
 *                      every ID issued until now
 *
 * Everything a program needs to decode an ID: the timestamp of @id is
 * ``id >> (node_bits + slot_bits + seq_bits)`` ticks of @tick_ns after
 * @epoch_unix_ns.
 */
struct uidgen_info {
	__u32 size;
	__u32 flags;
	__u32 node_id;
	__u32 node_state;
	__u32 ts_bits;
	__u32 node_bits;
	__u32 slot_bits;
	__u32 seq_bits;
	__u32 nr_slots;
	__u32 __reserved;
	__aligned_u64 tick_ns;
	__aligned_u64 epoch_unix_ns;
	__aligned_u64 floor_unix_ns;
	__aligned_u64 grant_unix_ns;
	__aligned_u64 deadline_boot_ns;
	__aligned_u64 token;
	__aligned_u64 high_water_unix_ns;
};

/**
 * DOC: The node ID's life
 *
 * Three ioctls, each needing CAP_SYS_ADMIN, assign the node ID the IDs
 * carry, renew its lease and revoke it; nothing else does (the module
 * loads with no node ID). "Persist before you issue": an
 * assignment says where the node ID's history ends, with its floor or
 * with UIDGEN_ASSIGN_NEW (it never issued an ID anywhere); the kernel
 * never guesses a floor. Node ID, floor, grant, deadline and token take
 * effect in one step, before any ID can be issued under the node ID.
 *
 * Once a grant is set, no tick after it is issued: callers that reach it
 * wait (EAGAIN with O_NONBLOCK) until a renew raises it. At the deadline
 * the kernel revokes the node ID as UIDGEN_IOC_REVOKE would, and no ID is
 * issued under it from that instant on, whoever is late to run.
 *
 * Tokens fence claims. A new assignment needs a token above the highest
 * this load has seen, else ESTALE; an equal one is accepted only to assign
 * the node ID in force, with that very token, again. A renew or revoke
 * must carry the token in force: 0 for a node ID assigned without one.
 * Token 0 claims nothing: while a claim held under a token is in force,
 * an assignment, renew or revoke with token 0 is ESTALE, so an untokened
 * caller can neither extend nor end it. UIDGEN_REVOKE_FORCE is the
 * administrator's override: it revokes whatever is in force and forgets
 * the highest token seen, as unloading the module would.
 *
 * Each call checks the caller's privilege (EPERM) first, then its request
 * (EOPNOTSUPP, EINVAL, ERANGE, ETIME, EDOM), then the node's state
 * (EADDRNOTAVAIL, ESTALE, EBUSY); a lease whose deadline has passed is
 * revoked before either, so no answer depends on whether the kernel's own
 * expiry has run yet.
 */

/*
 * The furthest ahead a floor may end: UIDGEN_IOC_ASSIGN refuses with EDOM
 * a floor more than this after the wall clock at load (run on by
 * CLOCK_BOOTTIME since). A floor ahead of the clock is normal: a grant
 * persisted ahead before a crash (uidgen state keep's --ahead-ms, 60 s by
 * default, once per crash in a row), a previous holder whose clock was a
 * little ahead. One a day or more ahead is a clock or a file that is
 * wrong: taken, it would hold every timestamp ahead for 16 times as long
 * while the ID clock heals, and the high water would carry it into the
 * next load's floor. Fix the clock, or the floor, and assign again.
 */
#define UIDGEN_FLOOR_AHEAD_MAX_NS	(24ULL * 3600 * 1000000000)

/* struct uidgen_assign.flags */
#define UIDGEN_ASSIGN_NEW	0x1U	/* the node ID never issued: no floor */

/**
 * struct uidgen_assign - ioctl(UIDGEN_IOC_ASSIGN)
 * @size: in: sizeof(struct uidgen_assign)
 * @flags: in: 0, or UIDGEN_ASSIGN_NEW for a node ID that never issued
 * @node_id: in: the node ID, below 1 << node_bits
 * @__reserved: in: must be 0
 * @floor_unix_ns: in: without UIDGEN_ASSIGN_NEW, a Unix time at or after
 *                 the end of every tick ever issued under @node_id: the
 *                 tick containing it and all earlier ones are never issued
 *                 again; with UIDGEN_ASSIGN_NEW, must be 0
 * @grant_unix_ns: in: a Unix time up to which (the tick containing it
 *                 included) the kernel may issue, because that much is
 *                 already persisted as the next start's floor; 0 for no
 *                 grant limit
 * @deadline_boot_ns: in: the caller's CLOCK_BOOTTIME at which the kernel
 *                    revokes the node ID by itself (a lease's end); 0 for
 *                    none
 * @token: in: fencing token of the claim behind this call (0: none)
 *
 * Assigning the node ID in force again raises its floor and grant, moves a
 * non-zero deadline and changes nothing else; assigning another one fails
 * with EBUSY until the current one is revoked. A new node ID starts every
 * slot in a tick after the last one it used, so per-slot order holds
 * across the change.
 */
struct uidgen_assign {
	__u32 size;
	__u32 flags;
	__u32 node_id;
	__u32 __reserved;
	__aligned_u64 floor_unix_ns;
	__aligned_u64 grant_unix_ns;
	__aligned_u64 deadline_boot_ns;
	__aligned_u64 token;
};

/**
 * struct uidgen_renew - ioctl(UIDGEN_IOC_RENEW)
 * @size: in: sizeof(struct uidgen_renew)
 * @flags: in: must be 0
 * @node_id: in: the node ID in force
 * @__reserved: in: must be 0
 * @grant_unix_ns: in: raise the grant to it; 0 leaves it as it is.
 *                 Grants only rise: a lower one than in force is ignored
 * @deadline_boot_ns: in: move the lease deadline to it; 0 leaves it
 * @token: in: 0, or the token in force
 *
 * Errors besides the general ones: EADDRNOTAVAIL if no node ID is in
 * force, ESTALE if @node_id or @token is not the one in force, ETIME for
 * a deadline already past (checked first).
 */
struct uidgen_renew {
	__u32 size;
	__u32 flags;
	__u32 node_id;
	__u32 __reserved;
	__aligned_u64 grant_unix_ns;
	__aligned_u64 deadline_boot_ns;
	__aligned_u64 token;
};

/* struct uidgen_revoke.flags */
#define UIDGEN_REVOKE_FORCE	0x1U	/* any claim; forget the highest token */

/**
 * struct uidgen_revoke - ioctl(UIDGEN_IOC_REVOKE)
 * @size: in: sizeof(struct uidgen_revoke)
 * @flags: in: 0, or UIDGEN_REVOKE_FORCE
 * @node_id: in: UIDGEN_NODE_NONE (whatever is in force), or the node ID
 *           in force
 * @__reserved: in: must be 0
 * @token: in: the token in force (0 for a node ID assigned without one)
 *
 * Revoking is a fence: when the ioctl returns, no ID carrying the revoked
 * node ID will leave the kernel, including from calls that were already
 * running, and struct uidgen_page.fence has moved. Revoking when none is
 * in force succeeds, and moves the fence all the same. ESTALE if @node_id
 * or @token is not the one in force (a lease that ended is not). With
 * UIDGEN_REVOKE_FORCE, @node_id and @token are not checked, and the
 * highest token this load has seen is forgotten: the next assignment may
 * carry any token, as after a reload.
 */
struct uidgen_revoke {
	__u32 size;
	__u32 flags;
	__u32 node_id;
	__u32 __reserved;
	__aligned_u64 token;
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
 * @expires_boot_ns: out: the caller's CLOCK_BOOTTIME at which the run's
 *                   tick ends (or the lease deadline, if sooner)
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
 * past @expires_boot_ns (plus whatever staleness it accepts), and as soon as
 * struct uidgen_page.fence differs from @fence.
 */
struct uidgen_reserve {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 fence;
	__aligned_u64 first;
	__aligned_u64 expires_boot_ns;
};

/**
 * struct uidgen_page - the read-only page mmap() of /dev/uid maps
 * @fence: the fence generation: it changes every time the node ID is
 *         revoked (by an administrator, at the lease deadline or on a VM
 *         fork), before the revoke returns
 * @__reserved: 0
 * @observed: the highest ID UIDGEN_IOC_OBSERVE accepted since the module
 *            was loaded (0: none), raised before the ioctl returns
 *
 * ``mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0)`` on a descriptor
 * opened O_RDONLY. A program that caches runs from UIDGEN_IOC_RESERVE
 * compares @fence with the run's before handing out each ID, so a revoke
 * reaches cached runs too, and hands out an ID only if it is greater than
 * @observed (read as one 64-bit load, with acquire ordering), so an
 * observe does. The rest of the page is zero and reserved: later versions
 * may put more fields after @observed, never change those before.
 * Errors: EACCES for PROT_WRITE or a descriptor open for writing, EINVAL
 * for MAP_PRIVATE, a non-zero offset or more than one page.
 */
struct uidgen_page {
	__u32 fence;
	__u32 __reserved;
	__aligned_u64 observed;
};

/**
 * DOC: Causal order: observing an ID
 *
 * IDs from one slot ascend; IDs from different machines are only ordered
 * as far as their clocks agree. UIDGEN_IOC_OBSERVE orders them along
 * happened-before: a program that received an ID (of this layout, from
 * any machine) observes it before minting what answers it, and every ID
 * this machine mints from then on is greater.
 */

/**
 * struct uidgen_observe - ioctl(UIDGEN_IOC_OBSERVE)
 * @size: in: sizeof(struct uidgen_observe)
 * @flags: in: must be 0
 * @id: in: the ID seen, of this layout; bit 63 must be 0
 *
 * When the ioctl returns 0, every ID this machine issues from then on
 * (read(), UIDGEN_IOC_BATCH, UIDGEN_IOC_RESERVE, from every slot and
 * process, under any node ID) is in a later tick than @id, so greater;
 * and struct uidgen_page.observed is at least @id, which caches of
 * reserved runs compare. Calls that were already running when it
 * returned are concurrent with it and may return IDs below @id.
 *
 * If @id's tick is the current one or later, the ID clock moves forward
 * so that it reads the tick after @id's; the lead heals as a floor's does
 * (the ID clock runs at 15/16 of real time until it is back on its
 * anchor). The grant still holds: a tick after it waits for the grant to
 * rise. An ID from an earlier tick moves nothing but @observed.
 *
 * Errors besides the general ones: EINVAL for bit 63 set; EDOM if @id's
 * tick begins more than observe_ahead_ms (a module parameter) after this
 * machine's clock (the ID clock's anchor, without any lead), counted and
 * not applied; EOVERFLOW if @id's tick is the last the timestamp field
 * holds. No node ID need be in force, and no privilege beyond the open
 * file is needed.
 */
struct uidgen_observe {
	__u32 size;
	__u32 flags;
	__aligned_u64 id;
};

/*
 * The ioctl type, 0xB9 sequence numbers 0x00-0x1F, is registered for
 * uidgen in Documentation/userspace-api/ioctl/ioctl-number.rst. Numbers
 * not defined here are reserved for later uidgen ioctls.
 */
#define UIDGEN_IOC_TYPE		0xB9

#define UIDGEN_IOC_BATCH	_IO(UIDGEN_IOC_TYPE, 0x01)
#define UIDGEN_IOC_INFO		_IO(UIDGEN_IOC_TYPE, 0x02)
#define UIDGEN_IOC_RESERVE	_IO(UIDGEN_IOC_TYPE, 0x03)
#define UIDGEN_IOC_ASSIGN	_IO(UIDGEN_IOC_TYPE, 0x04)
#define UIDGEN_IOC_RENEW	_IO(UIDGEN_IOC_TYPE, 0x05)
#define UIDGEN_IOC_REVOKE	_IO(UIDGEN_IOC_TYPE, 0x06)
#define UIDGEN_IOC_OBSERVE	_IO(UIDGEN_IOC_TYPE, 0x07)

#endif /* _UAPI_LINUX_UIDGEN_H */
