/* SPDX-License-Identifier: GPL-2.0 */
/* What main.c shares with its KUnit tests. */
#ifndef _UIDGEN_INTERNAL_H
#define _UIDGEN_INTERNAL_H

#include <linux/notifier.h>
#include <linux/types.h>

int uidgen_assign_node(u32 node);
int uidgen_current_node(void);
extern struct notifier_block uidgen_vmfork_nb;

#endif /* _UIDGEN_INTERNAL_H */
