#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The docs are tested: every command block of README.md, the admin guide,
# fleet.rst and design.rst, run as written, and the output they show
# compared.
#
# Markdown (tests/lib/md-blocks.awk): a fence is ``` or ~~~, indented or
# not; an indented code block (4 columns in, not a list item's text) is a
# failure: fence it. A ```sh (```bash, ```shell) block is a script; a
# ```console block is a session (tests/lib/console.awk): its "$ " lines
# (and "# " lines, a root prompt) are commands, going on over the lines
# after them while a command is unfinished (a line ending in "\", a
# heredoc up to its WORD line; "> " prompts on those lines dropped), and
# its other lines their output, compared. The line before a fence may
# classify it:
#
#   (nothing)                          a script: run on the host
#   <!-- docs-test: module -->         needs the module: run in a VM
#   <!-- docs-test: boots-vm -->       run on the host, and boots a VM of
#                                      its own (make demo): unrun with
#                                      DOCS_BLOCKS_VM=0
#   <!-- docs-test: skip: REASON -->   not run, counted as unrun with REASON
#                                      (e.g. "needs systemd as PID 1")
#   <!-- docs-test: output -->         (a ```text block) the output of the
#                                      last block of its file that ran:
#                                      compared, as below
#   <!-- docs-test: output of: TEXT -->  the output of the last block of
#                                      its file that ran and whose first
#                                      command begins with TEXT
#   <!-- docs-test: output: COMMAND -->  the output of COMMAND, run where
#                                      the last block of its file ran
#   <!-- docs-test: not-a-command: WHAT -->  not a command, said outright
#
# A ```text block or a bare fence must be marked (output, skip, or
# not-a-command): output nobody compares is a failure; so is one that
# holds "$ " lines (say ```console). Language names are read in lower
# case; ```shell-session (sh-session, bash-session, terminal) is a
# console session; ```zsh (ksh, fish, csh) is a failure: blocks run with
# bash. A fence of another language (```c, ```python, ```yaml ...) is not
# a command: listed and counted. A fence in a blockquote and an HTML
# <pre> block are failures (tests/lib/md-blocks.awk does not read them).
#
# In an .rst file (Documentation/), every literal block (a paragraph
# ending in "::", ".. code-block::", ".. code::", ".. sourcecode::") is a
# block (tests/lib/rst-blocks.awk), and any other directive but those of
# prose, tables and formulas (.. prompt::, .. parsed-literal::,
# .. literalinclude:: ...) is a failure: nothing goes unrun unseen. The
# last RST comment ".. docs-test: KIND" since the block before classifies
# it:
#
#   (nothing)                          a command if its first word is one
#                                      (on the Debian PATH, uidgen,
#                                      uidgen-lease, uidgen-cluster, or a
#                                      file of the tree): run on the host;
#                                      a block whose first line is a "$ "
#                                      prompt: a console session, as
#                                      above; anything else is a failure:
#                                      mark it
#   .. docs-test: module               run in the VM (a console session
#                                      too, if its first line is a "$ "
#                                      prompt)
#   .. docs-test: skip: REASON         counted as unrun with REASON
#   .. docs-test: not-a-command: WHAT  not a command (a config file, YAML,
#                                      a formula, a diagram): counted
#   .. docs-test: output: COMMAND      the output of COMMAND (more lines
#                                      indented under the comment go on),
#                                      run where and after the last
#                                      command block of its file that ran
#                                      (host or VM), as a block (bash -e):
#                                      it must exit 0
#   .. docs-test: output, exit N: COMMAND  the same, for a COMMAND that
#                                      must exit N (one whose failure is
#                                      what the docs show)
#   .. docs-test: walked: SCRIPT       walked by SCRIPT (a suite of its
#                                      own, e.g. against a real etcd):
#                                      counted, not run here
#
# Output compared (tests/lib/same-shape.sh, the runner's own copy, never
# the scratch copy's): in a console session, each command's own output
# (a marker line printed before each command ties it), and each line the docs show must
# be a line of the output, in order, to the character (digits too) but
# for runs of blanks (any run of blanks) and these placeholders, which
# the docs write for a value that differs in every run, and which match
# only a value of their kind:
#   <n> a number (perhaps negative)   <id> a decimal ID   <hex> hex digits
#   <b32> base32 digits   <uuid> 8-4-4-4-12 hex   <time> a UTC time as
#   uidgen prints it (2026-12-01T12:52:04.748Z)
# Any other <...> is literal.
#
# How blocks run: each with bash -e -o pipefail, inherit_errexit and an
# ERR trap (errtrace), so a failure in a $( ) inside another command's
# words stops the block too; "! COMMAND" and "COMMAND &" (which bash -e
# never stops at) are failures, not run; a line with "a && b" is
# run as "{ a && b; } || exit" (bash -e alone stops at neither a's failure
# nor b's unless the line is the block's last; a line ending in "\" and a
# heredoc's text are part of their command's line); "&&" in a line that is
# not a whole command is a failure (write it on a line of its own).
#
# Host blocks are never run as root. They run in order in one scratch
# copy of the tree (the files git tracks or would: uncommitted changes are
# tested too) under build/docs-blocks/, as nobody (uid 65534; the copy is
# nobody's) when this runs as root, with a Debian PATH, HOME and TMPDIR in
# the scratch directory and nothing else of this environment, contained
# (tests/lib/contain.sh): namespaces of their own, empty /tmp, /var/tmp,
# /dev/shm and /run/lock of their own, no network, only their own
# processes. So an allowed command that runs others (awk's system(),
# python3 -c, sed's e, make) can write nothing but the scratch directory
# and reach nothing on this machine's network; a block that cannot be
# contained is not run. Before one runs, its command words (the first of
# every command of every pipeline and list, in $( ) and ` ` and in an
# unquoted heredoc's text too; tests/lib/cmd-words.awk) must be on ALLOW
# below or a relative path (a file of the scratch copy): anything else,
# sudo, a "# " root prompt, systemctl, insmod or modprobe is a failure,
# not run (mark it module, skip, or add a harmless command to ALLOW).
# Then the module blocks run, in order, in one VM (tests/qemu/vm.sh) of
# the kernel the scratch copy's module/uidgen.ko was built for, as root in
# the scratch copy (the VM sees this machine's files read-only; "sudo" is
# the command itself), each file's starting with the module unloaded and
# an empty kernel log; DOCS_BLOCKS_VM=0 counts them as unrun instead. The
# built uidgen, uidgen-lease and uidgen-cluster are on PATH, as installed.
#
#   tests/docs-blocks.sh [FILE...]
#       (default: README.md Documentation/admin-guide.rst Documentation/fleet.rst
#       Documentation/design.rst Documentation/public-ids.rst bindings/node/README.md)
#   DOCS_BLOCKS_OUT=DIR: the scratch directory (default build/docs-blocks)
# Prints TAP, a "# unrun: N (reasons)" line (every block not run: nothing
# is left out of it, or unread) and a "# Totals:" line; exit
# status 1 on any failure, and when nothing was checked (a FILE that does
# not exist, a FILE with no block, no block run or compared at all); 2 on
# an option it does not know.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
for a in "$@"; do
	case $a in
	--) break ;;
	-*)
		echo "usage: tests/docs-blocks.sh [FILE...] ('$a' is no option: it takes none)" >&2
		exit 2 ;;
	esac
done
[ "${1:-}" != -- ] || shift
[ $# -gt 0 ] || set -- README.md Documentation/admin-guide.rst Documentation/fleet.rst \
	Documentation/design.rst Documentation/public-ids.rst bindings/node/README.md

# The commands a host block may run (besides relative paths: files of the
# scratch copy), unprivileged, in the scratch copy.
ALLOW="make cd echo printf cat ls grep head tail sed awk cut sort uniq wc tr test [ true
	false export python3 pip man go pkg-config cc gcc diff cmp mkdir touch cp mv ln
	basename dirname sleep date id nm readelf ldd file od uidgen uidgen-lease uidgen-cluster node"

out=${DOCS_BLOCKS_OUT:-$repo/build/docs-blocks}
chmod -R u+w "$out" 2>/dev/null
rm -rf "$out"
mkdir -p "$out/blocks" "$out/home" "$out/tmp" "$out/bin" "$out/vmbin"
clone=$out/clone
mkdir -p "$clone"
git ls-files -co --exclude-standard -z | xargs -0 cp -a --parents -t "$clone"
# In the VM, as root: sudo is the command itself.
printf '#!/bin/sh\nexec "$@"\n' > "$out/vmbin/sudo"
chmod +x "$out/vmbin/sudo"
for c in userlib/uidgen lease/uidgen-lease lease/uidgen-cluster; do
	ln -s "$clone/$c" "$out/bin/${c#*/}"
	ln -s "$clone/$c" "$out/vmbin/${c#*/}"
done
debpath=$out/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
vmpath=$out/vmbin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# Never root on the host, and contained (tests/lib/contain.sh): nobody,
# owning the scratch copy.
runas=("$repo/tests/lib/contain.sh" "$out")
if [ "$(id -u)" -eq 0 ]; then
	chown -R 65534:65534 "$clone" "$out/home" "$out/tmp"
fi

# Split every file's blocks into $out/blocks/N.sh with N.meta holding
# "FILE:LINE<TAB>KIND<TAB>LANG" (KIND: host, module, skip: REASON, ...,
# bad: WHY, or empty), N.expect the output a console block shows.
n=0
missing=()
declare -A nblocks=()
for f in "$@"; do
	if [ ! -f "$f" ]; then
		missing+=("$f")
		continue
	fi
	before=$n
	case $f in
	*.rst) n=$(awk -f tests/lib/rst-blocks.awk -v f="$f" -v dir="$out/blocks" -v n="$n" "$f") ;;
	*) n=$(awk -f tests/lib/md-blocks.awk -v f="$f" -v dir="$out/blocks" -v n="$n" "$f") ;;
	esac
	nblocks[$f]=$((n - before))
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
first() { grep -m1 -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' -e '^printf .DOCS-BLOCKS-CMD ' "$1" | cut -c1-60; }

# is_command WORD: the first word of a block names a command (the rule
# for an .rst block with no marker).
is_command() {
	case $1 in
	""|*=*|*:) return 1 ;;
	uidgen|uidgen-lease|uidgen-cluster|sudo) return 0 ;;
	esac
	PATH=$debpath command -v -- "$1" > /dev/null 2>&1 || [ -f "$clone/$1" ]
}

# not_allowed SCRIPT: the command words a host block may not run, one a
# line (nothing: all allowed).
not_allowed() {
	local w
	awk -f tests/lib/cmd-words.awk "$1" | while IFS= read -r w; do
		case $w in
		/*|*..*) echo "$w" ;;
		# a path in the scratch copy (perhaps made by the block, as a
		# venv's bin/pip): cd_out() keeps blocks in it
		*/*) ;;
		*) case " $(echo $ALLOW) " in *" $w "*) ;; *) echo "$w" ;; esac ;;
		esac
	done | awk '!seen[$0]++' | paste -sd' '
}

# cd_out SCRIPT: does it cd out of the scratch copy (to an absolute path,
# up with .., home, back with -, or to a $VARIABLE)? Then its relative
# command paths are no longer the copy's.
cd_out() {
	grep -Eq '(^|[;&|({[:space:]])cd([[:space:]]*$|[[:space:]]+["'"'"']?(/|~|-|\$|[^[:space:];&|]*\.\.))' "$1"
}

# wrap_ands SCRIPT OUT: SCRIPT with each line holding "&&" run as
# "{ LINE } || exit $?"; fails, saying which line, if such a line is not a
# whole command by itself (bash -n). A line ending in "\" goes on to the
# next; a line opening heredocs (tests/lib/heredocs.awk) goes on to the
# end of their text, which is never changed.
wrap_ands() {
	local l logical= no=0 start=0 c hds=() bare
	# bash -e misses a failure in a $( ) inside another command's words
	# (echo "v: $(cmd)"): with inherit_errexit and errtrace the
	# substitution stops at it, and its ERR trap stops the block too.
	printf '%s\n' 'shopt -s inherit_errexit; set -E' \
		'trap '"'"'rc=$?; echo "docs-blocks: exit $rc: $BASH_COMMAND" >&2; [ "$BASHPID" = "$$" ] || kill -TERM "$$"; exit "$rc"'"'"' ERR' > "$2"
	while IFS= read -r l || [ -n "$l" ]; do
		no=$((no + 1))
		[ -n "$logical" ] || start=$no
		logical+=$l$'\n'
		if [ ${#hds[@]} -gt 0 ]; then
			c=$l
			[ "${hds[0]:0:1}" != - ] || c=${l#"${l%%[!$'\t']*}"}
			[ "$c" != "${hds[0]#-}" ] || hds=("${hds[@]:1}")
			[ ${#hds[@]} -eq 0 ] || continue
		else
			case $l in *\\) continue ;; esac
			mapfile -t hds < <(printf '%s' "$logical" | tr '\n' ' ' |
				awk -v words=1 -f tests/lib/heredocs.awk)
			[ ${#hds[@]} -eq 0 ] || continue
		fi
		# "! cmd" and "cmd &" never stop bash -e, whatever cmd does.
		bare=$(printf '%s' "$logical" | sed -e "s/'[^']*'//g" -e 's/"[^"]*"//g' -e 's/#.*//')
		if printf '%s' "$bare" | grep -Eq '(^|[;|&({]|\b(then|do|else))[[:space:]]*![[:space:]]'; then
			echo "line $start: '! COMMAND' never stops bash -e (whatever COMMAND does): write 'if COMMAND; then exit 1; fi'"
			return 1
		fi
		if printf '%s' "$bare" | sed -e 's/&&//g' -e 's/[0-9]*[<>]&[0-9-]*//g' -e 's/&>>*//g' | grep -q '&'; then
			echo "line $start: a command in the background ('&'): bash -e never sees its failure; run it in the foreground"
			return 1
		fi
		case $logical in
		*"&&"*)
			if bash -n <<< "$logical" 2> /dev/null; then
				printf '{ %s} || exit $?\n' "$logical" >> "$2"
			else
				echo "line $start: '&&' in a line that is not a whole command (bash -e would not stop at its failure): give it a line of its own"
				return 1
			fi ;;
		*) printf '%s' "$logical" >> "$2" ;;
		esac
		logical=
	done < "$1"
	printf '%s' "$logical" >> "$2"
}

# status_of LOG: what an output: COMMAND check said of COMMAND's exit
# status ("exit 3, not 0"), or nothing.
status_of() { sed -n 's/^DOCS-STATUS: //p' "$1" 2>/dev/null | tail -n 1; }

# shape_check EXPECTED LOG: the output a block shows against what it printed.
# Always the runner's own copy, never the scratch copy's (a block may
# rewrite that).
shape_check() { bash "$repo/tests/lib/same-shape.sh" "$1" < "$2"; }

notcmd=0
walked=0
declare -A last=() lastblk=() script=() expect=() ran=() blkkind=()
vmout=()	# "i ref": block i's shown output is block ref's (a VM block)

echo "TAP version 13"
for f in "${missing[@]}"; do
	notok "$f: no such file: nothing to check"
done
for f in "${!nblocks[@]}"; do
	[ "${nblocks[$f]}" -gt 0 ] || notok "$f: not one block (fenced in Markdown, literal in RST): nothing to check"
done
for i in $(seq 1 "$n"); do
	# (Not read with IFS=tab: read merges a run of tabs, and KIND may be "".)
	IFS= read -r line < "$out/blocks/$i.meta"
	where=${line%%$'\t'*}; line=${line#*$'\t'}
	kind=${line%%$'\t'*}; lang=
	[ "$kind" = "$line" ] || lang=${line#*$'\t'}
	b=$out/blocks/$i.sh
	script[$i]=$b
	file=${where%:*}
	case $file in
	*.rst)
		# A literal block starting with a "$ " prompt: a console session
		# (on the host, or marked module: in the VM).
		if { [ -z "$kind" ] || [ "$kind" = module ]; } &&
			grep -m1 -v '^[[:space:]]*$' "$b" | grep -q '^\$ '; then
			lang=console
		fi
		if [ -z "$kind" ] && [ "$lang" != console ]; then
			w=$(grep -m1 -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$b" | awk '{ print $1 }')
			if is_command "$w"; then
				kind=host
			else
				notok "$where: neither a command ('$w' is none) nor marked: mark it (.. docs-test: not-a-command: WHAT, skip: REASON, output: COMMAND)" "$(first "$b")"
				continue
			fi
		fi ;;
	*)
		case $lang in
		sh|bash|shell|console) ;;
		shell-session|sh-session|shellsession|bash-session|terminal) lang=console ;;
		zsh|ksh|mksh|fish|csh|tcsh)
			notok "$where: a \`\`\`$lang block: blocks run with bash; write \`\`\`sh (or \`\`\`console), or mark it (docs-test: skip: REASON)"
			continue ;;
		text|"")
			if [ -z "$kind" ]; then
				if grep -q '^\$ ' "$b"; then
					notok "$where: a \`\`\`${lang:-(bare fence)} block with \"\$ \" lines: mark it \`\`\`console (run, its output compared) or docs-test: output, skip: REASON"
				else
					notok "$where: a \`\`\`${lang:-(bare fence)} block nobody compares: mark it docs-test: output (the last block's output), output: COMMAND, or not-a-command: WHAT"
				fi
				continue
			fi ;;
		*)
			[ -n "$kind" ] || kind="not-a-command: a \`\`\`$lang block" ;;
		esac ;;
	esac
	if [ "$lang" = console ]; then
		# Its commands (continuations and heredocs whole) and its output.
		mv "$b" "$out/blocks/$i.session"
		awk -f tests/lib/heredocs.awk -f tests/lib/console.awk -v cmds="$b" \
			-v expect="$out/blocks/$i.expect" -v root="$out/blocks/$i.root" \
			"$out/blocks/$i.session"
		expect[$i]=$out/blocks/$i.expect
	fi
	[ -n "$kind" ] || kind=host
	[ "$kind" != boots-vm ] || kind=host-vm
	case $kind in
	"skip: "*) not_run "$where" "${kind#skip: }"; continue ;;
	bad:*) notok "$where: ${kind#bad: }"; continue ;;
	not-a-command*)
		notcmd=$((notcmd + 1))
		what=${kind#not-a-command}; what=${what#: }
		echo "# not a command $where: ${what:-\"$(first "$b")\"}"
		continue ;;
	"walked: "*)
		walked=$((walked + 1))
		w=${kind#walked: }
		case $w in
		/*|*..*) notok "$where: walked by '$w', which is not an executable of the tree (a path inside it, such as tests/NAME.sh)" ;;
		*)	if [ ! -x "$w" ] || [ ! -f "$w" ]; then
				notok "$where: walked by '$w', which is not an executable of the tree"
			elif ! grep -qF "$(basename "$file")" "$w"; then
				notok "$where: walked by '$w', which never names $(basename "$file"): it cannot be walking it"
			else
				echo "# walked $where: by $w"
			fi ;;
		esac
		continue ;;
	output|"output of: "*)
		# The shown output of the last block of its file that ran (whose
		# first command begins with TEXT).
		ref=${lastblk[$file]:-}
		if [ "$kind" != output ]; then
			ref=
			for j in ${ran[$file]:-}; do
				case $(first "$out/blocks/$j.sh") in "${kind#output of: }"*) ref=$j ;; esac
			done
		fi
		if [ -z "$ref" ]; then
			notok "$where: ${kind}: no block of $file before it ran ${kind#output of: }"
			continue
		fi
		if ! grep -q '[^[:space:]]' "$b"; then
			notok "$where: ${kind}: an empty output block (nothing to compare)"
			continue
		fi
		case ${blkkind[$ref]} in
		unrun) not_run "$where" "output of a block that boots a VM (DOCS_BLOCKS_VM=0: no VM)" ;;
		host|host-vm)
			if shape_check "$b" "$out/$ref.log" > "$out/$i.log" 2>&1; then
				ok "$where output of $(head -n 1 "$out/blocks/$ref.meta" | cut -f1)"
			else
				mapfile -t tail < <(tail -n 25 "$out/$i.log")
				notok "$where output of $(head -n 1 "$out/blocks/$ref.meta" | cut -f1): not what it printed" "${tail[@]}"
			fi ;;
		module) vmout+=("$i $ref") ;;
		esac
		continue ;;
	"output: "*|"output, exit "*)
		# COMMAND runs as a block does (bash -e): its exit status must
		# be 0, or N for "output, exit N: COMMAND".
		want=0
		if [ "${kind#output, exit }" != "$kind" ]; then
			want=${kind#output, exit }; want=${want%%:*}
			case $want in
			""|*[!0-9]*) notok "$where: '${kind%%$'\n'*}': the status after 'exit' is no number (output, exit N: COMMAND)"; continue ;;
			esac
			kind="output: ${kind#*: }"
		fi
		{
			echo 'set +e'
			echo 'actual=$( set -e; {'
			echo "${kind#output: }"
			tail -n +2 "$out/blocks/$i.meta"
			echo '} 2>&1 )'
			echo 'rc=$?'
			echo "printf '%s\\n' \"\$actual\" | bash '$repo/tests/lib/same-shape.sh' '$b'; shape=\$?"
			echo "if [ \"\$rc\" != $want ]; then echo \"DOCS-STATUS: exit \$rc, not $want\"; exit 1; fi"
			echo 'exit $shape'
		} > "$out/blocks/$i.check.sh"
		{ echo "${kind#output: }"; tail -n +2 "$out/blocks/$i.meta"; } > "$out/blocks/$i.cmd"
		script[$i]=$out/blocks/$i.check.sh
		case ${last[$file]:-} in
		module) modules+=("$i"); continue ;;
		host|host-vm) kind=output ;;
		*) not_run "$where" "output, and no command block of its file ran before it"; continue ;;
		esac ;;
	module) ;;
	host|host-vm) ;;
	*) notok "$where: unknown docs-test marker '$kind' (host, module, boots-vm, skip: REASON, not-a-command: WHAT, output, output of: TEXT, output: COMMAND, output, exit N: COMMAND, walked: SCRIPT)"; continue ;;
	esac
	# a && b, wherever it is.
	if [ "$kind" != output ]; then
		if ! why=$(wrap_ands "$b" "$out/blocks/$i.run.sh"); then
			notok "$where: $why"
			continue
		fi
		script[$i]=$out/blocks/$i.run.sh
	fi
	if [ "$kind" = module ]; then
		modules+=("$i"); last[$file]=module; lastblk[$file]=$i
		ran[$file]="${ran[$file]:-} $i"; blkkind[$i]=module
		continue
	fi
	if [ "$kind" = host-vm ] && [ "${DOCS_BLOCKS_VM:-1}" = 0 ]; then
		not_run "$where" "boots a VM (DOCS_BLOCKS_VM=0: no VM)"
		# an output block after it shows this one's output: unrun too
		last[$file]=unrun; lastblk[$file]=$i
		ran[$file]="${ran[$file]:-} $i"; blkkind[$i]=unrun
		continue
	fi
	# On the host: never as root, only allowed commands (for shown
	# output, those of the command that prints it).
	cmds=$b
	[ "$kind" != output ] || cmds=$out/blocks/$i.cmd
	if [ -e "$out/blocks/$i.root" ]; then
		notok "$where: a \"# \" root prompt: host blocks never run as root; mark it (docs-test: module: as root in a VM; or skip: REASON)"
		continue
	fi
	if grep -qw systemctl "$cmds"; then
		notok "$where: calls systemctl: needs systemd as PID 1; mark it (docs-test: skip: needs systemd as PID 1)"
		continue
	fi
	if grep -qwE 'insmod|modprobe' "$cmds"; then
		notok "$where: loads the module: mark it (docs-test: module)"
		continue
	fi
	if cd_out "$cmds"; then
		notok "$where: changes directory out of the scratch copy (cd to /, .., ~, - or a variable): host blocks run in it; mark it (docs-test: skip: REASON)"
		continue
	fi
	bad=$(not_allowed "$cmds")
	if [ -n "$bad" ]; then
		case " $bad " in
		*" sudo "*) notok "$where: needs root (sudo): host blocks never run as root; mark it (docs-test: module, or skip: REASON)" ;;
		*) notok "$where: runs $bad, not on the host allow-list (ALLOW in tests/docs-blocks.sh; host blocks run unprivileged in a scratch copy): mark it (docs-test: module, skip: REASON) or add a harmless command to ALLOW" ;;
		esac
		continue
	fi
	[ "$kind" = output ] || { last[$file]=$kind; lastblk[$file]=$i; ran[$file]="${ran[$file]:-} $i"; blkkind[$i]=host; }
	if (cd "$clone" && "${runas[@]}" env -i PATH="$debpath" HOME="$out/home" TMPDIR="$out/tmp" \
		TERM=dumb LANG=C.UTF-8 timeout 1800 bash -e -o pipefail "${script[$i]}") > "$out/$i.log" 2>&1; then
		if [ -n "${expect[$i]:-}" ] && ! shape_check "${expect[$i]}" "$out/$i.log" > "$out/$i.shape" 2>&1; then
			mapfile -t tail < <(tail -n 25 "$out/$i.shape")
			notok "$where $kind: $(first "$b"): its output is not what the block shows" "${tail[@]}"
		else
			ok "$where $kind: $(first "$b")${expect[$i]:+ (output compared)}"
		fi
	else
		rc=$?
		mapfile -t tail < <(tail -n 15 "$out/$i.log")
		st=$(status_of "$out/$i.log")
		notok "$where $kind: $(first "$b") (${st:-exit $rc}; $out/$i.log)" "${tail[@]}"
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
		for v in "${vmout[@]}"; do
			not_run "$(head -n 1 "$out/blocks/${v%% *}.meta" | cut -f1)" "output of a block that $why"
		done
	else
		mkdir -p "$out/vm"
		{
			echo "cd '$clone' || exit 1"
			echo "export PATH='$vmpath' HOME='$out/home'"
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
			[ "${script[$i]}" != "$out/blocks/$i.check.sh" ] || what=output
			rc=$(sed -n "s/^DOCS-BLOCK $i \([0-9]*\).*/\1/p" "$out/vm.log" | tr -d '\r' | tail -n 1)
			if [ "$rc" = 0 ] && [ -n "${expect[$i]:-}" ] &&
				! shape_check "${expect[$i]}" "$out/vm/block-$i.log" > "$out/$i.shape" 2>&1; then
				mapfile -t tail < <(tail -n 25 "$out/$i.shape")
				notok "$where $what (VM $kv): $(first "$out/blocks/$i.sh"): its output is not what the block shows" "${tail[@]}"
			elif [ "$rc" = 0 ]; then
				ok "$where $what (VM $kv): $(first "$out/blocks/$i.sh")${expect[$i]:+ (output compared)}"
			else
				mapfile -t tail < <(tail -n 15 "$out/vm/block-$i.log" 2>/dev/null || tail -n 15 "$out/vm.log")
				st=$(status_of "$out/vm/block-$i.log")
				notok "$where $what (VM $kv): $(first "$out/blocks/$i.sh") (${st:-exit ${rc:-none}}; vm.sh $vmrc)" "${tail[@]}"
			fi
		done
		for v in "${vmout[@]}"; do
			i=${v%% *}; ref=${v#* }
			where=$(head -n 1 "$out/blocks/$i.meta" | cut -f1)
			rwhere=$(head -n 1 "$out/blocks/$ref.meta" | cut -f1)
			if shape_check "$out/blocks/$i.sh" "$out/vm/block-$ref.log" > "$out/$i.log" 2>&1; then
				ok "$where output of $rwhere (VM $kv)"
			else
				mapfile -t tail < <(tail -n 25 "$out/$i.log")
				notok "$where output of $rwhere (VM $kv): not what it printed" "${tail[@]}"
			fi
		done
	fi
fi

[ "$t" -gt 0 ] || notok "nothing checked: no block ran and no output was compared (every block unrun or not a command)"
echo "1..$t"
r=
for k in "${!reasons[@]}"; do r="${r:+$r; }${reasons[$k]}: $k"; done
echo "# unrun: $unrun${r:+ ($r)}"
echo "# not commands: $notcmd; walked by suites of their own: $walked"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" -eq 0 ]
