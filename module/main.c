// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen: the /dev/uid misc device, its ioctls and module parameters.
 *
 * All the arithmetic lives in gen.c; this file turns file operations into
 * calls on the generator and copies IDs out to userspace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include <linux/uidgen.h>

#include "gen.h"

#define UIDGEN_VERSION_MAJOR	1
#define UIDGEN_VERSION_MINOR	0
#define UIDGEN_VERSION_PATCH	0
#define UIDGEN_VERSION_STR	"1.0.0"

/* IDs composed on the stack per copy_to_user(): 512 bytes. */
#define UIDGEN_CHUNK		64
/* Check for signals and reschedule after about a page of IDs. */
#define UIDGEN_RESCHED_IDS	(PAGE_SIZE / sizeof(u64))

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

static struct uidgen_layout uidgen_layout;
static struct uidgen_clock uidgen_clock;
static struct uidgen_slot *uidgen_slots;

/*
 * The node ID, or -1 while none is assigned. Written once under
 * uidgen_node_lock, read locklessly by every call that issues IDs.
 */
static int uidgen_node = -1;
static DEFINE_MUTEX(uidgen_node_lock);
/* Set once the layout is validated: node IDs can be checked against it. */
static bool uidgen_live;

static int uidgen_assign_node(u32 node)
{
	int ret = 0;

	mutex_lock(&uidgen_node_lock);
	if (node >= (1ULL << uidgen_layout.node_bits))
		ret = -ERANGE;
	else if (uidgen_node >= 0 && (u32)uidgen_node != node)
		ret = -EBUSY;
	else if (uidgen_node < 0)
		WRITE_ONCE(uidgen_node, node);
	mutex_unlock(&uidgen_node_lock);
	if (!ret)
		pr_info("node ID %u assigned\n", node);
	return ret;
}

static int uidgen_node_param_set(const char *val, const struct kernel_param *kp)
{
	unsigned int node;
	int ret;

	ret = kstrtouint(val, 0, &node);
	if (ret)
		return ret;
	if (node > INT_MAX)
		return -ERANGE;
	/* At load time the layout is not known yet: uidgen_init() checks. */
	if (!READ_ONCE(uidgen_live)) {
		uidgen_node = node;
		return 0;
	}
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return uidgen_assign_node(node);
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
MODULE_PARM_DESC(node_id, "This machine's node ID, 0..2^node_bits-1; -1 (unassigned) issues nothing");

/*
 * Sleep until @tick begins. The timer runs on CLOCK_BOOTTIME, the clock
 * the ticks come from, so the wall clock stepping cannot stretch the wait:
 * it is at most one tick.
 */
static int uidgen_wait_tick(u64 tick)
{
	ktime_t expires = ns_to_ktime(uidgen_clock_tick_start(&uidgen_clock, tick));

	set_current_state(TASK_INTERRUPTIBLE);
	schedule_hrtimeout_range_clock(&expires, 0, HRTIMER_MODE_ABS,
				       CLOCK_BOOTTIME);
	return signal_pending(current) ? -ERESTARTSYS : 0;
}

/*
 * Mint @n IDs into @dst. Returns how many were stored, or an errno if none
 * were. IDs minted for a copy that faulted are dropped: a gap, never a
 * duplicate, since the slot has already moved past them.
 */
static long uidgen_fill(u64 __user *dst, size_t n)
{
	const struct uidgen_layout *l = &uidgen_layout;
	u64 buf[UIDGEN_CHUNK];
	size_t done = 0, since_check = 0;
	unsigned int slot;
	struct uidgen_slot *s;
	u64 worker, now, first, id;
	int node = READ_ONCE(uidgen_node);
	long err = 0;
	u32 got, i;

	if (node < 0)
		return -EADDRNOTAVAIL;

	/*
	 * Any slot would be correct (the compare-and-swap sees to that); the
	 * running CPU's own slot is the one nobody else is using.
	 */
	slot = raw_smp_processor_id() & ((1U << l->slot_bits) - 1);
	s = &uidgen_slots[slot];
	worker = ((u64)node << l->slot_bits) | slot;

	while (done < n) {
		now = uidgen_clock_tick(&uidgen_clock, ktime_get_boottime_ns());
		if (now > uidgen_clock.max_tick) {
			err = -EOVERFLOW;
			break;
		}
		got = uidgen_reserve(s, l->seq_bits, now,
				     min_t(size_t, n - done, UIDGEN_CHUNK), &first);
		if (!got) {
			err = uidgen_wait_tick(now + 1);
			if (err)
				break;
			continue;
		}
		id = uidgen_compose(l, first, worker);
		for (i = 0; i < got; i++)
			buf[i] = id + i;
		i = copy_to_user(dst + done, buf, got * sizeof(u64));
		done += got - DIV_ROUND_UP(i, sizeof(u64));
		if (i) {
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
	ret = uidgen_fill((u64 __user *)ubuf, len / sizeof(u64));
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

static long uidgen_ioctl_batch(struct uidgen_batch __user *uarg)
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

	ret = uidgen_fill(u64_to_user_ptr(b.ids), b.count);
	if (ret < 0)
		return ret;
	if (put_user((u32)ret, &uarg->count))
		return -EFAULT;
	return ret;
}

static long uidgen_ioctl_info(struct uidgen_info __user *uarg)
{
	const struct uidgen_layout *l = &uidgen_layout;
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
	info.nr_slots = 1U << l->slot_bits;
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
	if (req.flags)
		return -EOPNOTSUPP;
	if (req.__reserved)
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return uidgen_assign_node(req.node_id);
}

static long uidgen_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case UIDGEN_IOC_BATCH:
		return uidgen_ioctl_batch(uarg);
	case UIDGEN_IOC_INFO:
		return uidgen_ioctl_info(uarg);
	case UIDGEN_IOC_SET_NODE:
		return uidgen_ioctl_set_node(uarg);
	default:
		return -ENOTTY;
	}
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
};

/* Anyone may read IDs; only CAP_SYS_ADMIN may assign the node ID. */
static struct miscdevice uidgen_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "uid",
	.fops	= &uidgen_fops,
	.mode	= 0444,
};

static int __init uidgen_init(void)
{
	struct uidgen_layout *l = &uidgen_layout;
	char msg[160];
	int ret;

	l->ts_bits = ts_bits;
	l->node_bits = node_bits;
	l->slot_bits = slot_bits;
	l->seq_bits = seq_bits;
	l->tick_us = tick_us;
	l->epoch_ms = epoch_ms;

	ret = uidgen_layout_check(l, msg, sizeof(msg));
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
	WRITE_ONCE(uidgen_live, true);
	mutex_unlock(&uidgen_node_lock);

	ret = uidgen_clock_init(&uidgen_clock, l, ktime_get_real_ns(),
				ktime_get_boottime_ns(), msg, sizeof(msg));
	if (ret) {
		pr_err("%s\n", msg);
		return ret;
	}

	uidgen_slots = kcalloc(1U << slot_bits, sizeof(*uidgen_slots),
			       GFP_KERNEL);
	if (!uidgen_slots)
		return -ENOMEM;

	ret = misc_register(&uidgen_misc);
	if (ret)
		goto err_free_slots;

	pr_info("v%s: /dev/%s, layout ts/node/slot/seq %u/%u/%u/%u, tick %u us, epoch %llu ms\n",
		UIDGEN_VERSION_STR, uidgen_misc.name, ts_bits, node_bits,
		slot_bits, seq_bits, tick_us, epoch_ms);
	if (READ_ONCE(uidgen_node) < 0)
		pr_notice("no node ID assigned: no ID is issued until an administrator sets node_id\n");
	else
		pr_info("node ID %d\n", uidgen_node);
	return 0;

err_free_slots:
	kfree(uidgen_slots);
	return ret;
}

static void __exit uidgen_exit(void)
{
	misc_deregister(&uidgen_misc);
	kfree(uidgen_slots);
}

module_init(uidgen_init);
module_exit(uidgen_exit);

MODULE_DESCRIPTION("64-bit time-sortable unique IDs from /dev/uid");
MODULE_AUTHOR("The uidgen developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(UIDGEN_VERSION_STR);
