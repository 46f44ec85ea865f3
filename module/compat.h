/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel APIs uidgen uses that differ between the kernels it supports
 * (Debian's 6.1 and 6.12). Kbuild finds out which form the headers have
 * and says so with a UIDGEN_HAVE_* define.
 */
#ifndef _UIDGEN_COMPAT_H
#define _UIDGEN_COMPAT_H

/* device_type.devnode() takes a const struct device * since 6.2. */
#ifdef UIDGEN_HAVE_CONST_DEVNODE
#define UIDGEN_DEVNODE_CONST const
#else
#define UIDGEN_DEVNODE_CONST
#endif

#endif /* _UIDGEN_COMPAT_H */
