# SPDX-License-Identifier: GPL-2.0
# Split an RST file's literal blocks (a paragraph ending in "::", or a
# ".. code-block::", ".. code::" or ".. sourcecode::" directive) into
# DIR/N.sh (the block, dedented) and DIR/N.meta ("FILE:LINE<TAB>KIND"), numbering from n + 1; print the last
# number. KIND is the text of the last ".. docs-test: KIND" comment since
# the previous block (its indented continuation lines joined with
# newlines), or "" when there is none. A directive it does not know
# (neither one of those nor one of prose, a table or a formula, listed in
# BEGIN) is a block of KIND "bad: ...", and so are a quoted literal block
# ("::" then "> cmd" unindented), a doctest block (">>>") and a literal
# block in a grid table's cell: nothing goes unrun unseen.
#   awk -f tests/lib/rst-blocks.awk -v f=FILE -v dir=DIR -v n=N FILE
function indent(s) { match(s, /^[ \t]*/); return RLENGTH }
function bad(why) {
	n++
	printf "%s:%d\tbad: %s\n", f, NR, why > (dir "/" n ".meta")
	printf "%s\n", $0 > (dir "/" n ".sh")
	close(dir "/" n ".meta"); close(dir "/" n ".sh")
}
function flush() {
	sub(/\n+$/, "", body)
	if (body != "") {
		n++
		printf "%s:%d\t%s\n", f, start, kind > (dir "/" n ".meta")
		printf "%s\n", body > (dir "/" n ".sh")
		close(dir "/" n ".meta"); close(dir "/" n ".sh")
	}
	inblock = 0; want = 0; body = ""; marker = ""
}
BEGIN {
	split("note warning tip hint important caution danger attention error " \
	      "admonition seealso topic sidebar rubric toctree contents include " \
	      "image figure table csv-table list-table flat-table kernel-doc math " \
	      "only highlight index glossary versionadded versionchanged " \
	      "deprecated", p, " ")
	for (k in p)
		prose[p[k]] = 1
}
{ sub(/\r$/, "") }
# Inside a block: until a line indented less than the block's first.
inblock {
	if ($0 ~ /^[ \t]*$/) { body = body "\n"; next }
	if (indent($0) >= bi) { body = body substr($0, bi + 1) "\n"; next }
	flush()
}
# After "::": skip blank lines (and a code-block's options); the first
# line indented more than the introducing line starts the block.
want {
	if ($0 ~ /^[ \t]*$/) next
	if (code && $0 ~ /^[ \t]*:[a-z-]+:/) next
	if (indent($0) > pi) {
		inblock = 1; want = 0; bi = indent($0); start = NR
		kind = marker
		body = substr($0, bi + 1) "\n"
		next
	}
	want = 0
	# Not indented, but quoted (each line starting with the same
	# punctuation, "> cmd"): a quoted literal block.
	if (indent($0) == pi && substr($0, pi + 1, 1) ~ /[!-\/:-@\[-`{-~]/) {
		bad("a quoted literal block ('::' then '" substr($0, pi + 1, 1) " ...'): tests/docs-blocks.sh does not read it; indent it instead")
		next
	}
}
# A doctest block (">>> "), and a literal block in a grid table's cell:
# not read here, so failures.
/^[ \t]*>>>( |$)/ && !indoctest {
	bad("a doctest block (>>>): tests/docs-blocks.sh does not read it; write it as a literal block (::) of a command, or mark it")
	indoctest = 1
	next
}
/^[ \t]*$/ { indoctest = 0 }
/^[ \t]*\|.*::[ \t]*\|[ \t]*$/ {
	bad("a literal block in a table cell: tests/docs-blocks.sh does not read it; put the command after the table, as a literal block")
	next
}
# A marker comment and its indented continuation lines.
inmarker {
	if ($0 !~ /^[ \t]*$/ && indent($0) > mi) {
		t = $0; sub(/^[ \t]+/, "", t); marker = marker "\n" t; next
	}
	inmarker = 0
}
/^[ \t]*\.\. docs-test:/ {
	marker = $0; sub(/^[ \t]*\.\. docs-test:[ \t]*/, "", marker)
	inmarker = 1; mi = indent($0)
	next
}
/^[ \t]*\.\. (code-block|code|sourcecode)::/ { want = 1; code = 1; pi = indent($0); next }
# A directive of prose (its text is read on, for literal blocks in it),
# of a formula or a table: no command in it.
/^[ \t]*\.\. [A-Za-z0-9_-]+::/ {
	d = $0; sub(/^[ \t]*\.\. /, "", d); sub(/::.*/, "", d)
	if (d in prose)
		next
	# Any other (prompt, parsed-literal, literalinclude, doctest, ...):
	# this cannot tell whether it holds commands, so it is a failure.
	n++
	printf "%s:%d\tbad: a '.. %s::' directive, which tests/docs-blocks.sh cannot read: write it as a literal block (::) or .. code-block::, with a docs-test marker if it is no command\n", f, NR, d > (dir "/" n ".meta")
	printf "%s\n", $0 > (dir "/" n ".sh")
	close(dir "/" n ".meta"); close(dir "/" n ".sh")
	marker = ""
	next
}
/::[ \t]*$/ { want = 1; code = 0; pi = indent($0); next }
END { if (inblock) flush(); print n }
