// SPDX-License-Identifier: GPL-2.0
/* A program built against an installed libuidgen: one ID, its node. */
#include <stdio.h>
#include <uidgen.h>

int main(void)
{
	struct uidgen_parts p;
	struct uidgen_info info = { .size = sizeof(info) };
	struct uidgen *g;
	uint64_t id;

	if (uidgen_open(&g, NULL) || uidgen_info(g, &info) < 0 ||
	    uidgen_next(g, &id) || uidgen_decode(&info, id, &p))
		return 1;
	printf("node=%u\n", p.node);
	uidgen_close(g);
	return 0;
}
