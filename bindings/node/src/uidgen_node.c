// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The Node.js binding's native addon (N-API, NAPI_VERSION 8: Node 18 and
 * later, no C++ and no node-gyp): libuidgen's calls, one JS function each,
 * over handles and key sets held as externals. It owns nothing but the
 * conversion between JS values and libuidgen's arguments: every ID comes
 * from uidgen_next() (the per-thread reserved run) or uidgen_fill() (one
 * read() for up to 65536 IDs), every token from uidgen_public() and its
 * kin. lib/index.js wraps it; a negative errno becomes the error its
 * setErrorFactory() function makes, so each has its name and next step.
 *
 * Built by build.sh against the headers of Debian's libnode-dev
 * (/usr/include/node), with libuidgen's sources compiled in.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uidgen.h"

/* A handle as JS holds it: @g is NULL once close() has run. */
struct handle {
	struct uidgen *g;
};

/* Per JS environment (main thread, each worker): the error factory. */
struct env_data {
	napi_ref make_error;
};

#define NAPI_OK(call) do { if ((call) != napi_ok) return NULL; } while (0)

static void env_data_free(napi_env env, void *data, void *hint)
{
	struct env_data *d = data;

	(void)hint;
	if (d->make_error)
		napi_delete_reference(env, d->make_error);
	free(d);
}

/* Throw the error for -@err: the factory's (errno, what), else a plain one. */
static napi_value throw_errno(napi_env env, int err, const char *what)
{
	struct env_data *d = NULL;
	napi_value fn, args[2], error, undef;

	if (napi_get_instance_data(env, (void **)&d) == napi_ok && d &&
	    d->make_error &&
	    napi_get_reference_value(env, d->make_error, &fn) == napi_ok && fn &&
	    napi_create_int32(env, err, &args[0]) == napi_ok &&
	    napi_create_string_utf8(env, what, NAPI_AUTO_LENGTH, &args[1]) == napi_ok &&
	    napi_get_undefined(env, &undef) == napi_ok &&
	    napi_call_function(env, undef, fn, 2, args, &error) == napi_ok) {
		napi_throw(env, error);
		return NULL;
	}
	napi_throw_error(env, NULL, strerror(err));
	return NULL;
}

static napi_value throw_type(napi_env env, const char *msg)
{
	napi_throw_type_error(env, NULL, msg);
	return NULL;
}

/* The handle or key set an external holds (NULL if closed: thrown). */
static void *external(napi_env env, napi_value v, const char *what)
{
	void *p = NULL;

	if (napi_get_value_external(env, v, &p) != napi_ok || !p) {
		throw_type(env, what);
		return NULL;
	}
	return p;
}

/* A BigInt argument, as 64 bits; throws a TypeError if not one. */
static int get_u64(napi_env env, napi_value v, uint64_t *out)
{
	bool lossless;

	if (napi_get_value_bigint_uint64(env, v, out, &lossless) != napi_ok) {
		throw_type(env, "expected a BigInt");
		return -1;
	}
	if (!lossless) {
		throw_errno(env, ERANGE, "not a 64-bit value");
		return -1;
	}
	return 0;
}

static int get_int(napi_env env, napi_value v, int32_t *out)
{
	if (napi_get_value_int32(env, v, out) != napi_ok) {
		throw_type(env, "expected a number");
		return -1;
	}
	return 0;
}

static napi_value u64(napi_env env, uint64_t v)
{
	napi_value r;

	NAPI_OK(napi_create_bigint_uint64(env, v, &r));
	return r;
}

#define ARGS(n) \
	size_t argc = (n); \
	napi_value argv[(n) ? (n) : 1]; \
	NAPI_OK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL)); \
	if (argc < (n)) \
		return throw_type(env, "too few arguments")

/* setErrorFactory(fn): fn(errno, what) makes the errors thrown. */
static napi_value set_error_factory(napi_env env, napi_callback_info info)
{
	struct env_data *d = NULL;
	ARGS(1);

	NAPI_OK(napi_get_instance_data(env, (void **)&d));
	if (d->make_error)
		napi_delete_reference(env, d->make_error);
	d->make_error = NULL;
	NAPI_OK(napi_create_reference(env, argv[0], 1, &d->make_error));
	return NULL;
}

static void handle_free(napi_env env, void *data, void *hint)
{
	struct handle *h = data;

	(void)env;
	(void)hint;
	uidgen_close(h->g);
	free(h);
}

/* The open handle an external holds; NULL (a TypeError thrown) if none. */
static struct uidgen *handle_of(napi_env env, napi_value v)
{
	struct handle *h = external(env, v, "not a handle");

	if (h && !h->g) {
		throw_type(env, "the handle is closed");
		return NULL;
	}
	return h ? h->g : NULL;
}

/* close(h): uidgen_close() now, not when the handle is collected. */
static napi_value js_close(napi_env env, napi_callback_info info)
{
	struct handle *h;
	ARGS(1);

	h = external(env, argv[0], "not a handle");
	if (h && h->g) {
		uidgen_close(h->g);
		h->g = NULL;
	}
	return NULL;
}

/* open(path): a handle (uidgen_open()), closed when collected. */
static napi_value js_open(napi_env env, napi_callback_info info)
{
	char path[4096];
	struct handle *h;
	struct uidgen *g;
	napi_value r;
	size_t len;
	int ret;
	ARGS(1);

	if (napi_get_value_string_utf8(env, argv[0], path, sizeof(path), &len) != napi_ok)
		return throw_type(env, "open(path): path is a string");
	if (len >= sizeof(path) - 1)
		return throw_errno(env, ENAMETOOLONG, path);
	ret = uidgen_open(&g, path);
	if (ret)
		return throw_errno(env, -ret, path);
	h = malloc(sizeof(*h));
	if (!h) {
		uidgen_close(g);
		return throw_errno(env, ENOMEM, path);
	}
	h->g = g;
	if (napi_create_external(env, h, handle_free, NULL, &r) != napi_ok) {
		uidgen_close(g);
		free(h);
		return NULL;
	}
	return r;
}

/* next(h): one ID, BigInt. */
static napi_value js_next(napi_env env, napi_callback_info info)
{
	struct uidgen *g;
	uint64_t id;
	int ret;
	ARGS(1);

	g = handle_of(env, argv[0]);
	if (!g)
		return NULL;
	ret = uidgen_next(g, &id);
	if (ret)
		return throw_errno(env, -ret, "read /dev/uid");
	return u64(env, id);
}

/* nextString(h): one ID in decimal. */
static napi_value js_next_string(napi_env env, napi_callback_info info)
{
	char buf[UIDGEN_FMT_MAX];
	struct uidgen *g;
	napi_value r;
	uint64_t id;
	int ret;
	ARGS(1);

	g = handle_of(env, argv[0]);
	if (!g)
		return NULL;
	ret = uidgen_next(g, &id);
	if (ret)
		return throw_errno(env, -ret, "read /dev/uid");
	ret = uidgen_format(id, UIDGEN_FMT_DEC, buf, sizeof(buf));
	NAPI_OK(napi_create_string_latin1(env, buf, ret, &r));
	return r;
}

/* fill(h, BigUint64Array): IDs into all of it (uidgen_fill()); the count. */
static napi_value js_fill(napi_env env, napi_callback_info info)
{
	napi_typedarray_type type;
	struct uidgen *g;
	size_t n, off;
	napi_value ab, r;
	void *data;
	long got;
	ARGS(2);

	g = handle_of(env, argv[0]);
	if (!g)
		return NULL;
	if (napi_get_typedarray_info(env, argv[1], &type, &n, &data, &ab, &off) != napi_ok ||
	    type != napi_biguint64_array)
		return throw_type(env, "fill(h, ids): ids is a BigUint64Array");
	got = n ? uidgen_fill(g, data, n) : 0;
	if (got < 0)
		return throw_errno(env, (int)-got, "read /dev/uid");
	NAPI_OK(napi_create_double(env, (double)got, &r));
	return r;
}

/* observe(h, id): uidgen_observe(). */
static napi_value js_observe(napi_env env, napi_callback_info info)
{
	struct uidgen *g;
	uint64_t id;
	int ret;
	ARGS(2);

	g = handle_of(env, argv[0]);
	if (!g || get_u64(env, argv[1], &id))
		return NULL;
	ret = uidgen_observe(g, id);
	if (ret)
		return throw_errno(env, -ret, "UIDGEN_IOC_OBSERVE");
	return NULL;
}

static int set_num(napi_env env, napi_value o, const char *k, double v)
{
	napi_value x;

	return napi_create_double(env, v, &x) != napi_ok ||
	       napi_set_named_property(env, o, k, x) != napi_ok;
}

static int set_big(napi_env env, napi_value o, const char *k, uint64_t v)
{
	napi_value x;

	return napi_create_bigint_uint64(env, v, &x) != napi_ok ||
	       napi_set_named_property(env, o, k, x) != napi_ok;
}

/* info(h): UIDGEN_IOC_INFO as an object; 32-bit fields numbers, 64-bit BigInts. */
static napi_value js_info(napi_env env, napi_callback_info info)
{
	struct uidgen_info in = { .size = sizeof(in) };
	struct uidgen *g;
	napi_value o;
	int ret;
	ARGS(1);

	g = handle_of(env, argv[0]);
	if (!g)
		return NULL;
	ret = uidgen_info(g, &in);
	if (ret < 0)
		return throw_errno(env, -ret, "UIDGEN_IOC_INFO");
	NAPI_OK(napi_create_object(env, &o));
	if (set_num(env, o, "nodeId", in.node_id) ||
	    set_num(env, o, "nodeState", in.node_state) ||
	    set_num(env, o, "tsBits", in.ts_bits) ||
	    set_num(env, o, "nodeBits", in.node_bits) ||
	    set_num(env, o, "slotBits", in.slot_bits) ||
	    set_num(env, o, "seqBits", in.seq_bits) ||
	    set_num(env, o, "nrSlots", in.nr_slots) ||
	    set_big(env, o, "tickNs", in.tick_ns) ||
	    set_big(env, o, "epochUnixNs", in.epoch_unix_ns) ||
	    set_big(env, o, "floorUnixNs", in.floor_unix_ns) ||
	    set_big(env, o, "grantUnixNs", in.grant_unix_ns) ||
	    set_big(env, o, "deadlineBootNs", in.deadline_boot_ns) ||
	    set_big(env, o, "token", in.token) ||
	    set_big(env, o, "highWaterUnixNs", in.high_water_unix_ns))
		return NULL;
	return o;
}

static int get_prop_u64(napi_env env, napi_value o, const char *k, uint64_t *v)
{
	napi_value x;
	napi_valuetype t;
	double d;

	if (napi_get_named_property(env, o, k, &x) != napi_ok ||
	    napi_typeof(env, x, &t) != napi_ok)
		return -1;
	if (t == napi_bigint)
		return get_u64(env, x, v);
	if (t != napi_number || napi_get_value_double(env, x, &d) != napi_ok ||
	    d < 0 || d > 9007199254740991.0 || d != (double)(uint64_t)d) {
		throw_errno(env, EINVAL, k);
		return -1;
	}
	*v = (uint64_t)d;
	return 0;
}

/*
 * decode(layout, id): uidgen_decode() by a layout object as info() gives
 * (tsBits, nodeBits, slotBits, seqBits, tickNs, epochUnixNs); an array
 * [tick (BigInt), unixMs, node, slot, seq].
 */
static napi_value js_decode(napi_env env, napi_callback_info info)
{
	struct uidgen_info in = { .size = sizeof(in) };
	struct uidgen_parts p;
	uint64_t id, v[6];
	napi_value r, x;
	int ret, i;
	static const char *const keys[] = {
		"tsBits", "nodeBits", "slotBits", "seqBits", "tickNs", "epochUnixNs",
	};
	ARGS(2);

	for (i = 0; i < 6; i++)
		if (get_prop_u64(env, argv[0], keys[i], &v[i]))
			return NULL;
	if (get_u64(env, argv[1], &id))
		return NULL;
	for (i = 0; i < 4; i++)
		if (v[i] > UINT32_MAX)
			return throw_errno(env, EINVAL, keys[i]);
	in.ts_bits = v[0];
	in.node_bits = v[1];
	in.slot_bits = v[2];
	in.seq_bits = v[3];
	in.tick_ns = v[4];
	in.epoch_unix_ns = v[5];
	ret = uidgen_decode(&in, id, &p);
	if (ret)
		return throw_errno(env, -ret, "decode");
	NAPI_OK(napi_create_array_with_length(env, 5, &r));
	if (!(x = u64(env, p.tick)) || napi_set_element(env, r, 0, x) != napi_ok ||
	    napi_create_double(env, (double)p.unix_ms, &x) != napi_ok ||
	    napi_set_element(env, r, 1, x) != napi_ok ||
	    napi_create_double(env, p.node, &x) != napi_ok ||
	    napi_set_element(env, r, 2, x) != napi_ok ||
	    napi_create_double(env, p.slot, &x) != napi_ok ||
	    napi_set_element(env, r, 3, x) != napi_ok ||
	    napi_create_double(env, p.seq, &x) != napi_ok ||
	    napi_set_element(env, r, 4, x) != napi_ok)
		return NULL;
	/* unix_ms past 2^53 would come back rounded: refuse it. */
	if (p.unix_ms > 9007199254740991LL)
		return throw_errno(env, ERANGE, "decode: its time is past 2^53 ms");
	return r;
}

/* The public form: key sets. */

static void keys_free(napi_env env, void *data, void *hint)
{
	(void)env;
	(void)hint;
	uidgen_keys_free(data);
}

/* keysNew(): an empty key set. */
static napi_value js_keys_new(napi_env env, napi_callback_info info)
{
	struct uidgen_keys *k;
	napi_value r;
	int ret;

	(void)info;
	ret = uidgen_keys_new(&k);
	if (ret)
		return throw_errno(env, -ret, "keys");
	if (napi_create_external(env, k, keys_free, NULL, &r) != napi_ok) {
		uidgen_keys_free(k);
		return NULL;
	}
	return r;
}

/* keysAdd(keys, keyId, Buffer of 16 bytes). */
static napi_value js_keys_add(napi_env env, napi_callback_info info)
{
	struct uidgen_keys *k;
	int32_t kid;
	void *data;
	size_t len;
	int ret;
	ARGS(3);

	k = external(env, argv[0], "not a key set");
	if (!k || get_int(env, argv[1], &kid))
		return NULL;
	if (napi_get_buffer_info(env, argv[2], &data, &len) != napi_ok ||
	    len != UIDGEN_KEY_BYTES)
		return throw_type(env, "a key is a Buffer of 16 bytes");
	ret = uidgen_keys_add(k, kid, data);
	if (ret)
		return throw_errno(env, -ret, "key");
	return NULL;
}

/*
 * @fn (uidgen_public() or uidgen_private()) of argv[2], a BigInt, under
 * the key set argv[0]'s key argv[1]: a BigInt; -errno thrown as @what's.
 */
static napi_value keyed_u64(napi_env env, napi_callback_info info,
			    int (*fn)(const struct uidgen_keys *, int, uint64_t, uint64_t *),
			    const char *what)
{
	struct uidgen_keys *k;
	uint64_t in, out;
	int32_t kid;
	int ret;
	ARGS(3);

	k = external(env, argv[0], "not a key set");
	if (!k || get_int(env, argv[1], &kid) || get_u64(env, argv[2], &in))
		return NULL;
	ret = fn(k, kid, in, &out);
	if (ret)
		return throw_errno(env, -ret, what);
	return u64(env, out);
}

/* publicToken(keys, keyId, id), privateId(keys, keyId, token): BigInts. */
static napi_value js_public(napi_env env, napi_callback_info info)
{
	return keyed_u64(env, info, uidgen_public, "public");
}

static napi_value js_private(napi_env env, napi_callback_info info)
{
	return keyed_u64(env, info, uidgen_private, "private");
}

/*
 * formatPublic(keys, keyId, id, form): the token's text in libuidgen's
 * @form (UIDGEN_PUBLIC_TEXT, _DEC or _SHORT: 0, 1, 2).
 */
static napi_value js_format_public(napi_env env, napi_callback_info info)
{
	char buf[UIDGEN_PUBLIC_STR_MAX];
	struct uidgen_keys *k;
	int32_t kid, form;
	uint64_t id;
	napi_value r;
	int ret;
	ARGS(4);

	k = external(env, argv[0], "not a key set");
	if (!k || get_int(env, argv[1], &kid) || get_u64(env, argv[2], &id) ||
	    get_int(env, argv[3], &form))
		return NULL;
	ret = uidgen_format_public(k, kid, id, form, buf, sizeof(buf));
	if (ret < 0)
		return throw_errno(env, -ret, "public");
	NAPI_OK(napi_create_string_latin1(env, buf, ret, &r));
	return r;
}

/* parsePublic(keys, keyId, text, form): the ID (form as formatPublic's). */
static napi_value js_parse_public(napi_env env, napi_callback_info info)
{
	char buf[64];
	struct uidgen_keys *k;
	int32_t kid, form;
	uint64_t id;
	size_t len;
	int ret;
	ARGS(4);

	k = external(env, argv[0], "not a key set");
	if (!k || get_int(env, argv[1], &kid))
		return NULL;
	if (napi_get_value_string_utf8(env, argv[2], buf, sizeof(buf), &len) != napi_ok)
		return throw_type(env, "a token's text is a string");
	if (get_int(env, argv[3], &form))
		return NULL;
	/* Longer than any token (or holding a NUL): not one. */
	if (len >= sizeof(buf) - 1 || strlen(buf) != len)
		return throw_errno(env, EINVAL, "not a token");
	ret = uidgen_parse_public(k, buf, form, kid, &id);
	if (ret)
		return throw_errno(env, -ret, buf);
	return u64(env, id);
}

NAPI_MODULE_INIT()
{
	static const struct { const char *name; napi_callback fn; } fns[] = {
		{ "setErrorFactory", set_error_factory },
		{ "open", js_open },
		{ "close", js_close },
		{ "next", js_next },
		{ "nextString", js_next_string },
		{ "fill", js_fill },
		{ "observe", js_observe },
		{ "info", js_info },
		{ "decode", js_decode },
		{ "keysNew", js_keys_new },
		{ "keysAdd", js_keys_add },
		{ "publicToken", js_public },
		{ "privateId", js_private },
		{ "formatPublic", js_format_public },
		{ "parsePublic", js_parse_public },
	};
	struct env_data *d = calloc(1, sizeof(*d));
	napi_value fn;
	size_t i;

	if (!d || napi_set_instance_data(env, d, env_data_free, NULL) != napi_ok) {
		free(d);
		napi_throw_error(env, NULL, "uidgen: out of memory");
		return NULL;
	}
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		NAPI_OK(napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH,
					     fns[i].fn, NULL, &fn));
		NAPI_OK(napi_set_named_property(env, exports, fns[i].name, fn));
	}
	return exports;
}
