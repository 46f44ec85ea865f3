// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/uid: the character device, its file operations, the ioctls
 * (argument checks and dispatch; mint.c hands out the IDs) and the fence
 * page mmap() maps.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/time_namespace.h>
#include <linux/uaccess.h>

#include <linux/uidgen.h>

#include "gen.h"
#include "internal.h"

static long uidgen_ioctl_batch(struct file *file, void *karg,
			       void __user *uarg, u32 usize)
{
	struct uidgen_batch *b = karg;
	long ret;

	if (b->flags)
		return -EOPNOTSUPP;
	if (b->__reserved || !b->count || b->count > UIDGEN_BATCH_MAX)
		return -EINVAL;

	ret = uidgen_fill(uidgen_file_dev(file), u64_to_user_ptr(b->ids),
			  b->count, file->f_flags & O_NONBLOCK);
	if (ret < 0)
		return ret;
	/*
	 * The IDs are delivered: the return value says how many, and a count
	 * that cannot be written back does not take them back.
	 */
	(void)put_user((u32)ret, &((struct uidgen_batch __user *)uarg)->count);
	return ret;
}

static long uidgen_ioctl_reserve(struct file *file, void *karg,
				 void __user *uarg, u32 usize)
{
	struct uidgen_device *ud = uidgen_file_dev(file);
	struct uidgen_reserve *r = karg;
	u32 want = r->count;
	long ret;

	if (r->flags)
		return -EOPNOTSUPP;
	if (!want || want > (1ULL << ud->gen.l.seq_bits))
		return -EINVAL;
	if (!access_ok(uarg, sizeof(*r)))
		return -EFAULT;

	do {
		r->count = want;
		ret = uidgen_reserve_once(ud, uarg, r,
					  file->f_flags & O_NONBLOCK);
	} while (!ret);
	return ret;
}

static long uidgen_ioctl_info(struct file *file, void *karg,
			      void __user *uarg, u32 usize)
{
	struct uidgen_device *ud = uidgen_file_dev(file);
	struct uidgen_gen *g = &ud->gen;
	const struct uidgen_layout *l = &g->l;
	struct uidgen_info *info = karg;
	struct uidgen_node_snapshot s;
	u64 tick;

	if (info->flags)
		return -EOPNOTSUPP;
	if (info->__reserved)
		return -EINVAL;

	info->size = min_t(size_t, usize, sizeof(*info));
	info->node_state = uidgen_node_state(&ud->node, &s);
	info->node_id = s.node;
	info->ts_bits = l->ts_bits;
	info->node_bits = l->node_bits;
	info->slot_bits = l->slot_bits;
	info->seq_bits = l->seq_bits;
	info->nr_slots = g->nr_slots;
	info->tick_ns = g->tick_ns;
	info->epoch_unix_ns = l->epoch_ms * NSEC_PER_MSEC;
	info->floor_unix_ns = s.floor_unix_ns;
	info->grant_unix_ns = s.grant_tick == UIDGEN_NO_GRANT ? 0 :
			      uidgen_tick_end_ns(g, s.grant_tick);
	info->deadline_boot_ns =
		s.deadline_boot_ns == UIDGEN_RULES_NO_DEADLINE ? 0 :
		s.deadline_boot_ns + timens_add_boottime_ns(0);
	info->token = s.token;
	tick = uidgen_high_water(g);
	info->high_water_unix_ns = tick ? uidgen_tick_end_ns(g, tick) : 0;
	if (copy_to_user(uarg, info, info->size))
		return -EFAULT;
	return 0;
}

/* A deadline in the caller's CLOCK_BOOTTIME, as this kernel's (0: none). */
static u64 uidgen_deadline_in(u64 deadline_boot_ns)
{
	if (!deadline_boot_ns)
		return 0;
	return max_t(s64, 1, deadline_boot_ns - timens_add_boottime_ns(0));
}

static long uidgen_ioctl_assign(struct file *file, void *karg,
				void __user *uarg, u32 usize)
{
	const struct uidgen_assign *a = karg;
	struct uidgen_rules_req req = {
		.node_id = a->node_id,
		.new = a->flags & UIDGEN_ASSIGN_NEW,
		.floor_unix_ns = a->floor_unix_ns,
		.grant_unix_ns = a->grant_unix_ns,
		.token = a->token,
	};

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (a->flags & ~UIDGEN_ASSIGN_NEW)
		return -EOPNOTSUPP;
	if (a->__reserved || a->deadline_boot_ns > S64_MAX)
		return -EINVAL;
	req.deadline_boot_ns = uidgen_deadline_in(a->deadline_boot_ns);
	return uidgen_node_assign(&uidgen_file_dev(file)->node, &req);
}

static long uidgen_ioctl_renew(struct file *file, void *karg,
			       void __user *uarg, u32 usize)
{
	const struct uidgen_renew *r = karg;
	struct uidgen_rules_req req = {
		.node_id = r->node_id,
		.grant_unix_ns = r->grant_unix_ns,
		.token = r->token,
	};

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (r->flags)
		return -EOPNOTSUPP;
	if (r->__reserved || r->deadline_boot_ns > S64_MAX)
		return -EINVAL;
	req.deadline_boot_ns = uidgen_deadline_in(r->deadline_boot_ns);
	return uidgen_node_renew(&uidgen_file_dev(file)->node, &req);
}

static long uidgen_ioctl_revoke(struct file *file, void *karg,
				void __user *uarg, u32 usize)
{
	const struct uidgen_revoke *r = karg;
	struct uidgen_rules_req req = {
		.node_id = r->node_id,
		.token = r->token,
		.force = r->flags & UIDGEN_REVOKE_FORCE,
	};

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (r->flags & ~UIDGEN_REVOKE_FORCE)
		return -EOPNOTSUPP;
	if (r->__reserved)
		return -EINVAL;
	return uidgen_node_revoke(&uidgen_file_dev(file)->node, &req,
				  req.force ? "forced, by UIDGEN_IOC_REVOKE" :
				  "by UIDGEN_IOC_REVOKE");
}

static long uidgen_ioctl_observe(struct file *file, void *karg,
				 void __user *uarg, u32 usize)
{
	struct uidgen_device *ud = uidgen_file_dev(file);
	const struct uidgen_observe *o = karg;
	int ret;

	if (o->flags)
		return -EOPNOTSUPP;
	ret = uidgen_node_observe(&ud->node, o->id);
	if (ret == -EDOM)
		atomic64_inc(&ud->observe_refused);
	else if (ret > 0)
		atomic64_inc(&ud->observe_moved);
	return ret < 0 ? ret : 0;
}

/*
 * The ioctls, by number. As in iommufd, each struct's size must reach the
 * end of its last field (min_size), and a larger one is taken if the tail
 * this kernel does not know is zero: copy_struct_from_user() gives E2BIG
 * for one that is not, whatever its length.
 */
union uidgen_ioctl_buf {
	struct uidgen_batch batch;
	struct uidgen_info info;
	struct uidgen_reserve reserve;
	struct uidgen_assign assign;
	struct uidgen_renew renew;
	struct uidgen_revoke revoke;
	struct uidgen_observe observe;
};

struct uidgen_ioctl_op {
	unsigned int cmd;
	unsigned int size;
	unsigned int min_size;
	long (*fn)(struct file *file, void *karg, void __user *uarg,
		   u32 usize);
};

#define UIDGEN_IOCTL_OP(_cmd, _fn, _struct, _last) {			\
	.cmd = _cmd,							\
	.size = sizeof(_struct),					\
	.min_size = offsetofend(_struct, _last),			\
	.fn = _fn,							\
}

static const struct uidgen_ioctl_op uidgen_ioctl_ops[] = {
	[_IOC_NR(UIDGEN_IOC_BATCH)] =
		UIDGEN_IOCTL_OP(UIDGEN_IOC_BATCH, uidgen_ioctl_batch,
				struct uidgen_batch, ids),
	[_IOC_NR(UIDGEN_IOC_INFO)] =
		UIDGEN_IOCTL_OP(UIDGEN_IOC_INFO, uidgen_ioctl_info,
				struct uidgen_info, high_water_unix_ns),
	[_IOC_NR(UIDGEN_IOC_RESERVE)] =
		UIDGEN_IOCTL_OP(UIDGEN_IOC_RESERVE, uidgen_ioctl_reserve,
				struct uidgen_reserve, expires_boot_ns),
	[_IOC_NR(UIDGEN_IOC_ASSIGN)] =
		UIDGEN_IOCTL_OP(UIDGEN_IOC_ASSIGN, uidgen_ioctl_assign,
				struct uidgen_assign, token),
	[_IOC_NR(UIDGEN_IOC_RENEW)] =
		UIDGEN_IOCTL_OP(UIDGEN_IOC_RENEW, uidgen_ioctl_renew,
				struct uidgen_renew, token),
	[_IOC_NR(UIDGEN_IOC_REVOKE)] =
		UIDGEN_IOCTL_OP(UIDGEN_IOC_REVOKE, uidgen_ioctl_revoke,
				struct uidgen_revoke, token),
	[_IOC_NR(UIDGEN_IOC_OBSERVE)] =
		UIDGEN_IOCTL_OP(UIDGEN_IOC_OBSERVE, uidgen_ioctl_observe,
				struct uidgen_observe, id),
};

static long uidgen_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct uidgen_ioctl_op *op;
	union uidgen_ioctl_buf buf;
	unsigned int nr = _IOC_NR(cmd);
	u32 usize;
	int ret;

	if (nr >= ARRAY_SIZE(uidgen_ioctl_ops))
		return -ENOIOCTLCMD;
	op = &uidgen_ioctl_ops[nr];
	if (!op->fn || op->cmd != cmd)
		return -ENOIOCTLCMD;
	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < op->min_size)
		return -EINVAL;
	ret = copy_struct_from_user(&buf, op->size, uarg, usize);
	if (ret)
		return ret;
	/*
	 * RESERVE and BATCH are the minting path: with retpolines, called
	 * directly rather than through one.
	 */
	return INDIRECT_CALL_2(op->fn, uidgen_ioctl_reserve, uidgen_ioctl_batch,
			       file, &buf, uarg, usize);
}

static vm_fault_t uidgen_vm_fault(struct vm_fault *vmf)
{
	struct uidgen_device *ud = vmf->vma->vm_private_data;
	struct page *page = ud->page;

	if (vmf->pgoff)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct uidgen_vm_ops = {
	.fault	= uidgen_vm_fault,
};

/*
 * One read-only, shared page: struct uidgen_page. Never writable, whatever
 * the file was opened for, and never larger.
 */
static int uidgen_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_MAYSHARE) || vma->vm_pgoff ||
	    vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EACCES;
	vm_flags_mod(vma, VM_DONTEXPAND, VM_MAYWRITE);
	vma->vm_ops = &uidgen_vm_ops;
	vma->vm_private_data = uidgen_file_dev(file);
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

/**
 * uidgen_dev_add() - Create /dev/uid and its sysfs directory.
 * @ud: the device, its generator and node set up
 *
 * Open files find @ud through file->private_data, which misc_open() sets
 * to @ud->misc; the status files through the misc device's drvdata.
 *
 * Context: process, at module load.
 * Return: 0 or an errno.
 */
int uidgen_dev_add(struct uidgen_device *ud)
{
	/*
	 * /dev/uid: a misc device. Anyone the node's mode lets in may read IDs;
	 * only CAP_SYS_ADMIN may assign the node ID. Reading IDs needs no
	 * privilege, as reading /dev/urandom does not: IDs are not secret, so
	 * devtmpfs makes the node 0444. A reader in a loop can use up its CPU's
	 * slot each tick and make other callers there wait for the next tick
	 * (time, never a duplicate): where local users are not trusted with
	 * that, a udev rule gives the node to a group (60-uidgen.rules, which
	 * the packages install, names the group uidgen).
	 */
	ud->misc = (struct miscdevice) {
		.minor	= MISC_DYNAMIC_MINOR,
		.name	= "uid",
		.fops	= &uidgen_fops,
		.groups	= uidgen_groups,
		.mode	= 0444,
	};
	return misc_register(&ud->misc);
}

/**
 * uidgen_dev_del() - Remove /dev/uid; open files keep the module.
 * @ud: the device
 *
 * Context: process, at module unload.
 */
void uidgen_dev_del(struct uidgen_device *ud)
{
	misc_deregister(&ud->misc);
}
