// SPDX-License-Identifier: GPL-2.0
/*
 * reader.py's job in a guest that has no Python
 * (tests/lease/clone.sh's, which runs from its initramfs alone): read IDs
 * from /dev/uid without pause, for the global check, and log when this
 * machine could not issue. Built static.
 *
 *   idreader IDS GAPS NODE_SHIFT NODE_BITS
 *   idreader --clock
 *
 * IDS gets every ID (decimal, one a line; each read's IDs in one write(),
 * so that a SIGSTOP leaves IDS at a line's end). GAPS gets, in
 * CLOCK_REALTIME ns (the host's clock, to within what clone.sh measures),
 * "gap START_NS LEN_MS LAST_ERROR" for every stretch of more than 200 ms
 * with no ID read, "start NODE NS" at the first ID of a node field and
 * "stop NODE NS" at the last one before an error or another node field.
 * Stops on SIGTERM. --clock prints CLOCK_REALTIME and CLOCK_BOOTTIME, ns.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* strerrorname_np() */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PER_READ 16

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void nap(long ms)
{
	struct timespec t = { 0, ms * 1000000 };

	nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	uint64_t got[PER_READ], mask;
	char buf[PER_READ * 21];
	const char *err = "-";
	int64_t last_ok, t;
	int fd, out, cur = -1;
	unsigned int shift;
	FILE *gaps;

	if (argc == 2 && !strcmp(argv[1], "--clock")) {
		printf("%" PRId64 " %" PRId64 "\n", ns(CLOCK_REALTIME), ns(CLOCK_BOOTTIME));
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: idreader IDS GAPS NODE_SHIFT NODE_BITS | --clock\n");
		return 2;
	}
	shift = (unsigned int)atoi(argv[3]);
	mask = (1ULL << atoi(argv[4])) - 1;
	out = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
	gaps = fopen(argv[2], "a");
	fd = open("/dev/uid", O_RDONLY);
	if (out < 0 || !gaps || fd < 0) {
		perror("idreader: open");
		return 1;
	}
	setvbuf(gaps, NULL, _IOLBF, 0);
	sigaction(SIGTERM, &sa, NULL);
	last_ok = ns(CLOCK_REALTIME);
	while (!stop) {
		ssize_t r = read(fd, got, sizeof(got));
		size_t len = 0;
		int i, node;

		t = ns(CLOCK_REALTIME);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			err = r < 0 ? strerrorname_np(errno) : "EOF";
			if (cur >= 0 && r < 0 && errno == EADDRNOTAVAIL) {
				fprintf(gaps, "stop %d %" PRId64 "\n", cur, last_ok);
				cur = -1;
			}
			nap(20);
			continue;
		}
		if (t - last_ok > 200000000)
			fprintf(gaps, "gap %" PRId64 " %" PRId64 " %s\n", last_ok,
				(t - last_ok) / 1000000, err);
		node = (int)((got[0] >> shift) & mask);
		if (node != cur) {
			if (cur >= 0)
				fprintf(gaps, "stop %d %" PRId64 "\n", cur, last_ok);
			fprintf(gaps, "start %d %" PRId64 "\n", node, t);
			cur = node;
		}
		last_ok = t;
		err = "wait";
		for (i = 0; i < r / 8; i++)
			len += (size_t)sprintf(buf + len, "%" PRIu64 "\n", got[i]);
		if (write(out, buf, len) != (ssize_t)len) {
			perror("idreader: write");
			return 1;
		}
		nap(5);
	}
	t = ns(CLOCK_REALTIME);
	if (cur >= 0)
		fprintf(gaps, "stop %d %" PRId64 "\n", cur, last_ok);
	if (t - last_ok > 200000000)
		fprintf(gaps, "gap %" PRId64 " %" PRId64 " %s (until the end)\n", last_ok,
			(t - last_ok) / 1000000, err);
	fclose(gaps);
	return close(out) ? 1 : 0;
}
