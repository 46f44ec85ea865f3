/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little of the kernel's headers that module/noderules.c (the node
 * rules) needs, for building it in userspace: uidgen-lease's device
 * stand-in and the host run of the rules' table compile it with
 * -include kshim.h. <linux/types.h>, <linux/errno.h> and <linux/limits.h>
 * are the uapi headers there; this adds the kernel's own names on top.
 */
#ifndef UIDGEN_LEASE_KSHIM_H
#define UIDGEN_LEASE_KSHIM_H

#include <stdbool.h>
#include <stdint.h>

typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#ifndef U64_MAX
#define U64_MAX UINT64_MAX
#endif

#endif
