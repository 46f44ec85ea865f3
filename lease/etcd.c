// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen-lease: the etcd v3 JSON gateway client (see etcd.h). libcurl
 * does the HTTP and TLS, json-c the JSON; this file only knows the
 * gateway's paths, its encodings and how to fail over.
 *
 * Failover: a request that gets no answer (connection refused, timeout)
 * or an "unavailable" answer (no leader, a member cut off) goes to the
 * next endpoint, once round the list. Any other answer is etcd's verdict
 * and is returned as is. A transaction that timed out may still have
 * been applied: callers make every transaction safe to repeat (agent.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <curl/curl.h>

#include "etcd.h"

struct etcd {
	struct etcd_conf conf;
	CURL *curl;
	int cur;		/* index of the endpoint in use */
	char *token;		/* auth token, or NULL */
	char *body;		/* the answer being received */
	size_t len, cap;
	char err[1400];
	/* The highest revision and the cluster every answer so far came
	 * with: etcd's revisions only grow, so a lower one means the store
	 * went back in time (restored from a snapshot, or rebuilt). */
	int64_t max_rev;
	uint64_t cluster_id;
	int went_back;
};

uint64_t etcd_boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static const char b64abc[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *etcd_b64(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(4 * ((len + 2) / 3) + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		*o++ = b64abc[p[i] >> 2];
		*o++ = b64abc[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
		*o++ = b64abc[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)];
		*o++ = b64abc[p[i + 2] & 63];
	}
	if (i < len) {
		*o++ = b64abc[p[i] >> 2];
		if (i + 1 < len) {
			*o++ = b64abc[((p[i] & 3) << 4) | (p[i + 1] >> 4)];
			*o++ = b64abc[(p[i + 1] & 15) << 2];
		} else {
			*o++ = b64abc[(p[i] & 3) << 4];
			*o++ = '=';
		}
		*o++ = '=';
	}
	*o = 0;
	return out;
}

char *etcd_unb64(const char *s, size_t *lenp)
{
	size_t n = strlen(s), len = 0;
	char *out = malloc(n / 4 * 3 + 4);
	unsigned int acc = 0;
	int bits = 0;

	if (!out)
		return NULL;
	for (; *s && *s != '='; s++) {
		const char *c = strchr(b64abc, *s);

		if (!c) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned int)(c - b64abc);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[len++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[len] = 0;
	if (lenp)
		*lenp = len;
	return out;
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct etcd *e = arg;
	size_t n = size * nmemb;

	if (e->len + n + 1 > e->cap) {
		size_t cap = (e->len + n + 1) * 2;
		char *b = realloc(e->body, cap);

		if (!b)
			return 0;
		e->body = b;
		e->cap = cap;
	}
	memcpy(e->body + e->len, ptr, n);
	e->len += n;
	e->body[e->len] = 0;
	return n;
}

int etcd_new(struct etcd **ep, const struct etcd_conf *conf)
{
	static int global_done;
	struct etcd *e;

	if (conf->nr_endpoints < 1)
		return -EINVAL;
	if (!global_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT))
			return -ENOMEM;
		global_done = 1;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->conf = *conf;
	e->curl = curl_easy_init();
	if (!e->curl) {
		free(e);
		return -ENOMEM;
	}
	*ep = e;
	return 0;
}

void etcd_free(struct etcd *e)
{
	if (!e)
		return;
	curl_easy_cleanup(e->curl);
	free(e->token);
	free(e->body);
	free(e);
}

void etcd_set_timeout(struct etcd *e, long ms)
{
	e->conf.timeout_ms = ms < 50 ? 50 : ms;
}

const char *etcd_endpoint(const struct etcd *e)
{
	return e->conf.endpoints[e->cur];
}

const char *etcd_errmsg(const struct etcd *e)
{
	return e->err;
}

/* gRPC status codes the gateway passes on in "code". */
enum {
	GRPC_INVALID_ARGUMENT = 3,
	GRPC_DEADLINE_EXCEEDED = 4,
	GRPC_NOT_FOUND = 5,
	GRPC_PERMISSION_DENIED = 7,
	GRPC_FAILED_PRECONDITION = 9,
	GRPC_UNAVAILABLE = 14,
	GRPC_UNAUTHENTICATED = 16,
};

enum { TRY_NEXT = 1, REAUTH = 2 };

/* One POST to the current endpoint. Returns 0, -errno, or TRY_NEXT /
 * REAUTH for the caller to act on. */
static int post(struct etcd *e, const char *path, const char *body,
		json_object **resp, uint64_t *sent_ns)
{
	struct curl_slist *hdr = NULL;
	char url[1024], auth[1100];
	json_object *o, *code;
	long status = 0;
	CURLcode rc;

	snprintf(url, sizeof(url), "%s%s", e->conf.endpoints[e->cur], path);
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	if (e->token) {
		snprintf(auth, sizeof(auth), "Authorization: %s", e->token);
		hdr = curl_slist_append(hdr, auth);
	}
	curl_easy_reset(e->curl);
	curl_easy_setopt(e->curl, CURLOPT_URL, url);
	curl_easy_setopt(e->curl, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(e->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(e->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e->curl, CURLOPT_TIMEOUT_MS, e->conf.timeout_ms);
	curl_easy_setopt(e->curl, CURLOPT_CONNECTTIMEOUT_MS,
			 e->conf.timeout_ms < 1000 ? e->conf.timeout_ms : 1000L);
	curl_easy_setopt(e->curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(e->curl, CURLOPT_WRITEDATA, e);
	curl_easy_setopt(e->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	if (e->conf.cacert)
		curl_easy_setopt(e->curl, CURLOPT_CAINFO, e->conf.cacert);
	if (e->conf.cert)
		curl_easy_setopt(e->curl, CURLOPT_SSLCERT, e->conf.cert);
	if (e->conf.key)
		curl_easy_setopt(e->curl, CURLOPT_SSLKEY, e->conf.key);
	e->len = 0;
	if (sent_ns)
		*sent_ns = etcd_boottime_ns();
	rc = curl_easy_perform(e->curl);
	curl_slist_free_all(hdr);
	if (rc != CURLE_OK) {
		snprintf(e->err, sizeof(e->err), "%s: %s", url, curl_easy_strerror(rc));
		/* Even a TLS error may be one member's: try the others. */
		return TRY_NEXT;
	}
	curl_easy_getinfo(e->curl, CURLINFO_RESPONSE_CODE, &status);
	o = e->len ? json_tokener_parse(e->body) : NULL;
	if (!o && status == 400 && e->len && e->body && strstr(e->body, "CommonName")) {
		snprintf(e->err, sizeof(e->err),
			 "%s: etcd's JSON gateway refuses a client certificate with a CommonName when --client-cert-auth is on (CVE-2018-16886): issue this machine's certificate with an empty CommonName and authenticate with user and password_file",
			 url);
		return -EACCES;
	}
	if (!o) {
		snprintf(e->err, sizeof(e->err), "%s: HTTP %ld, not JSON: %.100s",
			 url, status, e->len ? e->body : "(empty)");
		return status >= 500 ? TRY_NEXT : -EPROTO;
	}
	if (status == 200 && !json_object_object_get_ex(o, "error", NULL)) {
		*resp = o;
		return 0;
	}
	{
		json_object *m = NULL;
		const char *msg = "?";
		int c = 0;

		if (json_object_object_get_ex(o, "message", &m) ||
		    json_object_object_get_ex(o, "error", &m))
			msg = json_object_get_string(m);
		if (json_object_object_get_ex(o, "code", &code))
			c = json_object_get_int(code);
		snprintf(e->err, sizeof(e->err), "%s: %s (code %d)", url, msg, c);
		json_object_put(o);
		if (strstr(e->err, "invalid auth token") ||
		    (e->conf.user && c == GRPC_UNAUTHENTICATED))
			return REAUTH;
		switch (c) {
		case GRPC_UNAVAILABLE:
		case GRPC_DEADLINE_EXCEEDED:
			return TRY_NEXT;
		case GRPC_NOT_FOUND:
			return -ENOENT;
		case GRPC_PERMISSION_DENIED:
		case GRPC_UNAUTHENTICATED:
			return -EACCES;
		case GRPC_INVALID_ARGUMENT:
		case GRPC_FAILED_PRECONDITION:
			return -EINVAL;
		default:
			return status >= 500 ? TRY_NEXT : -EIO;
		}
	}
}

static int authenticate(struct etcd *e)
{
	json_object *req = json_object_new_object(), *resp = NULL, *t;
	int r;

	json_object_object_add(req, "name", json_object_new_string(e->conf.user));
	json_object_object_add(req, "password",
			       json_object_new_string(e->conf.password ? e->conf.password : ""));
	free(e->token);
	e->token = NULL;
	r = post(e, "/v3/auth/authenticate", json_object_to_json_string(req), &resp, NULL);
	json_object_put(req);
	/* etcd answers a wrong user or password with InvalidArgument:
	 * whatever it answered, it is a refusal. */
	if (r && r != TRY_NEXT)
		r = -EACCES;
	if (r)
		return r;
	if (!json_object_object_get_ex(resp, "token", &t)) {
		json_object_put(resp);
		snprintf(e->err, sizeof(e->err), "authenticate: no token in the answer");
		return -EPROTO;
	}
	e->token = strdup(json_object_get_string(t));
	json_object_put(resp);
	return e->token ? 0 : -ENOMEM;
}

/* The answer's header: at the top, or in a keepalive's "result". */
static json_object *header(json_object *resp)
{
	json_object *h, *r;

	if (json_object_object_get_ex(resp, "header", &h))
		return h;
	if (json_object_object_get_ex(resp, "result", &r) &&
	    json_object_object_get_ex(r, "header", &h))
		return h;
	return NULL;
}

/* -ESTALE, once and for every later call, if @resp shows a revision
 * below one seen before or another cluster ID. */
static int check_history(struct etcd *e, json_object *resp, int kv)
{
	json_object *h = header(resp);
	int64_t rev = etcd_i64(h, "revision");
	json_object *idv;
	uint64_t id = 0;

	/* a uint64 in decimal: above INT64_MAX as often as not */
	if (h && json_object_object_get_ex(h, "cluster_id", &idv))
		id = strtoull(json_object_get_string(idv), NULL, 10);

	if (!kv)
		rev = 0;
	if (!e->went_back && rev && rev < e->max_rev) {
		snprintf(e->err, sizeof(e->err),
			 "%s: etcd's revision went back from %lld to %lld: the store was restored from a snapshot or rebuilt",
			 e->conf.endpoints[e->cur], (long long)e->max_rev, (long long)rev);
		e->went_back = 1;
	} else if (!e->went_back && id && e->cluster_id && id != e->cluster_id) {
		snprintf(e->err, sizeof(e->err),
			 "%s: etcd's cluster ID changed from %llx to %llx: the store was rebuilt or restored",
			 e->conf.endpoints[e->cur], (unsigned long long)e->cluster_id,
			 (unsigned long long)id);
		e->went_back = 1;
	}
	if (e->went_back)
		return -ESTALE;
	if (rev > e->max_rev)
		e->max_rev = rev;
	if (id)
		e->cluster_id = id;
	return 0;
}

int64_t etcd_max_revision(const struct etcd *e)
{
	return e->max_rev;
}

int etcd_went_back(const struct etcd *e)
{
	return e->went_back;
}

int etcd_call(struct etcd *e, const char *path, json_object *req,
	      json_object **resp, uint64_t *sent_ns)
{
	const char *body = json_object_to_json_string(req);
	int tries = 0, reauths = 0, r;

	*resp = NULL;
	for (;;) {
		if (e->conf.user && !e->token) {
			r = authenticate(e);
			if (r == TRY_NEXT)
				goto next;
			if (r)
				break;
		}
		r = post(e, path, body, resp, sent_ns);
		if (r == REAUTH && reauths++ < 2) {
			free(e->token);
			e->token = NULL;
			continue;
		}
		if (r == REAUTH)
			r = -EACCES;
		if (r != TRY_NEXT)
			break;
next:
		e->cur = (e->cur + 1) % e->conf.nr_endpoints;
		/* The token belongs to the member that issued it
		 * (simple tokens are not replicated). */
		free(e->token);
		e->token = NULL;
		if (++tries >= e->conf.nr_endpoints) {
			r = -ETIMEDOUT;
			break;
		}
	}
	json_object_put(req);
	/* Revisions only from the KV calls, which a member answers once it
	 * has caught up; a keepalive is answered with whatever revision the
	 * member that took it has applied, which may lag one seen before. */
	if (!r && check_history(e, *resp, !strncmp(path, "/v3/kv/", 7))) {
		json_object_put(*resp);
		*resp = NULL;
		r = -ESTALE;
	}
	return r;
}

json_object *etcd_op_range(const char *key, int prefix, int keys_only)
{
	json_object *r = json_object_new_object(), *op = json_object_new_object();
	char *k = etcd_b64(key, strlen(key));

	json_object_object_add(r, "key", json_object_new_string(k));
	free(k);
	if (prefix) {
		/* range_end: the key with its last byte incremented */
		char *end = strdup(key), *b;
		size_t n = strlen(end);

		end[n - 1]++;
		b = etcd_b64(end, n);
		json_object_object_add(r, "range_end", json_object_new_string(b));
		free(b);
		free(end);
	}
	if (keys_only)
		json_object_object_add(r, "keys_only", json_object_new_boolean(1));
	json_object_object_add(op, "request_range", r);
	return op;
}

static json_object *i64s(int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return json_object_new_string(buf);
}

json_object *etcd_op_put(const char *key, const char *value, int64_t lease)
{
	json_object *p = json_object_new_object(), *op = json_object_new_object();
	char *k = etcd_b64(key, strlen(key)), *v = etcd_b64(value, strlen(value));

	json_object_object_add(p, "key", json_object_new_string(k));
	json_object_object_add(p, "value", json_object_new_string(v));
	free(k);
	free(v);
	if (lease)
		json_object_object_add(p, "lease", i64s(lease));
	json_object_object_add(op, "request_put", p);
	return op;
}

static json_object *cmp(const char *key, const char *target, const char *field, int64_t v)
{
	json_object *c = json_object_new_object();
	char *k = etcd_b64(key, strlen(key));

	json_object_object_add(c, "key", json_object_new_string(k));
	free(k);
	json_object_object_add(c, "result", json_object_new_string("EQUAL"));
	json_object_object_add(c, "target", json_object_new_string(target));
	json_object_object_add(c, field, i64s(v));
	return c;
}

json_object *etcd_cmp_create(const char *key, int64_t create_revision)
{
	return cmp(key, "CREATE", "create_revision", create_revision);
}

json_object *etcd_cmp_mod(const char *key, int64_t mod_revision)
{
	return cmp(key, "MOD", "mod_revision", mod_revision);
}

json_object *etcd_cmp_value(const char *key, const char *value)
{
	json_object *c = json_object_new_object();
	char *k = etcd_b64(key, strlen(key)), *v = etcd_b64(value, strlen(value));

	json_object_object_add(c, "key", json_object_new_string(k));
	json_object_object_add(c, "result", json_object_new_string("EQUAL"));
	json_object_object_add(c, "target", json_object_new_string("VALUE"));
	json_object_object_add(c, "value", json_object_new_string(v));
	free(k);
	free(v);
	return c;
}

json_object *etcd_op_delete(const char *key)
{
	json_object *d = json_object_new_object(), *op = json_object_new_object();
	char *k = etcd_b64(key, strlen(key));

	json_object_object_add(d, "key", json_object_new_string(k));
	free(k);
	json_object_object_add(op, "request_delete_range", d);
	return op;
}

int etcd_txn(struct etcd *e, json_object *c, json_object *success,
	     json_object *failure, int *succeeded, json_object **resp)
{
	json_object *req = json_object_new_object(), *s;
	int r;

	json_object_object_add(req, "compare", c);
	json_object_object_add(req, "success", success);
	json_object_object_add(req, "failure", failure ? failure : json_object_new_array());
	r = etcd_call(e, "/v3/kv/txn", req, resp, NULL);
	if (r)
		return r;
	*succeeded = json_object_object_get_ex(*resp, "succeeded", &s) &&
		     json_object_get_boolean(s);
	return 0;
}

int64_t etcd_i64(json_object *o, const char *field)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, field, &v))
		return 0;
	if (json_object_is_type(v, json_type_string))
		return strtoll(json_object_get_string(v), NULL, 10);
	return json_object_get_int64(v);
}

int64_t etcd_revision(json_object *resp)
{
	json_object *h;

	if (!json_object_object_get_ex(resp, "header", &h))
		return 0;
	return etcd_i64(h, "revision");
}

json_object *etcd_txn_range(json_object *resp, int i)
{
	json_object *rs, *r, *rr;

	if (!json_object_object_get_ex(resp, "responses", &rs) ||
	    i >= (int)json_object_array_length(rs))
		return NULL;
	r = json_object_array_get_idx(rs, i);
	if (!json_object_object_get_ex(r, "response_range", &rr))
		return NULL;
	return rr;
}

int etcd_nr_kvs(json_object *range)
{
	json_object *kvs;

	if (!range || !json_object_object_get_ex(range, "kvs", &kvs))
		return 0;
	return (int)json_object_array_length(kvs);
}

int etcd_kv_get(json_object *range, int i, struct etcd_kv *kv)
{
	json_object *kvs, *o, *v;

	memset(kv, 0, sizeof(*kv));
	if (!range || !json_object_object_get_ex(range, "kvs", &kvs) ||
	    i >= (int)json_object_array_length(kvs))
		return -ENOENT;
	o = json_object_array_get_idx(kvs, i);
	kv->key = json_object_object_get_ex(o, "key", &v) ?
		  etcd_unb64(json_object_get_string(v), NULL) : strdup("");
	kv->value = json_object_object_get_ex(o, "value", &v) ?
		    etcd_unb64(json_object_get_string(v), NULL) : strdup("");
	kv->create_revision = etcd_i64(o, "create_revision");
	kv->mod_revision = etcd_i64(o, "mod_revision");
	kv->lease = etcd_i64(o, "lease");
	if (!kv->key || !kv->value) {
		etcd_kv_free(kv);
		return -EPROTO;
	}
	return 0;
}

void etcd_kv_free(struct etcd_kv *kv)
{
	free(kv->key);
	free(kv->value);
	kv->key = kv->value = NULL;
}

int etcd_lease_grant(struct etcd *e, int64_t ttl, int64_t *id, int64_t *granted,
		     uint64_t *sent_ns)
{
	json_object *req = json_object_new_object(), *resp;
	int r;

	json_object_object_add(req, "TTL", i64s(ttl));
	r = etcd_call(e, "/v3/lease/grant", req, &resp, sent_ns);
	if (r)
		return r;
	*id = etcd_i64(resp, "ID");
	*granted = etcd_i64(resp, "TTL");
	json_object_put(resp);
	if (!*id || *granted <= 0) {
		snprintf(e->err, sizeof(e->err), "lease grant: no ID or TTL in the answer");
		return -EPROTO;
	}
	return 0;
}

int etcd_lease_keepalive(struct etcd *e, int64_t id, int64_t *ttl, uint64_t *sent_ns)
{
	json_object *req = json_object_new_object(), *resp, *res;
	int r;

	json_object_object_add(req, "ID", i64s(id));
	r = etcd_call(e, "/v3/lease/keepalive", req, &resp, sent_ns);
	if (r)
		return r;
	/* A stream of one message: {"result": {..., "TTL": "9"}}; no TTL
	 * (0) when the lease no longer exists. */
	*ttl = json_object_object_get_ex(resp, "result", &res) ? etcd_i64(res, "TTL") : 0;
	json_object_put(resp);
	return 0;
}

int etcd_lease_revoke(struct etcd *e, int64_t id)
{
	json_object *req = json_object_new_object(), *resp;
	int r;

	json_object_object_add(req, "ID", i64s(id));
	r = etcd_call(e, "/v3/lease/revoke", req, &resp, NULL);
	if (!r)
		json_object_put(resp);
	return r;
}

int etcd_lease_ttl(struct etcd *e, int64_t id, int64_t *ttl)
{
	json_object *req = json_object_new_object(), *resp;
	int r;

	json_object_object_add(req, "ID", i64s(id));
	r = etcd_call(e, "/v3/lease/timetolive", req, &resp, NULL);
	if (r)
		return r;
	*ttl = etcd_i64(resp, "TTL");
	json_object_put(resp);
	return 0;
}
