# SPDX-License-Identifier: GPL-2.0
# What the suites of tests/system/ share (bash, sourced after
# tests/lib/host-suite.sh and tests/system/machine.sh, from the repo's
# top, with $out and $run set): the admin guide's blocks a suite walks,
# and the packages' install as the guide says.
guide=Documentation/admin-guide.rst
version=$(make -s --no-print-directory version)

# guide_block SUITE FIRST: the path of the guide's block marked
# "walked: SUITE" whose first line begins with FIRST (empty if none).
guide_block() {
	local nb i where kind
	mkdir -p "$out/blocks"
	nb=$(awk -f tests/lib/rst-blocks.awk -v f="$guide" -v dir="$out/blocks" -v n=0 "$guide")
	for i in $(seq 1 "$nb"); do
		IFS=$'\t' read -r where kind < "$out/blocks/$i.meta"
		[ "$kind" = "walked: $1" ] || continue
		case $(head -n 1 "$out/blocks/$i.sh") in
		"$2"*) echo "$out/blocks/$i.sh"; return 0 ;;
		esac
	done
}

# guide_run NAME BLOCK: run the guide's BLOCK verbatim as root in /root
# of the guest (apt's questions answered y), its output in $out/NAME.log.
guide_run() {
	m_put "$run" "$2" "/root/$1.sh" &&
	m_ssh "$run" "cd /root && yes | bash -e -x $1.sh" > "$out/$1.log" 2>&1
}

# sys_put_debs: make deb's packages where the guide's block has them
# (/root/build/deb/, the block runs in /root).
sys_put_debs() {
	local f
	m_ssh "$run" mkdir -p /root/build/deb || return 1
	for f in build/deb/*_"$version"_*.deb; do
		case $f in *-dbgsym_*) continue ;; esac
		m_put "$run" "$f" "/root/build/deb/$(basename "$f")" || return 1
	done
}

# sys_draw FILE N: N IDs from the guest, hex, one a line, into FILE.
sys_draw() {
	m_ssh "$run" "uidgen -f hex -n $2" > "$1" && [ "$(grep -c '^0x[0-9a-f]\{16\}$' "$1")" = "$2" ]
}
