/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What libuidgen.c, uuid.c and public.c share inside the library; nothing
 * here is exported (the version script keeps every other symbol local).
 */
#ifndef UIDGEN_INTERNAL_H
#define UIDGEN_INTERNAL_H

int uidgen_b32_value(char c);

/* public.c's permutation and its PRF, for the tests (userlib/tests/public.c). */
uint64_t uidgen_siphash24(const uint8_t key[16], const void *m, size_t len);
uint64_t uidgen_feistel(const uint8_t key[16], unsigned int half_bits,
			uint64_t x, int decrypt);

#endif /* UIDGEN_INTERNAL_H */
