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
id 121231845710757888
03BNKQ7H0W401
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
x2
x3
${f}
EOF
check "too-many.md: three lines shown, one printed: fails, saying which" \
	'run "$out/docs/too-many.md"; [ "$rc" = 1 ] && grep -q "^not ok" "$out/run.log" &&
	 grep -q "shown more times than printed): x2" "$out/run.log"'

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
tap_end
