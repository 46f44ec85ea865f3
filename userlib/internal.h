/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What libuidgen.c and uuid.c share inside the library; nothing here is
 * exported (the version script keeps every other symbol local).
 */
#ifndef UIDGEN_INTERNAL_H
#define UIDGEN_INTERNAL_H

int uidgen_b32_value(char c);

#endif /* UIDGEN_INTERNAL_H */
