/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the module share: struct uidgen_device, the one
 * /dev/uid with its generator (gen.h), node (node.h) and everything else
 * that lives as long as the module is loaded, and what each file offers
 * the others: the parameters (params.c), the status files (status.c), the
 * minting path (mint.c) and the device (dev.c).
 */
#ifndef _UIDGEN_INTERNAL_H
#define _UIDGEN_INTERNAL_H

#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include <linux/uidgen.h>

#include "gen.h"
#include "node.h"

struct dentry;
struct page;

#define UIDGEN_VERSION_MAJOR	2
#define UIDGEN_VERSION_MINOR	0
#define UIDGEN_VERSION_PATCH	0
#define UIDGEN_VERSION_STR	"2.0.0"

/**
 * struct uidgen_device - /dev/uid: the generator, its node and what they share
 * @gen: the generator
 * @issued: IDs issued, per CPU and slot: [cpu][slot]
 * @node: the node ID the generator's IDs carry, and its life (node.c)
 * @page: the page mmap() maps, struct uidgen_page (@node's fence)
 * @misc: the misc device: an open file's private_data points here
 * @vmfork_nb: told of a VM fork or snapshot restore
 * @observe_moved: UIDGEN_IOC_OBSERVE calls that moved the clock or a slot
 * @observe_refused: UIDGEN_IOC_OBSERVE calls refused as too far ahead
 * @debugfs: /sys/kernel/debug/uidgen (status.c)
 *
 * There is one, allocated at module load (main.c). The file operations
 * reach it through file->private_data (uidgen_file_dev()), the status
 * files through the misc device's drvdata, the notifier through
 * container_of(), and every other function is passed it: no file reads a
 * global. The minting path reads @gen, @issued and @node's node ID,
 * deadline and fence, all through the one pointer.
 */
struct uidgen_device {
	struct uidgen_gen gen;
	u64 __percpu *issued;
	struct uidgen_node_ctl node;
	struct page *page;
	struct miscdevice misc;
	struct notifier_block vmfork_nb;
	atomic64_t observe_moved;
	atomic64_t observe_refused;
	struct dentry *debugfs;
};

/* The device behind an open /dev/uid: misc_open() set private_data. */
static inline struct uidgen_device *uidgen_file_dev(const struct file *file)
{
	return container_of(file->private_data, struct uidgen_device, misc);
}

/* params.c: the module parameters */
struct uidgen_layout uidgen_params_layout(void);
u64 uidgen_params_min_life_ms(void);
unsigned int uidgen_params_max_borrow(void);
unsigned int uidgen_params_observe_ahead_ms(void);

/* status.c: sysfs status, debugfs */
extern const struct attribute_group *uidgen_groups[];
s64 uidgen_clock_offset_ms(struct uidgen_device *ud);
void uidgen_debugfs_init(struct uidgen_device *ud);
void uidgen_debugfs_exit(struct uidgen_device *ud);

/* mint.c: the minting path */
ssize_t uidgen_read(struct file *file, char __user *ubuf, size_t len,
		    loff_t *ppos);
long uidgen_fill(struct uidgen_device *ud, u64 __user *dst, size_t n,
		 bool nonblock);
long uidgen_reserve_once(struct uidgen_device *ud,
			 struct uidgen_reserve __user *uarg,
			 struct uidgen_reserve *r, bool nonblock);

/* dev.c: /dev/uid */
int uidgen_dev_add(struct uidgen_device *ud);
void uidgen_dev_del(struct uidgen_device *ud);

#endif /* _UIDGEN_INTERNAL_H */
