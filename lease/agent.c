// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen-lease: the agent (see agent.h for the keys).
 *
 * Two fences keep a node ID on one machine at a time, and each is enough
 * on its own:
 *
 *  - The grant (persist before issue). The kernel issues no tick after
 *    the grant it was given, and every grant is written to floor/<id> in
 *    a transaction that succeeds only while node/<id> is still the key
 *    this agent created (create_revision == token). The next holder
 *    reads floor/<id> in the transaction that claims the ID, after which
 *    no earlier holder can raise it: the next holder starts above
 *    everything any earlier holder could issue. This needs no clock to
 *    agree with another.
 *
 *  - The deadline. The kernel revokes the node by itself at a
 *    CLOCK_BOOTTIME deadline that comes before etcd can expire the lease
 *    (agent_deadline()), so a paused or cut-off agent stops issuing
 *    before anyone else can claim its ID.
 *
 * A restore of etcd can forget a holder while its kernel issues up to its
 * last grant: a fresh claim therefore opens only once our wall clock has
 * passed any grant such a holder could have (claim_wait(); with every
 * wall clock within clock_error_ms of the true time). SIGTERM leaves the
 * node for the next start to adopt, which does not wait; SIGUSR1 hands it
 * over (released).
 *
 * The token makes the kernel refuse a stale agent: an assignment with a
 * token older than one it has seen, or a renew or revoke with a token
 * that is not the one in force, fails with ESTALE.
 *
 * Every transaction here is safe to repeat: etcd_call() sends it to the
 * next endpoint when one does not answer, and the first may have been
 * applied. A claim that finds the key already bound to our own lease
 * takes it as ours.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <linux/uidgen.h>

#include "agent.h"

volatile sig_atomic_t lease_stop;

struct agent {
	struct lease_conf *c;
	struct etcd *e;
	struct lease_dev *d;
	uint32_t node_bits;
	int nr_endpoints;
	char prefix[256];	/* /uidgen/<cluster>/ */
	char host[128];
	char boot_id[64];	/* this boot's, in the claim value */
	char layout[192];	/* the device's, as /uidgen/<cluster>/layout holds it */
	char settings[96];	/* ours, as /uidgen/<cluster>/settings holds them */
	/* the lease */
	int64_t lease;
	int64_t stale_lease;	/* ours, revoked in the device, not yet in etcd */
	int64_t ttl;		/* as etcd granted it */
	uint64_t ka_sent_ns;	/* send time of the last keepalive that succeeded */
	/* the claim */
	int went_back;		/* etcd reissued our token to another claim */
	int held;		/* claimed in etcd */
	int installed;		/* and in force in the device */
	uint32_t node;
	int64_t token;
	char *claim_val;	/* node/<id>'s value as we wrote it: our claim, exactly */
	uint64_t floor_ms;	/* LEASE_FLOOR_NEW, or the floor read at claim */
	uint64_t grant_ms;	/* persisted and in force */
	uint64_t deadline_ns;
	uint64_t acquire_ns;	/* when this claim round began */
	uint32_t claim_fence;	/* the device's fence generation before the claim */
	uint64_t claimed_ms;	/* our wall clock once the claim was answered (P9) */
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "uidgen-lease: [%.3f] ", (double)etcd_boottime_ns() / 1e9);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The start (Unix us) of the first tick of @tick_us, counted from
 * @epoch_ms, that lies wholly above @until_ms: the tick holding @until_ms
 * may be issued whole by a holder whose grant is @until_ms. */
static uint64_t until_open_us(uint64_t until_ms, uint64_t epoch_ms, uint32_t tick_us)
{
	uint64_t tick = tick_us ? tick_us : 1000, since;

	if (until_ms < epoch_ms)
		return epoch_ms * 1000;
	since = (until_ms - epoch_ms) * 1000;
	return epoch_ms * 1000 + (since / tick + 1) * tick;
}

/* Sleep until CLOCK_BOOTTIME @t; returns early (nonzero) on a stop signal. */
static int sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ULL),
			       .tv_nsec = (long)(t % 1000000000ULL) };

	while (!lease_stop) {
		if (clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &ts, NULL) == 0)
			return 0;
	}
	return 1;
}

static uint64_t jitter(uint64_t ns)
{
	return ns / 2 + (uint64_t)random() % (ns + 1);
}

/*
 * The server starts a lease's TTL when it handles the grant or keepalive,
 * which is after we sent it, and only ever expires it later than that
 * (its expiry check runs every 500 ms; a new leader restarts every TTL in
 * full). Measured on our clock, at most TTL x (1 + rate) of ours pass
 * before the server's TTL does; we take TTL x (1 - rate), a bound that is
 * also safe for a clock slow by up to rate, and a margin off that.
 */
uint64_t agent_deadline(const struct lease_conf *c, uint64_t sent_ns, int64_t ttl_s)
{
	uint64_t ttl_ns = (uint64_t)ttl_s * 1000000000ULL;

	return sent_ns + ttl_ns / 1000000 * (uint64_t)(1000000 - c->rate_ppm) -
	       (uint64_t)c->margin_ms * 1000000ULL;
}

int agent_new(struct agent **ap, struct lease_conf *c, struct etcd *e, int nr_endpoints,
	      struct lease_dev *d)
{
	struct lease_dev_state st;
	struct agent *a;
	int r;

	r = lease_dev_state(d, &st);
	if (r) {
		say("%s: UIDGEN_IOC_INFO: %s", c->device, strerror(-r));
		return r;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->c = c;
	a->e = e;
	a->d = d;
	a->node_bits = st.node_bits;
	snprintf(a->layout, sizeof(a->layout),
		 "ts_bits=%u node_bits=%u slot_bits=%u seq_bits=%u tick_us=%u epoch_ms=%" PRIu64,
		 st.ts_bits, st.node_bits, st.slot_bits, st.seq_bits, st.tick_us, st.epoch_ms);
	snprintf(a->settings, sizeof(a->settings), "grant_window_ms=%ld clock_error_ms=%ld",
		 c->grant_window_ms, c->clock_error_ms);
	a->nr_endpoints = nr_endpoints;
	snprintf(a->prefix, sizeof(a->prefix), "/uidgen/%s/", c->cluster);
	if (gethostname(a->host, sizeof(a->host) - 1))
		strcpy(a->host, "?");
	{
		FILE *f = fopen(c->boot_id_file, "r");

		if (!f || !fgets(a->boot_id, sizeof(a->boot_id), f) || !*a->boot_id) {
			say("%s: cannot read the boot ID: %s", c->boot_id_file,
			    f ? "empty" : strerror(errno));
			if (f)
				fclose(f);
			free(a);
			return -ENOENT;
		}
		fclose(f);
		a->boot_id[strcspn(a->boot_id, "\r\n")] = 0;
	}
	srandom((unsigned int)(getpid() ^ etcd_boottime_ns()));
	*ap = a;
	return 0;
}

void agent_free(struct agent *a)
{
	if (a)
		free(a->claim_val);
	free(a);
}

static void key(const struct agent *a, char *buf, size_t len, const char *kind, uint32_t id)
{
	snprintf(buf, len, "%s%s/%u", a->prefix, kind, id);
}

/* A new lease; a->ka_sent_ns is when the request etcd answered was sent,
 * not when the answer came: etcd starts the TTL when it handles the
 * grant, and the claim wait's deadlines (claim_wait(), install()) chain
 * from this one. An answer that came late, or a pause once it was in,
 * would otherwise put them past the lease's expiry. */
static int lease_grant(struct agent *a)
{
	uint64_t sent = 0;
	int r = etcd_lease_grant(a->e, a->c->ttl_s, &a->lease, &a->ttl, &sent);

	if (r) {
		say("lease grant: %s", etcd_errmsg(a->e));
		a->lease = 0;
	} else {
		a->ka_sent_ns = sent;
	}
	return r;
}

/* 0, -ENOENT when the lease is gone, or another -errno: no answer. */
static int keepalive(struct agent *a)
{
	uint64_t sent;
	int64_t ttl;
	int r = etcd_lease_keepalive(a->e, a->lease, &ttl, &sent);

	if (r)
		return r;
	if (ttl <= 0)
		return -ENOENT;
	a->ttl = ttl;
	a->ka_sent_ns = sent;
	return 0;
}

/*
 * keepalive_in_time() - the keepalive that keeps a claim not yet in force
 * (claim_wait(), install()): the lease's deadline is ours to keep, the
 * kernel having none yet. Past @deadline (the previous keepalive's), or a
 * keepalive *sent* at or past it (a pause after the check, or an endpoint
 * that did not answer and the next one tried late), is a lapse, whatever
 * etcd answers: the lease may have expired and the ID been taken
 * meanwhile, and a store restored from a snapshot can show the claim as
 * ours again (P9). @when names the step in the log. Returns 0 (a->ttl and
 * a->ka_sent_ns moved), -ETIME (a lapse, said), -ESTALE (etcd went back
 * in time, said), -ENOENT (the lease is gone), or another -errno: no
 * answer.
 */
static int keepalive_in_time(struct agent *a, uint64_t deadline, const char *when)
{
	int r;

	if (etcd_boottime_ns() >= deadline) {
		say("node %u: the last keepalive's deadline passed %s: "
		    "the lease may have expired and the ID been taken", a->node, when);
		return -ETIME;
	}
	r = keepalive(a);
	if (etcd_went_back(a->e)) {
		say("node %u: %s: stopping now", a->node, etcd_errmsg(a->e));
		return -ESTALE;
	}
	if (r)
		return r;
	if (a->ka_sent_ns >= deadline) {
		say("node %u: a keepalive sent %.3f s past the deadline of the one before, %s: "
		    "the lease may have expired and the ID been taken",
		    a->node, (double)(a->ka_sent_ns - deadline) / 1e9, when);
		return -ETIME;
	}
	return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end ? -EINVAL : 0;
}

static char *claim_value(const struct agent *a)
{
	json_object *o = json_object_new_object();
	uint64_t nonce = 0;
	char nv[24];
	char *s;

	/* Unique to this claim: a claim another agent makes on a store that
	 * went back in time may get our create_revision, never our value. */
	if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
		nonce = ((uint64_t)random() << 32) ^ (uint64_t)random() ^ etcd_boottime_ns();
	snprintf(nv, sizeof(nv), "%016" PRIx64, nonce);
	json_object_object_add(o, "machine", json_object_new_string(a->c->machine_id));
	json_object_object_add(o, "host", json_object_new_string(a->host));
	json_object_object_add(o, "boot_id", json_object_new_string(a->boot_id));
	json_object_object_add(o, "since_ms", json_object_new_int64((int64_t)now_ms()));
	json_object_object_add(o, "pid", json_object_new_int(getpid()));
	json_object_object_add(o, "claim", json_object_new_string(nv));
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

static int range(struct agent *a, const char *k, int prefix, int keys_only, json_object **resp)
{
	json_object *op = etcd_op_range(k, prefix, keys_only), *inner;

	/* the txn op's inner object is what /v3/kv/range takes */
	json_object_object_get_ex(op, "request_range", &inner);
	json_object_get(inner);
	json_object_put(op);
	return etcd_call(a->e, "/v3/kv/range", inner, resp, NULL);
}

/* The machine record: the ID this machine held last, or -1. */
static long last_held(struct agent *a)
{
	json_object *resp;
	struct etcd_kv kv;
	char k[512];
	uint64_t v;
	long id = -1;

	snprintf(k, sizeof(k), "%smachine/%s", a->prefix, a->c->machine_id);
	if (range(a, k, 0, 0, &resp))
		return -1;
	if (!etcd_kv_get(resp, 0, &kv)) {
		if (!parse_u64(kv.value, &v) && v < (1ULL << a->node_bits))
			id = (long)v;
		etcd_kv_free(&kv);
	}
	json_object_put(resp);
	return id;
}

/*
 * check_record() - the first agent of a cluster records @value under
 * /uidgen/<cluster>/@name (created only if absent, in one transaction);
 * every other agent must find its own there. Returns 0, -EINVAL (said
 * what differs, field by field, and @todo) if they differ, or -errno
 * from etcd.
 */
static int check_record(struct agent *a, const char *name, const char *value,
			const char *why, const char *todo)
{
	json_object *c = json_object_new_array(), *s = json_object_new_array();
	json_object *f = json_object_new_array(), *resp;
	struct etcd_kv kv;
	char lk[512];
	int ok, r;

	snprintf(lk, sizeof(lk), "%s%s", a->prefix, name);
	json_object_array_add(c, etcd_cmp_create(lk, 0));
	json_object_array_add(s, etcd_op_put(lk, value, 0));
	json_object_array_add(f, etcd_op_range(lk, 0, 0));
	r = etcd_txn(a->e, c, s, f, &ok, &resp);
	if (r)
		return r;
	if (ok) {
		say("%s recorded for cluster %s: %s", name, a->c->cluster, value);
		json_object_put(resp);
		return 0;
	}
	if (etcd_kv_get(etcd_txn_range(resp, 0), 0, &kv)) {
		json_object_put(resp);
		return -EAGAIN;		/* deleted since: again */
	}
	json_object_put(resp);
	r = strcmp(kv.value, value) ? -EINVAL : 0;
	if (r) {
		char mine[192], theirs[192], *p, *q, *sp1, *sp2;

		snprintf(mine, sizeof(mine), "%s", value);
		snprintf(theirs, sizeof(theirs), "%s", kv.value);
		say("this machine's %s is not cluster %s's (%s): %s", name, a->c->cluster, lk, why);
		for (p = strtok_r(mine, " ", &sp1), q = strtok_r(theirs, " ", &sp2); p || q;
		     p = strtok_r(NULL, " ", &sp1), q = strtok_r(NULL, " ", &sp2))
			if (!p || !q || strcmp(p, q))
				say("  here %s, in etcd %s", p ? p : "(none)", q ? q : "(none)");
		say("%s", todo);
	}
	etcd_kv_free(&kv);
	return r;
}

/*
 * check_layout() - every machine of a cluster must mint with one layout
 * (widths, tick and epoch): the same bits mean different IDs otherwise,
 * and two machines' node IDs, ticks or both would overlap. And with one
 * grant_window_ms and clock_error_ms: a fresh claim's wait (claim_wait())
 * covers an unknown holder's last grant only if that holder's window and
 * clock error are no larger than the claimer's. The settings have a key
 * of their own (/uidgen/<cluster>/settings), so that the layout key stays
 * what 1.4.0's agents compare; a cluster from before 2.0 has none, and
 * its first 2.0 agent records its own (create only if absent). Returns 0,
 * -EINVAL (said why) if either differs, or -errno from etcd.
 */
static int check_layout(struct agent *a)
{
	char todo[768];
	int r;

	r = check_record(a, "layout", a->layout, "nobody may claim with another layout, or IDs repeat",
			 "load the module with the cluster's layout (modprobe.d: the same node_bits, slot_bits, seq_bits, tick_us and epoch_ms as the others), or give this machine another cluster name");
	if (r)
		return r;
	snprintf(todo, sizeof(todo),
		 "set grant_window_ms and clock_error_ms in this machine's uidgen-lease.conf to the cluster's (grant_window_ms explicitly if its TTL differs: the default is 2/3 TTL); to change them for the whole cluster, hand every agent's node over (SIGUSR1), delete %ssettings, and start them with the new settings",
		 a->prefix);
	return check_record(a, "settings", a->settings,
			    "a fresh claim's wait covers an unknown holder only with a grant_window_ms and clock_error_ms no larger than its own, or IDs repeat",
			    todo);
}

/* Where grants start from: the wall clock, or the ID clock if that is
 * ahead (a floor from a clock that was ahead moved it): a grant below the
 * ID clock would leave every caller waiting at it. */
static uint64_t grant_base(struct agent *a)
{
	struct lease_dev_state st;
	uint64_t now = now_ms();

	if (!lease_dev_state(a->d, &st) && st.clock_ms > now)
		return st.clock_ms;
	return now;
}

/* Forget our lease without trusting anything bound to it: revoke it
 * (etcd deletes every key bound to it), or let it expire if etcd does not
 * answer; never claim another ID on it. */
static void abandon_lease(struct agent *a, const char *why)
{
	if (!a->lease)
		return;
	say("lease %" PRIx64 ": abandoned (%s): revoking it in etcd, a new lease for the next claim",
	    (uint64_t)a->lease, why);
	if (!etcd_went_back(a->e) && !a->went_back && etcd_lease_revoke(a->e, a->lease) &&
	    !etcd_went_back(a->e))
		a->stale_lease = a->lease;
	a->lease = 0;
}

/*
 * persist_grant() - raise floor/<node> to @grant_ms while node/<node> is
 * still our claim. The floor never goes down: the write is a
 * compare-and-swap on the floor's mod_revision, and a floor already at or
 * above @grant_ms is left as it is (a late retry of an older grant, or a
 * clone of this VM with a clock behind, cannot lower it). Returns 0 (the
 * floor is at or above @grant_ms), -ENOLINK if the claim is gone, -ESTALE
 * if another claim has our token (etcd went back in time), -EINVAL
 * if the floor is not a time, -EAGAIN if the floor kept moving, or
 * -errno if etcd did not answer (the grant is then not raised).
 */
static int persist_grant(struct agent *a, uint64_t grant_ms)
{
	char nk[512], fk[512], v[24];
	int tries, ok, r;

	key(a, nk, sizeof(nk), "node", a->node);
	key(a, fk, sizeof(fk), "floor", a->node);
	snprintf(v, sizeof(v), "%" PRIu64, grant_ms);
	for (tries = 0; tries < 5; tries++) {
		json_object *c = json_object_new_array(), *s = json_object_new_array();
		json_object *f = json_object_new_array(), *resp;
		struct etcd_kv kv;
		uint64_t old = 0;
		int64_t mod = 0;

		r = range(a, fk, 0, 0, &resp);
		if (r) {
			json_object_put(c);
			json_object_put(s);
			json_object_put(f);
			return r;
		}
		if (!etcd_kv_get(resp, 0, &kv)) {
			mod = kv.mod_revision;
			r = parse_u64(kv.value, &old);
			if (r)
				say("node %u: %s holds '%.40s', not a time in ms: not writing over it",
				    a->node, fk, kv.value);
			etcd_kv_free(&kv);
		}
		json_object_put(resp);
		if (r) {
			json_object_put(c);
			json_object_put(s);
			json_object_put(f);
			return r;
		}
		json_object_array_add(c, etcd_cmp_create(nk, a->token));
		json_object_array_add(c, etcd_cmp_value(nk, a->claim_val));
		json_object_array_add(c, etcd_cmp_mod(fk, mod));
		if (grant_ms > old)
			json_object_array_add(s, etcd_op_put(fk, v, 0));
		json_object_array_add(f, etcd_op_range(nk, 0, 0));
		r = etcd_txn(a->e, c, s, f, &ok, &resp);
		if (r)
			return r;
		if (ok) {
			json_object_put(resp);
			return 0;
		}
		ok = !etcd_kv_get(etcd_txn_range(resp, 0), 0, &kv);
		json_object_put(resp);
		if (!ok)
			return -ENOLINK;
		r = kv.create_revision == a->token && !strcmp(kv.value, a->claim_val) ? 0 : -ENOLINK;
		if (r && kv.create_revision == a->token) {
			/* Revisions are never reissued: only a store that
			 * went back in time gives our token to another. */
			say("node %u: node/%u has our token %" PRId64 " but another claim's value: "
			    "etcd went back in time (restored from a snapshot, or rebuilt) and another agent claimed it",
			    a->node, a->node, a->token);
			a->went_back = 1;
			r = -ESTALE;
		}
		etcd_kv_free(&kv);
		if (r)
			return r;
		/* the floor moved between our read and our write: again */
	}
	say("node %u: %s kept moving under us (%d tries): grant not raised", a->node, fk, tries);
	return -EAGAIN;
}

/*
 * claim() - try to claim node ID @id for our lease.
 * Returns 0 (a->node, token, floor_ms, grant_ms set and the grant
 * persisted), -EEXIST if another holds it, -ESTALE if its floor is
 * missing though it was claimed before (an operator must look), -EAGAIN
 * for a race worth retrying, -ENOLINK if the claim was made but its
 * first grant could not be persisted, or -errno from etcd. After -ENOLINK
 * or an etcd error, a claim of ours may be in etcd: the caller must not
 * claim again on this lease.
 */
static int claim(struct agent *a, uint32_t id)
{
	char nk[512], fk[512], ck[512], mk[512], v[24], *val;
	json_object *c, *s, *f, *resp;
	struct etcd_kv node = { 0 }, floor = { 0 }, claimed = { 0 };
	uint64_t fl = 0, g;
	int ok, r, has_node, has_floor, has_claimed;

	key(a, nk, sizeof(nk), "node", id);
	key(a, fk, sizeof(fk), "floor", id);
	key(a, ck, sizeof(ck), "claimed", id);
	snprintf(mk, sizeof(mk), "%smachine/%s", a->prefix, a->c->machine_id);
	snprintf(v, sizeof(v), "%u", id);
	val = claim_value(a);

	/* A: never claimed. The claim, its first grant and the marker that
	 * it was claimed, all at once. */
	g = grant_base(a) + (uint64_t)a->c->grant_window_ms;
	c = json_object_new_array();
	s = json_object_new_array();
	f = json_object_new_array();
	json_object_array_add(c, etcd_cmp_create(nk, 0));
	json_object_array_add(c, etcd_cmp_create(fk, 0));
	json_object_array_add(c, etcd_cmp_create(ck, 0));
	{
		char gv[24];

		snprintf(gv, sizeof(gv), "%" PRIu64, g);
		json_object_array_add(s, etcd_op_put(nk, val, a->lease));
		json_object_array_add(s, etcd_op_put(fk, gv, 0));
		json_object_array_add(s, etcd_op_put(ck, a->c->machine_id, 0));
		json_object_array_add(s, etcd_op_put(mk, v, 0));
	}
	json_object_array_add(f, etcd_op_range(nk, 0, 0));
	json_object_array_add(f, etcd_op_range(fk, 0, 0));
	json_object_array_add(f, etcd_op_range(ck, 0, 0));
	r = etcd_txn(a->e, c, s, f, &ok, &resp);
	if (r)
		goto out;
	if (ok) {
		a->node = id;
		a->token = etcd_revision(resp);
		a->floor_ms = LEASE_FLOOR_NEW;
		a->grant_ms = g;
		free(a->claim_val);
		a->claim_val = val;
		val = NULL;
		json_object_put(resp);
		goto out;
	}
	has_node = !etcd_kv_get(etcd_txn_range(resp, 0), 0, &node);
	has_floor = !etcd_kv_get(etcd_txn_range(resp, 1), 0, &floor);
	has_claimed = !etcd_kv_get(etcd_txn_range(resp, 2), 0, &claimed);
	json_object_put(resp);
	if (has_floor && parse_u64(floor.value, &fl)) {
		say("node %u: %s holds '%.40s', not a time in ms: refusing the ID", id, fk, floor.value);
		r = -ESTALE;
		goto out;
	}
	if (has_node && node.lease == a->lease && !strcmp(node.value, val)) {
		/* An earlier try of this claim was applied (a timeout and a
		 * retry on another member): it is ours. */
		a->node = id;
		a->token = node.create_revision;
		free(a->claim_val);
		a->claim_val = val;
		val = NULL;
		if (has_floor && floor.create_revision == node.create_revision) {
			a->floor_ms = LEASE_FLOOR_NEW;
			a->grant_ms = fl;
			goto out;
		}
		if (!has_floor) {
			/* Never a floor of 0: drop the claim with its lease. */
			say("node %u: our claim (token %" PRId64 ") is in etcd but %s is gone: refusing it; "
			    "restore %s to a time (Unix ms) at or after the last ID issued under it",
			    id, a->token, fk, fk);
			if (etcd_lease_revoke(a->e, a->lease))
				say("lease %" PRIx64 ": revoke in etcd: %s (it expires by itself)",
				    (uint64_t)a->lease, etcd_errmsg(a->e));
			a->lease = 0;
			r = -ESTALE;
			goto out;
		}
		goto floor;
	}
	if (has_node) {
		r = -EEXIST;
		goto out;
	}
	if (!has_floor) {
		if (has_claimed) {
			say("node %u was claimed before (%s at revision %" PRId64 ") but %s is gone: refusing it; "
			    "restore %s to a time (Unix ms) at or after the last ID it issued to release it",
			    id, ck, claimed.create_revision, fk, fk);
			r = -ESTALE;
		} else {
			r = -EAGAIN;
		}
		goto out;
	}

	/* B: claimed before, floor in place and not moved since we read it. */
	c = json_object_new_array();
	s = json_object_new_array();
	f = json_object_new_array();
	json_object_array_add(c, etcd_cmp_create(nk, 0));
	json_object_array_add(c, etcd_cmp_mod(fk, floor.mod_revision));
	json_object_array_add(s, etcd_op_put(nk, val, a->lease));
	json_object_array_add(s, etcd_op_put(mk, v, 0));
	if (!has_claimed)
		json_object_array_add(s, etcd_op_put(ck, a->c->machine_id, 0));
	json_object_array_add(f, etcd_op_range(nk, 0, 0));
	r = etcd_txn(a->e, c, s, f, &ok, &resp);
	if (r)
		goto out;
	if (ok) {
		a->node = id;
		a->token = etcd_revision(resp);
		free(a->claim_val);
		a->claim_val = val;
		val = NULL;
		json_object_put(resp);
		goto floor;
	}
	etcd_kv_free(&node);
	has_node = !etcd_kv_get(etcd_txn_range(resp, 0), 0, &node);
	json_object_put(resp);
	if (has_node && node.lease == a->lease && !strcmp(node.value, val)) {
		a->node = id;
		a->token = node.create_revision;
		free(a->claim_val);
		a->claim_val = val;
		val = NULL;
		goto floor;
	}
	r = has_node ? -EEXIST : -EAGAIN;
	goto out;

floor:
	/* Our first grant starts above the floor, whatever our clock says:
	 * a clock behind the last holder's costs a wait, never a repeat. */
	a->floor_ms = fl;
	g = grant_base(a);
	g = (g > fl ? g : fl) + (uint64_t)a->c->grant_window_ms;
	r = persist_grant(a, g);
	if (!r)
		a->grant_ms = g;
	else if (a->went_back)
		r = -EINVAL;	/* fatal: the caller stops */
	else if (r != -ESTALE)
		r = -ENOLINK;	/* claimed, not confirmed: the caller drops the lease */
out:
	etcd_kv_free(&node);
	etcd_kv_free(&floor);
	etcd_kv_free(&claimed);
	free(val);
	if (!r)
		a->held = 1;
	return r;
}

/*
 * release_floor() - after our own revoke in the device: set floor/<id> to
 * exactly what was issued (the device's high water, at or above the floor
 * we were given) and delete our claim, in one transaction guarded by the
 * claim being ours. The floor our grants left is up to a window ahead of
 * what was issued; a successor starting there would run that much ahead,
 * and the next one further (a ratchet). Lowering it is safe only here:
 * nobody else may write it while our claim stands, and the device issues
 * nothing more under this node.
 */
static void release_floor(struct agent *a)
{
	struct lease_dev_state st;
	json_object *c, *s, *resp;
	char nk[512], fk[512], v[24];
	uint64_t fl;
	int ok, r;

	r = lease_dev_state(a->d, &st);
	if (r)
		return;
	fl = st.high_water_ms;
	if (a->floor_ms != LEASE_FLOOR_NEW && a->floor_ms > fl)
		fl = a->floor_ms;
	if (!fl)
		fl = 1;		/* never a floor of 0: "no floor" */
	key(a, nk, sizeof(nk), "node", a->node);
	key(a, fk, sizeof(fk), "floor", a->node);
	snprintf(v, sizeof(v), "%" PRIu64, fl);
	c = json_object_new_array();
	s = json_object_new_array();
	json_object_array_add(c, etcd_cmp_create(nk, a->token));
	json_object_array_add(c, etcd_cmp_value(nk, a->claim_val));
	json_object_array_add(s, etcd_op_put(fk, v, 0));
	json_object_array_add(s, etcd_op_delete(nk));
	r = etcd_txn(a->e, c, s, NULL, &ok, &resp);
	if (r)
		return;		/* the floor stays at the last grant: safe */
	json_object_put(resp);
	if (ok)
		say("node %u: floor set to what was issued, %" PRIu64 " (last grant %" PRIu64 ")",
		    a->node, fl, a->grant_ms);
}

/* Release in the order that keeps the ID single-held: the kernel first,
 * then etcd (which frees the ID for the others). */
static void release(struct agent *a, const char *why)
{
	int r, free_etcd = !etcd_went_back(a->e) && !a->went_back;

	if (a->installed) {
		r = lease_dev_revoke(a->d, (uint64_t)a->token);
		if (r)
			say("node %u: revoke in the device: %s", a->node, strerror(-r));
		else
			say("node %u: revoked in the device (%s)", a->node, why);
		if (r) {
			/* Not revoked by us: at its deadline, by a VM fork or
			 * snapshot restore (this may be the copy, and the
			 * original still issues under this very lease and
			 * token: a deadline that passed here says nothing
			 * of the original's), or by hand. Leave etcd alone:
			 * the lease expires by itself. */
			say("node %u: not releasing lease %" PRIx64 " in etcd (the device revoke was not ours): it expires by itself within %" PRId64 " s",
			    a->node, (uint64_t)a->lease, a->ttl);
			free_etcd = 0;
		} else if (free_etcd && a->held && a->claim_val) {
			release_floor(a);
		}
		a->installed = 0;
	}
	if (a->lease && !free_etcd) {
		a->lease = 0;
	} else if (a->lease) {
		r = etcd_lease_revoke(a->e, a->lease);
		if (r && r != -ENOENT) {
			say("lease %" PRIx64 ": revoke in etcd: %s (it expires by itself in %" PRId64 " s, or when etcd answers again)",
			    (uint64_t)a->lease, etcd_errmsg(a->e), a->ttl);
			/* etcd restarts every lease's TTL when it comes
			 * back: revoke it then, not a TTL later. */
			a->stale_lease = a->lease;
		}
		else if (a->held)
			say("node %u: released in etcd", a->node);
		a->lease = 0;
	}
	a->held = 0;
}

/* Keep the lease alive while waiting for a free ID. */
static int keep_lease(struct agent *a)
{
	int r;

	if (a->lease && etcd_boottime_ns() < a->ka_sent_ns + (uint64_t)a->ttl * 1000000000ULL / 3)
		return 0;
	if (a->lease) {
		r = keepalive(a);
		if (!r)
			return 0;
		a->lease = 0;
	}
	return lease_grant(a);
}

/* acquire() - claim an ID, preferring the one this machine held last.
 * Returns 0, 1 on a stop signal, or a fatal -errno. */
static int acquire(struct agent *a)
{
	uint32_t n = 1U << a->node_bits, i, start, tries;
	long pref = last_held(a);
	unsigned char *busy = calloc(n, 1);
	struct lease_dev_state st;
	int waiting = 0, r = 0;
	char nk[512];

	if (!busy)
		return -ENOMEM;
	a->acquire_ns = etcd_boottime_ns();
	while (!lease_stop) {
		json_object *resp;

		if (a->stale_lease) {
			r = etcd_lease_revoke(a->e, a->stale_lease);
			if (!r || r == -ENOENT)
				a->stale_lease = 0;
		}
		r = keep_lease(a);
		if (!r)
			r = check_layout(a);
		if (r == -EINVAL || etcd_went_back(a->e) || a->went_back) {
			if (etcd_went_back(a->e))
				say("%s: claiming nothing: an operator must look (fleet.rst, \"Restoring etcd\")",
				    etcd_errmsg(a->e));
			free(busy);
			return r == -EINVAL && !etcd_went_back(a->e) && !a->went_back ? -EINVAL : -ESTALE;
		}
		if (r == -EACCES) {
			say("etcd refused us (user, password, or the role's permissions on %s): %s",
			    a->prefix, etcd_errmsg(a->e));
			free(busy);
			return r;
		}
		if (r) {
			sleep_until(etcd_boottime_ns() + jitter((uint64_t)a->c->retry_ms * 1000000));
			continue;
		}
		memset(busy, 0, n);
		key(a, nk, sizeof(nk), "node", 0);
		nk[strlen(nk) - 1] = 0;		/* the node/ prefix */
		if (range(a, nk, 1, 1, &resp)) {
			say("list %s: %s", nk, etcd_errmsg(a->e));
			sleep_until(etcd_boottime_ns() + jitter((uint64_t)a->c->retry_ms * 1000000));
			continue;
		}
		for (i = 0; i < (uint32_t)etcd_nr_kvs(resp); i++) {
			struct etcd_kv kv;
			uint64_t id;

			if (etcd_kv_get(resp, (int)i, &kv))
				continue;
			if (!parse_u64(kv.key + strlen(nk), &id) && id < n)
				busy[id] = 1;
			etcd_kv_free(&kv);
		}
		json_object_put(resp);
		/* The preferred ID first, then the free ones from a random
		 * place (so that agents starting together spread out). */
		start = (uint32_t)random() % n;
		tries = 0;
		for (i = 0; i <= n && tries < 8 && !lease_stop; i++) {
			uint32_t id;

			if (i == 0) {
				if (pref < 0)
					continue;
				id = (uint32_t)pref;
			} else {
				id = (start + i - 1) % n;
				if ((long)id == pref)
					continue;
			}
			if (busy[id])
				continue;
			tries++;
			/* Before the claim: a VM cloned from here on has it in
			 * its memory, and its kernel's fence moved (install()). */
			if (lease_dev_state(a->d, &st)) {
				say("node %u: cannot read the device's state: not claiming", id);
				break;
			}
			a->claim_fence = st.fence;
			r = claim(a, id);
			if (!r) {
				char fl[24] = "NEW";

				a->claimed_ms = now_ms();	/* after the answer: P9 */
				if (a->floor_ms != LEASE_FLOOR_NEW)
					snprintf(fl, sizeof(fl), "%" PRIu64, a->floor_ms);
				say("node %u: claimed (token %" PRId64 ", floor %s, grant %" PRIu64
				    ") in %.1f ms%s",
				    id, a->token, fl, a->grant_ms,
				    (double)(etcd_boottime_ns() - a->acquire_ns) / 1e6,
				    (long)id == pref ? ", the ID this machine held last" : "");
				free(busy);
				return 0;
			}
			busy[id] = 1;
			if (!a->lease || etcd_went_back(a->e))
				break;	/* claim() dropped it: a new one first */
			if (r != -EEXIST && r != -ESTALE && r != -EAGAIN) {
				/* Our claim may be in etcd, bound to this lease
				 * (applied, the answer lost): never a second
				 * ID on it. */
				say("claim node %u: %s", id,
				    r == -ENOLINK ? "claimed, but its first grant was not persisted" :
				    etcd_errmsg(a->e));
				abandon_lease(a, "a claim made on it is unconfirmed");
				break;
			}
		}
		if (lease_stop)
			break;
		if (!tries && !waiting) {
			say("all %u node IDs are held: waiting for one to be freed", n);
			waiting = 1;
		}
		sleep_until(etcd_boottime_ns() + jitter((uint64_t)a->c->retry_ms * 1000000));
	}
	free(busy);
	return 1;
}

/*
 * fenced_since_claim() - has the device's fence moved since before our
 * claim (a revoke, a deadline, a VM fork or snapshot restore)? If so, or
 * if the device cannot say, say so, revoke what we installed if @revoked
 * is "revoking it here, " (NULL: nothing installed, "": already gone),
 * and forget the lease and claim without touching etcd: this may be the
 * copy of a VM, and they the original's. They expire by themselves.
 */
static int fenced_since_claim(struct agent *a, const char *revoke)
{
	struct lease_dev_state st;
	char was[48];
	int r = lease_dev_state(a->d, &st);

	if (!r && st.fence == a->claim_fence)
		return 0;
	if (r)
		snprintf(was, sizeof(was), "unreadable: %s", strerror(-r));
	else
		snprintf(was, sizeof(was), "%u, was %u", st.fence, a->claim_fence);
	if (revoke && *revoke && lease_dev_revoke(a->d, (uint64_t)a->token))
		revoke = "";	/* the kernel had revoked it already */
	say("node %u: the device was fenced between our claim and its opening (fence %s): "
	    "a revoke, the deadline passing in a pause, or a VM fork or snapshot restore, and this may be the copy: "
	    "%sleaving lease %" PRIx64 " and the claim in etcd alone (they expire by themselves)",
	    a->node, was, revoke ? revoke : "", (uint64_t)a->lease);
	a->held = 0;
	a->lease = 0;
	return 1;
}

/*
 * claim_wait() - a fresh claim (not an adoption) opens only above any
 * grant that a holder this store does not know of could still have: etcd
 * restored from a snapshot older than that holder's claim gives its ID to
 * us, while its kernel issues up to its last grant. That grant was
 * persisted before the restore, so before our claim was answered: at most
 * its wall clock then + grant_window_ms (grants follow the ID clock, which
 * stays on the wall clock: every install comes after this wait, with the
 * wall clock past the floor). With every wall clock within clock_error_ms
 * of the true time, it is below our wall clock at the answer +
 * grant_window_ms + 2 x clock_error_ms. So we wait until our wall clock
 * passes that, and the floor (model/fleet.pml, P9), keeping the lease
 * alive; each keepalive must be answered before the deadline of the one
 * before (our own deadline fence, the kernel having none yet: past it the
 * lease may have expired and the ID been taken, and a restore can show
 * the claim as ours again). Then the first grant is persisted, from now.
 * Returns 0, -EAGAIN to start over (the caller releases), -ETIME when a
 * deadline passed (the caller leaves the lease and claim alone: this may
 * be a VM's copy, and they the original's), 1 on a stop signal, or
 * -ESTALE (etcd went back in time: stop).
 */
static int claim_wait(struct agent *a)
{
	uint64_t until = a->claimed_ms + (uint64_t)a->c->grant_window_ms +
			 2 * (uint64_t)a->c->clock_error_ms;
	uint64_t deadline = agent_deadline(a->c, a->ka_sent_ns, a->ttl), g, t, w, open;
	uint64_t next = a->ka_sent_ns + (uint64_t)a->ttl * 1000000000ULL / 3;
	struct lease_dev_state st;
	int r, said = 0;

	r = lease_dev_state(a->d, &st);
	if (r) {
		say("node %u: UIDGEN_IOC_INFO: %s", a->node, strerror(-r));
		return -EAGAIN;
	}
	/* A holder may issue the whole tick that holds its grant: open at
	 * the start of the first tick wholly above @until (the layout's
	 * ticks, counted from its epoch; @until + 1 ms at 1 ms ticks). */
	open = until_open_us(until, st.epoch_ms, st.tick_us);
	/*
	 * A floor ahead of that (a clock that was off by more than
	 * clock_error_ms wrote it) is waited for too, not installed ahead of
	 * our wall clock: the bound above holds only while every holder's ID
	 * clock is on its wall clock. One started from this floor, forgotten
	 * by a restore, would have issued above it, ahead of any wall clock,
	 * and we would start just above the floor the restored store shows.
	 */
	if (a->floor_ms != LEASE_FLOOR_NEW && a->floor_ms > until) {
		open = until_open_us(a->floor_ms, st.epoch_ms, st.tick_us);
		say("node %u: waiting %.3f s before opening the claim, until our clock passes the floor %" PRIu64
		    " (ahead of our clock: a clock that was ahead wrote it; an ID clock started there would be ahead of every wall clock, which the claim wait cannot cover after a restore); "
		    "the claim wait alone (grant_window_ms + 2 x clock_error_ms) ends at %" PRIu64,
		    a->node, (double)(open - now_us()) / 1e6, a->floor_ms, until);
		said = 1;
	}
	while ((w = now_us()) < open) {
		uint64_t left = open - w;

		if (!said++)
			say("node %u: waiting %.3f s before opening the claim, until our clock passes %" PRIu64
			    " (any grant a holder unknown to etcd could have: grant_window_ms + 2 x clock_error_ms), to the next tick (%u us)",
			    a->node, (double)left / 1e6, until, st.tick_us);
		t = etcd_boottime_ns() + left * 1000ULL;
		if (sleep_until(next < t ? next : t))
			return 1;
		t = etcd_boottime_ns();
		if (t < next && t < deadline)
			continue;
		r = keepalive_in_time(a, deadline, "while waiting to open");
		if (r == -ETIME || r == -ESTALE)
			return r;
		if (r == -ENOENT) {
			say("node %u: lease %" PRIx64 " is gone while waiting to open", a->node, (uint64_t)a->lease);
			a->lease = 0;
			return -EAGAIN;
		}
		if (r) {
			/* again soon, within the deadline */
			next = etcd_boottime_ns() + (uint64_t)a->ttl * 1000000000ULL / 20;
			continue;
		}
		deadline = agent_deadline(a->c, a->ka_sent_ns, a->ttl);
		next = a->ka_sent_ns + (uint64_t)a->ttl * 1000000000ULL / 3;
	}
	if (etcd_boottime_ns() >= deadline) {
		say("node %u: the deadline of the last keepalive passed while waiting to open: claiming again",
		    a->node);
		return -ETIME;
	}
	/* The first grant, from now, persisted before the install. */
	g = grant_base(a);
	if (a->floor_ms != LEASE_FLOOR_NEW && a->floor_ms > g)
		g = a->floor_ms;
	g += (uint64_t)a->c->grant_window_ms;
	r = persist_grant(a, g);
	if (etcd_went_back(a->e) || a->went_back)
		return -ESTALE;
	if (r) {
		say("node %u: first grant after the wait: %s", a->node,
		    r == -ENOLINK ? "the claim is gone from etcd, or is not ours" : etcd_errmsg(a->e));
		return -EAGAIN;
	}
	a->grant_ms = g;
	return 0;
}

/* install() - put the claimed node in force in the device. Returns 0,
 * -EAGAIN to start over, or a fatal -errno. */
static int install(struct agent *a)
{
	struct lease_dev_state st;
	uint64_t deadline = agent_deadline(a->c, a->ka_sent_ns, a->ttl);
	int r;

	/*
	 * Closed first: a grant at the floor (or, for a new ID, just after
	 * the epoch) lets nothing be issued. The grant is opened only if the
	 * device's fence has not moved since before the claim, before or
	 * after this install: a VM cloned between the claim and here has the
	 * claim in its agent's memory, and its kernel, which had nothing in
	 * force to revoke, moved the fence. A clone taken once it is in force
	 * is fenced by its kernel (the fork revokes it). Whatever failed, a
	 * fence that moved means etcd is left alone: the claim and lease may
	 * be the original's.
	 */
	r = lease_dev_state(a->d, &st);
	if (!r && st.fence != a->claim_fence) {
		fenced_since_claim(a, NULL);
		return -EAGAIN;
	}
	if (!r) {
		r = keepalive_in_time(a, deadline, "before the install");
		if (r == -ESTALE)
			return r;
		if (r == -ETIME) {
			say("node %u: leaving lease %" PRIx64 " and the claim in etcd alone, claiming again",
			    a->node, (uint64_t)a->lease);
			a->lease = 0;
			a->held = 0;
			return -EAGAIN;
		}
		if (r) {
			if (fenced_since_claim(a, NULL))
				return -EAGAIN;
			say("node %u: keepalive before install: %s", a->node,
			    r == -ENOENT ? "the lease is gone" : etcd_errmsg(a->e));
			return -EAGAIN;
		}
		a->deadline_ns = agent_deadline(a->c, a->ka_sent_ns, a->ttl);
		r = lease_dev_install(a->d, a->node, a->floor_ms,
				      a->floor_ms == LEASE_FLOOR_NEW ? st.epoch_ms + 1 : a->floor_ms,
				      a->deadline_ns, (uint64_t)a->token);
	}
	if (fenced_since_claim(a, r ? NULL : "revoking it here, "))
		return -EAGAIN;
	if (!r) {
		r = lease_dev_renew(a->d, a->node, a->grant_ms, 0, (uint64_t)a->token);
		/* Not opened: revoked under us (a VM cloned after the second
		 * read, whose fork revoked it; or the deadline passed in a
		 * pause): the fence has moved, and etcd is left alone. */
		if (r && fenced_since_claim(a, ""))
			return -EAGAIN;
	}
	switch (r) {
	case 0:
		a->installed = 1;
		say("node %u: in force (token %" PRId64 ", deadline in %.3f s)", a->node, a->token,
		    (double)(a->deadline_ns - etcd_boottime_ns()) / 1e9);
		return 0;
	case -ETIME:
		say("node %u: the deadline passed before the install (etcd is slow?)", a->node);
		return -EAGAIN;
	case -EBUSY:
		say("node %u: another node ID is in force in %s (assigned by hand?): uidgen-lease manages the node ID; revoke it first (uidgen revoke-node)",
		    a->node, a->c->device);
		return r;
	case -ESTALE:
		say("node %u: token %" PRId64 " is not above the highest the module has seen: etcd went back in time (restored from a snapshot without --bump-revision, or rebuilt); see fleet.rst, \"Restoring etcd\", then make the module forget the token it saw: uidgen revoke-node --force (or reload it)",
		    a->node, a->token);
		return r;
	case -EDOM:
		say("node %u: its floor in etcd (%" PRIu64 " ms) is more than %llu h ahead of this machine's clock: fix this machine's clock (timedatectl; NTP) and reload the module (its clock is anchored at load), or, if the floor is the wrong one, the floor in etcd (fleet.rst)",
		    a->node, a->floor_ms, UIDGEN_FLOOR_AHEAD_MAX_NS / 3600000000000ULL);
		return r;
	default:
		say("node %u: install: %s", a->node, strerror(-r));
		return r;
	}
}

enum { HOLD_STOP, HOLD_LOST, HOLD_EXPIRED, HOLD_GONE, HOLD_BACK, HOLD_SETTINGS };

/*
 * settings_hold() - are /uidgen/<cluster>/settings still ours? Read at
 * every hold round: etcd restored to before the first 2.0 agent has no
 * such key, and the next agent records its own, perhaps smaller (its
 * claim wait then shorter than ours covers). Returns 1 if they are (or
 * etcd did not answer: the next round asks again), 0 if they differ or
 * are gone (said so).
 */
static int settings_hold(struct agent *a)
{
	json_object *resp;
	struct etcd_kv kv;
	char sk[512];
	int ok;

	snprintf(sk, sizeof(sk), "%ssettings", a->prefix);
	if (range(a, sk, 0, 0, &resp))
		return 1;
	ok = !etcd_kv_get(resp, 0, &kv);
	json_object_put(resp);
	if (ok && !strcmp(kv.value, a->settings)) {
		etcd_kv_free(&kv);
		return 1;
	}
	say("node %u: %s is %s%s%s, not ours (%s): etcd restored from a snapshot, or the key changed by hand; "
	    "stopping (exit 3): an operator must look (fleet.rst, \"Restoring etcd\")",
	    a->node, sk, ok ? "'" : "gone", ok ? kv.value : "", ok ? "'" : "", a->settings);
	if (ok)
		etcd_kv_free(&kv);
	return 0;
}

/* Is our node, with our token, still in force in the device? Asked before
 * every etcd write of a hold round: a VM fork or snapshot restore revokes
 * it in the copy's kernel, and the copy's agent still has our lease and
 * token; it must then write nothing to etcd. */
static int dev_holds(struct agent *a)
{
	struct lease_dev_state st;
	int r = lease_dev_state(a->d, &st);

	if (!r && st.active && st.node == a->node && st.token == (uint64_t)a->token)
		return 1;
	if (r)
		say("node %u: UIDGEN_IOC_INFO: %s", a->node, strerror(-r));
	else
		say("node %u: no longer in force in the device (%s): VM fork, snapshot restore or revoked by hand; writing nothing to etcd",
		    a->node, st.active ? "another node or token" : "no node");
	return 0;
}

/* hold() - keepalives every TTL/3, each followed by a grant raised ahead
 * of the clock (persisted first) and the deadline moved; returns why it
 * stopped. */
static int hold(struct agent *a)
{
	uint64_t next = a->ka_sent_ns + (uint64_t)a->ttl * 1000000000ULL / 3;
	int failing = 0;

	for (;;) {
		uint64_t now, grant = 0, deadline, base;
		long left_ms;
		int r;

		if (sleep_until(next < a->deadline_ns ? next : a->deadline_ns))
			return HOLD_STOP;
		now = etcd_boottime_ns();
		if (now >= a->deadline_ns) {
			say("node %u: deadline passed with no keepalive answered since %.3f s: the kernel revoked it",
			    a->node, (double)a->ka_sent_ns / 1e9);
			return HOLD_EXPIRED;
		}
		if (!dev_holds(a))
			return HOLD_GONE;
		/* Give every endpoint its turn before the deadline. */
		left_ms = (long)((a->deadline_ns - now) / 1000000);
		etcd_set_timeout(a->e, left_ms / (2 * a->nr_endpoints) < a->c->timeout_ms ?
				 left_ms / (2 * a->nr_endpoints) : a->c->timeout_ms);
		r = keepalive(a);
		etcd_set_timeout(a->e, a->c->timeout_ms);
		if (etcd_went_back(a->e)) {
			say("node %u: %s: stopping now", a->node, etcd_errmsg(a->e));
			return HOLD_BACK;
		}
		if (r == -ENOENT) {
			say("node %u: lease %" PRIx64 " is gone (expired in etcd)", a->node, (uint64_t)a->lease);
			return HOLD_LOST;
		}
		if (r) {
			if (!failing++)
				say("node %u: keepalive: %s", a->node, etcd_errmsg(a->e));
			next = etcd_boottime_ns() + 1000000000ULL * (uint64_t)a->ttl / 20;
			continue;
		}
		if (failing)
			say("node %u: keepalive answered again after %d failures", a->node, failing);
		failing = 0;
		if (!settings_hold(a))
			return HOLD_SETTINGS;
		/* The device keeps its old deadline until it takes this one. */
		deadline = agent_deadline(a->c, a->ka_sent_ns, a->ttl);
		base = grant_base(a);
		if (a->grant_ms < base + (uint64_t)a->c->grant_window_ms * 2 / 3) {
			grant = base + (uint64_t)a->c->grant_window_ms;
			if (!dev_holds(a))
				return HOLD_GONE;
			r = persist_grant(a, grant);
			if (etcd_went_back(a->e) || a->went_back) {
				say("node %u: %s: stopping now; an operator must look (fleet.rst, \"Restoring etcd\")",
				    a->node, a->went_back ? "etcd went back in time" : etcd_errmsg(a->e));
				return HOLD_BACK;
			}
			if (r == -ENOLINK) {
				say("node %u: the claim is gone from etcd, or is not ours", a->node);
				return HOLD_LOST;
			}
			if (r) {
				if (r != -EINVAL && r != -EAGAIN)
					say("node %u: persist grant: %s", a->node, etcd_errmsg(a->e));
				grant = 0;
			}
		}
		r = lease_dev_renew(a->d, a->node, grant, deadline, (uint64_t)a->token);
		now = etcd_boottime_ns();
		if (r && (r == -ETIME || now >= a->deadline_ns)) {
			/* Paused (or starved) between the keepalive and here. */
			say("node %u: renew in the device: %s: %s %.3f s after the keepalive was sent (this agent was paused or starved): the kernel revoked it",
			    a->node, strerror(-r),
			    r == -ETIME ? "the new deadline had passed" : "the old deadline had passed",
			    (double)(now - a->ka_sent_ns) / 1e9);
			return HOLD_EXPIRED;
		}
		if (r) {
			say("node %u: renew in the device: %s (revoked there before its deadline: VM fork, snapshot restore or by hand)",
			    a->node, strerror(-r));
			return HOLD_GONE;
		}
		a->deadline_ns = deadline;
		if (grant)
			a->grant_ms = grant;
		next = a->ka_sent_ns + (uint64_t)a->ttl * 1000000000ULL / 3;
	}
}

/*
 * drop_stale_claim() - at start, with nothing of ours in force in the
 * device: a claim of this boot of this machine still in etcd was left by
 * an agent that died after its kernel revoked (deadline passed, etcd
 * restarted, SIGKILL). Nobody issues under it; free it now rather than a
 * TTL later. A claim with this machine ID but another boot ID (or none)
 * may be a live holder: two machines cloned with one /etc/machine-id, or
 * this one before a reboot. It is left to expire.
 */
static void drop_stale_claim(struct agent *a)
{
	json_object *resp, *v, *m, *b;
	struct lease_dev_state st;
	struct etcd_kv kv;
	long id = last_held(a);
	char nk[512];
	int mine = 0, boot = 0;

	if (id < 0)
		return;
	if (!lease_dev_state(a->d, &st) && st.active && st.node == (uint32_t)id)
		return;
	key(a, nk, sizeof(nk), "node", (uint32_t)id);
	if (range(a, nk, 0, 0, &resp))
		return;
	if (!etcd_kv_get(resp, 0, &kv)) {
		v = json_tokener_parse(kv.value);
		mine = v && json_object_object_get_ex(v, "machine", &m) &&
		       !strcmp(json_object_get_string(m), a->c->machine_id);
		boot = mine && json_object_object_get_ex(v, "boot_id", &b) &&
		       !strcmp(json_object_get_string(b), a->boot_id);
		if (mine && !boot)
			say("node %ld: held under our machine ID %s with boot ID %s, not this boot's (%s): "
			    "this machine before a reboot, its agent stopped with SIGTERM (not a hand-over) less than a TTL ago, "
			    "or another machine with the same /etc/machine-id (a cloned image: give each machine its own); "
			    "leaving that claim alone: it waits for its lease to expire (within %" PRId64 " s of its last keepalive), "
			    "and this agent claims another ID meanwhile",
			    id, a->c->machine_id,
			    json_object_object_get_ex(v, "boot_id", &b) ? json_object_get_string(b) : "none",
			    a->boot_id, (int64_t)a->c->ttl_s);
		json_object_put(v);
		/* Not freed even then: a clone of this VM has this boot ID and
		 * may be the one issuing under it. It expires by itself. */
		if (boot)
			say("node %ld: a claim of this machine and boot (token %" PRId64
			    ") is in etcd but not in the device: leaving it to expire (a clone of this VM may hold it)",
			    id, kv.create_revision);
		etcd_kv_free(&kv);
	}
	json_object_put(resp);
}

/*
 * adopt() - at start, the device may hold a node from an agent that was
 * killed. If etcd still has that very claim (same token, this machine)
 * and its lease is alive, carry on with it: a restart costs no
 * availability. Otherwise revoke it. Returns 0 (adopted), 1 (nothing to
 * adopt), or a fatal -errno.
 */
static int adopt(struct agent *a)
{
	struct lease_dev_state st;
	json_object *resp = NULL, *v = NULL, *m, *b;
	struct etcd_kv kv = { 0 };
	char nk[512];
	int r, ours = 0;

	r = lease_dev_state(a->d, &st);
	if (r)
		return r;
	if (!st.active) {
		drop_stale_claim(a);
		return 1;
	}
	if (!st.token) {
		say("node %u is in force in %s with no fencing token (assigned by hand): uidgen-lease manages the node ID; revoke it first (uidgen revoke-node)",
		    st.node, a->c->device);
		return -EBUSY;
	}
	if (st.grant_ms && (st.grant_ms <= st.floor_ms || st.grant_ms <= st.epoch_ms + 1)) {
		/*
		 * Installed closed and never opened (install()): the previous
		 * run died before its fence check. This may be a VM's copy
		 * cloned between that claim and its install, whose kernel
		 * moved the fence: its claim, token, machine and boot IDs are
		 * the original's, so etcd cannot tell. Revoke it here and
		 * leave the lease and claim in etcd alone (as
		 * fenced_since_claim()): they expire by themselves.
		 */
		r = lease_dev_revoke(a->d, st.token);
		say("node %u: installed closed by a previous run that did not open it (killed before its fence check; this may be a VM's copy): %s; "
		    "leaving the claim and its lease in etcd alone (they expire by themselves)",
		    st.node, r ? "revoke in the device failed (already revoked)" : "revoked in the device");
		return 1;
	}
	key(a, nk, sizeof(nk), "node", st.node);
	while (range(a, nk, 0, 0, &resp)) {
		/* Unknown: keep it; the kernel revokes it at its deadline. */
		say("node %u in force from a previous run; etcd: %s", st.node, etcd_errmsg(a->e));
		if (sleep_until(etcd_boottime_ns() + (uint64_t)a->c->retry_ms * 1000000))
			return 1;
	}
	if (etcd_max_revision(a->e) < (int64_t)st.token) {
		/* The kernel holds a token etcd has not reached. */
		say("node %u in force with token %" PRIu64 ", but etcd is at revision %" PRId64
		    ": etcd went back in time (restored from a snapshot, or rebuilt); revoking it, claiming nothing: an operator must look (fleet.rst, \"Restoring etcd\")",
		    st.node, st.token, etcd_max_revision(a->e));
		json_object_put(resp);
		lease_dev_revoke(a->d, st.token);
		return -ESTALE;
	}
	if (!etcd_kv_get(resp, 0, &kv) && kv.create_revision == (int64_t)st.token) {
		v = json_tokener_parse(kv.value);
		/* This machine's, this boot's: a restarted agent, not a
		 * clone of this VM or a claim reissued by a rewound store. */
		ours = v && json_object_object_get_ex(v, "machine", &m) &&
		       !strcmp(json_object_get_string(m), a->c->machine_id) &&
		       json_object_object_get_ex(v, "boot_id", &b) &&
		       !strcmp(json_object_get_string(b), a->boot_id);
		json_object_put(v);
	}
	json_object_put(resp);
	if (ours) {
		free(a->claim_val);
		a->claim_val = strdup(kv.value);
		a->lease = kv.lease;
		a->node = st.node;
		a->token = (int64_t)st.token;
		a->held = 1;
		a->installed = 1;
		a->grant_ms = st.grant_ms;
		a->floor_ms = st.floor_ms;
		r = keepalive(a);
		if (!r) {
			/* The grant raised now, as a hold round does: the
			 * previous run's may be a round or more behind the ID
			 * clock (its last round, then the restart), and
			 * callers would wait at it until our first round. */
			uint64_t base = grant_base(a), grant = 0;

			if (a->grant_ms < base + (uint64_t)a->c->grant_window_ms * 2 / 3) {
				grant = base + (uint64_t)a->c->grant_window_ms;
				r = persist_grant(a, grant);
				if (r == -ENOLINK || r == -ESTALE || etcd_went_back(a->e) || a->went_back) {
					say("node %u: adopting: the first grant: %s", a->node,
					    r == -ENOLINK ? "the claim is gone from etcd, or is not ours" : "etcd went back in time");
					r = r ? r : -ESTALE;
				} else if (r) {
					/* not raised: the first round tries again */
					grant = 0;
					r = 0;
				}
			}
			if (!r) {
				a->deadline_ns = agent_deadline(a->c, a->ka_sent_ns, a->ttl);
				r = lease_dev_renew(a->d, a->node, grant, a->deadline_ns, st.token);
				if (!r && grant)
					a->grant_ms = grant;
			}
		}
		if (!r) {
			say("node %u: adopted from the previous run (token %" PRId64 ")", a->node, a->token);
			etcd_kv_free(&kv);
			return 0;
		}
		say("node %u: cannot adopt the previous run's claim (token %" PRIu64 "): %s", st.node,
		    st.token, r == -ENOENT ? "its lease is gone" : strerror(-r));
		if (r == -ESTALE) {
			lease_dev_revoke(a->d, st.token);
			etcd_kv_free(&kv);
			return -ESTALE;
		}
	} else {
		say("node %u in force from a previous run (token %" PRIu64 "), but etcd has %s", st.node,
		    st.token, kv.key ? "another claim" : "no claim");
	}
	etcd_kv_free(&kv);
	a->node = st.node;
	a->token = (int64_t)st.token;
	a->installed = 1;
	a->held = 0;
	release(a, "left by a previous run whose claim is gone");
	drop_stale_claim(a);
	return 1;
}

/*
 * leave() - on SIGTERM (not a hand-over): leave the node in force in the
 * device and the claim and lease in etcd, for the next start to adopt
 * (adopt()): a restart then costs no wait (a fresh claim waits,
 * claim_wait()). If nothing adopts it, the kernel revokes the node at its
 * deadline and etcd frees the claim when the lease expires.
 */
static void leave(struct agent *a)
{
	if (!a->installed || !a->held)
		return;
	say("node %u: left in force for the next start to adopt (token %" PRId64
	    "; the kernel revokes it at its deadline, in %.3f s, and etcd frees it a TTL after the last keepalive; "
	    "a hand-over releases it: SIGUSR1)",
	    a->node, a->token, (double)(a->deadline_ns - etcd_boottime_ns()) / 1e9);
	a->installed = 0;
	a->held = 0;
	a->lease = 0;
}

int agent_run(struct agent *a)
{
	int r, h;

	/* The layout first: nothing of ours, old or new, with another. */
	while ((r = check_layout(a)) && r != -EINVAL && r != -EACCES && !etcd_went_back(a->e)) {
		say("layout check: %s", etcd_errmsg(a->e));
		if (sleep_until(etcd_boottime_ns() + jitter((uint64_t)a->c->retry_ms * 1000000)))
			return 0;
	}
	if (r) {
		if (r == -EACCES)
			say("etcd refused us (user, password, or the role's permissions on %s): %s",
			    a->prefix, etcd_errmsg(a->e));
		else if (etcd_went_back(a->e))
			say("%s", etcd_errmsg(a->e));
		return etcd_went_back(a->e) ? -ESTALE : r;
	}
	r = adopt(a);
	if (r < 0)
		return r;
	if (r == 0)
		goto holding;
	while (!lease_stop) {
		r = acquire(a);
		if (r)
			break;
		if (!a->claim_val) {
			release(a, "out of memory");
			r = -ENOMEM;
			break;
		}
		r = claim_wait(a);
		if (r == 1)
			break;
		if (r == -ETIME) {
			say("node %u: leaving lease %" PRIx64 " and the claim in etcd alone (they expire by themselves)",
			    a->node, (uint64_t)a->lease);
			a->lease = 0;
			a->held = 0;
			continue;
		}
		if (r == -EAGAIN) {
			release(a, "the claim did not open");
			continue;
		}
		if (r)
			break;
		r = install(a);
		if (r == -EAGAIN) {
			release(a, "install failed");
			continue;
		}
		if (r)
			break;
holding:
		h = hold(a);
		if (h == HOLD_STOP && lease_stop != LEASE_STOP_HANDOVER)
			leave(a);
		release(a, h == HOLD_STOP ? "shutdown" : h == HOLD_LOST ? "claim lost" :
			h == HOLD_GONE ? "not in force in the device" :
			h == HOLD_BACK ? "etcd went back in time" :
			h == HOLD_SETTINGS ? "the cluster's settings are not ours" : "deadline passed");
		if (h == HOLD_BACK || h == HOLD_SETTINGS) {
			r = -ESTALE;
			break;
		}
		r = 0;
		if (!lease_stop)
			sleep_until(etcd_boottime_ns() + jitter((uint64_t)a->c->retry_ms * 1000000));
	}
	release(a, "shutdown");
	return r < 0 ? r : 0;
}
