// SPDX-License-Identifier: GPL-2.0
/*
 * The minting path: read() of /dev/uid, and the IDs UIDGEN_IOC_BATCH and
 * UIDGEN_IOC_RESERVE hand out (dev.c checks their arguments and calls in
 * here); waiting for the next tick or for the grant.
 *
 * Minting happens in short sections that cannot sleep or fault: an
 * RCU-sched read-side critical section (preemption off, which the node's
 * revoke waits out, see node.c) with page faults disabled. IDs are stored
 * straight into the caller's buffer; if the buffer is not resident, the
 * store stops, the section ends, the buffer is faulted in outside it and
 * the call goes on with fresh IDs. IDs minted for a store that faulted are
 * never handed out: a gap, never a duplicate. So a buffer backed by FUSE
 * or userfaultfd delays only its own caller, never a revoke.
 *
 * Every function here is passed the device (struct uidgen_device, from
 * the open file's private_data): its generator, node and counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <linux/time_namespace.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include <linux/uidgen.h>

#include "gen.h"
#include "internal.h"

/* Most IDs minted per section: one page of them. */
#define UIDGEN_CHUNK		(PAGE_SIZE / sizeof(u64))
/* Check for signals and reschedule after about a page of IDs. */
#define UIDGEN_RESCHED_IDS	(PAGE_SIZE / sizeof(u64))

/*
 * Sleep until @tick begins. The timer runs on CLOCK_BOOTTIME, the clock
 * the ticks come from, so the wall clock stepping cannot stretch the wait.
 */
static int uidgen_wait_tick(const struct uidgen_gen *g, u64 tick)
{
	ktime_t expires = ns_to_ktime(uidgen_tick_start(g, tick));

	set_current_state(TASK_INTERRUPTIBLE);
	schedule_hrtimeout_range_clock(&expires, 0, HRTIMER_MODE_ABS,
				       CLOCK_BOOTTIME);
	return signal_pending(current) ? -ERESTARTSYS : 0;
}

/*
 * Sleep until the grant reaches @tick, or the node ID changes: what
 * userspace has persisted is spent, and issuing more could repeat after a
 * crash. The condition is the grant itself, so a renew between the
 * caller's look and this sleep is not missed.
 */
static int uidgen_wait_grant(struct uidgen_device *ud, u64 tick)
{
	struct uidgen_node_ctl *n = &ud->node;
	u32 node = READ_ONCE(n->node);

	return wait_event_interruptible(n->grant_wq,
			READ_ONCE(ud->gen.grant_tick) >= tick ||
			READ_ONCE(n->node) != node) ? -ERESTARTSYS : 0;
}

/* For uidgen_take(): no slot chosen yet, take the running CPU's. */
#define UIDGEN_ANY_SLOT		UINT_MAX

/*
 * Reserve up to @n IDs from slot *@slot, or with UIDGEN_ANY_SLOT there,
 * from the running CPU's slot, which goes to *@slot: a caller that keeps
 * it for the rest of the call gets IDs that ascend, wherever it runs.
 * Called inside the minting section, which must last until the IDs are
 * out of the kernel. Returns the length of the run, with its first ID in
 * *@id; 0 if the caller must wait for *@wait_tick (UIDGEN_WAIT_GRANT: for
 * the grant); or -EADDRNOTAVAIL, -EOVERFLOW.
 */
static __always_inline int uidgen_take(struct uidgen_device *ud, u32 n,
				       unsigned int *slot, u64 *id,
				       u64 *wait_tick)
{
	struct uidgen_gen *g = &ud->gen;
	u64 boot_ns = ktime_get_boottime_ns();
	u64 now, first;
	u32 node;
	int got;

	now = uidgen_tick(g, boot_ns);
	if (now > g->max_tick)
		return -EOVERFLOW;
	/* Pairs with the release in node.c: the floor and grant come first. */
	node = smp_load_acquire(&ud->node.node);
	/* Past the lease deadline nothing leaves, revoked yet or not. */
	if (node == UIDGEN_NODE_NONE ||
	    boot_ns >= READ_ONCE(ud->node.deadline_boot_ns))
		return -EADDRNOTAVAIL;
	/*
	 * Any slot would be correct (the compare-and-swap sees to that); the
	 * running CPU's own is the one nobody else is using. Chosen after the
	 * clock, so that the call to it keeps fewer registers alive.
	 */
	if (*slot == UIDGEN_ANY_SLOT)
		*slot = raw_smp_processor_id() & (g->nr_slots - 1);
	got = uidgen_reserve(g, &g->slots[*slot], now, n, &first, wait_tick);
	if (got > 0) {
		*id = uidgen_compose(g, first,
				     ((u64)node << g->l.slot_bits) | *slot);
		this_cpu_add(ud->issued[*slot], got);
	}
	return got;
}

/*
 * The minting section: no sleep, no fault, so that a revoke's grace
 * period is over as soon as every CPU has left what it was minting.
 */
static __always_inline void uidgen_enter(void)
{
	/*
	 * RCU-sched: preemption off. A preemptible rcu_read_lock() would let
	 * a reader throttled by its cgroup, or starved as SCHED_IDLE, hold a
	 * grace period, and so a revoke, for as long as the scheduler liked;
	 * and synchronize_rcu() waits for preemption-off regions as well.
	 */
	rcu_read_lock_sched();
	pagefault_disable();
}

static __always_inline void uidgen_leave(void)
{
	pagefault_enable();
	rcu_read_unlock_sched();
}

/*
 * Store @n consecutive IDs from @id at @dst, in one pass with no bounce
 * buffer. Page faults are disabled: returns how many were stored before
 * the first page that is not resident, if any.
 */
static __always_inline unsigned int uidgen_store(u64 __user *dst, u64 id,
						 unsigned int n)
{
	unsigned int i = 0;

	if (!user_access_begin(dst, n * sizeof(u64)))
		return 0;
	for (; i < n; i++)
		unsafe_put_user(id + i, dst + i, fault);
fault:
	user_access_end();
	return i;
}

/*
 * Wait for @wait_tick to come (or the grant to rise), for a caller whose
 * slot @slot is spent. Returns 0 to try again, -EAGAIN or -ERESTARTSYS.
 */
static int uidgen_wait(struct uidgen_device *ud, unsigned int slot,
		       u64 wait_tick, bool nonblock)
{
	if (wait_tick & UIDGEN_WAIT_GRANT) {
		/* Counted, not logged: any reader can get here. */
		atomic64_inc(&ud->node.grant_waits);
		if (nonblock)
			return -EAGAIN;
		return uidgen_wait_grant(ud, wait_tick & ~UIDGEN_WAIT_GRANT);
	}
	if (nonblock)
		return -EAGAIN;
	atomic64_inc(&ud->gen.slots[slot].waits);
	return uidgen_wait_tick(&ud->gen, wait_tick);
}

/*
 * Between chunks: stop for a signal, let others run. Returns 0 or
 * -ERESTARTSYS.
 */
static int uidgen_pause(void)
{
	if (signal_pending(current))
		return -ERESTARTSYS;
	cond_resched();
	return 0;
}

/**
 * uidgen_fill() - Mint IDs into a user buffer.
 * @ud: the device
 * @dst: where to store them
 * @n: how many
 * @nonblock: fail with -EAGAIN rather than wait for a tick or the grant
 *
 * All from one slot, so that they ascend. IDs minted for a store that
 * faulted are dropped: a gap, never a duplicate, since the slot has
 * already moved past them.
 *
 * Context: process; may sleep.
 * Return: how many were stored, or an errno if none were.
 */
long uidgen_fill(struct uidgen_device *ud, u64 __user *dst, size_t n,
		 bool nonblock)
{
	unsigned int slot = UIDGEN_ANY_SLOT, stored = 0;
	size_t done = 0, since_check = 0;
	u64 id, wait_tick;
	long err = 0;
	int got;

	while (done < n) {
		uidgen_enter();
		got = uidgen_take(ud, min_t(size_t, n - done, UIDGEN_CHUNK),
				  &slot, &id, &wait_tick);
		if (got > 0)
			stored = uidgen_store(dst + done, id, got);
		uidgen_leave();

		if (got < 0) {
			err = got;
			break;
		}
		if (!got) {
			err = uidgen_wait(ud, slot, wait_tick, nonblock);
			if (err)
				break;
			continue;
		}
		done += stored;
		if (stored < got) {
			/*
			 * Fault the rest of the chunk in, out of the section,
			 * and go on if at least one more ID fits.
			 */
			size_t len = min_t(size_t, n - done, UIDGEN_CHUNK) *
				     sizeof(u64);

			if (fault_in_safe_writeable((char __user *)(dst + done), len) >
			    len - sizeof(u64)) {
				err = -EFAULT;
				break;
			}
			err = uidgen_pause();
			if (err)
				break;
			continue;
		}
		since_check += got;
		if (since_check >= UIDGEN_RESCHED_IDS && done < n) {
			since_check = 0;
			err = uidgen_pause();
			if (err)
				break;
		}
	}
	return done ? (long)done : err;
}

/*
 * One ID, the commonest read: one section, one store, no loop. Returns
 * true if it stored it; anything else (a wait, an error, a fault) is left
 * to uidgen_fill(), which finds it again (a fault's ID is a gap).
 */
static __always_inline bool uidgen_read_one(struct uidgen_device *ud,
					    u64 __user *dst)
{
	unsigned int slot = UIDGEN_ANY_SLOT;
	u64 id, wait_tick;
	bool done;

	uidgen_enter();
	done = uidgen_take(ud, 1, &slot, &id, &wait_tick) > 0 &&
	       uidgen_store(dst, id, 1) == 1;
	uidgen_leave();
	return done;
}

/**
 * uidgen_read() - read() of /dev/uid: as many whole IDs as fit.
 * @file: the open device
 * @ubuf: the caller's buffer
 * @len: its length, at least one ID's
 * @ppos: unused: the device is not seekable
 *
 * Context: process; may sleep.
 * Return: the bytes stored, or an errno if none were.
 */
ssize_t uidgen_read(struct file *file, char __user *ubuf, size_t len,
		    loff_t *ppos)
{
	struct uidgen_device *ud = uidgen_file_dev(file);
	long ret;

	if (len < sizeof(u64))
		return -EINVAL;
	if (len < 2 * sizeof(u64) && uidgen_read_one(ud, (u64 __user *)ubuf))
		return sizeof(u64);
	ret = uidgen_fill(ud, (u64 __user *)ubuf, len / sizeof(u64),
			  file->f_flags & O_NONBLOCK);
	return ret < 0 ? ret : ret * sizeof(u64);
}

/**
 * uidgen_reserve_once() - Reserve one run of IDs for UIDGEN_IOC_RESERVE.
 * @ud: the device
 * @uarg: the caller's struct, where the run's bounds go
 * @r: the request, checked: @r->count IDs at most
 * @nonblock: fail with -EAGAIN rather than wait for a tick or the grant
 *
 * Copies the run's bounds out inside the minting section, so that a revoke
 * cannot return while the run is on its way out.
 *
 * Context: process; may sleep.
 * Return: the run's length; 0 to retry (a fault, or a wait done); or an
 * errno.
 */
long uidgen_reserve_once(struct uidgen_device *ud,
			 struct uidgen_reserve __user *uarg,
			 struct uidgen_reserve *r, bool nonblock)
{
	struct uidgen_gen *g = &ud->gen;
	unsigned int shift = g->l.node_bits + g->l.slot_bits + g->l.seq_bits;
	unsigned int slot = UIDGEN_ANY_SLOT;
	/* The caller's CLOCK_BOOTTIME may be offset by its time namespace. */
	u64 ns_off = timens_add_boottime_ns(0);
	unsigned long left = 0;
	u64 wait_tick;
	int got;

	uidgen_enter();
	got = uidgen_take(ud, r->count, &slot, &r->first, &wait_tick);
	if (got > 0) {
		r->fence = READ_ONCE(ud->node.page->fence);
		r->count = got;
		/* A cache stops at the lease deadline too, if sooner. */
		r->expires_boot_ns =
			min(uidgen_tick_start(g, (r->first >> shift) + 1),
			    READ_ONCE(ud->node.deadline_boot_ns)) + ns_off;
		left = __copy_to_user_inatomic(uarg, r, sizeof(*r));
	}
	uidgen_leave();

	if (got < 0)
		return got;
	if (!got)
		return uidgen_wait(ud, slot, wait_tick, nonblock);
	if (!left)
		return got;
	/* The run is a gap; fault the argument in and take another. */
	if (fault_in_safe_writeable((char __user *)uarg, sizeof(*r)))
		return -EFAULT;
	return uidgen_pause();
}
