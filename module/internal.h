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
#include "noderules.h"

struct file;

#define UIDGEN_VERSION_MAJOR	2
#define UIDGEN_VERSION_MINOR	0
#define UIDGEN_VERSION_PATCH	0
#define UIDGEN_VERSION_STR	"2.0.0"

/**
 * struct uidgen_node_ctl - the node ID a generator issues under, and its life
 * @gen: the generator whose IDs carry the node ID
 * @lock: serialises every change to the fields below and to @gen's floor
 *	and grant
 * @node: the node ID in force, or -1; read locklessly by minting paths
 * @floor_unix_ns: the highest floor applied to @gen (Unix ns, 0: none)
 * @grant_unix_ns: the grant of the assignment in force, as given (Unix
 *	ns, 0: none); @gen's grant_tick is what minting paths read
 * @deadline_boot_ns: CLOCK_BOOTTIME at which @node stops (U64_MAX: never);
 *	read locklessly by minting paths
 * @token: fencing token of the assignment in force
 * @max_token: the highest token any assignment carried
 * @page: the page mmap() shares: its fence moves on every revoke
 * @grant_wq: callers waiting for the grant to be raised
 * @grant_waits: how many times a caller found the grant reached
 * @deadline_timer: fires at @deadline_boot_ns
 * @expire_work: revokes @node at its deadline, in process context
 *
 * Minting paths run in an RCU read-side critical section with preemption
 * and page faults disabled, so every one of them ends in bounded time: a revoke clears
 * @node, waits for a grace period (every minting path that could have
 * seen the old node ID has stored or dropped its IDs), then moves the
 * fence. Nothing userspace does can hold it up.
 */
struct uidgen_node_ctl {
	struct uidgen_gen *gen;
	struct mutex lock;	/* see @lock above */
	int node;
	u64 floor_unix_ns;
	u64 grant_unix_ns;
	u64 deadline_boot_ns;
	u64 token;
	u64 max_token;
	struct uidgen_page *page;
	wait_queue_head_t grant_wq;
	atomic64_t grant_waits;
	struct hrtimer deadline_timer;
	struct work_struct expire_work;
};

/* node.c */
void uidgen_node_init(struct uidgen_node_ctl *n, struct uidgen_gen *gen,
		      struct uidgen_page *page);
void uidgen_node_destroy(struct uidgen_node_ctl *n);
int uidgen_node_assign(struct uidgen_node_ctl *n,
		       const struct uidgen_rules_req *req);
int uidgen_node_renew(struct uidgen_node_ctl *n,
		      const struct uidgen_rules_req *req);
int uidgen_node_revoke(struct uidgen_node_ctl *n, u32 node, u64 token,
		       const char *why);
u32 uidgen_node_state(struct uidgen_node_ctl *n, u32 *node);
void uidgen_node_vmfork(struct uidgen_node_ctl *n);

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
