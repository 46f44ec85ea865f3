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
# A block left unclassified that calls systemctl (needs systemd as PID 1),
# loads a module (insmod, modprobe) or changes this system (apt, dpkg,
# groupadd, a write to /etc) is a finding, not run: mark it.
#
# In an .rst file (Documentation/), every literal block (a paragraph
# ending in "::", or ".. code-block::") is a block; the last RST comment
# ".. docs-test: KIND" since the block before classifies it:
#
#   (nothing)                          a command if its first word is one
#                                      (on the Debian PATH, uidgen,
#                                      uidgen-lease, uidgen-cluster, or a
#                                      file of the tree): run on the host;
#                                      else not a command (a config file,
#                                      YAML, a formula, a diagram): listed
#                                      and counted, not run
#   .. docs-test: module               run in the VM
#   .. docs-test: skip: REASON         counted as unrun with REASON
#   .. docs-test: not-a-command: WHAT  not a command, said outright
#   .. docs-test: output: COMMAND      the output of COMMAND (more lines
#                                      indented under the comment go on),
#                                      run where and after the last
#                                      command block of its file that ran
#                                      (host or VM): each line the
#                                      docs show must be a line of its
#                                      output, numbers aside
#                                      (tests/lib/same-shape.sh)
#   .. docs-test: walked: SCRIPT       walked by SCRIPT (a suite of its
#                                      own, e.g. against a real etcd):
#                                      counted, not run here
#
# Host blocks run in order, each with bash -e -o pipefail, in one scratch
# copy of the tree (the files git tracks or would: uncommitted changes are
# tested too) under build/docs-blocks/, so a block may build and change
# files; with a Debian PATH, HOME in the scratch directory and nothing else
# of this environment; "sudo" is the command itself when run as root.
# Then the module blocks run, in order, in one VM (tests/qemu/vm.sh) of
# the kernel the scratch copy's module/uidgen.ko was built for, as root in
# the scratch copy, each file's starting with the module unloaded and an
# empty kernel log; DOCS_BLOCKS_VM=0 counts them as unrun instead. The
# built uidgen, uidgen-lease and uidgen-cluster are on PATH, as installed.
#
#   tests/docs-blocks.sh [FILE...]
#       (default: README.md Documentation/admin-guide.rst Documentation/fleet.rst)
# Prints TAP, a "# unrun: N (reasons)" line and a "# Totals:" line; exit
# status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
[ $# -gt 0 ] || set -- README.md Documentation/admin-guide.rst Documentation/fleet.rst
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
for c in userlib/uidgen lease/uidgen-lease lease/uidgen-cluster; do
	ln -s "$clone/$c" "$out/bin/${c#*/}"
done
debpath=$out/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Split every file's blocks into $out/blocks/N.sh with N.meta holding
# "FILE:LINE<TAB>KIND" (KIND: host, module, skip: REASON, or bad: WHY).
n=0
for f in "$@"; do
	case $f in
	*.rst)
		n=$(awk -f tests/lib/rst-blocks.awk -v f="$f" -v dir="$out/blocks" -v n="$n" "$f")
		continue ;;
	esac
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

# is_command WORD: the first word of a block names a command (the rule
# for an .rst block with no marker).
is_command() {
	case $1 in
	""|*=*|*:) return 1 ;;
	uidgen|uidgen-lease|uidgen-cluster|sudo) return 0 ;;
	esac
	PATH=$debpath command -v -- "$1" > /dev/null 2>&1 || [ -f "$clone/$1" ]
}
notcmd=0
walked=0
declare -A last=() script=()

echo "TAP version 13"
for i in $(seq 1 "$n"); do
	IFS=$'\t' read -r where kind < "$out/blocks/$i.meta"
	b=$out/blocks/$i.sh
	script[$i]=$b
	file=${where%:*}
	if [ -z "$kind" ]; then
		w=$(grep -m1 -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$b" | awk '{ print $1 }')
		if is_command "$w"; then kind=host; else kind="not-a-command"; fi
	fi
	case $kind in
	"skip: "*) not_run "$where" "${kind#skip: }"; continue ;;
	bad:*) notok "$where: ${kind#bad: }"; continue ;;
	not-a-command*)
		notcmd=$((notcmd + 1))
		what=${kind#not-a-command}; what=${what#: }
		echo "# not a command $where: ${what:-by the rule: \"$(first "$b")\"}"
		continue ;;
	"walked: "*)
		walked=$((walked + 1))
		w=${kind#walked: }
		if [ -x "$w" ]; then
			echo "# walked $where: by $w"
		else
			notok "$where: walked by '$w', which is not an executable of the tree"
		fi
		continue ;;
	"output: "*)
		{
			echo 'actual=$( {'
			echo "${kind#output: }"
			tail -n +2 "$out/blocks/$i.meta"
			echo '} 2>&1 ) || true'
			echo "printf '%s\\n' \"\$actual\" | bash tests/lib/same-shape.sh '$b'"
		} > "$out/blocks/$i.check.sh"
		script[$i]=$out/blocks/$i.check.sh
		case ${last[$file]:-} in
		module) modules+=("$i"); continue ;;
		host) kind=output ;;
		*) not_run "$where" "output, and no command block of its file ran before it"; continue ;;
		esac ;;
	module) modules+=("$i"); last[$file]=module; continue ;;
	host) last[$file]=host ;;
	*) notok "$where: unknown docs-test marker '$kind' (host, module, skip: REASON, not-a-command, output: COMMAND, walked: SCRIPT)"; continue ;;
	esac
	if [ "$kind" = host ] && grep -qw systemctl "$b"; then
		notok "$where: calls systemctl: needs systemd as PID 1; mark it (docs-test: skip: needs systemd as PID 1)"
		continue
	fi
	if [ "$kind" = host ] && grep -qE '(^|[;&|(]|sudo )[[:space:]]*(apt|apt-get|dpkg|groupadd|useradd|editor)[[:space:]]|>>?[[:space:]]*/etc/|tee( -a)? /etc/' "$b"; then
		notok "$where: changes this system (packages, users, /etc): mark it (docs-test: skip: REASON)"
		continue
	fi
	if [ "$kind" = host ] && grep -qwE 'insmod|modprobe' "$b"; then
		notok "$where: loads the module: mark it (docs-test: module)"
		continue
	fi
	if (cd "$clone" && env -i PATH="$debpath" HOME="$out/home" TERM=dumb LANG=C.UTF-8 \
		timeout 1800 bash -e -o pipefail "${script[$i]}") > "$out/$i.log" 2>&1; then
		ok "$where $kind: $(first "$b")"
	else
		rc=$?
		mapfile -t tail < <(tail -n 15 "$out/$i.log")
		notok "$where $kind: $(first "$b") (exit $rc; $out/$i.log)" "${tail[@]}"
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
			not_run "$(head -n 1 "$out/blocks/$i.meta" | cut -f1)" "$why"
		done
	else
		{
			echo "cd '$clone' || exit 1"
			echo "export PATH='$debpath' HOME='$out/home'"
			prev=
			for i in "${modules[@]}"; do
				where=$(head -n 1 "$out/blocks/$i.meta" | cut -f1)
				# Each file's blocks start with no module and an empty log.
				[ "${where%:*}" = "$prev" ] || echo "rmmod uidgen 2>/dev/null; dmesg -C"
				prev=${where%:*}
				echo "bash -e -o pipefail '${script[$i]}' > /mnt/block-$i.log 2>&1; echo \"DOCS-BLOCK $i \$?\""
			done
		} > "$out/vm-job.sh"
		tests/qemu/vm.sh -k "$kv" -o "$out/vm" "$out/vm-job.sh" > "$out/vm.log" 2>&1
		vmrc=$?
		for i in "${modules[@]}"; do
			where=$(head -n 1 "$out/blocks/$i.meta" | cut -f1)
			what=module
			[ "${script[$i]}" = "$out/blocks/$i.sh" ] || what=output
			rc=$(sed -n "s/^DOCS-BLOCK $i \([0-9]*\).*/\1/p" "$out/vm.log" | tr -d '\r' | tail -n 1)
			if [ "$rc" = 0 ]; then
				ok "$where $what (VM $kv): $(first "$out/blocks/$i.sh")"
			else
				mapfile -t tail < <(tail -n 15 "$out/vm/block-$i.log" 2>/dev/null || tail -n 15 "$out/vm.log")
				notok "$where $what (VM $kv): $(first "$out/blocks/$i.sh") (exit ${rc:-none}; vm.sh $vmrc)" "${tail[@]}"
			fi
		done
	fi
fi

echo "1..$t"
r=
for k in "${!reasons[@]}"; do r="${r:+$r; }${reasons[$k]}: $k"; done
echo "# unrun: $unrun${r:+ ($r)}"
echo "# not commands: $notcmd; walked by suites of their own: $walked"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
