# SPDX-License-Identifier: GPL-2.0
# Split a console session (a ```console block, or an RST literal block
# whose first line is a "$ " prompt) into its commands and the output it
# shows, for tests/docs-blocks.sh. A "$ " line is a command, and so is a
# "# " line (a root prompt: "root" is written to ROOT). A command goes on
# over the next lines while it is unfinished:
#   - its line ends in "\" (a continuation line), or
#   - it opened a heredoc (<<WORD, <<-WORD, <<'WORD', <<"WORD") whose WORD
#     line has not come yet (its text, then WORD);
# such a line may start with bash's continuation prompt "> ", which it
# loses. Every other line is output. A "> " line after a finished command
# is output too (what a command prints may start so).
#   awk -f tests/lib/heredocs.awk -f tests/lib/console.awk -v cmds=FILE -v expect=FILE -v root=FILE SESSION
# Writes the commands to CMDS (one a line, continuations and heredocs as
# they are), the output to EXPECT; before each command, to both, a line
# "DOCS-BLOCKS-CMD N" (printed by a printf in CMDS), so that the output
# shown under a command is compared with that command's own.
function command(t) {
	printf "%s\n", t > cmds
	cont = t ~ /\\$/
	if (!cont) {
		k = heredocs(pending t, w, st)
		for (j = 1; j <= k; j++) { nhd++; hd[nhd] = w[j]; strip[nhd] = st[j] }
	}
	pending = cont ? pending t "\n" : ""
}
# Before each command, a line it prints and the output shows alike: each
# command's shown output must then be in its own stretch of the output.
function mark() {
	ncmd++
	printf "printf 'DOCS-BLOCKS-CMD %d\\n'\n", ncmd > cmds
	printf "DOCS-BLOCKS-CMD %d\n", ncmd > expect
}
BEGIN { printf "" > cmds; printf "" > expect }
{ sub(/\r$/, "") }
nhd > 0 {
	t = $0
	sub(/^> /, "", t)
	printf "%s\n", t > cmds
	c = t
	if (strip[1]) sub(/^\t+/, "", c)
	if (c == hd[1]) {
		for (k = 1; k < nhd; k++) { hd[k] = hd[k + 1]; strip[k] = strip[k + 1] }
		nhd--
	}
	next
}
cont {
	t = $0
	sub(/^> /, "", t)
	command(t)
	next
}
/^\$ / { mark(); command(substr($0, 3)); next }
/^\$$/ { next }
/^# / { mark(); command(substr($0, 3)); isroot = 1; next }
{ printf "%s\n", $0 > expect }
END {
	if (isroot) print "root" > root
	close(cmds); close(expect)
}
