# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/lease/cluster.sh, with A, B and C running: the VM cases
# of the fleet review's findings (issue 17), each of which failed on
# 1.4.0's agent (LEASE_DIR=<a build of b251b5b>/lease). Their IDs go to
# the global check with every other case's. findings_report, after
# gaps.py, prints each case's numbers ("# finding ...") and checks what
# needs the whole record. Cases: want layout / stall / ahead / restore.

# waiter: a machine that holds no node ID; last_start M: the line of M's
# agent log before its last start (for alog).
waiter() { local m; for m in A B C; do [ -n "$(node_of "$m")" ] || { echo "$m"; return; }; done; }
last_start() { grep -n '^== agent start' "$out/$1/agent.log" | tail -n 1 | cut -d: -f1 | awk '{ print $1 - 1 }'; }
idsfile() { echo "$out/$1/$(cat "$out/$1/idsfile")"; }
# sample M SECS TAG: blocked.py in M for SECS; its RESULTs as $s_KEY.
sample() {
	local k v
	cmd "$1" "sample $2 $3"
	while read -r _ k v; do printf -v "s_$k" '%s' "$v"; done < <(grep '^RESULT' "$out/$1/sample-$3.txt")
}
# two_held: both node IDs held (after the cases before), each in force
# in its holder's kernel (past its claim wait).
two_held() {
	local i h0 h1
	for i in $(seq 60); do
		h0=$(holder 0)
		h1=$(holder 1)
		[ -n "$h0" ] && [ -n "$h1" ] && settled "$h0" && settled "$h1" && return 0
		sleep 1
	done
	return 1
}
# The machine with the host's clock for the clock cases: A, or B if A
# was the one that crashed and came back 5 s behind.
G=A
[ "${crashed:-}" != A ] || G=B
two_held

# 1. Layouts disagree: J, its module reloaded with epoch_ms 12 s later,
# joins after H released node 0. Nobody may claim with another layout:
# the same bits would be other IDs (1.4.0 claimed, and J's IDs repeated
# H's last 12 s).
if want layout; then
	mark layout
	H=$(holder 0)
	J=$(waiter)
	cmd "$J" term
	cmd "$J" "reload epoch_ms=1767225612000"
	lay_ids=$(idsfile "$J")
	lh=$(lines "$H")
	cmd "$H" term
	check "layout: $H releases node 0" 'alog "$H" "node 0: released in etcd" 20 "$lh"'
	lj=$(lines "$J")
	cmd "$J" restart
	check "layout: $J, epoch_ms 12 s later, refused (exit 1), saying what differs" \
		'alog "$J" "uidgen-lease exited 1" 30 "$lj" &&
		 tail -n +$((lj + 1)) "$out/$J/agent.log" | grep -q "here epoch_ms=1767225612000, in etcd epoch_ms=1767225600000"'
	check "layout: and $J issued nothing" \
		'! tail -n +$((lj + 1)) "$out/$J/agent.log" | grep -q "in force" && [ ! -s "$lay_ids" ]'
	# As it was: J back to the cluster's layout, H takes node 0 back.
	cmd "$J" term
	cmd "$J" reload
	lh=$(lines "$H")
	cmd "$H" restart
	check "layout: $H takes node 0 again, $J (the cluster's layout again) waits" \
		'alog "$H" "node 0: in force" 30 "$lh" && { lj=$(lines "$J"); cmd "$J" restart; alog "$J" "all 2 node IDs are held" 30 "$lj"; }'
	two_held
fi

# 3. Restarts: G's agent restarted twice 1.5 s apart, as systemctl
# restart does it (SIGTERM, its exit, start). Over the next 30 s callers
# must not wait at the grant, and the ID clock must stay within a grant
# window (6666 ms at TTL 10) of the wall clock (1.4.0: floor = the last
# grant, so each restart put the ID clock a window further ahead and the
# grants, from the wall clock, trailed it).
if want stall || want ahead || want restore; then
	if [ -z "$(node_of "$G")" ]; then
		# G waits: the holder of node 0 hands it to G.
		X=$(holder 0)
		lg=$(lines "$G")
		cmd "$X" term
		alog "$G" "in force" 30 "$lg"
		cmd "$X" restart
	fi
	g=$(node_of "$G")
	W=$(waiter)
fi
if want stall; then
	mark stall
	# W would take G's node ID between a stop and a start.
	cmd "$W" term
	cmd "$G" restart2
	# (SIGTERM leaves the node in force: each start adopts it.)
	check "stall: $G's agent restarted twice 1.5 s apart: node $g adopted (or in force) again" \
		'alog "$G" "node $g: (adopted from the previous run|in force)" 30 "$(last_start "$G")"'
	sample "$G" 30 stall
	stall_win=$s_window_ns
	echo "# finding 3 (restarts): over 30 s, blocked at the grant ${s_blocked_pct}% of ${s_samples} samples, grant_waits +${s_grant_waits}, grant lead min ${s_lead_min_ms} ms, ID clock offset max ${s_offset_max_ms} ms (last ${s_offset_last_ms})"
	check "stall: callers blocked at most 5% of the 30 s after, the ID clock at most a grant window (6666 ms) ahead" \
		'echo "blocked $s_blocked_pct% offset max $s_offset_max_ms ms"; [ "$s_samples" -gt 100 ] &&
		 awk -v b="$s_blocked_pct" "BEGIN { exit !(b <= 5) }" && [ "$s_offset_max_ms" -le 6666 ]'
	want ahead || cmd "$W" restart
fi

# 3'. A floor 20 s ahead of the wall clock (left by a holder whose clock
# was ahead): G's ID clock starts there, and its grants must follow that
# clock (1.4.0: grants from the wall clock, 13.7 s behind the ID clock:
# every caller waited).
if want ahead; then
	mark ahead
	want stall || cmd "$W" term
	lg=$(lines "$G")
	cmd "$G" term
	check "ahead: $G releases node $g" 'alog "$G" "node $g: released in etcd" 20 "$lg"'
	ectl put "/uidgen/vm/floor/$g" $(( $(wall_ms) + 20000 )) > /dev/null
	cmd "$G" restart
	# (Its claim wait lasts until its clock passes the floor: 20 s.)
	check "ahead: $G claims node $g, its floor 20 s ahead of the wall clock" \
		'alog "$G" "node $g: in force" 60 "$(last_start "$G")"'
	sample "$G" 10 ahead
	echo "# finding 3 (floor 20 s ahead): over 10 s, blocked at the grant ${s_blocked_pct}% of ${s_samples} samples, grant_waits +${s_grant_waits}, grant lead min ${s_lead_min_ms} ms (last ${s_lead_last_ms}), ID clock offset ${s_offset_last_ms} ms"
	check "ahead: the grants follow the ID clock: callers blocked at most 5% of 10 s" \
		'echo "blocked $s_blocked_pct% lead min $s_lead_min_ms ms"; [ "$s_samples" -gt 50 ] &&
		 awk -v b="$s_blocked_pct" "BEGIN { exit !(b <= 5) }"'
	cmd "$W" restart
fi

# 2. etcd restored from a snapshot taken between R's lease grant and its
# claim (R's claim txn held in a faultproxy.py until the snapshot is
# saved); R and G paused through the restore so that W's claim is the
# first write after it and gets R's create_revision as its token (what
# the review found; 1.4.0 and 2.0's agent before the claim wait repeated
# IDs here: 1,968 on record, excused). R is continued as soon as W's
# claim is in etcd: its kernel may still issue up to its last grant
# while W waits (grant_window_ms + 2 x clock_error_ms past its claim)
# before its first grant. Property: no ID of R's repeats W's, no excuse.
# Every machine runs the suite's grant_window_ms (the default, 6666 at
# TTL 10) and clock_error_ms (500): the wait covers a holder whose
# settings are no larger, and the agent refuses others.
if want restore; then
	rn=$((1 - g))
	R=$(holder "$rn")
	W=$(waiter)
	mark restore
	cmd "$W" term
	lr=$(lines "$R")
	cmd "$R" term
	alog "$R" "node $rn: released in etcd" 20 "$lr"
	rm -f "$out/go"
	tests/lease/faultproxy.py 23796 http://127.0.0.1:23791 "hold:/v3/kv/txn:$(printf %s /uidgen/vm/node | base64):$out/go" \
		> "$out/proxy-restore.log" 2>&1 &
	ppid_=$!
	sleep 0.5
	# timeout_ms=3000: R's claim is held at the proxy through one
	# etcdctl snapshot (G is paused after it, not before), and a renewal
	# round (TTL/3 + 3000 ms) still fits in the suite's grant window.
	cmd "$R" "startvia 23796 timeout_ms=3000"
	check "restore: $R's claim held at the proxy, after its lease grant" \
		'for i in $(seq 100); do grep -q "^hold" "$out/proxy-restore.log" && break; sleep 0.1; done; grep -q "^hold" "$out/proxy-restore.log"'
	check "restore: etcd snapshot saved" 'etcd_snapshot "$out/snap.db"'
	touch "$out/go"
	check "restore: $R claims node $rn (after the snapshot), waits and puts it in force" \
		'alog "$R" "node $rn: in force" 30 "$(last_start "$R")"'
	# R paused at once (its kernel holds a grant up to a window ahead),
	# then G: no write from G between the restore and W's claim.
	cmd "$R" stop
	cmd "$G" stop
	# Writes after the snapshot, so that watch.py sees the store go back.
	ectl put /uidgen/vm/test-mark 1 > /dev/null
	r_tok=$(sed -n "s/.*node $rn: in force (token \([0-9]*\).*/\1/p" "$out/$R/agent.log" | tail -n 1)
	check "restore: etcd restored from that snapshot (every member)" 'etcd_restore "$out/snap.db"'
	lw=$(lines "$W")
	cmd "$W" restart
	check "restore: $W claims node $rn and waits before opening it" \
		'alog "$W" "node $rn: waiting [0-9.]+ s before opening" 20 "$lw"'
	lr=$(lines "$R")
	cmd "$R" cont
	cmd "$G" cont
	check "restore: $W puts node $rn in force after its claim wait" 'alog "$W" "node $rn: in force" 30 "$lw"'
	w_tok=$(tail -n +$((lw + 1)) "$out/$W/agent.log" | sed -n "s/.*node $rn: in force (token \([0-9]*\).*/\1/p" | tail -n 1)
	echo "# restore: $R's token $r_tok, $W's token $w_tok"
	check "restore: $R, continued, stops issuing under node $rn (etcd went back in time, or its deadline passed)" \
		'alog "$R" "went back|not ours|another claim|deadline passed|no longer in force" 30 "$lr"'
	sleep 5
	kill "$ppid_"
	wait "$ppid_" 2> /dev/null
	ppid_=
	rest_r_ids=$(idsfile "$R")
	rest_w_ids=$(idsfile "$W")
	rest_ns=$(awk '$1 == "restore" { print $3 }' "$out/cases.txt")
	mark restore-end
	# As it was: a new agent on each (R's exited or left its claim to
	# expire; G's was paused).
	cmd "$R" restart
	cmd "$G" restart
	two_held
fi

findings_report() {
	if want layout; then
		lay_rep=$(awk -v f="$J/$(basename "$lay_ids")" '$2 == "repeats_pair" && ($3 == f || $4 == f) { s += $5 } END { print s + 0 }' "$out/global.txt")
		echo "# finding 1 (layouts): $J's IDs (epoch_ms 12 s later): $(grep -c . "$lay_ids") issued, $lay_rep repeated IDs of others"
		check "layout: none of $J's IDs repeats another machine's" '[ "$lay_rep" = 0 ] && [ ! -s "$lay_ids" ]'
	fi
	if want stall; then
		# The reader's own view of the stall's 30 s: its waits longer
		# than 200 ms in that window (gaps.txt, guest clock).
		stall_rd=$(awk -v s="${stall_win% *}" -v e="${stall_win#* }" '
			$1 == "gap" { a = $2; b = $2 + $3 * 1000000; if (a < s) a = s; if (b > e) b = e; if (b > a) t += b - a }
			END { printf "%.1f", 100 * t / (e - s) }' "$out/$G/gaps.txt")
		echo "# finding 3 (restarts): the reader on $G waited (> 200 ms at a time) ${stall_rd}% of those 30 s"
	fi
	if want restore; then
		# On the host's clock (gaps.py): W's first ID under node n
		# after the restore, R's last.
		w_first=$(awk -v n="$rn" -v m="$W" -v t="$rest_ns" '$2 == "tenure" && $3 == n && $4 == m && $5 > t { print $5; exit }' "$out/gaps.txt")
		r_last=$(awk -v n="$rn" -v m="$R" -v w="${w_first:-0}" '$2 == "tenure" && $3 == n && $4 == m && $5 < w { l = $6 } END { print l }' "$out/gaps.txt")
		rest_rep=$(awk -v a="$R/$(basename "$rest_r_ids")" -v b="$W/$(basename "$rest_w_ids")" \
			'$2 == "repeats_pair" && (($3 == a && $4 == b) || ($3 == b && $4 == a)) { s += $5 } END { print s + 0 }' "$out/global.txt")
		if [ -n "$w_first" ] && [ -n "$r_last" ] && [ "$r_last" != - ]; then
			rest_ov=$(( (r_last - w_first) / 1000000 ))
		else
			rest_ov="? (W first $w_first, R last $r_last)"
		fi
		echo "# finding 2 (restore): node $rn: $R's last ID ${rest_ov} ms after $W's first (host clock; negative: before); $rest_rep IDs repeated between them (no excuse)"
		check "restore: none of $R's IDs repeats $W's ($rest_rep)" '[ "$rest_rep" = 0 ]'
	fi
}
