// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen-lease: the daemon's entry point: options, configuration,
 * signals. What it does is agent.c's; see uidgen-lease(8).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uidgen-lease [-c FILE] [-o KEY=VALUE]... [--device-sim FILE]\n"
		"\n"
		"Claim a node ID in etcd and keep it in force in /dev/uid, fenced: see\n"
		"uidgen-lease(8).\n"
		"\n"
		"  -c, --config FILE      configuration (default " LEASE_CONF_DEFAULT ";\n"
		"                         a missing default file means all defaults,\n"
		"                         but endpoints must then be given with -o)\n"
		"  -o, --set KEY=VALUE    one setting, over the file's (any key of lease.conf)\n"
		"      --device-sim FILE  no device: a stand-in keeping its state in FILE\n"
		"                         and logging every change to FILE.log (for\n"
		"                         simulations; node IDs of sim_node_bits bits,\n"
		"                         the epoch sim_epoch_ms, ticks of sim_tick_us)\n"
		"  -h, --help             this text\n"
		"  -V, --version          the version\n"
		"\n"
		"Signals: SIGTERM, SIGINT: stop, leaving the node in force and the claim in\n"
		"etcd for the next start to adopt (a restart then pays no claim wait; the\n"
		"kernel revokes it at its deadline if nothing adopts it). SIGUSR1: hand\n"
		"over: revoke in the device, then release in etcd, and exit.\n"
		"\n"
		"Exit status: 0 after a signal, 1 on an error an operator must fix, 2 on bad usage,\n"
		"3 when etcd went back in time (restored from a snapshot, or rebuilt).\n");
}

/* The device would not open: what usually causes it (the uidgen CLI's
 * hints, for the agent). */
static void say_open_hints(int r, const char *dev)
{
	if (r == -EACCES)
		fprintf(stderr, "uidgen-lease: the device's mode and group leave this user out: udev sets them, from 60-uidgen.rules (see uid(4)): run uidgen-lease as root, as uidgen-lease.service does\n");
	else if ((r == -ENOENT || r == -ENODEV || r == -ENXIO) &&
		 access("/sys/module/uidgen", F_OK))
		fprintf(stderr, "uidgen-lease: the uidgen module is not loaded: as root, 'modprobe uidgen'; uidgen-lease then assigns the node ID itself\n"
			"uidgen-lease: modprobe finds the module once 'make install' (or a package) has put it in place; from the source tree without that, 'insmod module/uidgen.ko'\n");
	else if (r == -ENOENT)
		fprintf(stderr, "uidgen-lease: the uidgen module is loaded, but %s is not its device: give its device with device = PATH (default /dev/uid)\n",
			dev);
}

static void on_stop(int sig)
{
	/* A hand-over stays one: a SIGTERM after it (the unit's ExecStop
	 * sends SIGUSR1 at shutdown, then systemd its KillSignal) does not
	 * turn it into a leave. */
	if (lease_stop != LEASE_STOP_HANDOVER)
		lease_stop = sig == SIGUSR1 ? LEASE_STOP_HANDOVER : LEASE_STOP;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 'o' },
		{ "device-sim", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct etcd_conf ec = { 0 };
	struct lease_conf c;
	struct sigaction sa;
	struct lease_dev *d = NULL;
	struct etcd *e = NULL;
	struct agent *a = NULL;
	const char *conf = LEASE_CONF_DEFAULT;
	char **sets = calloc((size_t)argc + 1, sizeof(*sets));
	int nsets = 0, opt, r, explicit = 0;

	/*
	 * The handlers first: a SIGTERM or SIGUSR1 that comes while the
	 * configuration loads is kept for agent_run() (which stops, or hands
	 * over what it adopted), never the default action's death. SIGUSR1
	 * restarts a read (a hand-over needs the configuration); SIGTERM and
	 * SIGINT end one, so that a configuration that never comes (a FIFO
	 * nobody writes) does not keep a stop waiting: the load then fails
	 * (a part read is no configuration) and we exit 0, having started
	 * nothing.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);

	lease_conf_defaults(&c);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:o:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			conf = optarg;
			explicit = 1;
			break;
		case 'o':
			sets[nsets++] = optarg;
			break;
		case 'S':
			c.sim = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("uidgen-lease %s\n", UIDGEN_VERSION);
			return 0;
		default:
			return lease_usage_error("uidgen-lease", opt, argv, opts);
		}
	}
	if (optind != argc)
		return lease_stray_argument("uidgen-lease", argv[optind]);
	r = lease_conf_load(&c, conf, explicit, sets, nsets, "uidgen-lease");
	free(sets);
	if (r)
		return lease_stop ? 0 : 2;	/* stopped while it loaded */
	if (lease_conf_etcd(&c, &ec, "uidgen-lease"))
		return 2;

	sa.sa_flags = 0;	/* from here no SA_RESTART: sleeps end at once */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	r = lease_dev_open(&d, c.device, c.sim, (uint32_t)c.sim_node_bits, (uint64_t)c.sim_epoch_ms,
			   (uint32_t)c.sim_tick_us,
			   c.machine_id);
	if (r == -EWOULDBLOCK) {
		fprintf(stderr, "uidgen-lease: %s: another uidgen-lease runs on it (it holds the lock): run one agent per kernel\n",
			c.sim ? c.sim : c.device);
		return 1;
	}
	if (r == -ENOTTY && !c.sim) {
		fprintf(stderr, "uidgen-lease: %s: not a uidgen 2.0 device (UIDGEN_IOC_INFO: %s): give the device with device = PATH (default /dev/uid); a uidgen module older than 2.0 needs upgrading ('uidgen info' says which is loaded)\n",
			c.device, strerror(ENOTTY));
		return 1;
	}
	if (r) {
		fprintf(stderr, "uidgen-lease: %s: %s\n", c.sim ? c.sim : c.device, strerror(-r));
		if (!c.sim)
			say_open_hints(r, c.device);
		return 1;
	}
	r = etcd_new(&e, &ec);
	if (!r)
		r = agent_new(&a, &c, e, ec.nr_endpoints, d);
	if (!r)
		r = agent_run(a);
	agent_free(a);
	etcd_free(e);
	lease_dev_close(d);
	lease_conf_free_endpoints(ec.endpoints);
	/* 3: etcd went back in time; the unit must not restart us into it */
	return r == -ESTALE ? 3 : r ? 1 : 0;
}
