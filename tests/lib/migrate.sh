# SPDX-License-Identifier: GPL-2.0
# A VM's snapshot as a file, by QEMU migration, for the suites that clone a
# VM (tests/qemu/clone-window.sh, tests/lease/clone.sh); bash, sourced,
# from the repository's top. Each function takes the VM's QMP socket.
#
# migrate_to_file SOCK FILE [BANDWIDTH] [TRIES]: migrate SOCK's VM to FILE
# (written as FILE.tmp, renamed when whole; an old FILE is removed first),
# with max-bandwidth BANDWIDTH bytes/s if given, and wait for the migration
# to end: up to TRIES (default 600) looks 0.1 s apart. Sets
# migrate_status (completed, failed, or the last status seen); 0 if it
# completed. QEMU leaves the VM paused after it: 'cont' runs it on.
migrate_to_file() {
	local sock=$1 file=$2 bw=${3:-} tries=${4:-600} _
	rm -f "$file"
	[ -z "$bw" ] ||
		tests/qemu/qmp.py "$sock" migrate-set-parameters "{\"max-bandwidth\": $bw}" > /dev/null
	tests/qemu/qmp.py "$sock" migrate \
		"{\"uri\": \"exec:cat > $file.tmp && mv $file.tmp $file\"}" > /dev/null
	migrate_status=
	for _ in $(seq "$tries"); do
		migrate_status=$(tests/qemu/qmp.py "$sock" query-migrate |
			sed -n 's/.*"status": "\([a-z-]*\)".*/\1/p')
		[ "$migrate_status" = completed ] || [ "$migrate_status" = failed ] && break
		sleep 0.1
	done
	[ "$migrate_status" = completed ]
}

# snapshot_ready FILE: wait up to 10 s for FILE (the rename comes after
# QEMU says completed); 0 if it is there and not empty.
snapshot_ready() {
	local _
	for _ in $(seq 100); do [ -s "$1" ] && break; sleep 0.1; done
	[ -s "$1" ]
}

# vm_status_wait SOCK STATUS [TRIES]: wait until SOCK's VM (one started
# with -incoming "exec:cat FILE") reports STATUS (paused: the snapshot was
# of a stopped VM; running: of a running one), up to TRIES (default 300)
# looks 0.1 s apart; 0 if it did.
vm_status_wait() {
	local _
	for _ in $(seq "${3:-300}"); do
		tests/qemu/qmp.py "$1" query-status 2>/dev/null | grep -q "\"status\": \"$2\"" &&
			return 0
		sleep 0.1
	done
	return 1
}
