/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel APIs uidgen uses that differ between the kernels it is built
 * for out of tree (Debian's 6.1 and 6.12, and newer). module/Kbuild asks
 * the headers which form they have, says so with a UIDGEN_HAVE_* define,
 * and includes this file ahead of every source file (-include), so that
 * the sources themselves name no compat header and use the newest form.
 * It includes no header itself: it comes before each file's pr_fmt.
 *
 * Out-of-tree only: the in-tree copy (tools/upstream.sh) does not carry
 * this file; it writes each source for the API its target tree has.
 */
#ifndef _UIDGEN_COMPAT_H
#define _UIDGEN_COMPAT_H

/*
 * hrtimer_setup() came in 6.13, and hrtimer_init() has gone since: before
 * it, the timer is initialized and its function set in two steps. A macro,
 * not a function: this file comes before any header (a source file's
 * pr_fmt must), so struct hrtimer is not known here yet.
 */
#ifndef UIDGEN_HAVE_HRTIMER_SETUP
#define hrtimer_setup(timer, fn, clock_id, mode)		\
	do {							\
		struct hrtimer *__uidgen_t = (timer);		\
								\
		hrtimer_init(__uidgen_t, clock_id, mode);	\
		__uidgen_t->function = (fn);			\
	} while (0)
#endif

/*
 * vm_flags_mod() came in 6.3, when vm_flags became read-only to drivers;
 * before it, they are written directly.
 */
#ifndef UIDGEN_HAVE_VM_FLAGS_MOD
#define vm_flags_mod(vma, set, clear)					\
	do {								\
		struct vm_area_struct *__uidgen_v = (vma);		\
									\
		__uidgen_v->vm_flags = (__uidgen_v->vm_flags | (set)) &	\
				       ~(clear);			\
	} while (0)
#endif

#endif /* _UIDGEN_COMPAT_H */
