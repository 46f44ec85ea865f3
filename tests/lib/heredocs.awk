# SPDX-License-Identifier: GPL-2.0
# The heredocs a shell command line opens, for tests/docs-blocks.sh (its
# scripts' "a && b" lines) and tests/lib/console.awk (console sessions):
# heredocs(s, words, strip) fills words[1..N] with the WORD of each
# <<WORD, <<-WORD, <<'WORD' and <<"WORD" in s, in order (strip[k]: 1 for
# <<-, whose text and WORD line may be indented with tabs), and returns N.
# Not heredocs: <<< (a here-string), << in quoted text or in $(( )).
# Run by itself (awk -v words=1 -f tests/lib/heredocs.awk), it prints
# each input line's words, one a line, "-" before a <<- one's.
function heredocs(s, words, strip,    n, m, w) {
	gsub(/<<</, "   ", s)
	gsub(/\$\(\([^)]*\)\)/, "", s)
	# <<'WORD' and <<"WORD" as <<WORD; then no quoted text is a heredoc.
	while (match(s, /<<-?[ \t]*['"][A-Za-z_0-9.-]+['"]/)) {
		m = substr(s, RSTART, RLENGTH); gsub(/['" \t]/, "", m)
		s = substr(s, 1, RSTART - 1) m substr(s, RSTART + RLENGTH)
	}
	gsub(/'[^']*'/, "", s)
	gsub(/"[^"]*"/, "", s)
	n = 0
	while (match(s, /<<-?[ \t]*[A-Za-z_0-9.-]+/)) {
		w = substr(s, RSTART + 2, RLENGTH - 2)
		n++
		strip[n] = substr(w, 1, 1) == "-"
		sub(/^-/, "", w); sub(/^[ \t]+/, "", w)
		words[n] = w
		s = substr(s, RSTART + RLENGTH)
	}
	return n
}
words {
	k = heredocs($0, hw, hs)
	for (j = 1; j <= k; j++)
		print (hs[j] ? "-" : "") hw[j]
}
