// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen-cluster: list who holds which node ID in a uidgen-lease cluster
 * (node ID, machine, host, since, grant, token, lease TTL left), from the
 * keys agent.h describes. Reads only; see uidgen-cluster(1).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conf.h"
#include "etcd.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uidgen-cluster [-c FILE] [-o KEY=VALUE]... [-a]\n"
		"\n"
		"List the node IDs held in the cluster: node ID, machine, host, since,\n"
		"grant (the floor the next holder starts above), fencing token, and the\n"
		"seconds left on the holder's lease.\n"
		"\n"
		"  -c, --config FILE    configuration (default " LEASE_CONF_DEFAULT ")\n"
		"  -o, --set KEY=VALUE  one setting over the file's (endpoints, cluster, ...)\n"
		"  -a, --all            also the node IDs nobody holds that have a floor\n"
		"  -h, --help           this text\n"
		"  -V, --version        the version\n"
		"\n"
		"Exit status: 0 on success, 1 if etcd could not be read, 2 on bad usage.\n");
}

static void fmt_ms(uint64_t ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!ms) {
		snprintf(buf, len, "-");
		return;
	}
	char s[24];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%.19s.%03uZ", s, (unsigned int)(ms % 1000));
}

static int list(struct etcd *e, const char *prefix, json_object **resp)
{
	json_object *op = etcd_op_range(prefix, 1, 0), *inner;

	json_object_object_get_ex(op, "request_range", &inner);
	json_object_get(inner);
	json_object_put(op);
	return etcd_call(e, "/v3/kv/range", inner, resp, NULL);
}

/* The kvs of a range answer in the order of their node IDs as numbers
 * (etcd sorts keys as strings: node/11 before node/4). */
struct by_id {
	unsigned long long id;
	int i;
};

static int by_id_cmp(const void *a, const void *b)
{
	const struct by_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct by_id *sorted(json_object *range, const char *prefix, int n)
{
	struct by_id *o = calloc(n ? (size_t)n : 1, sizeof(*o));
	int i;

	if (!o)
		return NULL;
	for (i = 0; i < n; i++) {
		struct etcd_kv kv;

		o[i].i = i;
		o[i].id = ~0ULL;
		if (!etcd_kv_get(range, i, &kv)) {
			o[i].id = strtoull(kv.key + strlen(prefix), NULL, 10);
			etcd_kv_free(&kv);
		}
	}
	qsort(o, (size_t)n, sizeof(*o), by_id_cmp);
	return o;
}

/* The value of the key PREFIX<id> in a range answer, or NULL. */
static const char *find(json_object *range, const char *prefix, const char *id,
			struct etcd_kv *kv)
{
	int i, n = etcd_nr_kvs(range);
	size_t pl = strlen(prefix);

	for (i = 0; i < n; i++) {
		if (etcd_kv_get(range, i, kv))
			continue;
		if (!strcmp(kv->key + pl, id))
			return kv->value;
		etcd_kv_free(kv);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct etcd_conf ec = { 0 };
	struct lease_conf c;
	struct etcd *e;
	json_object *nodes, *floors;
	struct by_id *order;
	const char *conf = LEASE_CONF_DEFAULT;
	char np[300], fp[300];
	char **sets = calloc((size_t)argc + 1, sizeof(*sets));
	int opt, all = 0, explicit = 0, nsets = 0, r, i, n;

	lease_conf_defaults(&c);
	c.machine_id = strdup("-");	/* not needed to read */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:o:ahV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			conf = optarg;
			explicit = 1;
			break;
		case 'o':
			sets[nsets++] = optarg;
			break;
		case 'a':
			all = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("uidgen-cluster %s\n", UIDGEN_VERSION);
			return 0;
		default:
			return lease_usage_error("uidgen-cluster", opt, argv, opts);
		}
	}
	if (optind != argc)
		return lease_stray_argument("uidgen-cluster", argv[optind]);
	r = lease_conf_load(&c, conf, explicit, sets, nsets, "uidgen-cluster");
	free(sets);
	if (r)
		return 2;
	if (lease_conf_etcd(&c, &ec, "uidgen-cluster"))
		return 2;
	if (etcd_new(&e, &ec))
		return 1;
	snprintf(np, sizeof(np), "/uidgen/%s/node/", c.cluster);
	snprintf(fp, sizeof(fp), "/uidgen/%s/floor/", c.cluster);
	if (list(e, np, &nodes) || list(e, fp, &floors)) {
		fprintf(stderr, "uidgen-cluster: %s\n", etcd_errmsg(e));
		return 1;
	}
	printf("%-6s %-32s %-16s %-24s %-24s %8s %5s\n", "NODE", "MACHINE", "HOST", "SINCE",
	       "GRANT", "TOKEN", "TTL");
	n = etcd_nr_kvs(nodes);
	order = sorted(nodes, np, n);
	if (!order)
		return 1;
	for (i = 0; i < n; i++) {
		struct etcd_kv kv, fkv = { 0 };
		json_object *v, *f;
		const char *id, *machine = "?", *host = "?", *fl;
		char since[32], grant[32];
		int64_t ttl = -1;

		if (etcd_kv_get(nodes, order[i].i, &kv))
			continue;
		id = kv.key + strlen(np);
		v = json_tokener_parse(kv.value);
		if (v && json_object_object_get_ex(v, "machine", &f))
			machine = json_object_get_string(f);
		if (v && json_object_object_get_ex(v, "host", &f))
			host = json_object_get_string(f);
		fmt_ms(v ? (uint64_t)etcd_i64(v, "since_ms") : 0, since, sizeof(since));
		fl = find(floors, fp, id, &fkv);
		fmt_ms(fl ? strtoull(fl, NULL, 10) : 0, grant, sizeof(grant));
		if (kv.lease)
			etcd_lease_ttl(e, kv.lease, &ttl);
		printf("%-6s %-32s %-16s %-24s %-24s %8" PRId64 " %5" PRId64 "\n", id, machine,
		       host, since, grant, kv.create_revision, ttl);
		json_object_put(v);
		etcd_kv_free(&fkv);
		etcd_kv_free(&kv);
	}
	free(order);
	if (all) {
		n = etcd_nr_kvs(floors);
		order = sorted(floors, fp, n);
		if (!order)
			return 1;
		for (i = 0; i < n; i++) {
			struct etcd_kv kv, nkv = { 0 };
			char grant[32];
			const char *id;

			if (etcd_kv_get(floors, order[i].i, &kv))
				continue;
			id = kv.key + strlen(fp);
			if (!find(nodes, np, id, &nkv)) {
				fmt_ms(strtoull(kv.value, NULL, 10), grant, sizeof(grant));
				printf("%-6s %-32s %-16s %-24s %-24s %8s %5s\n", id, "(free)", "-", "-",
				       grant, "-", "-");
			}
			etcd_kv_free(&nkv);
			etcd_kv_free(&kv);
		}
		free(order);
	}
	json_object_put(nodes);
	json_object_put(floors);
	etcd_free(e);
	return 0;
}
