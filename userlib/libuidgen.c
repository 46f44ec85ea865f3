// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libuidgen: a thin wrapper over /dev/uid, plus a per-thread cache of IDs
 * for uidgen_next().
 *
 * The cache holds one run from UIDGEN_IOC_RESERVE per thread and hands it
 * out while four cheap checks hold: the run is not spent, the fence on
 * the device's shared page has not moved (no revoke, no VM fork since),
 * the next ID is above the page's observed ID (an observe, by any
 * process, of an ID at or above it cuts the run there), and the clock has
 * not passed the run's tick by more than the handle's staleness bound. The cache lives in a page of its own marked
 * MADV_WIPEONFORK, so a forked child starts with it empty, whatever way it
 * was forked.
 *
 * The cache must also hold up for the rest of a thread's life:
 *  - A thread-key destructor that runs after ours may call uidgen_next():
 *    ours makes the page unreachable (uidgen_tc = the "none" sentinel)
 *    before it unmaps it, so the thread falls back to read() for good and
 *    never touches a page another thread may now own.
 *  - A signal handler may call uidgen_next() while the thread it interrupted
 *    is inside uidgen_next(): a per-thread busy flag, set before the cache
 *    is read and cleared after, sends the nested call to read().
 *  - dlclose(): the .so is linked -z nodelete, so the key's destructor never
 *    points into unmapped code.
 *  - A failed mmap()/madvise() is remembered for the thread (the sentinel
 *    again): no system call storm, and errno is kept.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "uidgen.h"
#include "internal.h"

struct uidgen {
	int fd;
	/* Names this handle's runs in thread caches; new on every change. */
	uint64_t serial;
	/* The device's fence page, or NULL: then uidgen_next() never caches. */
	const struct uidgen_page *page;
	uint32_t max_run;	/* 0: no cache */
	uint32_t stale_ticks;
	uint32_t seq_max;	/* 1 << seq_bits */
	uint64_t tick_ns;
};

/* One thread's run. All zero (owner 0) means empty. */
struct uidgen_tcache {
	uint64_t owner;		/* serial of the handle the run is from */
	uint64_t start;		/* the run's first ID */
	uint64_t next, end;	/* IDs still to hand out: next .. end - 1 */
	/* CLOCK_BOOTTIME from which it is stale, as a timespec would say it. */
	uint64_t deadline_sec, deadline_nsec;
	uint32_t fence;		/* the fence it was reserved under */
	uint32_t run;		/* how many to reserve next time */
};

/* The first run a thread reserves; then it follows what the thread uses. */
#define UIDGEN_FIRST_RUN	16

/* What is mapped: a thread's cache, and the device's fence page. */
#define UIDGEN_MAP_LEN		4096

/*
 * initial-exec: no __tls_get_addr() call per ID when built as a .so.
 * uidgen_tc is NULL until the thread's first cached call, then its page,
 * or uidgen_tc_none for good once the page is gone or could not be made.
 */
static __thread struct uidgen_tcache *uidgen_tc
	__attribute__((tls_model("initial-exec")));
/* Set while this thread is inside uidgen_next(): see uidgen_next(). */
static __thread int uidgen_tc_busy __attribute__((tls_model("initial-exec")));
/* Owner 0 matches no handle: every call takes the slow path, and reads. */
static const struct uidgen_tcache uidgen_tc_none;
#define UIDGEN_TC_NONE	((struct uidgen_tcache *)&uidgen_tc_none)
static pthread_key_t uidgen_tc_key;
static pthread_once_t uidgen_tc_once = PTHREAD_ONCE_INIT;
static int uidgen_tc_key_ok;
static uint64_t uidgen_serials;

/*
 * The clock the cache checks, CLOCK_BOOTTIME: the kernel's vDSO function
 * itself where it can be found, else libc's clock_gettime(). Calling the
 * vDSO directly skips libc's wrapper, about a fifth of the cost of the
 * clock read, which is most of the cost of a cached ID.
 */
typedef int (*uidgen_gettime_fn)(clockid_t clk, struct timespec *ts);

/* libc's clock_gettime() sets errno when it fails: keep the caller's. */
static int uidgen_clock_libc(clockid_t clk, struct timespec *ts)
{
	int saved = errno, r = clock_gettime(clk, ts);

	errno = saved;
	return r;
}

/* 0, or nonzero when the clock could not be read (the vDSO: -errno). */
static uidgen_gettime_fn uidgen_gettime = uidgen_clock_libc;
static pthread_once_t uidgen_vdso_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__)
#define UIDGEN_VDSO_GETTIME	"__vdso_clock_gettime"
#elif defined(__aarch64__)
#define UIDGEN_VDSO_GETTIME	"__kernel_clock_gettime"
#endif

/* Look the function up in the vDSO's own symbol table (DT_HASH sized). */
static void uidgen_vdso_init(void)
{
#ifdef UIDGEN_VDSO_GETTIME
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *sym = NULL;
	const ElfW(Word) *hash = NULL;
	const ElfW(Phdr) *ph;
	const char *str = NULL;
	uintptr_t bias = 0;
	int i, loaded = 0;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return;
	ph = (const void *)((const char *)eh + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !loaded) {
			bias = (uintptr_t)eh + ph[i].p_offset - ph[i].p_vaddr;
			loaded = 1;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const void *)((const char *)eh + ph[i].p_offset);
		}
	}
	if (!loaded || !dyn)
		return;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const void *)(bias + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			str = (const void *)(bias + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const void *)(bias + dyn->d_un.d_ptr);
	}
	if (!sym || !str || !hash)
		return;
	/* hash[1] is nchain: the number of symbols. */
	for (i = 0; i < (int)hash[1]; i++) {
		if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC &&
		    sym[i].st_shndx != SHN_UNDEF &&
		    !strcmp(str + sym[i].st_name, UIDGEN_VDSO_GETTIME)) {
			uidgen_gettime = (uidgen_gettime_fn)(bias + sym[i].st_value);
			return;
		}
	}
#endif
}

/* Return -errno and put errno back the way the caller had it. */
#define UIDGEN_ERR(saved) (ret = -errno, errno = (saved), ret)

static uint64_t uidgen_new_serial(void)
{
	return __atomic_add_fetch(&uidgen_serials, 1, __ATOMIC_RELAXED);
}

/*
 * The thread is exiting. Destructors of keys created after ours run after
 * this one and may still call uidgen_next(): the sentinel makes the page
 * unreachable before it is unmapped (another thread's page may land at the
 * same address), and uidgen_tc_get() never makes a new one.
 */
static void uidgen_tc_free(void *p)
{
	int saved = errno;

	uidgen_tc = UIDGEN_TC_NONE;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	munmap(p, UIDGEN_MAP_LEN);
	errno = saved;
}

static void uidgen_tc_key_init(void)
{
	uidgen_tc_key_ok = !pthread_key_create(&uidgen_tc_key, uidgen_tc_free);
}

/*
 * This thread's cache, created on first use; UIDGEN_TC_NONE if it cannot
 * be, which is remembered: the thread reads uncached from then on rather
 * than retry the system calls on every ID. Called with uidgen_tc_busy set.
 */
static struct uidgen_tcache *uidgen_tc_get(void)
{
	struct uidgen_tcache *c = uidgen_tc;
	int saved;

	if (c)
		return c;
	/* uidgen_open() created the key: no pthread_once() in a handler. */
	if (!uidgen_tc_key_ok) {
		uidgen_tc = UIDGEN_TC_NONE;
		return UIDGEN_TC_NONE;
	}
	saved = errno;
	c = mmap(NULL, UIDGEN_MAP_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED) {
		c = UIDGEN_TC_NONE;
	} else if (madvise(c, UIDGEN_MAP_LEN, MADV_WIPEONFORK) ||
		   pthread_setspecific(uidgen_tc_key, c)) {
		/* Without a wiped page a child could hand out its parent's run. */
		munmap(c, UIDGEN_MAP_LEN);
		c = UIDGEN_TC_NONE;
	}
	uidgen_tc = c;
	errno = saved;
	return c;
}

/*
 * @flags: 0 or O_NONBLOCK. With O_NONBLOCK the kernel never sleeps for a
 * tick or for the grant: read(), UIDGEN_IOC_BATCH and UIDGEN_IOC_RESERVE
 * fail with EAGAIN instead, so uidgen_next() and uidgen_fill() return
 * -EAGAIN and the caller waits its own way (and stays cancellable: a
 * sleep in the kernel is restarted after an SA_RESTART handler).
 */
int uidgen_open_flags(struct uidgen **gp, const char *path, int flags)
{
	struct uidgen_info info = { .size = sizeof(info) };
	int saved = errno, ret;
	struct uidgen *g;
	void *page;

	if (flags & ~O_NONBLOCK)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g) {
		errno = saved;
		return -ENOMEM;
	}
	g->fd = open(path ? path : UIDGEN_DEVICE, O_RDONLY | O_CLOEXEC | flags);
	if (g->fd < 0) {
		ret = -errno;
		free(g);
		errno = saved;
		return ret;
	}
	g->serial = uidgen_new_serial();
	pthread_once(&uidgen_vdso_once, uidgen_vdso_init);
	pthread_once(&uidgen_tc_once, uidgen_tc_key_init);
	/*
	 * The cache needs the layout and the fence page; a file that is not
	 * /dev/uid simply gets no cache.
	 */
	if (uidgen_info(g, &info) >= 0) {
		page = mmap(NULL, UIDGEN_MAP_LEN, PROT_READ, MAP_SHARED, g->fd, 0);
		if (page != MAP_FAILED) {
			g->page = page;
			g->seq_max = 1U << info.seq_bits;
			g->tick_ns = info.tick_ns;
			g->max_run = g->seq_max / 4 ? g->seq_max / 4 : 1;
			g->stale_ticks = UIDGEN_STALE_TICKS_DEFAULT;
		}
	}
	*gp = g;
	errno = saved;
	return 0;
}

int uidgen_open(struct uidgen **gp, const char *path)
{
	return uidgen_open_flags(gp, path, 0);
}

void uidgen_close(struct uidgen *g)
{
	int saved = errno;

	if (!g)
		return;
	if (g->page)
		munmap((void *)g->page, UIDGEN_MAP_LEN);
	close(g->fd);
	free(g);
	errno = saved;
}

int uidgen_set_cache(struct uidgen *g, uint32_t max_run, uint32_t stale_ticks)
{
	if (max_run && !g->page)
		return -EOPNOTSUPP;
	if (max_run > g->seq_max || stale_ticks > UIDGEN_STALE_TICKS_MAX)
		return -EINVAL;
	g->max_run = max_run;
	g->stale_ticks = stale_ticks;
	/* Runs cached under the old settings are dropped. */
	g->serial = uidgen_new_serial();
	return 0;
}

static uint32_t uidgen_fence(const struct uidgen_page *pg)
{
	return __atomic_load_n(&pg->fence, __ATOMIC_ACQUIRE);
}

/*
 * The highest ID observed on this machine: one 64-bit load, even on i386.
 * Relaxed is enough: an observe that returned before this call began is
 * seen (coherence), and one that had not is concurrent with it.
 */
static uint64_t uidgen_observed(const struct uidgen_page *pg)
{
	return __atomic_load_n(&pg->observed, __ATOMIC_RELAXED);
}

/* One ID straight from the kernel. */
static int uidgen_read_one(struct uidgen *g, uint64_t *id)
{
	int saved = errno, ret;
	ssize_t r;

	r = read(g->fd, id, sizeof(*id));
	if (r < 0)
		return UIDGEN_ERR(saved);
	/* The device only ever returns whole IDs. */
	return r == sizeof(*id) ? 0 : -EIO;
}

/* The cache is empty, spent, stale or fenced off: reserve a new run. */
static int uidgen_refill(struct uidgen *g, struct uidgen_tcache *c,
			 uint64_t *id)
{
	struct uidgen_reserve r = { .size = sizeof(r) };
	int saved = errno, ret;
	uint32_t run = c->run;
	uint64_t deadline;

	/*
	 * Used up in time: take twice as many. Went stale (or fenced): take
	 * what this thread used of it, so that little goes to waste.
	 */
	if (c->owner != g->serial || !run)
		run = UIDGEN_FIRST_RUN;
	else if (c->next >= c->end)
		run *= 2;
	else
		run = c->next - c->start ? c->next - c->start : 1;
	if (run > g->max_run)
		run = g->max_run;

	c->owner = 0;
	r.count = run;
	if (ioctl(g->fd, UIDGEN_IOC_RESERVE, &r) < 0)
		return UIDGEN_ERR(saved);
	deadline = r.expires_boot_ns + g->stale_ticks * g->tick_ns;
	c->run = run;
	c->start = r.first;
	c->next = r.first + 1;
	c->end = r.first + r.count;
	c->fence = r.fence;
	c->deadline_sec = deadline / 1000000000;
	c->deadline_nsec = deadline % 1000000000;
	c->owner = g->serial;
	*id = r.first;
	return 0;
}

static __attribute__((noinline)) int uidgen_next_slow(struct uidgen *g,
						      uint64_t *id)
{
	struct uidgen_tcache *c;

	if (!g->max_run)
		return uidgen_read_one(g, id);
	c = uidgen_tc_get();
	if (c == UIDGEN_TC_NONE)
		return uidgen_read_one(g, id);
	return uidgen_refill(g, c, id);
}

/*
 * The fast path: a few loads and compares and one vDSO clock read, no
 * system call, no atomic read-modify-write.
 *
 * Async-signal-safe: a handler that interrupts this thread inside
 * uidgen_next() finds uidgen_tc_busy set and reads its ID from the kernel,
 * so it neither takes the ID the interrupted call is about to return nor
 * refills the run under it. The flag is set before anything of the cache is
 * read and cleared after the last write, with signal fences so the compiler
 * keeps that order; a handler that runs before the flag is set runs to the
 * end before this call reads anything.
 */
int uidgen_next(struct uidgen *g, uint64_t *id)
{
	/* Loaded once, for the fence and the observed ID both. */
	const struct uidgen_page *pg = g->page;
	struct uidgen_tcache *c;
	struct timespec ts;
	uint64_t next;
	int ret;

	if (__builtin_expect(uidgen_tc_busy, 0))
		return uidgen_read_one(g, id);
	uidgen_tc_busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c = uidgen_tc;
	if (__builtin_expect(c && c->owner == g->serial &&
			     (next = c->next) < c->end &&
			     c->fence == uidgen_fence(pg) &&
			     next > uidgen_observed(pg), 1) &&
	    /* A clock that cannot be read makes the run stale. */
	    __builtin_expect(!uidgen_gettime(CLOCK_BOOTTIME, &ts), 1) &&
	    __builtin_expect((uint64_t)ts.tv_sec < c->deadline_sec ||
			     ((uint64_t)ts.tv_sec == c->deadline_sec &&
			      (uint64_t)ts.tv_nsec < c->deadline_nsec), 1)) {
		*id = c->next++;
		ret = 0;
		/*
		 * A handler that ran fork() between the checks and the take
		 * leaves the child here with its page wiped: a run of owner
		 * 0. Look again; hand out nothing from a page that is gone.
		 */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (__builtin_expect(c->owner != g->serial, 0))
			ret = uidgen_next_slow(g, id);
	} else {
		ret = uidgen_next_slow(g, id);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	uidgen_tc_busy = 0;
	return ret;
}

long uidgen_fill(struct uidgen *g, uint64_t *ids, size_t n)
{
	int saved = errno, ret;
	size_t done = 0;

	if (n == 0 || n > LONG_MAX)
		return -EINVAL;
	while (done < n) {
		size_t want = n - done;
		ssize_t r;

		if (want > UIDGEN_BATCH_MAX)
			want = UIDGEN_BATCH_MAX;
		r = read(g->fd, ids + done, want * sizeof(*ids));
		if (r < 0) {
			if (done)
				break;
			return UIDGEN_ERR(saved);
		}
		/* End of file, or part of an ID: not the device. */
		if (!r || r % sizeof(*ids)) {
			if (done)
				break;
			errno = saved;
			return -EIO;
		}
		done += (size_t)r / sizeof(*ids);
		/* Short only on a signal or a fault: stop and report. */
		if ((size_t)r < want * sizeof(*ids))
			break;
	}
	errno = saved;
	return done;
}

/*
 * The node's life and the layout: each call one ioctl, its struct passed
 * as the caller built it, size included, so that a program built against
 * a later header than this library gets the kernel's answer for its own
 * struct (a larger one is taken if its tail is zero: -E2BIG if not).
 */
int uidgen_info(struct uidgen *g, struct uidgen_info *info)
{
	int saved = errno, ret;

	if (ioctl(g->fd, UIDGEN_IOC_INFO, info) < 0)
		return UIDGEN_ERR(saved);
	return info->size;
}

/* The kernel does not write these structs back: the casts drop no const. */
int uidgen_assign(struct uidgen *g, const struct uidgen_assign *req)
{
	int saved = errno, ret;

	if (ioctl(g->fd, UIDGEN_IOC_ASSIGN, (void *)req) < 0)
		return UIDGEN_ERR(saved);
	return 0;
}

int uidgen_renew(struct uidgen *g, const struct uidgen_renew *req)
{
	int saved = errno, ret;

	if (ioctl(g->fd, UIDGEN_IOC_RENEW, (void *)req) < 0)
		return UIDGEN_ERR(saved);
	return 0;
}

int uidgen_revoke(struct uidgen *g, const struct uidgen_revoke *req)
{
	int saved = errno, ret;

	if (ioctl(g->fd, UIDGEN_IOC_REVOKE, (void *)req) < 0)
		return UIDGEN_ERR(saved);
	return 0;
}

/*
 * Every ID this machine mints after this returns is greater than @id: the
 * kernel moves its clock and slots (UIDGEN_IOC_OBSERVE), and raises the
 * page's observed ID, which every thread's cached run is checked against
 * before each ID, this process's and every other's.
 */
int uidgen_observe(struct uidgen *g, uint64_t id)
{
	struct uidgen_observe o = { .size = sizeof(o), .id = id };
	int saved = errno, ret;

	if (ioctl(g->fd, UIDGEN_IOC_OBSERVE, &o) < 0)
		return UIDGEN_ERR(saved);
	return 0;
}

int uidgen_fence_gen(struct uidgen *g, uint32_t *fence)
{
	if (!g->page)
		return -EOPNOTSUPP;
	*fence = uidgen_fence(g->page);
	return 0;
}

/*
 * The layout a module loaded with no layout parameters uses (its
 * parameters' defaults, which the admin guide lists).
 */
#define UIDGEN_DEF_TS_BITS		41
#define UIDGEN_DEF_NODE_BITS		5
#define UIDGEN_DEF_SLOT_BITS		5
#define UIDGEN_DEF_SEQ_BITS		12
#define UIDGEN_DEF_TICK_NS		1000000ULL
/* 2026-01-01T00:00:00Z */
#define UIDGEN_DEF_EPOCH_UNIX_NS	1767225600000000000ULL

void uidgen_default_info(struct uidgen_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->node_id = UIDGEN_NODE_NONE;
	info->ts_bits = UIDGEN_DEF_TS_BITS;
	info->node_bits = UIDGEN_DEF_NODE_BITS;
	info->slot_bits = UIDGEN_DEF_SLOT_BITS;
	info->seq_bits = UIDGEN_DEF_SEQ_BITS;
	info->nr_slots = 1U << UIDGEN_DEF_SLOT_BITS;
	info->tick_ns = UIDGEN_DEF_TICK_NS;
	info->epoch_unix_ns = UIDGEN_DEF_EPOCH_UNIX_NS;
}

int uidgen_decode(const struct uidgen_info *info, uint64_t id,
		  struct uidgen_parts *parts)
{
	uint64_t ms, whole, part;
	unsigned int low;

	/* Each width on its own first: their 32-bit sum could wrap to 63. */
	if (info->ts_bits == 0 || info->ts_bits > UIDGEN_ID_BITS ||
	    info->seq_bits >= 32 || info->slot_bits >= 32 ||
	    info->node_bits >= 32 || info->tick_ns == 0)
		return -EINVAL;
	low = info->node_bits + info->slot_bits + info->seq_bits;
	if (info->ts_bits + low != UIDGEN_ID_BITS)
		return -EINVAL;
	if (id >> UIDGEN_ID_BITS)
		return -ERANGE;

	parts->tick = id >> low;
	parts->node = (id >> (info->slot_bits + info->seq_bits)) &
		      ((1ULL << info->node_bits) - 1);
	parts->slot = (id >> info->seq_bits) & ((1ULL << info->slot_bits) - 1);
	parts->seq = id & ((1ULL << info->seq_bits) - 1);
	/*
	 * (epoch_unix_ns + tick * tick_ns) / 10^6, without overflowing on the
	 * way: tick = q * 10^6 + r, and q * tick_ns ns are q * tick_ns / 10^6
	 * ms exactly.
	 */
	if (__builtin_mul_overflow(parts->tick % 1000000, info->tick_ns,
				   &part) ||
	    __builtin_add_overflow(part, info->epoch_unix_ns % 1000000, &part) ||
	    __builtin_mul_overflow(parts->tick / 1000000, info->tick_ns,
				   &whole) ||
	    __builtin_add_overflow(whole, part / 1000000, &ms) ||
	    __builtin_add_overflow(ms, info->epoch_unix_ns / 1000000, &ms) ||
	    ms > INT64_MAX)
		return -ERANGE;
	parts->unix_ms = (int64_t)ms;
	return 0;
}

/* Crockford's alphabet: no I, L, O or U; in ASCII order, so text sorts. */
static const char b32_digits[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
#define B32_LEN	13	/* 13 * 5 = 65 bits >= 64 */

int uidgen_format(uint64_t id, enum uidgen_format fmt, char *buf, size_t len)
{
	char tmp[UIDGEN_FMT_MAX];
	size_t n = 0;
	int i;

	switch (fmt) {
	case UIDGEN_FMT_DEC:
		do {
			tmp[n++] = '0' + id % 10;
			id /= 10;
		} while (id);
		for (i = 0; i < (int)n / 2; i++) {
			char c = tmp[i];

			tmp[i] = tmp[n - 1 - i];
			tmp[n - 1 - i] = c;
		}
		break;
	case UIDGEN_FMT_HEX:
		/* The 0x keeps it apart from decimal when parsed back. */
		tmp[n++] = '0';
		tmp[n++] = 'x';
		for (i = 0; i < 16; i++)
			tmp[n++] = "0123456789abcdef"[(id >> (60 - 4 * i)) & 0xf];
		break;
	case UIDGEN_FMT_B32:
		for (n = 0; n < B32_LEN; n++) {
			int shift = 5 * (B32_LEN - 1 - n);

			tmp[n] = b32_digits[(shift >= 64 ? 0 : id >> shift) & 31];
		}
		break;
	default:
		return -EINVAL;
	}
	if (len < n + 1)
		return -ENOSPC;
	memcpy(buf, tmp, n);
	buf[n] = '\0';
	return n;
}

/* Crockford's base32 digit @c is worth; -1 if none. Shared with uuid.c. */
int uidgen_b32_value(char c)
{
	const char *p;

	switch (c) {
	case 'o': case 'O':
		return 0;
	case 'i': case 'I': case 'l': case 'L':
		return 1;
	}
	if (c >= 'a' && c <= 'z')
		c -= 'a' - 'A';
	p = c ? strchr(b32_digits, c) : NULL;
	return p ? p - b32_digits : -1;
}

int uidgen_parse(const char *s, enum uidgen_format fmt, uint64_t *id)
{
	unsigned int base, digits = 0;
	uint64_t v = 0;

	if (fmt == UIDGEN_FMT_AUTO) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			fmt = UIDGEN_FMT_HEX;
		/*
		 * Base32 only where the text cannot be decimal: a 13-digit
		 * decimal ID (every default-layout ID of an epoch's first
		 * weeks) is decimal. A base32 spelling of digits alone needs
		 * UIDGEN_FMT_B32.
		 */
		else if (strlen(s) == B32_LEN && strspn(s, "0123456789") != B32_LEN)
			fmt = UIDGEN_FMT_B32;
		else
			fmt = UIDGEN_FMT_DEC;
	}
	switch (fmt) {
	case UIDGEN_FMT_DEC:
		base = 10;
		break;
	case UIDGEN_FMT_HEX:
		base = 16;
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			s += 2;
		break;
	case UIDGEN_FMT_B32:
		base = 32;
		break;
	default:
		return -EINVAL;
	}
	for (; *s; s++, digits++) {
		int d;

		if (base == 32)
			d = uidgen_b32_value(*s);
		else if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			d = -1;
		if (d < 0 || (unsigned int)d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (!digits)
		return -EINVAL;
	*id = v;
	return 0;
}
