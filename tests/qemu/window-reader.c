// SPDX-License-Identifier: GPL-2.0
/*
 * The minter of tests/qemu/clone-window.sh, in a guest that runs from its
 * initramfs alone: read one ID per read() from /dev/uid without pause and
 * keep each with the CLOCK_BOOTTIME after its read, in a ring in memory.
 * A restored copy of the VM (the clone) runs on from the same ring, so the
 * original's record and the clone's share every entry up to the snapshot.
 *
 *   window-reader DIR
 *
 * SIGUSR1: mark (the next dump starts at the entry read next); prints
 *          "== reader: marked" and writes "window-reader: mark NS" (its
 *          CLOCK_BOOTTIME) to /dev/kmsg, so that the kernel log's times
 *          can be put on the reader's clock.
 * SIGUSR2: dump the entries from the mark to now to DIR/orig.bin and
 *          print "== reader: dumped N"; read on.
 * The first EADDRNOTAVAIL (the node ID revoked: on the clone, the VM
 * generation ID change): dump from the mark to DIR/clone.bin, print
 * "== reader: revoked N" and exit 3. Any other error: exit 1.
 *
 * A dump (little-endian, 8-byte words): "UIDWIN01", the count N, the
 * CLOCK_BOOTTIME of the failing read (0 in a SIGUSR2 dump), then N pairs
 * (CLOCK_BOOTTIME ns after the read, ID). Written to NAME.tmp and renamed.
 * Built static.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define RING_BITS 22	/* 4 Mi entries, 64 MiB: > 10 s at TCG's rate */
#define RING (1UL << RING_BITS)

struct entry {
	int64_t t;
	uint64_t id;
};

static volatile sig_atomic_t want_mark, want_dump;

static void on_usr1(int sig)
{
	(void)sig;
	want_mark = 1;
}

static void on_usr2(int sig)
{
	(void)sig;
	want_dump = 1;
}

static int64_t boot_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* "window-reader: mark NS" in the kernel log, NS its CLOCK_BOOTTIME. */
static void kmsg_mark(void)
{
	char line[64];
	int k = open("/dev/kmsg", O_WRONLY);

	if (k < 0)
		return;
	snprintf(line, sizeof(line), "window-reader: mark %" PRId64 "\n", boot_ns());
	if (write(k, line, strlen(line)) < 0)
		perror("window-reader: /dev/kmsg");
	close(k);
}

/* Write entries [from, to) of the ring to DIR/NAME; 0 or -1. */
static int dump(const char *dir, const char *name, const struct entry *ring,
		uint64_t from, uint64_t to, int64_t t_rev)
{
	char path[4096], tmp[4100];
	uint64_t head[3] = { 0, to - from, (uint64_t)t_rev };
	uint64_t i;
	FILE *f;

	memcpy(&head[0], "UIDWIN01", 8);
	if (to - from > RING) {
		fprintf(stderr, "window-reader: %" PRIu64 " entries since the mark, the ring holds %lu\n",
			to - from, RING);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		perror(tmp);
		return -1;
	}
	fwrite(head, sizeof(head), 1, f);
	for (i = from; i < to; i++)
		fwrite(&ring[i & (RING - 1)], sizeof(*ring), 1, f);
	if (fclose(f) || rename(tmp, path)) {
		perror(path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { 0 };
	uint64_t n = 0, mark = 0, id;
	struct entry *ring;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: window-reader DIR\n");
		return 2;
	}
	ring = mmap(NULL, RING * sizeof(*ring), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	fd = open("/dev/uid", O_RDONLY);
	if (ring == MAP_FAILED || fd < 0) {
		perror("window-reader");
		return 1;
	}
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("== reader: up\n");
	for (;;) {
		ssize_t r = read(fd, &id, sizeof(id));
		int64_t t = boot_ns();

		if (r == sizeof(id)) {
			ring[n & (RING - 1)] = (struct entry){ t, id };
			n++;
		} else if (r < 0 && errno == EINTR) {
			/* a signal: handled below */
		} else if (r < 0 && errno == EADDRNOTAVAIL) {
			if (dump(argv[1], "clone.bin", ring, mark, n, t))
				return 1;
			printf("== reader: revoked %" PRIu64 "\n", n - mark);
			return 3;
		} else {
			fprintf(stderr, "window-reader: read: %zd, %s\n", r,
				r < 0 ? strerror(errno) : "short");
			return 1;
		}
		if (want_mark) {
			want_mark = 0;
			mark = n;
			kmsg_mark();
			printf("== reader: marked\n");
		}
		if (want_dump) {
			want_dump = 0;
			if (dump(argv[1], "orig.bin", ring, mark, n, 0))
				return 1;
			printf("== reader: dumped %" PRIu64 "\n", n - mark);
		}
	}
}
