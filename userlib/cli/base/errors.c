// SPDX-License-Identifier: GPL-2.0
/*
 * The uidgen CLI's errors: a failed call said with its errno and what to
 * do next (load the module, run as root, give the device with -d, revoke
 * first), for every command and the persister.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/base/base.h"

/* The device the command works on: -d, or UIDGEN_DEVICE. */
const char *device = UIDGEN_DEVICE;

/* Does @dev answer uidgen_info()? */
static int is_uidgen_dev(const char *dev)
{
	struct uidgen_info info;
	struct uidgen *g;
	int ok;

	if (uidgen_open(&g, dev))
		return 0;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	ok = uidgen_info(g, &info) >= 0;
	uidgen_close(g);
	return ok;
}

/* No uidgen module: how to load it, the first time and every other. */
void say_not_loaded(void)
{
	fprintf(stderr, "%s: the uidgen module is not loaded: as root, 'modprobe uidgen', then '%s set-node N --new' for a node ID that has never issued an ID, else '%s state restore FILE' with its state file (what uidgen-state.service does at boot)\n",
		prog, prog, prog);
	fprintf(stderr, "%s: modprobe finds the module once 'make install' (or a package) has put it in place; from the source tree without that, 'insmod module/uidgen.ko'\n",
		prog);
}

int module_loaded(void)
{
	return !access("/sys/module/uidgen", F_OK);
}

int fail(int err, const char *what)
{
	/* /dev/null or any other file that is not the device. */
	if (err == -ENOTTY && !is_uidgen_dev(device)) {
		fprintf(stderr, "%s: %s: not a uidgen device (%s): give the uidgen device with -d PATH (default " UIDGEN_DEVICE ")\n",
			prog, device, strerror(ENOTTY));
		return 1;
	}
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(-err));
	if (err == -EADDRNOTAVAIL)
		fprintf(stderr, "%s: no node ID is active: as root, run '%s state restore FILE', or '%s set-node N --new' for a node ID that has never issued\n",
			prog, prog, prog);
	else if (err == -EPERM)
		fprintf(stderr, "%s: this needs CAP_SYS_ADMIN: run it as root\n", prog);
	else if (err == -ENOTTY)
		fprintf(stderr, "%s: the loaded uidgen module does not know this call: upgrade it (see '%s info')\n",
			prog, prog);
	return 1;
}

/* Opening the device failed: say what usually causes it. */
int fail_open(int err, const char *dev)
{
	fail(err, dev);
	if (err == -EACCES)
		fprintf(stderr, "%s: the device's mode and group leave you out: udev sets them, from 60-uidgen.rules (see uid(4)): ask the administrator to add you to its group\n",
			prog);
	else if ((err == -ENOENT || err == -ENODEV || err == -ENXIO) && !module_loaded())
		say_not_loaded();
	else if (err == -ENOENT && strcmp(dev, UIDGEN_DEVICE))
		fprintf(stderr, "%s: the uidgen module is loaded, but %s is not its device: give its device with -d PATH (default " UIDGEN_DEVICE ")\n",
			prog, dev);
	else if (err == -ENOENT)
		fprintf(stderr, "%s: the uidgen module is loaded, but there is no " UIDGEN_DEVICE ": udev (or devtmpfs) makes it (see uid(4))\n",
			prog);
	return 1;
}

/* Say what a failed assign, renew or revoke means here, the errno first. */
int fail_node(int err, const char *what, uint32_t node)
{
	fail(err, what);
	switch (-err) {
	case EBUSY:
		fprintf(stderr, "%s: another node ID is already active: revoke it first ('%s revoke-node')\n",
			prog, prog);
		break;
	case ERANGE:
		fprintf(stderr, "%s: node ID %u does not fit the module's node_bits (see '%s info')\n",
			prog, node, prog);
		break;
	case E2BIG:
	case EOPNOTSUPP:
		fprintf(stderr, "%s: the loaded module is older than this program's uapi: upgrade it\n",
			prog);
		break;
	case ESTALE:
		fprintf(stderr, "%s: node ID %u is no longer the one in force, or another holds it under a fencing token (uidgen-lease): see '%s stats'\n",
			prog, node, prog);
		break;
	case EDOM:
		fprintf(stderr, "%s: the floor is more than %llu hours ahead of this machine's clock: check the clock ('date'; NTP, timedatectl) and the floor; a clock that was wrong at load needs the module reloaded once it is right (its clock is anchored at load), then assign again\n",
			prog, (unsigned long long)(UIDGEN_FLOOR_AHEAD_MAX_NS / 3600000000000ULL));
		break;
	}
	return 1;
}

/* After ESTALE from an untokened call: say who holds the node ID, if one does. */
void say_held(struct uidgen *g)
{
	struct uidgen_info info = { .size = sizeof(info) };

	if (uidgen_info(g, &info) < 0 || info.node_state != UIDGEN_NODE_STATE_ACTIVE ||
	    !info.token)
		return;
	fprintf(stderr, "%s: node ID %u is held under fencing token %llu (uidgen-lease keeps it): stop uidgen-lease to give it up, or '%s revoke-node --force'\n",
		prog, info.node_id, (unsigned long long)info.token, prog);
}
