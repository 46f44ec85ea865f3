// SPDX-License-Identifier: GPL-2.0
/*
 * The uidgen CLI's output: the program's name in its messages, standard
 * output checked at exit as coreutils' close_stdout() does (a write that
 * failed is exit 1 and "write error", never a silent 0), and times as the
 * commands print them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/base/base.h"

const char *prog = "uidgen";

/* Standard output failed: said once, by write_error(). */
static int write_failed;

/*
 * Writing standard output failed with @err (0 if unknown): say so, as
 * coreutils do, once. Returns 1, the exit status.
 */
int write_error(int err)
{
	if (!write_failed && err)
		fprintf(stderr, "%s: write error: %s\n", prog, strerror(err));
	else if (!write_failed)
		fprintf(stderr, "%s: write error\n", prog);
	write_failed = 1;
	return 1;
}

/*
 * At exit, what coreutils' close_stdout() does: flush and close standard
 * output, and a write that failed then, or earlier unseen, is exit 1 with
 * "write error" (a full disk, a reader gone with SIGPIPE ignored, a
 * closed descriptor), never a silent @status.
 */
int close_stdout(int status)
{
	int err;

	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		err = errno;
		fclose(stdout);
		return write_error(err);
	}
	if (fclose(stdout))
		return write_error(errno);
	return status;
}

/* A uapi time in ms, rounded up: a floor or grant mark never falls short. */
unsigned long long ns_ms(uint64_t ns)
{
	return ns / NS_PER_MS + !!(ns % NS_PER_MS);
}

void format_time(int64_t unix_ms, char *buf, size_t len)
{
	time_t secs = unix_ms / 1000;
	struct tm tm;

	if (!gmtime_r(&secs, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "(out of range)");
		return;
	}
	snprintf(buf + strlen(buf), len - strlen(buf), ".%03dZ",
		 (int)(unix_ms % 1000));
}

/* Unix time in ms from the wall clock. */
unsigned long long wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

unsigned long long max_ull(unsigned long long a, unsigned long long b)
{
	return a > b ? a : b;
}
