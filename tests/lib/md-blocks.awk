# SPDX-License-Identifier: GPL-2.0
# Split a Markdown file's fenced blocks into DIR/N.sh and DIR/N.meta
# ("FILE:LINE<TAB>KIND<TAB>LANG"), numbering from n + 1; print the last
# number. A fence is ``` or ~~~ (three or more), indented or not (a list
# item's); it ends at a line of the same character, at least as long,
# and nothing else; the block's lines lose the opening fence's indent.
# KIND is the "<!-- docs-test: KIND -->" comment on the last non-blank
# line before the fence, or "". LANG is the info string's first word, in
# lower case (```SH is ```sh). A fence in a blockquote ("> ```") and an
# HTML <pre> block are KIND "bad: ...": this does not read them.
#
# N.sh is the block as it is (a script, a console session, which
# tests/docs-blocks.sh splits with tests/lib/console.awk, output, a config
# file, code of another language).
# A fence left open at the end of the file is KIND "bad: ...", and so is an
# indented code block (a line indented 4 or more columns, tabs to 4, after
# a blank line, 4 or more columns past the text of the list item it is
# in, if any; a fence is no such line): this reads only fences, so such a block would go unrun.
#   awk -f tests/lib/md-blocks.awk -v f=FILE -v dir=DIR -v n=N FILE
function indent(s) { match(s, /^[ \t]*/); return RLENGTH }
function flush(kind) {
	n++
	printf "%s:%d\t%s\t%s\n", f, start, kind, lang > (dir "/" n ".meta")
	printf "%s", body > (dir "/" n ".sh")
	close(dir "/" n ".meta"); close(dir "/" n ".sh")
}
# The columns a line is indented, a tab to the next multiple of 4.
function columns(s,    c, k, ch) {
	c = 0
	for (k = 1; k <= length(s); k++) {
		ch = substr(s, k, 1)
		if (ch == " ") c++
		else if (ch == "\t") c += 4 - c % 4
		else break
	}
	return c
}
{ sub(/\r$/, "") }
function bad(why) {
	n++
	printf "%s:%d\tbad: %s\t\n", f, NR, why > (dir "/" n ".meta")
	printf "%s\n", $0 > (dir "/" n ".sh")
	close(dir "/" n ".meta"); close(dir "/" n ".sh")
}
# Forms of code this does not read: each a failure, never unread.
# (A quoted fence's own closing line is not a second one.)
!infence && /^[ \t]*>[ \t>]*(```|~~~)/ {
	if (!inquoted)
		bad("a fence in a blockquote ('> ```'): tests/docs-blocks.sh does not read it; take it out of the quote")
	inquoted = !inquoted
	next
}
inquoted && !/^[ \t]*>/ { inquoted = 0 }
inquoted { next }
!infence && /<(pre|code)([ \t>]|$)/ && /<pre/ {
	bad("an HTML <pre> block: tests/docs-blocks.sh does not read it; write it as a fence (```sh, ```console, ```text with a docs-test marker)")
	next
}
# Outside fences: list items (the column their text starts at) and
# indented code blocks.
!infence && /[^ \t]/ && !/^[ \t]*(```+|~~~+)/ {
	c = columns($0)
	if (match($0, /^[ \t]*([-*+]|[0-9]+[.)])[ \t]+/)) {
		item = RLENGTH; initem = 1
	} else if (blank && c == 0) {
		initem = 0	# a paragraph of its own: the list is over
	}
	if (blank && !incode && c >= (initem ? item : 0) + 4) {
		n++
		printf "%s:%d\t%s\t\n", f, NR, "bad: an indented code block (" c " columns in): tests/docs-blocks.sh reads only fences; fence it (```sh, ```console, ```text with a docs-test marker)" > (dir "/" n ".meta")
		printf "%s\n", $0 > (dir "/" n ".sh")
		close(dir "/" n ".meta"); close(dir "/" n ".sh")
		incode = 1; codecol = c
	} else if (incode && c < codecol) {
		incode = 0
	}
	blank = 0
}
!infence && /^[ \t]*$/ { blank = 1 }
!infence && /^[ \t]*(```+|~~~+)/ {
	incode = 0
	fi = indent($0)
	t = substr($0, fi + 1)
	match(t, /^(`+|~+)/)
	fence = substr(t, 1, RLENGTH)
	lang = substr(t, RLENGTH + 1); sub(/^[ \t]+/, "", lang); sub(/[ \t{].*/, "", lang)
	lang = tolower(lang)
	infence = 1; start = NR; body = ""
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
		prev = ""; blank = 0
		next
	}
	# The block's lines lose the fence's indent (no more than they have).
	k = indent(t); if (k > fi) k = fi
	t = substr(t, k + 1)
	body = body t "\n"
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
