/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uidgen-lease: a client for etcd's v3 JSON gateway (the /v3/... paths that
 * etcd 3.4 and 3.5 serve), on libcurl and json-c. It owns the endpoints
 * (failover from one to the next), TLS, user/password authentication and
 * the encoding rules of the gateway: keys and values are base64, int64
 * fields are decimal strings.
 */
#ifndef UIDGEN_LEASE_ETCD_H
#define UIDGEN_LEASE_ETCD_H

#include <stdint.h>
#include <json-c/json.h>

struct etcd;

struct etcd_conf {
	char **endpoints;	/* "http://host:port" or "https://...", at least one */
	int nr_endpoints;
	const char *cacert;	/* PEM file of the CA that signed the servers, or NULL */
	const char *cert;	/* client certificate (PEM), or NULL */
	const char *key;	/* its private key (PEM), or NULL */
	const char *user;	/* etcd user, or NULL for no authentication */
	const char *password;
	long timeout_ms;	/* per request and endpoint */
};

/* One key-value pair from a range or txn response. */
struct etcd_kv {
	char *key;		/* decoded, NUL-terminated */
	char *value;		/* decoded, NUL-terminated */
	int64_t create_revision;
	int64_t mod_revision;
	int64_t lease;
};

int etcd_new(struct etcd **ep, const struct etcd_conf *conf);
void etcd_free(struct etcd *e);

/*
 * etcd_call() - POST @req to @path (e.g. "/v3/kv/range") and parse the
 * answer into *@resp (the caller puts it). @req is consumed. @sent_ns, if
 * not NULL, gets the CLOCK_BOOTTIME time at which the request that
 * succeeded was sent. Returns 0, or -errno: ETIMEDOUT/ECONNREFUSED/EIO
 * when no endpoint answered, ENOENT for etcd's NotFound (a lease that
 * does not exist), EACCES for a failed authentication or permission,
 * EINVAL for a request etcd rejects, EPROTO for an answer that is not
 * JSON, ESTALE (for this and every later call) once an answer shows the
 * store went back in time: a KV answer (range, txn) with a revision below
 * one seen before, or another cluster ID (restored from a snapshot, or
 * rebuilt). Keepalive answers carry the revision of whichever member took
 * them, which may lag: they are not compared.
 */
int etcd_call(struct etcd *e, const char *path, json_object *req,
	      json_object **resp, uint64_t *sent_ns);
/* The highest revision any answer carried. */
int64_t etcd_max_revision(const struct etcd *e);
/* Nonzero once an answer showed the store went back in time (see
 * etcd_call(): every call fails with -ESTALE from then on). */
int etcd_went_back(const struct etcd *e);
/* Per-request timeout from now on (the agent shortens it when a
 * deadline is near, so that every endpoint gets its turn before it). */
void etcd_set_timeout(struct etcd *e, long ms);
/* The endpoint the last call went to (for messages). */
const char *etcd_endpoint(const struct etcd *e);
/* The last error etcd or curl reported, for messages. */
const char *etcd_errmsg(const struct etcd *e);

/* Request builders (each returns a new json_object). */
json_object *etcd_op_range(const char *key, int prefix, int keys_only);
json_object *etcd_op_put(const char *key, const char *value, int64_t lease);
json_object *etcd_cmp_create(const char *key, int64_t create_revision);
json_object *etcd_cmp_mod(const char *key, int64_t mod_revision);
json_object *etcd_cmp_value(const char *key, const char *value);
json_object *etcd_op_delete(const char *key);

/*
 * etcd_txn() - a transaction: @cmp, @success and @failure are json arrays
 * (consumed). *@succeeded says which branch ran; *@resp is the answer.
 */
int etcd_txn(struct etcd *e, json_object *cmp, json_object *success,
	     json_object *failure, int *succeeded, json_object **resp);

/* Reading answers. */
int64_t etcd_i64(json_object *o, const char *field);
int64_t etcd_revision(json_object *resp);	/* header.revision */
/* The @i-th response of a txn answer, as its range answer (NULL if none). */
json_object *etcd_txn_range(json_object *resp, int i);
/* Number of kvs in a range answer, and the @i-th one decoded into @kv
 * (free with etcd_kv_free()). */
int etcd_nr_kvs(json_object *range);
int etcd_kv_get(json_object *range, int i, struct etcd_kv *kv);
void etcd_kv_free(struct etcd_kv *kv);

/* Leases. */
/* *sent_ns: when the request that was answered was sent (the lease's TTL
 * starts after it), as etcd_lease_keepalive()'s. */
int etcd_lease_grant(struct etcd *e, int64_t ttl, int64_t *id, int64_t *granted_ttl,
		     uint64_t *sent_ns);
/* *ttl 0: the lease is gone. */
int etcd_lease_keepalive(struct etcd *e, int64_t id, int64_t *ttl, uint64_t *sent_ns);
int etcd_lease_revoke(struct etcd *e, int64_t id);
int etcd_lease_ttl(struct etcd *e, int64_t id, int64_t *ttl);

/* base64 (the gateway's encoding of keys and values). */
char *etcd_b64(const char *s, size_t len);
char *etcd_unb64(const char *s, size_t *len);

uint64_t etcd_boottime_ns(void);

#endif
