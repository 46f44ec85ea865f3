/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the module share: the generator behind /dev/uid, the
 * node that names its IDs (node.c), the module parameters the other
 * files read (params.c) and what each file offers the others.
 */
#ifndef _UIDGEN_INTERNAL_H
#define _UIDGEN_INTERNAL_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <linux/uidgen.h>

#include "gen.h"
#include "node.h"

struct file;

#define UIDGEN_VERSION_MAJOR	1
#define UIDGEN_VERSION_MINOR	4
#define UIDGEN_VERSION_PATCH	0
#define UIDGEN_VERSION_STR	"1.4.0"

/* The one generator and node behind /dev/uid. */
extern struct uidgen_gen uidgen_dev_gen;
extern struct uidgen_node_ctl uidgen_dev_node;
extern u64 __percpu *uidgen_issued;

/* params.c: the module parameters */
struct uidgen_layout uidgen_params_layout(void);
u64 uidgen_params_min_life_ms(void);
void uidgen_clock_check(void);

/* status.c: sysfs status and debugfs */
extern const struct attribute_group *uidgen_groups[];
s64 uidgen_clock_offset_ms(void);
void uidgen_debugfs_init(void);
void uidgen_debugfs_exit(void);

/* mint.c: the minting path */
ssize_t uidgen_read(struct file *file, char __user *ubuf, size_t len,
		    loff_t *ppos);
long uidgen_fill(u64 __user *dst, size_t n, bool nonblock);
long uidgen_reserve_once(struct uidgen_reserve __user *uarg,
			 struct uidgen_reserve *r, bool nonblock);

/* dev.c: /dev/uid */
int uidgen_dev_add(void);
void uidgen_dev_del(void);

#endif /* _UIDGEN_INTERNAL_H */
