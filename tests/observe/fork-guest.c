// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's side of tests/observe/fork.sh: observe across a VM snapshot
 * restore (the VM-fork revoke), as one process that keeps its libuidgen
 * handle and per-thread cache across it. Static, in the VM's initramfs.
 *
 * Before the snapshot (node ID in force, assigned by the init script):
 * a run cached (a), an ID 300 ms ahead observed (x), the next ID (b)
 * above it, a new run cached (c). Then "ready for snapshot", and it waits
 * until the node ID is gone: only the restored copy sees that. In the copy:
 * the cached run is fenced off (uidgen_next() fails, EADDRNOTAVAIL), and
 * the page still says x was observed; an observe with no node ID in force
 * is taken (y, 100 ms ahead); the node ID assigned again (9, new), the next
 * ID is above x, y and c, under node 9. Prints "RESULT NAME VALUE" lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/uidgen.h>
#include "uidgen.h"

static struct uidgen_info in;

/* UIDGEN_IOC_INFO into @in; negative on an error. */
static int info(struct uidgen *g)
{
	memset(&in, 0, sizeof(in));
	in.size = sizeof(in);
	return uidgen_info(g, &in);
}

static unsigned int low_bits(void)
{
	return in.node_bits + in.slot_bits + in.seq_bits;
}

/* The last ID of the tick @ms ms after the wall clock's. */
static uint64_t top_in(long ms)
{
	struct timespec ts;
	uint64_t ns, tick;

	clock_gettime(CLOCK_REALTIME, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + ms * 1000000LL;
	tick = (ns - in.epoch_unix_ns) / in.tick_ns;
	return tick << low_bits() | ((1ULL << low_bits()) - 1);
}

static unsigned int node_of(uint64_t id)
{
	return (id >> (in.slot_bits + in.seq_bits)) & ((1U << in.node_bits) - 1);
}

int main(void)
{
	struct uidgen_assign as = { .size = sizeof(as), .flags = UIDGEN_ASSIGN_NEW,
				    .node_id = 9 };
	const struct uidgen_page *pg;
	uint64_t a, b, c, d = 0, e, x, y;
	struct uidgen *g;
	int fd, i, r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (uidgen_open(&g, NULL) || uidgen_set_cache(g, 4096, 100000) ||
	    info(g) < 0) {
		printf("RESULT error open %s\n", strerror(errno));
		return 1;
	}
	fd = open(UIDGEN_DEVICE, O_RDONLY);
	pg = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		printf("RESULT error mmap %s\n", strerror(errno));
		return 1;
	}
	uidgen_next(g, &a);
	x = top_in(300);
	r = uidgen_observe(g, x);
	uidgen_next(g, &b);
	uidgen_next(g, &c);
	printf("RESULT observe_before %d\n", r);
	printf("RESULT a %llu\nRESULT x %llu\nRESULT b %llu\nRESULT c %llu\n",
	       (unsigned long long)a, (unsigned long long)x,
	       (unsigned long long)b, (unsigned long long)c);
	printf("RESULT fence_before %u\n", pg->fence);
	printf("== fork-guest: ready for snapshot\n");

	/* Only a restored copy loses its node ID (up to 3 minutes). */
	for (i = 0; i < 900; i++) {
		if (info(g) >= 0 && in.node_id == UIDGEN_NODE_NONE)
			break;
		usleep(200000);
	}
	printf("== fork-guest: restored\n");
	printf("RESULT restored_node %s\n",
	       in.node_id == UIDGEN_NODE_NONE ? "unassigned" : "assigned");
	printf("RESULT fence_after %u\n", pg->fence);
	printf("RESULT page_observed %llu\n", (unsigned long long)pg->observed);
	/* The run cached before the snapshot is not handed out. */
	r = uidgen_next(g, &d);
	printf("RESULT cached_next %d %llu\n", r, r ? 0ULL : (unsigned long long)d);
	y = top_in(100);
	printf("RESULT observe_unassigned %d\n", uidgen_observe(g, y));
	printf("RESULT y %llu\n", (unsigned long long)y);
	r = uidgen_assign(g, &as);
	printf("RESULT reassign %d\n", r);
	r = uidgen_next(g, &e);
	printf("RESULT e %d %llu\n", r, (unsigned long long)e);
	printf("RESULT e_node %u\n", node_of(e));
	printf("== fork-guest: done\n");
	return 0;
}
