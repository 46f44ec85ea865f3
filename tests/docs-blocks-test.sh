#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/docs-blocks.sh against docs written to break it: each broken
# document must fail, saying why, and one document of every form it reads
# must pass with exact counts. On the host, DOCS_BLOCKS_VM=0 (no block
# needs the module), each run in a scratch directory of its own.
#   tests/docs-blocks-test.sh       (DOCS_BLOCKS=SCRIPT: another docs-blocks)
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
db=${DOCS_BLOCKS:-tests/docs-blocks.sh}
out=$(mktemp -d)
chmod 755 "$out"
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/docs"
k=0
# run FILE...: docs-blocks on them, its output in $out/run.log, $rc.
run() {
	k=$((k + 1))
	DOCS_BLOCKS_VM=0 DOCS_BLOCKS_OUT="$out/db-$k" bash "$db" "$@" > "$out/run.log" 2>&1
	rc=$?
	cat "$out/run.log"
}
# breaks NAME MESSAGE: docs/NAME (written before) fails, saying MESSAGE.
breaks() {
	name=$1 msg=$2
	check "$1: fails, saying '$2'" \
		'run "$out/docs/$name"; [ "$rc" = 1 ] && grep -F -- "$msg" "$out/run.log" | grep -q "^not ok"'
}
doc() { cat > "$out/docs/$1"; }
f='```'

echo "TAP version 13"
doc root-prompt.md <<EOF
${f}console
# touch /tmp/docs-blocks-root-prompt
${f}
EOF
breaks root-prompt.md 'a "# " root prompt: host blocks never run as root'

doc sudo.md <<EOF
${f}sh
sudo cp /etc/hostname /etc/docs-blocks-escape
${f}
EOF
breaks sudo.md "needs root (sudo): host blocks never run as root"
check "sudo.md: wrote nothing" '[ ! -e /etc/docs-blocks-escape ]'

doc not-allowed.md <<EOF
${f}sh
make
curl -o /tmp/x http://example.org/
${f}
EOF
breaks not-allowed.md "runs curl, not on the host allow-list"

doc outside.md <<EOF
${f}sh
touch /root/docs-blocks-escape
${f}
EOF
if [ "$(id -u)" -eq 0 ]; then
	breaks outside.md "host: touch /root/docs-blocks-escape (exit 1"
	check "outside.md: a host block cannot write outside the scratch copy (runs as nobody)" \
		'[ ! -e /root/docs-blocks-escape ]'
	doc nobody.md <<EOF
${f}console
\$ id -u
65534
${f}
EOF
	check "nobody.md: host blocks run as nobody (uid 65534, compared)" \
		'run "$out/docs/nobody.md"; [ "$rc" = 0 ] && grep -q "^ok 1 .*(output compared)" "$out/run.log"'
fi

doc and-middle.md <<EOF
${f}sh
false && true
echo after
${f}
EOF
breaks and-middle.md "host: false && true (exit 1"

doc and-open.md <<EOF
${f}sh
if false && true; then
	echo yes
fi
${f}
EOF
breaks and-open.md "line 1: '&&' in a line that is not a whole command"

doc indented.md <<EOF
1. A step in a list:

   ${f}sh
   false
   ${f}
EOF
breaks indented.md "host: false (exit 1"

doc tilde.md <<EOF
~~~sh
false
~~~
EOF
breaks tilde.md "host: false (exit 1"

doc unclosed.md <<EOF
${f}sh
echo one
EOF
breaks unclosed.md "opened here is never closed"

doc text-unmarked.md <<EOF
${f}sh
echo hello
${f}

${f}text
hello
${f}
EOF
breaks text-unmarked.md 'a ```text block nobody compares'

doc text-dollar.md <<EOF
${f}
\$ echo hello
hello
${f}
EOF
breaks text-dollar.md 'block with "$ " lines: mark it ```console'

doc text-wrong.md <<EOF
${f}sh
echo hello
${f}

<!-- docs-test: output -->
${f}text
goodbye
${f}
EOF
breaks text-wrong.md "output of $out/docs/text-wrong.md:1: not what it printed"

doc console-wrong.md <<EOF
${f}console
\$ echo hello
world
${f}
EOF
breaks console-wrong.md "its output is not what the block shows"

doc rst-unmarked.rst <<EOF
Run this::

  frobnicate --now
EOF
breaks rst-unmarked.rst "neither a command ('frobnicate' is none) nor marked"

doc rst-console.rst <<EOF
A session::

  \$ echo hello
  world
EOF
breaks rst-console.rst "its output is not what the block shows"

doc empty.md <<EOF
# Nothing to run

Only words.
EOF
breaks empty.md "not one block"
check "all unrun: nothing checked is a failure" \
	'printf "<!-- docs-test: skip: a reason -->\n${f}sh\ntrue\n${f}\n" > "$out/docs/skipped.md" &&
	 run "$out/docs/skipped.md"; [ "$rc" = 1 ] && grep -q "^not ok 1 nothing checked" "$out/run.log"'
check "a file that does not exist: fails" \
	'run "$out/docs/none.md"; [ "$rc" = 1 ] && grep -q "^not ok 1 .*none.md: no such file" "$out/run.log"'
check "an option: exit 2, nothing run" \
	'run --bogus; [ "$rc" = 2 ] && grep -q "is no option" "$out/run.log"'

# --- Host blocks run contained: an allowed command that runs anything
# else (awk's system(), python3 -c) writes no file outside the scratch
# copy and reaches no network.
rm -f /tmp/docs-blocks-escape-awk /var/tmp/docs-blocks-escape-py
doc escape-awk.md <<EOF
${f}sh
awk 'BEGIN { system("echo escaped > /tmp/docs-blocks-escape-awk") }'
python3 -c 'open("/var/tmp/docs-blocks-escape-py", "w").write("escaped")'
${f}
EOF
run "$out/docs/escape-awk.md" > /dev/null
check "escape-awk.md: awk's system() writes nothing to this machine's /tmp" \
	'[ ! -e /tmp/docs-blocks-escape-awk ] || { cat /tmp/docs-blocks-escape-awk; rm -f /tmp/docs-blocks-escape-awk; false; }'
check "escape-awk.md: python3 -c writes nothing to this machine's /var/tmp" \
	'[ ! -e /var/tmp/docs-blocks-escape-py ] || { cat /var/tmp/docs-blocks-escape-py; rm -f /var/tmp/docs-blocks-escape-py; false; }'
# A listener on this machine's loopback: a host block must not reach it.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(120)' "$out/port" &
lpid=$!
for _ in $(seq 50); do [ -s "$out/port" ] && break; sleep 0.1; done
doc escape-net.md <<EOF
${f}sh
python3 -c 'import socket; socket.create_connection(("127.0.0.1", $(cat "$out/port")), 2); print("connected")'
${f}
EOF
breaks escape-net.md "host: python3 -c 'import socket; socket.create_connection"
check "escape-net.md: it never connected" '[ -e "$out/db-$k/1.log" ] && ! grep -qx connected "$out/db-$k/1.log"'
kill "$lpid" 2> /dev/null; wait "$lpid" 2> /dev/null

# The runner's own tree stays readable, read-only, under the empty /tmp
# the contained command gets (a clone under /tmp: its same-shape.sh), and
# so does contain.sh's scratch directory beside it (writable).
mkdir -p "$out/tree/tests/lib" "$out/scratch"
cp tests/lib/contain.sh "$out/tree/tests/lib/"
printf 'shown\n' > "$out/tree/tests/lib/same-shape.sh"
chmod -R a+rX "$out/tree"
chmod 777 "$out/scratch"
check "contain.sh under /tmp: its own tree readable inside, read-only; DIR writable" \
	'"$out/tree/tests/lib/contain.sh" "$out/scratch" sh -c "cat \"$out/tree/tests/lib/same-shape.sh\" &&
	 ! touch \"$out/tree/tests/lib/x\" && touch \"$out/scratch/x\"" > "$out/contain.log" 2>&1;
	 rc=$?; cat "$out/contain.log"; [ "$rc" = 0 ] && grep -qx shown "$out/contain.log" &&
	 [ -e "$out/scratch/x" ] && [ ! -e "$out/tree/tests/lib/x" ]'

# --- Shown output: literal but for blanks and the placeholders.
doc digits.md <<EOF
${f}console
\$ echo exit 1 node=17 v1.4.10
exit 0 node=7 v1.4.0
${f}
EOF
breaks digits.md "its output is not what the block shows"
doc placeholder-kind.md <<EOF
${f}console
\$ echo id=hello
id=<id>
${f}
EOF
breaks placeholder-kind.md "its output is not what the block shows"
doc placeholders.md <<EOF
${f}console
\$ printf '%s\n' '121231847187152896 time=2026-12-01T12:52:04.748Z slot=3 uuid=01a231a9-8c0c-7000-8e00-000000000000' 03BNKQ7H0W400 'ttl -1  <kept>'
<id> time=<time> slot=<n> uuid=<uuid>
<b32>
ttl <n> <kept>
${f}
EOF
check "placeholders.md: each placeholder matches its kind, <kept> is literal, blanks any blanks" \
	'run "$out/docs/placeholders.md"; [ "$rc" = 0 ] && grep -q "^ok 1 .*(output compared)" "$out/run.log"'

# --- output: COMMAND's exit status: 0 unless the marker says which.
doc status.rst <<EOF
Run::

  echo hi

.. docs-test: output: echo gone; test -e no-such-file

It says::

  gone
EOF
breaks status.rst "exit 1, not 0"
doc status-marked.rst <<EOF
Run::

  echo hi

.. docs-test: output, exit 1: echo gone; test -e no-such-file

It fails, saying::

  gone
EOF
check "status-marked.rst: output, exit 1: passes" \
	'run "$out/docs/status-marked.rst"; [ "$rc" = 0 ] && grep -q "^ok 2 .*output" "$out/run.log"'
doc status-wrong.rst <<EOF
Run::

  echo hi

.. docs-test: output, exit 3: echo gone

It fails, saying::

  gone
EOF
breaks status-wrong.rst "exit 0, not 3"

# --- Heredocs and continuation lines, in console sessions and scripts.
doc heredoc-console.md <<EOF
${f}console
\$ cat <<EOF2
> one
> two
> EOF2
one
two
\$ cat <<'EOF2'
three
EOF2
three
\$ echo four \\
>   five
four five
\$ printf '%s\n' six \\
  seven
six
seven
${f}
EOF
check "heredoc-console.md: heredocs and continuations, with and without '> ': the output compared" \
	'run "$out/docs/heredoc-console.md"; [ "$rc" = 0 ] && grep -q "^ok 1 .*(output compared)" "$out/run.log" &&
	 grep -qx "1\.\.1" "$out/run.log"'
doc heredoc-sh.md <<EOF
${f}sh
cat > conf.txt <<EOF2
curl && wget
EOF2
grep -q curl conf.txt && echo found
cat <<-'EOF2' | grep -c x
	x && y; frobnicate
	EOF2
${f}

<!-- docs-test: output -->
${f}text
found
1
${f}
EOF
check "heredoc-sh.md: a heredoc's text is no command and keeps its '&&'" \
	'run "$out/docs/heredoc-sh.md"; [ "$rc" = 0 ] && grep -qx "# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0" "$out/run.log"'
doc heredoc-subst.md <<EOF
${f}sh
cat <<EOF2
\$(curl http://example.org/)
EOF2
${f}
EOF
breaks heredoc-subst.md "runs curl, not on the host allow-list"

# --- Blocks it cannot read fail: nothing is silently unrun.
doc indented-code.md <<EOF
${f}sh
echo checked
${f}

An indented code block:

    make frobnicate
EOF
breaks indented-code.md "an indented code block"
doc rst-prompt.rst <<EOF
Run::

  echo checked

.. prompt:: bash \$

   make frobnicate
EOF
breaks rst-prompt.rst "a '.. prompt::' directive"
doc rst-parsed.rst <<EOF
Run::

  echo checked

.. parsed-literal::

   make frobnicate
EOF
breaks rst-parsed.rst "a '.. parsed-literal::' directive"
doc rst-code.rst <<EOF
.. code:: sh

   echo from-code

.. code-block:: console

   \$ echo from-code-block
   from-code-block

.. note::

   Prose, not read.
EOF
check "rst-code.rst: .. code:: and .. code-block:: blocks run, .. note:: is prose" \
	'run "$out/docs/rst-code.rst"; [ "$rc" = 0 ] && grep -qx "1\.\.2" "$out/run.log" &&
	 grep -q "^ok 2 .*(output compared)" "$out/run.log"'

# Every form, right: exact counts.
doc good.md <<EOF
A script:

${f}sh
echo hello && echo world
x=\$(echo 5) && test "\$x" = 5
${f}

<!-- docs-test: output -->
${f}text
hello
world
${f}

1. In a list, with tildes:

   ~~~bash
   printf '%s\n' 'id 120772217587765248' 03B8HP50GW400
   ~~~

<!-- docs-test: output of: printf -->
${f}text
id <id>
<b32>
${f}

${f}console
\$ echo one; echo two
one
two
${f}

${f}c
int main(void) { return 0; }
${f}

<!-- docs-test: not-a-command: a config file -->
${f}
key = value
${f}
EOF
doc cd-out.md <<EOF
${f}sh
cd / && usr/bin/env sh -c 'echo ran env and sh'
${f}
EOF
breaks cd-out.md "changes directory out of the scratch copy"

doc rel-path.md <<EOF
${f}sh
../../usr/bin/env sh -c 'echo ran env and sh'
${f}
EOF
breaks rel-path.md "runs ../../usr/bin/env, not on the host allow-list"

doc too-many.md <<EOF
${f}console
\$ printf 'x1\\n'
x1
x1
x1
${f}
EOF
check "too-many.md: three lines shown, one printed: fails, saying which" \
	'run "$out/docs/too-many.md"; [ "$rc" = 1 ] && grep -q "^not ok" "$out/run.log" &&
	 grep -q "shown more times than printed): x1" "$out/run.log"'

doc empty-output.md <<EOF
${f}sh
echo hello
${f}

<!-- docs-test: output -->
${f}text
${f}
EOF
breaks empty-output.md "an empty output block (nothing to compare)"

doc walked-true.rst <<EOF
.. docs-test: walked: /bin/true

.. code-block:: sh

   frobnicate --break-everything
EOF
breaks walked-true.rst "walked by '/bin/true', which is not an executable of the tree"

doc walked-other.rst <<EOF
.. docs-test: walked: tests/kdir.sh

.. code-block:: sh

   frobnicate --break-everything
EOF
breaks walked-other.rst "walked by 'tests/kdir.sh', which never names walked-other.rst"

doc vm-output.md <<EOF
${f}sh
echo checked
${f}

<!-- docs-test: boots-vm -->
${f}sh
make demo
${f}

<!-- docs-test: output of: make demo -->
${f}text
id 1
${f}
EOF
check "vm-output.md, DOCS_BLOCKS_VM=0: the VM block and its output counted unrun, not failed" \
	'run "$out/docs/vm-output.md"; [ "$rc" = 0 ] && grep -q "^# unrun .*output of a block that boots a VM" "$out/run.log"'

check "good.md: passes, 5 checked (3 blocks run, 2 outputs compared), 2 not commands" \
	'run "$out/docs/good.md"; [ "$rc" = 0 ] && grep -qx "1\.\.5" "$out/run.log" &&
	 grep -qx "# Totals: pass:5 fail:0 xfail:0 xpass:0 skip:0 error:0" "$out/run.log" &&
	 grep -qx "# not commands: 2; walked by suites of their own: 0" "$out/run.log"'
# --- Only the block's own scratch directory is writable: not another
# run's scratch copy (owned by nobody too), nor anything else of this
# machine's files that nobody could write.
# (Outside /tmp: a host block has a /tmp of its own.)
if [ "$(id -u)" -eq 0 ]; then
	other=$repo/build/docs-blocks-test-other.$$
	rm -rf "$other"
	mkdir -p "$other/clone"
	chown -R 65534:65534 "$other"
	doc scratch-other.md <<EOF
${f}sh
touch $other/clone/escaped-by-touch
${f}

${f}sh
python3 -c 'open("$other/clone/escaped-by-python", "w").write("x")'
${f}
EOF
	check "scratch-other.md: both blocks fail (another run's scratch copy is read-only)" \
		'run "$out/docs/scratch-other.md"; [ "$rc" = 1 ] && grep -q "^not ok 1 .*touch" "$out/run.log" &&
		 grep -q "^not ok 2 .*python3" "$out/run.log"'
	check "scratch-other.md: nothing written into the other run's scratch copy" \
		'ls -A "$other/clone"; [ -z "$(ls -A "$other/clone")" ]'
	rm -rf "$other"
fi
doc scratch-own.md <<EOF
${f}sh
touch own-file
mkdir -p sub && echo x > sub/y
cat sub/y
${f}
EOF
check "scratch-own.md: a block still writes its own scratch copy" \
	'run "$out/docs/scratch-own.md"; [ "$rc" = 0 ] && grep -q "^ok 1 " "$out/run.log"'

# --- Failures bash -e alone lets pass: in $( ) of an argument, negated
# with !, in the background.
doc errexit-subst.md <<EOF
${f}sh
echo "version: \$(ls /nonexistent-docs-blocks)"
${f}
EOF
breaks errexit-subst.md 'host: echo "version: $(ls /nonexistent-docs-blocks)" (exit'
doc errexit-subst-ok.md <<EOF
${f}sh
echo "version: \$(echo 1)"
if ls /nonexistent-docs-blocks 2> /dev/null; then echo yes; fi
ls /nonexistent-docs-blocks 2> /dev/null || true
x=\$(ls /nonexistent-docs-blocks 2> /dev/null || echo none)
${f}
EOF
check "errexit-subst-ok.md: a condition, || true and a caught substitution still pass" \
	'run "$out/docs/errexit-subst-ok.md"; [ "$rc" = 0 ] && grep -q "^ok 1 " "$out/run.log"'
doc errexit-not.md <<EOF
${f}sh
! ls /
${f}
EOF
breaks errexit-not.md "line 1: '! COMMAND' never stops bash -e"
doc errexit-bg.md <<EOF
${f}sh
ls /nonexistent-docs-blocks &
${f}
EOF
breaks errexit-bg.md "line 1: a command in the background ('&')"

# --- Redirections are no commands: 2>&1, >&2, &> file.
doc redirs.md <<EOF
${f}sh
ls 2>&1 | head -1
echo x >&2
echo y &> /dev/null
echo z 1>&2 2> /dev/null
${f}
EOF
check "redirs.md: 2>&1, >&2, &> and 1>&2 are read as redirections, and it runs" \
	'run "$out/docs/redirs.md"; [ "$rc" = 0 ] && grep -q "^ok 1 " "$out/run.log"'

# --- A console session's output is each command's own.
doc console-swap.md <<EOF
${f}console
\$ echo b
a
\$ echo a
b
${f}
EOF
breaks console-swap.md "its output is not what the block shows"
doc console-late.md <<EOF
${f}console
\$ echo a
\$ echo b
a
${f}
EOF
breaks console-late.md "its output is not what the block shows"
doc console-each.md <<EOF
${f}console
\$ echo a
a
\$ echo b
b
${f}
EOF
check "console-each.md: each command's own output, in order: passes" \
	'run "$out/docs/console-each.md"; [ "$rc" = 0 ] && grep -q "^ok 1 .*echo a (output compared)" "$out/run.log"'

# --- output: COMMAND is compared by the runner's own same-shape.sh, not
# the scratch copy's (which a block before it can rewrite).
doc shape-rewrite.md <<EOF
${f}sh
printf '#!/bin/bash\nexit 0\n' > tests/lib/same-shape.sh
${f}
<!-- docs-test: output: echo hello -->
${f}text
goodbye
${f}
EOF
breaks shape-rewrite.md "output: goodbye (exit 1"
# --- No block form goes unread or is taken for no command: each runs or
# fails.
doc quoted-fence.md <<EOF
> ${f}sh
> ls /nonexistent-docs-blocks
> ${f}
EOF
breaks quoted-fence.md "a fence in a blockquote"
doc pre-code.md <<EOF
<pre><code>ls /nonexistent-docs-blocks
</code></pre>
EOF
breaks pre-code.md "an HTML <pre> block"
for l in SH Shell BASH; do
	doc "lang-$l.md" <<EOF
${f}$l
ls /nonexistent-docs-blocks
${f}
EOF
	breaks "lang-$l.md" "host: ls /nonexistent-docs-blocks (exit"
done
for l in shell-session sh-session Console; do
	doc "session-$l.md" <<EOF
${f}$l
\$ echo a
b
${f}
EOF
	breaks "session-$l.md" "its output is not what the block shows"
done
for l in zsh ksh fish; do
	doc "lang-$l.md" <<EOF
${f}$l
echo hi
${f}
EOF
	breaks "lang-$l.md" "a \`\`\`$l block: blocks run with bash"
done
doc rst-quoted.rst <<EOF
Run this::

> ls /nonexistent-docs-blocks
EOF
breaks rst-quoted.rst "a quoted literal block"
doc rst-doctest.rst <<EOF
A session:

>>> import os
>>> os.listdir("/nonexistent-docs-blocks")
EOF
breaks rst-doctest.rst "a doctest block (>>>)"
doc rst-grid.rst <<EOF
+------+-----------------------------+
| step | command                     |
+======+=============================+
| one  | run::                       |
|      |                             |
|      |   ls /nonexistent-docs-blocks |
+------+-----------------------------+
EOF
breaks rst-grid.rst "a literal block in a table cell"
tap_end
