# SPDX-License-Identifier: GPL-2.0
# Split a Markdown file's fenced blocks into DIR/N.sh and DIR/N.meta
# ("FILE:LINE<TAB>KIND<TAB>LANG"), numbering from n + 1; print the last
# number. A fence is ``` or ~~~ (three or more), indented or not (a list
# item's); it ends at a line of the same character, at least as long,
# and nothing else; the block's lines lose the opening fence's indent.
# KIND is the "<!-- docs-test: KIND -->" comment on the last non-blank
# line before the fence, or "". LANG is the info string's first word.
#
#   ```sh, ```bash, ```shell   N.sh: the block, a script
#   ```console                 N.sh: the commands ("$ " lines, and "# "
#                              lines: a root prompt, noted in N.root);
#                              N.expect: the other lines, the output
#   any other fence            N.sh: the block as it is (output, a config
#                              file, code of another language)
# A fence left open at the end of the file is KIND "bad: ...".
#   awk -f tests/lib/md-blocks.awk -v f=FILE -v dir=DIR -v n=N FILE
function indent(s) { match(s, /^[ \t]*/); return RLENGTH }
function flush(kind) {
	n++
	printf "%s:%d\t%s\t%s\n", f, start, kind, lang > (dir "/" n ".meta")
	printf "%s", body > (dir "/" n ".sh")
	close(dir "/" n ".meta"); close(dir "/" n ".sh")
	if (lang == "console") {
		printf "%s", expect > (dir "/" n ".expect")
		close(dir "/" n ".expect")
		if (root) { print "root" > (dir "/" n ".root"); close(dir "/" n ".root") }
	}
}
{ sub(/\r$/, "") }
!infence && /^[ \t]*(```+|~~~+)/ {
	fi = indent($0)
	t = substr($0, fi + 1)
	match(t, /^(`+|~+)/)
	fence = substr(t, 1, RLENGTH)
	lang = substr(t, RLENGTH + 1); sub(/^[ \t]+/, "", lang); sub(/[ \t{].*/, "", lang)
	infence = 1; start = NR; body = ""; expect = ""; root = 0
	marker = ""
	if (match(prev, /<!-- docs-test: [^>]*-->/)) {
		marker = prev
		sub(/.*<!-- docs-test: /, "", marker); sub(/ *-->.*/, "", marker)
	}
	next
}
infence {
	t = $0
	# The closing fence: same character, at least as long, nothing else.
	c = t; sub(/^[ \t]+/, "", c); sub(/[ \t]+$/, "", c)
	if (substr(c, 1, 1) == substr(fence, 1, 1) && length(c) >= length(fence) &&
	    c ~ /^(`+|~+)$/) {
		infence = 0
		flush(marker)
		prev = ""
		next
	}
	# The block's lines lose the fence's indent (no more than they have).
	k = indent(t); if (k > fi) k = fi
	t = substr(t, k + 1)
	if (lang == "console") {
		if (t ~ /^\$ /) body = body substr(t, 3) "\n"
		else if (t ~ /^# /) { body = body substr(t, 3) "\n"; root = 1 }
		else expect = expect t "\n"
	} else {
		body = body t "\n"
	}
	next
}
/[^ \t]/ { prev = $0 }
END {
	if (infence) {
		lang = ""
		flush("bad: a fence (" fence ") opened here is never closed")
	}
	print n
}
