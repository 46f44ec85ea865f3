#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The docs are tested: every shell block of README.md, run as written.
#
# A shell block is a ```sh (or ```bash, ```shell) fence, run as a script,
# or a ```console fence, whose "$ " lines are run and whose other lines are
# output (not compared). A bare ``` fence with "$ " lines in it is a
# finding: say which it is. The line before a block may classify it:
#
#   (nothing)                          run on the host
#   <!-- docs-test: module -->         needs the module: run in a VM
#   <!-- docs-test: skip: REASON -->   not run, counted as unrun with REASON
#                                      (e.g. "needs systemd as PID 1")
#
# A block left unclassified that calls systemctl (needs systemd as PID 1)
# or loads a module (insmod, modprobe) is a finding: mark it.
#
# Host blocks run in order, each with bash -e -o pipefail, in one scratch
# copy of the tree (the files git tracks or would: uncommitted changes are
# tested too) under build/docs-blocks/, so a block may build and change
# files; with a Debian PATH, HOME in the scratch directory and nothing else
# of this environment; "sudo" is the command itself when run as root.
# Then the module blocks run, in order, in one VM (tests/qemu/vm.sh) of
# the kernel the scratch copy's module/uidgen.ko was built for, as root in
# the scratch copy; DOCS_BLOCKS_VM=0 counts them as unrun instead.
#
#   tests/docs-blocks.sh [FILE...]      (default: README.md)
# Prints TAP, a "# unrun: N (reasons)" line and a "# Totals:" line; exit
# status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
[ $# -gt 0 ] || set -- README.md
out=$repo/build/docs-blocks
chmod -R u+w "$out" 2>/dev/null
rm -rf "$out"
mkdir -p "$out/blocks" "$out/home" "$out/bin"
clone=$out/clone
mkdir -p "$clone"
git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$clone"
if [ "$(id -u)" -eq 0 ]; then
	printf '#!/bin/sh\nexec "$@"\n' > "$out/bin/sudo"
	chmod +x "$out/bin/sudo"
fi
debpath=$out/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Split every file's blocks into $out/blocks/N.sh with N.meta holding
# "FILE:LINE<TAB>KIND" (KIND: host, module, skip: REASON, or bad: WHY).
n=0
for f in "$@"; do
	n=$(awk -v f="$f" -v dir="$out/blocks" -v n="$n" '
	function flush(kind) {
		n++
		printf "%s:%d\t%s\n", f, start, kind > (dir "/" n ".meta")
		printf "%s", body > (dir "/" n ".sh")
		close(dir "/" n ".meta"); close(dir "/" n ".sh")
	}
	!infence && /^```/ {
		lang = substr($0, 4); sub(/[ \t].*/, "", lang)
		infence = 1; start = NR; body = ""; dollar = 0
		marker = prev
		next
	}
	infence && /^```[ \t]*$/ {
		infence = 0
		kind = ""
		if (lang == "sh" || lang == "bash" || lang == "shell" || lang == "console") {
			kind = "host"
			if (match(marker, /<!-- docs-test: [^>]*-->/)) {
				kind = marker
				sub(/.*<!-- docs-test: /, "", kind); sub(/ *-->.*/, "", kind)
			}
		} else if (lang == "" && dollar) {
			kind = "bad: a bare fence with \"$ \" lines: mark it ```sh or ```console"
		}
		if (kind != "") flush(kind)
		prev = ""
		next
	}
	infence {
		if ($0 ~ /^\$ /) dollar = 1
		if (lang == "console") {
			if ($0 ~ /^\$ /) body = body substr($0, 3) "\n"
		} else {
			body = body $0 "\n"
		}
		next
	}
	/[^ \t]/ { prev = $0 }
	END { print n }
	' "$f")
done

pass=0
fail=0
t=0
unrun=0
declare -A reasons=()
modules=()
ok() { t=$((t + 1)); pass=$((pass + 1)); echo "ok $t $1"; }
notok() { t=$((t + 1)); fail=$((fail + 1)); echo "not ok $t $1"; shift; for l in "$@"; do echo "#   $l"; done; }
not_run() {	# not_run WHERE REASON
	unrun=$((unrun + 1))
	reasons[$2]=$(( ${reasons[$2]:-0} + 1 ))
	echo "# unrun $1: $2"
}
first() { grep -m1 -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1" | cut -c1-60; }

echo "TAP version 13"
for i in $(seq 1 "$n"); do
	IFS=$'\t' read -r where kind < "$out/blocks/$i.meta"
	b=$out/blocks/$i.sh
	case $kind in
	"skip: "*) not_run "$where" "${kind#skip: }"; continue ;;
	bad:*) notok "$where: ${kind#bad: }"; continue ;;
	module) modules+=("$i"); continue ;;
	host) ;;
	*) notok "$where: unknown docs-test marker '$kind' (host, module or skip: REASON)"; continue ;;
	esac
	if grep -qw systemctl "$b"; then
		notok "$where: calls systemctl: needs systemd as PID 1; mark it <!-- docs-test: skip: needs systemd as PID 1 -->"
		continue
	fi
	if grep -qwE 'insmod|modprobe' "$b"; then
		notok "$where: loads the module: mark it <!-- docs-test: module -->"
		continue
	fi
	if (cd "$clone" && env -i PATH="$debpath" HOME="$out/home" TERM=dumb LANG=C.UTF-8 \
		timeout 1800 bash -e -o pipefail "$b") > "$out/$i.log" 2>&1; then
		ok "$where host: $(first "$b")"
	else
		rc=$?
		mapfile -t tail < <(tail -n 15 "$out/$i.log")
		notok "$where host: $(first "$b") (exit $rc; $out/$i.log)" "${tail[@]}"
	fi
done

# The module blocks, in one VM of the kernel the module was built for.
if [ ${#modules[@]} -gt 0 ]; then
	ko=$clone/module/uidgen.ko
	kv=$( [ -e "$ko" ] && modinfo -F vermagic "$ko" 2>/dev/null | awk '{ print $1 }')
	why=
	if [ "${DOCS_BLOCKS_VM:-1}" = 0 ]; then
		why="needs the module (DOCS_BLOCKS_VM=0: no VM)"
	elif [ -z "$kv" ]; then
		why="needs the module, and no block built module/uidgen.ko"
	elif [ ! -e "/boot/vmlinuz-$kv" ]; then
		why="needs the module, built for $kv: no /boot/vmlinuz-$kv to boot"
	fi
	if [ -n "$why" ]; then
		for i in "${modules[@]}"; do
			not_run "$(cut -f1 "$out/blocks/$i.meta")" "$why"
		done
	else
		{
			echo "cd '$clone' || exit 1"
			echo "export PATH='$debpath' HOME='$out/home'"
			for i in "${modules[@]}"; do
				echo "bash -e -o pipefail '$out/blocks/$i.sh' > /mnt/block-$i.log 2>&1; echo \"DOCS-BLOCK $i \$?\""
			done
		} > "$out/vm-job.sh"
		tests/qemu/vm.sh -k "$kv" -o "$out/vm" "$out/vm-job.sh" > "$out/vm.log" 2>&1
		vmrc=$?
		for i in "${modules[@]}"; do
			where=$(cut -f1 "$out/blocks/$i.meta")
			rc=$(sed -n "s/^DOCS-BLOCK $i \([0-9]*\).*/\1/p" "$out/vm.log" | tr -d '\r' | tail -n 1)
			if [ "$rc" = 0 ]; then
				ok "$where module (VM $kv): $(first "$out/blocks/$i.sh")"
			else
				mapfile -t tail < <(tail -n 15 "$out/vm/block-$i.log" 2>/dev/null || tail -n 15 "$out/vm.log")
				notok "$where module (VM $kv): $(first "$out/blocks/$i.sh") (exit ${rc:-none}; vm.sh $vmrc)" "${tail[@]}"
			fi
		done
	fi
fi

echo "1..$t"
r=
for k in "${!reasons[@]}"; do r="${r:+$r; }${reasons[$k]}: $k"; done
echo "# unrun: $unrun${r:+ ($r)}"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
