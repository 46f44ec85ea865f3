// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen: the /dev/uid character device, its ioctls, module parameters, sysfs
 * and debugfs files.
 *
 * All the arithmetic lives in gen.c; this file turns file operations into
 * calls on the generator, copies IDs out to userspace and keeps the node
 * ID: who may set it, and the fence that makes revoking it take effect.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cdev.h>
#include <linux/compat.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/percpu-rwsem.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include <linux/uidgen.h>

#include "compat.h"
#include "gen.h"
#include "internal.h"

#define UIDGEN_VERSION_MAJOR	1
#define UIDGEN_VERSION_MINOR	3
#define UIDGEN_VERSION_PATCH	0
#define UIDGEN_VERSION_STR	"1.3.0"

/* Most IDs minted per reservation: one page of them. */
#define UIDGEN_CHUNK		(PAGE_SIZE / sizeof(u64))
/* Check for signals and reschedule after about a page of IDs. */
#define UIDGEN_RESCHED_IDS	(PAGE_SIZE / sizeof(u64))
#define UIDGEN_MS_PER_DAY	(86400ULL * MSEC_PER_SEC)

static unsigned int ts_bits = UIDGEN_DEFAULT_TS_BITS;
module_param(ts_bits, uint, 0444);
MODULE_PARM_DESC(ts_bits, "Width of the timestamp field (20..60, default 41)");

static unsigned int node_bits = UIDGEN_DEFAULT_NODE_BITS;
module_param(node_bits, uint, 0444);
MODULE_PARM_DESC(node_bits, "Width of the node field (0..20, default 5)");

static unsigned int slot_bits = UIDGEN_DEFAULT_SLOT_BITS;
module_param(slot_bits, uint, 0444);
MODULE_PARM_DESC(slot_bits, "Width of the per-CPU slot field (0..10, default 5)");

static unsigned int seq_bits = UIDGEN_DEFAULT_SEQ_BITS;
module_param(seq_bits, uint, 0444);
MODULE_PARM_DESC(seq_bits, "Width of the sequence field (1..30, default 12)");

static unsigned int tick_us = UIDGEN_DEFAULT_TICK_US;
module_param(tick_us, uint, 0444);
MODULE_PARM_DESC(tick_us, "Length of a timestamp tick in us (1..60000000, default 1000)");

static unsigned long long epoch_ms = UIDGEN_DEFAULT_EPOCH_MS;
module_param(epoch_ms, ullong, 0444);
MODULE_PARM_DESC(epoch_ms, "Unix time in ms of timestamp 0 (default 1767225600000, 2026-01-01T00:00:00Z)");

static unsigned int min_life_days = 30;
module_param(min_life_days, uint, 0444);
MODULE_PARM_DESC(min_life_days, "Refuse a layout whose timestamp field runs out sooner (default 30)");

/*
 * Who may open /dev/uid. Reading IDs needs no privilege, as reading
 * /dev/urandom does not: IDs are not secret. But every reader draws on
 * its CPU's slot, so a reader in a loop can use up each tick's sequence
 * and make other callers on that CPU wait for the next tick. That costs
 * time, never a duplicate. Where local users are not trusted with that,
 * give the device to a group: dev_mode=0440 dev_gid=GID.
 */
static unsigned int uidgen_dev_mode = 0444;
static unsigned int uidgen_dev_gid;

static int uidgen_dev_mode_set(const char *val, const struct kernel_param *kp)
{
	unsigned int mode;

	if (kstrtouint(val, 8, &mode) || !mode || mode & ~0444U) {
		pr_err("dev_mode=%s: give read bits in octal, 0400 to 0444; /dev/uid cannot be written\n",
		       val);
		return -EINVAL;
	}
	uidgen_dev_mode = mode;
	return 0;
}

static int uidgen_dev_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%04o\n", uidgen_dev_mode);
}

static const struct kernel_param_ops uidgen_dev_mode_ops = {
	.set	= uidgen_dev_mode_set,
	.get	= uidgen_dev_mode_get,
};
module_param_cb(dev_mode, &uidgen_dev_mode_ops, NULL, 0444);
MODULE_PARM_DESC(dev_mode, "Permissions of /dev/uid in octal, read bits only (default 0444)");
module_param_named(dev_gid, uidgen_dev_gid, uint, 0444);
MODULE_PARM_DESC(dev_gid, "Group ID that owns /dev/uid (default 0)");

static struct uidgen_gen uidgen;

/*
 * The node ID, or -1 while none is assigned. Changed only under
 * uidgen_node_lock, and revoked only with uidgen_fence_sem held for
 * writing. Every chunk of IDs is minted and copied out with
 * uidgen_fence_sem held for reading: a per-CPU count, with no barrier and
 * no shared cache line, so readers pay almost nothing and a revoke waits
 * for every chunk that saw the old node ID.
 */
static int uidgen_node = -1;
static DEFINE_MUTEX(uidgen_node_lock);
DEFINE_STATIC_PERCPU_RWSEM(uidgen_fence_sem);
/* IDs issued, per CPU and slot: [cpu][slot]. */
static u64 __percpu *uidgen_issued;
/*
 * The page mmap() maps: its fence changes on every revoke, so that runs
 * cached in userspace (UIDGEN_IOC_RESERVE) stop being handed out too.
 */
static struct page *uidgen_page;
static struct uidgen_page *uidgen_shared;
/* Set once the layout is validated: parameters can be checked against it. */
static bool uidgen_live;
/* Load-time floor_ms, applied by uidgen_init(). */
static u64 uidgen_floor_ms;

/**
 * uidgen_current_node() - The node ID IDs are issued under now.
 *
 * Context: any.
 * Return: the node ID, or -1 if none is assigned.
 */
int uidgen_current_node(void)
{
	return READ_ONCE(uidgen_node);
}

/**
 * uidgen_assign_node() - Assign the node ID.
 * @node: the node ID, below 1 << node_bits
 *
 * Context: process; takes uidgen_node_lock.
 * Return: 0 (also if @node is already assigned), -ERANGE if @node does not
 * fit, -EBUSY if another node ID is assigned.
 */
int uidgen_assign_node(u32 node)
{
	int ret = 0;

	mutex_lock(&uidgen_node_lock);
	if (node >= (1ULL << uidgen.l.node_bits)) {
		ret = -ERANGE;
	} else if (uidgen_node >= 0 && (u32)uidgen_node != node) {
		ret = -EBUSY;
	} else if (uidgen_node < 0) {
		/* IDs under the new node start in a tick no slot used yet. */
		uidgen_fence_slots(&uidgen);
		WRITE_ONCE(uidgen_node, node);
		pr_info("node ID %u assigned\n", node);
	}
	mutex_unlock(&uidgen_node_lock);
	return ret;
}

/*
 * Stop issuing under the current node ID. Once this returns, no ID with
 * that node ID will leave the kernel: taking uidgen_fence_sem for writing
 * waits for every chunk in flight to be copied out (or dropped), and the
 * fence on the shared page has moved, for runs cached in userspace.
 */
static void uidgen_revoke_node(const char *why)
{
	int old;

	mutex_lock(&uidgen_node_lock);
	percpu_down_write(&uidgen_fence_sem);
	old = uidgen_node;
	WRITE_ONCE(uidgen_node, -1);
	WRITE_ONCE(uidgen_shared->fence, uidgen_shared->fence + 1);
	percpu_up_write(&uidgen_fence_sem);
	mutex_unlock(&uidgen_node_lock);
	if (old >= 0)
		pr_warn("node ID %d revoked (%s): no ID is issued until a node ID is assigned\n",
			old, why);
}

static int uidgen_node_param_set(const char *val, const struct kernel_param *kp)
{
	int node, ret;

	ret = kstrtoint(val, 0, &node);
	if (ret)
		return ret;
	/* At load time the layout is not known yet: uidgen_init() checks. */
	if (!READ_ONCE(uidgen_live)) {
		if (node < 0)
			return -EINVAL;
		uidgen_node = node;
		return 0;
	}
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (node == -1) {
		uidgen_revoke_node("by the administrator");
		return 0;
	}
	return node < 0 ? -EINVAL : uidgen_assign_node(node);
}

static int uidgen_node_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(uidgen_node));
}

static const struct kernel_param_ops uidgen_node_param_ops = {
	.set	= uidgen_node_param_set,
	.get	= uidgen_node_param_get,
};
module_param_cb(node_id, &uidgen_node_param_ops, NULL, 0644);
MODULE_PARM_DESC(node_id, "This machine's node ID, 0..2^node_bits-1; -1 (unassigned) issues nothing, writing -1 revokes");

static DEFINE_MUTEX(uidgen_floor_lock);

static int uidgen_apply_floor(u64 floor_ms)
{
	int ret;

	ret = uidgen_set_floor(&uidgen, uidgen_ms_to_tick(&uidgen, floor_ms),
			       ktime_get_boottime_ns());
	if (!ret)
		uidgen_floor_ms = floor_ms;
	return ret;
}

static int uidgen_floor_param_set(const char *val, const struct kernel_param *kp)
{
	u64 floor_ms;
	int ret;

	ret = kstrtou64(val, 0, &floor_ms);
	if (ret)
		return ret;
	if (!READ_ONCE(uidgen_live)) {
		uidgen_floor_ms = floor_ms;
		return 0;
	}
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&uidgen_floor_lock);
	/* A floor only moves forward. */
	if (floor_ms < uidgen_floor_ms)
		ret = -EINVAL;
	else
		ret = uidgen_apply_floor(floor_ms);
	mutex_unlock(&uidgen_floor_lock);
	if (!ret)
		pr_info("floor set to %llu ms\n", floor_ms);
	return ret;
}

static int uidgen_floor_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", READ_ONCE(uidgen_floor_ms));
}

static const struct kernel_param_ops uidgen_floor_param_ops = {
	.set	= uidgen_floor_param_set,
	.get	= uidgen_floor_param_get,
};
module_param_cb(floor_ms, &uidgen_floor_param_ops, NULL, 0644);
MODULE_PARM_DESC(floor_ms, "Never issue a tick that contains this Unix time in ms or an earlier one; only moves forward");

static int uidgen_borrow_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned int borrow;
	int ret;

	ret = kstrtouint(val, 0, &borrow);
	if (ret)
		return ret;
	if (borrow > UIDGEN_BORROW_MAX)
		return -ERANGE;
	if (READ_ONCE(uidgen_live) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* uidgen_gen_init() leaves max_borrow alone: this holds at load too. */
	WRITE_ONCE(uidgen.max_borrow, borrow);
	return 0;
}

static int uidgen_borrow_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(uidgen.max_borrow));
}

static const struct kernel_param_ops uidgen_borrow_param_ops = {
	.set	= uidgen_borrow_param_set,
	.get	= uidgen_borrow_param_get,
};
module_param_cb(max_borrow_ticks, &uidgen_borrow_param_ops, NULL, 0644);
MODULE_PARM_DESC(max_borrow_ticks, "How many ticks ahead of the clock a slot may run before callers wait (0..1000000, default 0)");

/*
 * Sleep until @tick begins. The timer runs on CLOCK_BOOTTIME, the clock
 * the ticks come from, so the wall clock stepping cannot stretch the wait.
 */
static int uidgen_wait_tick(u64 tick)
{
	ktime_t expires = ns_to_ktime(uidgen_tick_start(&uidgen, tick));

	set_current_state(TASK_INTERRUPTIBLE);
	schedule_hrtimeout_range_clock(&expires, 0, HRTIMER_MODE_ABS,
				       CLOCK_BOOTTIME);
	return signal_pending(current) ? -ERESTARTSYS : 0;
}

/*
 * Reserve up to @n IDs from slot @slot. Called with uidgen_fence_sem held
 * for reading, which must stay held until the IDs are out of the kernel.
 * Returns the length of the run, with its first ID in *@id; 0 if the
 * caller must wait for *@wait_tick; or -EADDRNOTAVAIL, -EOVERFLOW.
 */
static __always_inline int uidgen_take(unsigned int slot, u32 n, u64 *id,
				       u64 *wait_tick)
{
	const struct uidgen_layout *l = &uidgen.l;
	u64 now, first;
	int node, got;

	now = uidgen_tick(&uidgen, ktime_get_boottime_ns());
	if (now > uidgen.max_tick)
		return -EOVERFLOW;
	node = READ_ONCE(uidgen_node);
	if (node < 0)
		return -EADDRNOTAVAIL;
	got = uidgen_reserve(&uidgen, &uidgen.slots[slot], now, n, &first,
			     wait_tick);
	if (got > 0) {
		*id = uidgen_compose(l, first, ((u64)node << l->slot_bits) | slot);
		this_cpu_add(uidgen_issued[slot], got);
	}
	return got;
}

/*
 * Enter a chunk: false if a revoke holds the fence, in which case the
 * node ID is on its way out and the caller fails with EADDRNOTAVAIL
 * rather than sleep behind it.
 */
static bool uidgen_enter(void)
{
	return percpu_down_read_trylock(&uidgen_fence_sem);
}

static void uidgen_leave(void)
{
	percpu_up_read(&uidgen_fence_sem);
}

/*
 * Store @n consecutive IDs from @id at @dst, in one pass with no bounce
 * buffer. Returns how many were stored before a fault, if any.
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
 * Wait for @wait_tick to come, for a caller whose slot @slot is spent.
 * Returns 0 to try again, -EAGAIN or -ERESTARTSYS.
 */
static int uidgen_wait(unsigned int slot, u64 wait_tick, bool nonblock)
{
	if (nonblock)
		return -EAGAIN;
	atomic64_inc(&uidgen.slots[slot].waits);
	return uidgen_wait_tick(wait_tick);
}

/*
 * Any slot would be correct (the compare-and-swap sees to that); the
 * running CPU's own slot is the one nobody else is using.
 */
static unsigned int uidgen_my_slot(void)
{
	return raw_smp_processor_id() & (uidgen.nr_slots - 1);
}

/*
 * Mint @n IDs into @dst. Returns how many were stored, or an errno if none
 * were. IDs minted for a copy that faulted are dropped: a gap, never a
 * duplicate, since the slot has already moved past them.
 */
static long uidgen_fill(u64 __user *dst, size_t n, bool nonblock)
{
	unsigned int slot = uidgen_my_slot();
	size_t done = 0, since_check = 0;
	unsigned int stored = 0;
	u64 id, wait_tick;
	long err = 0;
	int got;

	while (done < n) {
		if (!uidgen_enter()) {
			err = -EADDRNOTAVAIL;
			break;
		}
		got = uidgen_take(slot, min_t(size_t, n - done, UIDGEN_CHUNK),
				  &id, &wait_tick);
		if (got > 0)
			stored = uidgen_store(dst + done, id, got);
		uidgen_leave();

		if (got < 0) {
			err = got;
			break;
		}
		if (!got) {
			err = uidgen_wait(slot, wait_tick, nonblock);
			if (err)
				break;
			continue;
		}
		done += stored;
		if (stored < got) {
			err = -EFAULT;
			break;
		}
		since_check += got;
		if (since_check >= UIDGEN_RESCHED_IDS && done < n) {
			since_check = 0;
			if (signal_pending(current)) {
				err = -ERESTARTSYS;
				break;
			}
			cond_resched();
		}
	}
	return done ? done : err;
}

static ssize_t uidgen_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	long ret;

	if (len < sizeof(u64))
		return -EINVAL;
	ret = uidgen_fill((u64 __user *)ubuf, len / sizeof(u64),
			  file->f_flags & O_NONBLOCK);
	return ret < 0 ? ret : ret * sizeof(u64);
}

/*
 * Copy in an extensible ioctl struct: @ksize is what this kernel knows,
 * @minsize the oldest version it accepts.
 */
static int uidgen_copy_arg(void *karg, size_t ksize, size_t minsize,
			   void __user *uarg)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < minsize)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	return copy_struct_from_user(karg, ksize, uarg, usize);
}

static long uidgen_ioctl_batch(struct file *file,
			       struct uidgen_batch __user *uarg)
{
	struct uidgen_batch b;
	long ret;

	ret = uidgen_copy_arg(&b, sizeof(b), sizeof(b), uarg);
	if (ret)
		return ret;
	if (b.flags)
		return -EOPNOTSUPP;
	if (b.__reserved || !b.count)
		return -EINVAL;
	if (b.count > UIDGEN_BATCH_MAX)
		return -E2BIG;

	ret = uidgen_fill(u64_to_user_ptr(b.ids), b.count,
			  file->f_flags & O_NONBLOCK);
	if (ret < 0)
		return ret;
	if (put_user((u32)ret, &uarg->count))
		return -EFAULT;
	return ret;
}

static long uidgen_ioctl_reserve(struct file *file,
				 struct uidgen_reserve __user *uarg)
{
	const struct uidgen_layout *l = &uidgen.l;
	unsigned int shift = l->node_bits + l->slot_bits + l->seq_bits;
	unsigned int slot = uidgen_my_slot();
	struct uidgen_reserve r;
	u64 wait_tick;
	long ret;
	int got;

	ret = uidgen_copy_arg(&r, sizeof(r), sizeof(r), uarg);
	if (ret)
		return ret;
	if (r.flags)
		return -EOPNOTSUPP;
	if (!r.count)
		return -EINVAL;
	if (r.count > (1ULL << l->seq_bits))
		return -E2BIG;

	for (;;) {
		ret = 0;
		if (!uidgen_enter())
			return -EADDRNOTAVAIL;
		got = uidgen_take(slot, r.count, &r.first, &wait_tick);
		if (got > 0) {
			/*
			 * Inside the fence: a revoke can neither move it nor
			 * return before this run is copied out.
			 */
			r.fence = READ_ONCE(uidgen_shared->fence);
			r.count = got;
			r.expires_ns = uidgen_tick_start(&uidgen,
							 (r.first >> shift) + 1);
			if (copy_to_user(uarg, &r, sizeof(r)))
				ret = -EFAULT;
		}
		uidgen_leave();
		if (got < 0)
			return got;
		if (got)
			return ret ?: got;
		ret = uidgen_wait(slot, wait_tick, file->f_flags & O_NONBLOCK);
		if (ret)
			return ret;
	}
}

static long uidgen_ioctl_info(struct uidgen_info __user *uarg)
{
	const struct uidgen_layout *l = &uidgen.l;
	struct uidgen_info info;
	int node = READ_ONCE(uidgen_node);
	long ret;

	ret = uidgen_copy_arg(&info, sizeof(info), sizeof(info), uarg);
	if (ret)
		return ret;
	if (info.flags)
		return -EOPNOTSUPP;

	info.version = (UIDGEN_VERSION_MAJOR << 16) |
		       (UIDGEN_VERSION_MINOR << 8) | UIDGEN_VERSION_PATCH;
	info.node_id = node < 0 ? UIDGEN_NODE_NONE : node;
	info.ts_bits = l->ts_bits;
	info.node_bits = l->node_bits;
	info.slot_bits = l->slot_bits;
	info.seq_bits = l->seq_bits;
	info.nr_slots = uidgen.nr_slots;
	info.tick_us = l->tick_us;
	info.epoch_ms = l->epoch_ms;
	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long uidgen_ioctl_set_node(struct uidgen_node __user *uarg)
{
	struct uidgen_node req;
	long ret;

	ret = uidgen_copy_arg(&req, sizeof(req), sizeof(req), uarg);
	if (ret)
		return ret;
	if (req.flags & ~UIDGEN_NODE_REVOKE)
		return -EOPNOTSUPP;
	if (req.__reserved)
		return -EINVAL;
	if ((req.flags & UIDGEN_NODE_REVOKE) && req.node_id != UIDGEN_NODE_NONE)
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (req.flags & UIDGEN_NODE_REVOKE) {
		uidgen_revoke_node("by UIDGEN_IOC_SET_NODE");
		return 0;
	}
	return uidgen_assign_node(req.node_id);
}

static long uidgen_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case UIDGEN_IOC_BATCH:
		return uidgen_ioctl_batch(file, uarg);
	case UIDGEN_IOC_RESERVE:
		return uidgen_ioctl_reserve(file, uarg);
	case UIDGEN_IOC_INFO:
		return uidgen_ioctl_info(uarg);
	case UIDGEN_IOC_SET_NODE:
		return uidgen_ioctl_set_node(uarg);
	default:
		return -ENOTTY;
	}
}

static vm_fault_t uidgen_vm_fault(struct vm_fault *vmf)
{
	if (vmf->pgoff)
		return VM_FAULT_SIGBUS;
	get_page(uidgen_page);
	vmf->page = uidgen_page;
	return 0;
}

static const struct vm_operations_struct uidgen_vm_ops = {
	.fault	= uidgen_vm_fault,
};

/* One read-only, shared page: struct uidgen_page. */
static int uidgen_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_MAYSHARE) || vma->vm_pgoff ||
	    vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_MAYWRITE))
		return -EACCES;
	vma->vm_ops = &uidgen_vm_ops;
	return 0;
}

/*
 * read() is a plain .read rather than .read_iter: an ID is 8 bytes, and the
 * iov_iter set-up costs more than minting one does. Every caller passes one
 * flat buffer anyway.
 */
static const struct file_operations uidgen_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.read		= uidgen_read,
	.unlocked_ioctl	= uidgen_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= uidgen_mmap,
};

/* sysfs, on the device: /sys/class/uidgen/uid/ */

static ssize_t anchor_ms_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%llu\n", uidgen.anchor_ms);
}
static DEVICE_ATTR_RO(anchor_ms);

static ssize_t exhausts_at_ms_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", uidgen_exhausts_at_ms(&uidgen.l));
}
static DEVICE_ATTR_RO(exhausts_at_ms);

static ssize_t high_water_ms_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	u64 high = uidgen_high_water(&uidgen);

	return sysfs_emit(buf, "%llu\n", high ? uidgen_tick_end_ms(&uidgen, high) : 0);
}
static DEVICE_ATTR_RO(high_water_ms);

static ssize_t now_ms_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	u64 now = uidgen_tick(&uidgen, ktime_get_boottime_ns());

	/* The Unix time the generator's clock reads, in ms (tick start). */
	return sysfs_emit(buf, "%llu\n", uidgen_tick_end_ms(&uidgen, now) -
			  DIV_ROUND_UP(uidgen.l.tick_us, USEC_PER_MSEC));
}
static DEVICE_ATTR_RO(now_ms);

/* One counter summed over the slots; @off is its offset in the slot. */
static u64 uidgen_slot_sum(size_t off)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < uidgen.nr_slots; i++)
		sum += atomic64_read((atomic64_t *)((char *)&uidgen.slots[i] + off));
	return sum;
}

/* IDs slot @slot issued, or all slots' with @slot = -1. */
static u64 uidgen_issued_sum(int slot)
{
	unsigned int i;
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		for (i = 0; i < uidgen.nr_slots; i++)
			if (slot < 0 || i == slot)
				sum += *per_cpu_ptr(&uidgen_issued[i], cpu);
	return sum;
}

static ssize_t issued_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%llu\n", uidgen_issued_sum(-1));
}
static DEVICE_ATTR_RO(issued);

static ssize_t waits_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  uidgen_slot_sum(offsetof(struct uidgen_slot, waits)));
}
static DEVICE_ATTR_RO(waits);

static ssize_t behind_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  uidgen_slot_sum(offsetof(struct uidgen_slot, behind)));
}
static DEVICE_ATTR_RO(behind);

static struct attribute *uidgen_attrs[] = {
	&dev_attr_anchor_ms.attr,
	&dev_attr_exhausts_at_ms.attr,
	&dev_attr_high_water_ms.attr,
	&dev_attr_now_ms.attr,
	&dev_attr_issued.attr,
	&dev_attr_waits.attr,
	&dev_attr_behind.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uidgen);

/*
 * /dev/uid: a class and device of our own rather than a misc device, so
 * that devtmpfs creates the node with dev_gid as well as dev_mode.
 * Anyone the mode lets in may read IDs; only CAP_SYS_ADMIN may assign the
 * node ID.
 */
static struct class uidgen_class = {
	.name	= "uidgen",
};

static char *uidgen_devnode(UIDGEN_DEVNODE_CONST struct device *dev,
			    umode_t *mode, kuid_t *uid, kgid_t *gid)
{
	if (mode)
		*mode = uidgen_dev_mode;
	if (gid)
		*gid = make_kgid(&init_user_ns, uidgen_dev_gid);
	return NULL;
}

static const struct device_type uidgen_dev_type = {
	.name		= "uid",
	.groups		= uidgen_groups,
	.devnode	= uidgen_devnode,
};

static dev_t uidgen_devt;
static struct cdev uidgen_cdev;
static struct device *uidgen_dev;

static void uidgen_dev_release(struct device *dev)
{
	kfree(dev);
}

static int uidgen_dev_add(void)
{
	int ret;

	if (!gid_valid(make_kgid(&init_user_ns, uidgen_dev_gid))) {
		pr_err("dev_gid=%u is not a valid group ID\n", uidgen_dev_gid);
		return -EINVAL;
	}
	ret = alloc_chrdev_region(&uidgen_devt, 0, 1, "uid");
	if (ret)
		return ret;
	ret = class_register(&uidgen_class);
	if (ret)
		goto err_region;
	uidgen_dev = kzalloc(sizeof(*uidgen_dev), GFP_KERNEL);
	if (!uidgen_dev) {
		ret = -ENOMEM;
		goto err_class;
	}
	device_initialize(uidgen_dev);
	uidgen_dev->devt = uidgen_devt;
	uidgen_dev->class = &uidgen_class;
	uidgen_dev->type = &uidgen_dev_type;
	uidgen_dev->release = uidgen_dev_release;
	ret = dev_set_name(uidgen_dev, "uid");
	if (ret)
		goto err_put;
	cdev_init(&uidgen_cdev, &uidgen_fops);
	uidgen_cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&uidgen_cdev, uidgen_dev);
	if (ret)
		goto err_put;
	return 0;

err_put:
	put_device(uidgen_dev);
err_class:
	class_unregister(&uidgen_class);
err_region:
	unregister_chrdev_region(uidgen_devt, 1);
	return ret;
}

static void uidgen_dev_del(void)
{
	cdev_device_del(&uidgen_cdev, uidgen_dev);
	put_device(uidgen_dev);
	class_unregister(&uidgen_class);
	unregister_chrdev_region(uidgen_devt, 1);
}

/* debugfs: the per-slot table, /sys/kernel/debug/uidgen/slots */

static int uidgen_slots_show(struct seq_file *m, void *v)
{
	u64 now = uidgen_tick(&uidgen, ktime_get_boottime_ns());
	unsigned int i;

	seq_puts(m, "slot issued waits behind last_tick borrowed\n");
	for (i = 0; i < uidgen.nr_slots; i++) {
		struct uidgen_slot *s = &uidgen.slots[i];
		u64 tick = (u64)atomic64_read(&s->last) >> uidgen.l.seq_bits;

		seq_printf(m, "%u %lld %lld %lld %llu %llu\n", i,
			   uidgen_issued_sum(i), atomic64_read(&s->waits),
			   atomic64_read(&s->behind), tick,
			   tick > now ? tick - now : 0);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(uidgen_slots);

static struct dentry *uidgen_debugfs;

/* A VM fork or snapshot restore: two machines now share this node ID. */
static int uidgen_vmfork(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	uidgen_revoke_node("VM fork or snapshot restore detected");
	return NOTIFY_DONE;
}

struct notifier_block uidgen_vmfork_nb = {
	.notifier_call = uidgen_vmfork,
};

/* Say so, daily, once the timestamp field has under a year left. */
static void uidgen_life_check(struct work_struct *work);
static DECLARE_DELAYED_WORK(uidgen_life_work, uidgen_life_check);

static void uidgen_life_check(struct work_struct *work)
{
	u64 end = uidgen_exhausts_at_ms(&uidgen.l);
	u64 now = ktime_get_real_ns() / NSEC_PER_MSEC;

	if (end > now && end - now < 365 * UIDGEN_MS_PER_DAY)
		pr_warn("the timestamp field runs out in %llu days (at %llu ms): plan a new layout or epoch\n",
			div64_u64(end - now, UIDGEN_MS_PER_DAY), end);
	schedule_delayed_work(&uidgen_life_work, 86400 * HZ);
}

static int __init uidgen_init(void)
{
	struct uidgen_layout l = {
		.ts_bits = ts_bits, .node_bits = node_bits,
		.slot_bits = slot_bits, .seq_bits = seq_bits,
		.tick_us = tick_us, .epoch_ms = epoch_ms,
	};
	char msg[192];
	int ret;

	ret = uidgen_gen_init(&uidgen, &l, ktime_get_real_ns(),
			      ktime_get_boottime_ns(),
			      (u64)min_life_days * UIDGEN_MS_PER_DAY,
			      msg, sizeof(msg));
	if (ret) {
		pr_err("%s\n", msg);
		return ret;
	}

	mutex_lock(&uidgen_node_lock);
	if (uidgen_node >= 0 && uidgen_node >= (1LL << node_bits)) {
		pr_err("node_id=%d does not fit node_bits=%u, allowed 0..%llu\n",
		       uidgen_node, node_bits, (1ULL << node_bits) - 1);
		mutex_unlock(&uidgen_node_lock);
		return -EINVAL;
	}
	mutex_unlock(&uidgen_node_lock);

	uidgen.slots = kcalloc(uidgen.nr_slots, sizeof(*uidgen.slots),
			       GFP_KERNEL);
	if (!uidgen.slots)
		return -ENOMEM;
	uidgen_issued = __alloc_percpu(uidgen.nr_slots * sizeof(u64),
				       __alignof__(u64));
	uidgen_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!uidgen_page || !uidgen_issued) {
		ret = -ENOMEM;
		goto err_free_slots;
	}
	uidgen_shared = page_address(uidgen_page);

	if (uidgen_floor_ms) {
		ret = uidgen_apply_floor(uidgen_floor_ms);
		if (ret) {
			pr_err("floor_ms=%llu leaves no tick before the timestamp field runs out\n",
			       uidgen_floor_ms);
			goto err_free_slots;
		}
	}

	ret = register_random_vmfork_notifier(&uidgen_vmfork_nb);
	if (ret)
		goto err_free_slots;

	WRITE_ONCE(uidgen_live, true);
	ret = uidgen_dev_add();
	if (ret)
		goto err_unregister_vmfork;

	uidgen_debugfs = debugfs_create_dir("uidgen", NULL);
	debugfs_create_file("slots", 0400, uidgen_debugfs, NULL,
			    &uidgen_slots_fops);

	pr_info("v%s: /dev/uid (mode %04o, gid %u), layout ts/node/slot/seq %u/%u/%u/%u, tick %u us, epoch %llu ms, runs out at %llu ms\n",
		UIDGEN_VERSION_STR, uidgen_dev_mode, uidgen_dev_gid, ts_bits,
		node_bits, slot_bits, seq_bits, tick_us, epoch_ms,
		uidgen_exhausts_at_ms(&uidgen.l));
	if (uidgen_floor_ms)
		pr_info("floor %llu ms\n", uidgen_floor_ms);
	if (READ_ONCE(uidgen_node) < 0)
		pr_notice("no node ID assigned: no ID is issued until an administrator sets node_id\n");
	else
		pr_info("node ID %d\n", uidgen_node);
	uidgen_life_check(NULL);
	return 0;

err_unregister_vmfork:
	unregister_random_vmfork_notifier(&uidgen_vmfork_nb);
err_free_slots:
	if (uidgen_page)
		__free_page(uidgen_page);
	free_percpu(uidgen_issued);
	kfree(uidgen.slots);
	return ret;
}

static void __exit uidgen_exit(void)
{
	cancel_delayed_work_sync(&uidgen_life_work);
	debugfs_remove(uidgen_debugfs);
	uidgen_dev_del();
	unregister_random_vmfork_notifier(&uidgen_vmfork_nb);
	__free_page(uidgen_page);
	free_percpu(uidgen_issued);
	kfree(uidgen.slots);
}

module_init(uidgen_init);
module_exit(uidgen_exit);

MODULE_DESCRIPTION("64-bit time-sortable unique IDs from /dev/uid");
MODULE_AUTHOR("The uidgen developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(UIDGEN_VERSION_STR);
