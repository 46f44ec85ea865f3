#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Versions and counts the documentation states, against their one source:
# version.mk (the module's UIDGEN_VERSION_STR) for the manual pages'
# .TH source line ("uidgen V"; section 3's "libuidgen V"), uidgen.pc, the
# Python and Node packages and debian/changelog; every other version the docs, man
# pages, examples and packaging files state (any X.Y.Z, but the other
# software's named in the list below); debian/control for how many
# packages `make deb` builds, wherever a README, guide, Makefile or test
# says it, in words or digits. And the manual pages the packages install
# (each one make install-user puts under share/man, which debian/*.install
# take whole; read from make -n -w) against the README's list of them
# ("The manual pages, read from the tree with `man -l`"): each named there
# by its path, section 3's as a group ("the other section 3 pages in
# `DIR/`") when the list names one of them; and every page renders with
# `man -l` from the tree. On the host, nothing built but
# userlib/uidgen.pc.
#   tests/versions.sh
# Prints TAP and a "# Totals:" line; exit status 1 on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
. tests/lib/host-suite.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
v=$(make -s --no-print-directory version 2>/dev/null)
[ -n "$v" ] || { echo "Bail out! make version printed nothing"; exit 1; }
echo "TAP version 13"
echo "# version.mk: $v"
for m in userlib/man/uidgen.1 man/uid.4 lease/uidgen-cluster.1 lease/uidgen-lease.8 deploy/prometheus/uidgen-metrics.8; do
	check "$m: .TH says uidgen $v" \
		"th=\$(grep -m1 '^\\.TH' $m); echo \"\$th\"; case \$th in *'\"uidgen $v\"'*) ;; *) false ;; esac"
done
# The section 3 pages (a page that is a symlink to another reads as it).
for m in $(grep -l '^\.TH' man/*.3); do
	check "$m: .TH says libuidgen $v" \
		"th=\$(grep -m1 '^\\.TH' $m); echo \"\$th\"; case \$th in *'\"libuidgen $v\"'*) ;; *) false ;; esac"
done
# Every manual page in the tree, read as README says ("man -l PAGE"): man
# writes something, and nothing on standard error (a .so it cannot
# follow from the tree prints a warning and exits 0 with an empty page).
for m in userlib/man/*.1 man/*.[34] lease/*.[18]; do
	check "man -l $m: renders, nothing on standard error" \
		"man -l $m > \"\$out/man.txt\" 2> \"\$out/man.err\"; cat \"\$out/man.err\"; [ ! -s \"\$out/man.err\" ] && grep -q '[[:alpha:]]' \"\$out/man.txt\""
done
check "uidgen.pc: Version: $v" \
	'make -s -C userlib uidgen.pc > /dev/null && grep "^Version:" userlib/uidgen.pc && grep -qx "Version: $v" userlib/uidgen.pc'
check "bindings/python/pyproject.toml: version = \"$v\"" \
	'grep "^version" bindings/python/pyproject.toml && grep -qx "version = \"$v\"" bindings/python/pyproject.toml'
check "bindings/node/package.json: \"version\": \"$v\"" \
	'grep "\"version\"" bindings/node/package.json && grep -qx "  \"version\": \"$v\"," bindings/node/package.json'
check "debian/changelog: the newest entry is $v" \
	'head -n1 debian/changelog && head -n1 debian/changelog | grep -q "^uidgen ($v)"'
# Every version the text states: each X.Y.Z (digits in the word before it,
# as in libuidgen1_X.Y.Z_amd64.deb, and any blanks or line break between
# words) in the docs, manual pages, examples, units and packaging files is
# version.mk's, but for the other software's versions named here (etcd's,
# a Debian kernel release, Go's placeholder for a replaced module) and a
# release named as history ("1.3.0's"); an image tag uidgen-tools:X.Y is
# its major.minor.
docs=(README.md Documentation/*.rst userlib/man/*.1 man/*.[34] lease/*.[18] bindings/*/README.md
	etc/* systemd/* dkms.conf.in debian/control debian/*.install Makefile)
others='etcd[[:space:]]+3\.4\.23|6\.1\.0-[0-9]+-amd64|@v0\.0\.0|127\.0\.0\.1|Standards-Version: [0-9.]+|(in|release) [0-9]+\.[0-9]+\.[0-9]+[;,:]|[0-9]'"'"'s$'
# versions FILE...: every stated X.Y.Z not version.mk's and not another's,
# as FILE: TEXT (the text joined across lines); exit status 0 (a check
# tests that it printed nothing: with pipefail, "! versions | grep ."
# would pass on a grep of its own that found nothing).
versions() {
	local f
	for f in "$@"; do
		tr '\n' ' ' < "$f" | grep -oE ".{0,24}[^0-9.][v]?[0-9]+\.[0-9]+\.[0-9]+[^ ]{0,12}" |
			grep -vE -- "$others" | grep -vE "(^|[^0-9.])v?${v//./\\.}([^0-9.]|\.?\$|\.[^0-9])" |
			sed "s|^|$f: |"
	done
	for f in "$@"; do
		tr '\n' ' ' < "$f" | grep -oE "uidgen-tools:[0-9]+\.[0-9]+[0-9.]*" |
			grep -vx "uidgen-tools:${v%.*}" | sed "s|^|$f: |"
	done
	true
}
# The scanners, against what they must find (a check that cannot fail is
# no check).
printf '%s\n' 'apt install ./libuidgen1_1.3.0_amd64.deb' '.TH X 1 "uidgen  1.2.0"' \
	'uidgen-tools:1.3 and /usr/src/uidgen-0.9.1' 'make deb builds four  Debian' 'packages; or 4 packages' \
	> "$out/planted"
check "the version scanner finds each planted version (1.3.0 after a digit, 1.2.0 after two blanks, 0.9.1, tag 1.3)" \
	'versions "$out/planted" | tee "$out/found"; [ "$(wc -l < "$out/found")" = 4 ] &&
	 grep -q "1\.3\.0_amd64" "$out/found" && grep -q "1\.2\.0" "$out/found" &&
	 grep -q "0\.9\.1" "$out/found" && grep -q "tools:1\.3" "$out/found"'
check "the docs, man pages, examples, units and packaging state no version but $v (and the named others)" \
	'found=$(versions "${docs[@]}"); echo "$found"; [ -z "$found" ]'
words=(zero one two three four five six seven eight nine ten)
alt=$(IFS='|'; echo "${words[*]}")
np=$(grep -c '^Package:' debian/control)
# counts FILE...: every "N packages" (a word or digits, any blanks or a
# line break between) that is not $np.
counts() {
	local f
	for f in "$@"; do
		tr '\n' ' ' < "$f" | grep -oiE "\b($alt|[0-9]+)[[:space:]]+(debian[[:space:]]+)?packages" |
			grep -viE "^(${words[$np]}|$np)[[:space:]]" | sed "s|^|$f: |"
	done
	true
}
check "the package-count scanner finds both planted counts (four across a line break, 4)" \
	'counts "$out/planted" | tee "$out/found"; [ "$(wc -l < "$out/found")" = 2 ]'
check "debian/control has $np packages; the docs say ${words[$np]}" \
	'found=$(counts README.md Documentation/*.rst Makefile $(ls tests/*.sh | grep -v tests/versions.sh)); echo "$found"; [ -z "$found" ]'
# installed_pages: the manual pages make install-user installs, as paths
# in the tree, one a line.
installed_pages() {
	make -n -w install-user DESTDIR=/nonexistent PREFIX=/usr 2>/dev/null | awk -v top="$repo" '
	/Entering directory/ { d = $0; sub(/.*Entering directory ./, "", d); sub(/.$/, "", d); dirs[++nd] = d; next }
	/Leaving directory/ { nd--; next }
	$1 == "install" && /\/share\/man\// {
		dir = nd ? dirs[nd] : top
		rel = substr(dir, length(top) + 2); if (rel != "") rel = rel "/"
		t = 0
		for (k = 2; k <= NF; k++) if ($k == "-t") t = k
		if (t) { for (k = t + 2; k <= NF; k++) print rel $k }
		else print rel $(NF - 1)
	}' | sort -u
}
# unnamed README PAGE...: the pages README's list of manual pages leaves out.
unnamed() {
	local readme=$1 list p
	shift
	list=$(awk '/^- The manual pages/ { on = 1 } on && /^- / && !/^- The manual pages/ { exit } on' "$readme" | tr '\n' ' ')
	for p in "$@"; do
		case " $list " in
		*"man -l $p\`"*) ;;
		*) case $p in
		   *.3)	case " $list " in
			*"the other section 3 pages in \`$(dirname "$p")/\`"*) ;;
			*) echo "$p" ;;
			esac ;;
		   *)	echo "$p" ;;
		   esac ;;
		esac
	done
}
mapfile -t pages < <(installed_pages)
check "make install-user installs manual pages of sections 1, 3, 4 and 8 (${#pages[@]})" \
	'printf "%s\n" "${pages[@]}" | sed "s/.*\.//" | sort -u | paste -sd" " | grep -qx "1 3 4 8"'
sed 's|`man -l lease/uidgen-lease.8`|`uidgen-lease`|' README.md > "$out/README-planted.md"
check "the list scanner finds a page left out (lease/uidgen-lease.8 taken out of a copy)" \
	'unnamed "$out/README-planted.md" "${pages[@]}" | grep -x lease/uidgen-lease.8 > /dev/null &&
	 ! unnamed README.md "${pages[@]}" | grep -x lease/uidgen-lease.8 > /dev/null'
check "the README's list of manual pages names every page the packages install" \
	'found=$(unnamed README.md "${pages[@]}"); echo "$found"; [ -z "$found" ]'
# load_node FILE...: each line that gives the module a node_id=, node_new=
# or floor_ms= (modprobe, insmod, a modprobe.d options line): "FILE:LINE:
# text". Since 2.0 none is a parameter: the kernel ignores the unknown
# parameter, so such a step would load the module with no node ID, saying
# nothing where the reader looks. from-1.4.rst and CHANGES.md name the old
# way on purpose.
load_node() {
	grep -HnE '(modprobe|insmod|options)[^|;]*uidgen[^|;]*(node_id|node_new|floor_ms)=' "$@"
}
printf '```sh\necho "options uidgen node_id=7" > /etc/modprobe.d/uidgen.conf\n```\n' > "$out/planted-node.md"
check "the load check finds a block giving the module node_id= (planted)" \
	'load_node "$out/planted-node.md" | grep -q "options uidgen node_id=7"'
check "no doc, example, unit or man page gives the module a node_id=, node_new= or floor_ms=" \
	'found=$(load_node README.md $(ls Documentation/*.rst | grep -v from-1.4.rst) man/* userlib/man/* \
		lease/*.[0-9] etc/* systemd/* debian/*.install); echo "$found"; [ -z "$found" ]'
# make demo installs what the README says, no more: the packages the
# README names in "`make demo` first installs" against tests/setup.sh's
# demo_pkgs, which make demo installs (tests/setup.sh --demo).
readme_demo_pkgs() {
	awk '/^`make demo` first installs/ { p = 1 } p && /^$/ { exit } p' "$1" |
		sed -n 's/.*nothing else://p; /nothing else/!{/`make check`/q;p}' | grep -o '`[a-z0-9.+-]*`' | tr -d '`' |
		grep -vx -e make-demo | sort -u
}
setup_demo_pkgs() {
	sed -n '/^demo_pkgs="/,/"$/p' tests/setup.sh | tr -d '"' | sed 's/^demo_pkgs=//' | tr ' ' '\n' | grep . | sort -u
}
check "make demo runs tests/setup.sh --demo, not the whole make check list" \
	'make -n demo 2>/dev/null | grep -x "tests/setup.sh --demo" && ! make -n demo 2>/dev/null | grep -x "tests/setup.sh"'
check "the README's list of what make demo installs is tests/setup.sh's demo_pkgs" \
	'a=$(readme_demo_pkgs README.md); b=$(setup_demo_pkgs); echo "README: $(echo $a)"; echo "setup.sh: $(echo $b)"; [ -n "$b" ] && [ "$a" = "$b" ]'
sed 's/`busybox-static` //' README.md > "$out/README-demo.md"
check "the list check sees a package left out of the README (planted)" \
	'[ "$(readme_demo_pkgs "$out/README-demo.md")" != "$(setup_demo_pkgs)" ]'
check "tests/setup.sh --demo installs no second kernel, PostgreSQL or etcd" \
	'! setup_demo_pkgs | grep -E "6\.12|postgresql|etcd"'
tap_end
