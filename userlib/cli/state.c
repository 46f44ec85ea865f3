// SPDX-License-Identifier: GPL-2.0
/*
 * uidgen state restore, keep and save: their words and FILE checked here,
 * the work done by the persister (cli/persist/).
 */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/persist/persist.h"

/*
 * The state command @id (CMD_STATE: "state" and @word, no command of its)
 * on @argv, FILE; exit statuses as main's.
 */
int cmd_state(enum cmd_id id, const char *word, const char *dev, char **argv,
	      int argc, const struct keep_opts *ko)
{
	switch (id) {
	case CMD_RESTORE:
		if (one_file(id, argv, argc))
			return 2;
		if (!ko->ahead_ms) {
			fprintf(stderr, "%s: state restore needs --ahead-ms above 0: with no grant the kernel would issue past what %s holds, and a crash could repeat IDs; leave it out for the default, 60000\n",
				prog, argv[0]);
			return 2;
		}
		return state_restore(dev, argv[0], ko->ahead_ms);
	case CMD_KEEP:
		if (one_file(id, argv, argc))
			return 2;
		return state_keep(dev, argv[0], ko->ahead_ms, ko->every_ms);
	case CMD_SAVE:
		if (one_file(id, argv, argc))
			return 2;
		return state_save(dev, argv[0]);
	default:
		if (!word)
			fprintf(stderr, "%s: state needs save, restore or keep, then FILE: see '%s help state'\n",
				prog, prog);
		else
			fprintf(stderr, "%s: state: unknown command '%s': state save, state restore or state keep; see '%s help state'\n",
				prog, word, prog);
		return 2;
	}
}
