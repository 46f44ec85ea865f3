# SPDX-License-Identifier: GPL-2.0
# The command words of a shell script: the first word of every simple
# command (after ; & | && || ( ) { } a newline, do, then, else, and inside
# $( ) and ` ` whether quoted or not), one a line, for
# tests/docs-blocks.sh's allow-list. Assignments (X=y) and the prefix
# words env, exec, time, command, nohup, !, if, while, until, elif, do,
# then, else and the closing words are skipped to the word after them;
# sudo is printed and so is the word after it. A redirection (2>&1, >&2,
# &> FILE, < FILE) and its target are no command. Single-quoted text and
# comments are no commands; a for or case header is none either.
# A heredoc's text (<<WORD, <<-WORD, <<'WORD', <<"WORD", up to its WORD
# line) is no command, but for what $( ) and ` ` run in it when WORD is
# unquoted.
# Conservative: what it cannot read as a plain word (a $VARIABLE, a
# quoted command name) is printed as it is, and fails the allow-list.
#   awk -f tests/lib/cmd-words.awk SCRIPT
function push(q) { stack[++sp] = q }
function pop() { return sp > 0 ? stack[sp--] : "" }
function endword() {
	if (!inword)
		return
	inword = 0
	if (!expect)
		return
	if (cur ~ /^[A-Za-z_][A-Za-z0-9_]*=/ || cur in skip)
		return
	if (cur == "for" || cur == "case" || cur == "select") {
		expect = 0
		return
	}
	print cur
	expect = cur == "sudo"
}
BEGIN {
	split("env exec time command nohup ! if while until elif do then else fi done esac { }", w, " ")
	for (k in w)
		skip[w[k]] = 1
	expect = 1
}
# A heredoc's text: its WORD line ends it.
nhd > 0 && sp == hdsp {
	c = $0
	if (hstrip[1]) sub(/^\t+/, "", c)
	if (c == hd[1]) {
		for (k = 1; k < nhd; k++) {
			hd[k] = hd[k + 1]; hstrip[k] = hstrip[k + 1]; hquoted[k] = hquoted[k + 1]
		}
		nhd--
		expect = 1
		next
	}
	if (hquoted[1])
		next
}
{
	line = $0
	L = length(line)
	i = 1
	inbody = nhd > 0
	while (i <= L) {
		ch = substr(line, i, 1)
		two = substr(line, i, 2)
		if (inbody && sp == hdsp) {
			# Unquoted heredoc text: only $( ) and ` ` run commands.
			if (ch == "\\") { i += 2; continue }
			if (two == "$(" && substr(line, i, 3) != "$((") { push(""); expect = 1; i += 2; continue }
			if (ch == "`") { push("`"); expect = 1; i++; continue }
			i++
			continue
		}
		if (inq == "" && substr(line, i, 3) == "<<<") {
			endword(); i += 3; continue	# a here-string: a word, no heredoc
		}
		if (inq == "" && two == "<<") {
			# A heredoc: its WORD, queued; its text starts on the next line.
			endword()
			i += 2
			strip = substr(line, i, 1) == "-"
			if (strip) i++
			while (substr(line, i, 1) ~ /[ \t]/) i++
			q = substr(line, i, 1)
			if (q == "'" || q == "\"") {
				k = index(substr(line, i + 1), q)
				hw = k ? substr(line, i + 1, k - 1) : substr(line, i + 1)
				i += k ? k + 1 : L
			} else {
				match(substr(line, i), /^[^ \t;&|<>()]+/)
				hw = substr(line, i, RLENGTH); i += RLENGTH
				q = index(hw, "\\") ? "\\" : ""
				gsub(/\\/, "", hw)
			}
			nhd++; hd[nhd] = hw; hstrip[nhd] = strip; hquoted[nhd] = q != ""
			hdsp = sp
			continue
		}
		if (inq == "'") {
			if (ch == "'")
				inq = ""
			i++
			continue
		}
		if (inq == "\"") {
			if (ch == "\\") { i += 2; continue }
			if (ch == "\"") { inq = ""; i++; continue }
			if (two == "$(") { push("\""); inq = ""; expect = 1; i += 2; continue }
			if (ch == "`") { push("\"`"); inq = ""; expect = 1; i++; continue }
			i++
			continue
		}
		if (ch == "\\") {
			if (!inword) { inword = 1; cur = "" }
			cur = cur substr(line, i, 2)
			i += 2
			continue
		}
		if ((ch == "'" || ch == "\"") && !inword && expect) {
			# A quoted command name: printed as it is (not allowed).
			inword = 1; cur = ch
		}
		if (ch == "'" || ch == "\"") {
			inq = ch
			if (inword) cur = cur ch
			i++
			continue
		}
		if (ch == "#" && !inword) break
		if (substr(line, i, 3) == "$((") {
			# Arithmetic: no command in it.
			k = index(substr(line, i + 3), "))")
			if (!inword) { inword = 1; cur = "" }
			cur = cur (k ? substr(line, i, k + 4) : substr(line, i))
			i += k ? k + 4 : L
			continue
		}
		if (two == "$(" && substr(line, i, 3) != "$((") {
			endword(); push(""); expect = 1; i += 2; continue
		}
		if (ch == "`") {
			endword()
			if (sp > 0 && (stack[sp] == "`" || stack[sp] == "\"`")) {
				q = pop(); if (q == "\"`") inq = "\""
			} else {
				push("`"); expect = 1
			}
			i++
			continue
		}
		if (ch == ")") {
			endword()
			q = pop()
			if (q == "\"") inq = "\""
			i++
			continue
		}
		if (ch ~ /[<>]/ || two == "&>") {
			# A redirection (2>&1, >&2, &> FILE, < FILE, 3<>FILE): no
			# command, and neither is its target. A word of digits
			# right before it is its file descriptor.
			if (inword && cur ~ /^[0-9]+$/) inword = 0
			endword()
			if (ch == "&") i++
			while (substr(line, i, 1) ~ /[<>|]/) i++
			if (substr(line, i, 1) == "&") i++
			while (substr(line, i, 1) ~ /[ \t]/) i++
			q = substr(line, i, 1)
			if (q == "'" || q == "\"") {
				k = index(substr(line, i + 1), q)
				i += k ? k + 1 : L
			}
			while (i <= L && substr(line, i, 1) !~ /[ \t;&|()<>]/) i++
			continue
		}
		if (ch ~ /[;&|(]/) { endword(); expect = 1; i++; continue }
		if (ch ~ /[ \t]/) { endword(); i++; continue }
		if (!inword) { inword = 1; cur = "" }
		cur = cur ch
		i++
	}
	endword()
	if (inbody && sp == hdsp)
		expect = 0
	else if (line !~ /\\$/ && inq == "")
		expect = 1
}
