# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/lease/cluster.sh, with A, B and C running: the VM cases
# of the fleet review's findings (issue 17), each of which failed on
# 1.4.0's agent (LEASE_DIR=<a build of b251b5b>/lease). Their IDs go to
# the global check with every other case's. findings_report, after
# gaps.py, prints each case's numbers ("# finding ...") and checks what
# needs the whole record. Cases: want layout / stall / ahead / restore.

excuse=()	# check.py --excuse arguments: the restore case's window only
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
# two_held: both node IDs held (after the cases before).
two_held() { local i; for i in $(seq 60); do [ -n "$(holder 0)" ] && [ -n "$(holder 1)" ] && return 0; sleep 1; done; return 1; }
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
	check "stall: $G's agent restarted twice 1.5 s apart: node $g in force again" \
		'alog "$G" "node $g: in force" 30 "$(last_start "$G")"'
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
	check "ahead: $G claims node $g, its floor 20 s ahead of the wall clock" \
		'alog "$G" "node $g: in force" 30 "$(last_start "$G")"'
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
# the review found). 1.4.0: R's guard (create_revision == token) took
# W's claim for its own, both minted node n. Now R must notice (the
# revision went back, or the claim's value is not its own) and revoke,
# within its renewal round (TTL/3) + 2 s of W's first ID. The IDs R and W
# both issue in that window are counted, and excused in the global check
# (--excuse: node n, these two files, ID times from 15 s before the case
# to 15 s after it) and only there.
if want restore; then
	rn=$((1 - g))
	R=$(holder "$rn")
	W=$(waiter)
	mark restore
	rest_from=$(wall_ms)
	cmd "$W" term
	lr=$(lines "$R")
	cmd "$R" term
	alog "$R" "node $rn: released in etcd" 20 "$lr"
	rm -f "$out/go"
	tests/lease/faultproxy.py 23796 http://127.0.0.1:23791 "hold:/v3/kv/txn:$(printf %s /uidgen/vm/node | base64):$out/go" \
		> "$out/proxy-restore.log" 2>&1 &
	ppid_=$!
	sleep 0.5
	# timeout_ms=10000: the snapshot is saved before R's claim times
	# out and is sent again (3000 was too short at load 10: the retry
	# went through before the snapshot, which then held R's claim, and W
	# found no free ID); grant_window_ms=18000 is a renewal round (TTL/3 +
	# timeout_ms) or more, as the agent asks. ttl=20: R's kernel deadline
	# (19 s) outlasts its pause through the restore and W's claim (10.4 s
	# on a loaded host with TTL 10: its deadline passed first, and nothing
	# was left to notice).
	rttl=20
	cmd "$R" "startvia 23796 timeout_ms=10000 grant_window_ms=18000 ttl=$rttl"
	check "restore: $R's claim held at the proxy, after its lease grant" \
		'for i in $(seq 100); do grep -q "^hold" "$out/proxy-restore.log" && break; sleep 0.1; done; grep -q "^hold" "$out/proxy-restore.log"'
	# G must not write from the snapshot until W's claim (W's token
	# would not be R's). Paused before R's term instead, G's lease
	# expired before the snapshot on a loaded host (cmd round trips of
	# 2-7 s) and W claimed G's node ID.
	cmd "$G" stop
	check "restore: etcd snapshot saved" 'etcd_snapshot "$out/snap.db"'
	touch "$out/go"
	check "restore: $R claims node $rn (after the snapshot)" 'alog "$R" "node $rn: in force" 20 "$(last_start "$R")"'
	cmd "$R" stop
	# Writes after the snapshot, so that watch.py sees the store go back.
	ectl put /uidgen/vm/test-mark 1 > /dev/null
	r_tok=$(sed -n "s/.*node $rn: in force (token \([0-9]*\).*/\1/p" "$out/$R/agent.log" | tail -n 1)
	check "restore: etcd restored from that snapshot (every member)" 'etcd_restore "$out/snap.db"'
	lw=$(lines "$W")
	cmd "$W" restart
	check "restore: $W claims node $rn" 'alog "$W" "node $rn: in force" 20 "$lw"'
	w_tok=$(tail -n +$((lw + 1)) "$out/$W/agent.log" | sed -n "s/.*node $rn: in force (token \([0-9]*\).*/\1/p" | tail -n 1)
	echo "# restore: $R's token $r_tok, $W's token $w_tok"
	lr=$(lines "$R")
	cmd "$R" cont
	cmd "$G" cont
	check "restore: $R, continued, notices and exits 3 (etcd went back in time)" \
		'alog "$R" "uidgen-lease exited 3" 15 "$lr" && tail -n +$((lr + 1)) "$out/$R/agent.log" | grep -E "went back|another claim|not ours"'
	# (1.4.0: both mint; let that show in the IDs.)
	sleep 5
	kill "$ppid_"
	wait "$ppid_" 2> /dev/null
	ppid_=
	rest_r_ids=$(idsfile "$R")
	rest_w_ids=$(idsfile "$W")
	excuse=(--excuse "$rn" $((rest_from - 15000)) $(( $(wall_ms) + 15000 )) "$rest_r_ids" "$rest_w_ids")
	rest_ns=$(awk '$1 == "restore" { print $3 }' "$out/cases.txt")
	mark restore-end
	# As it was: a new agent on each (G's and R's, if they stopped, left
	# their claims to expire).
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
		echo "# finding 2 (restore): node $rn: $R's last ID ${rest_ov} ms after $W's first (host clock); $rest_rep IDs repeated between them (excused: $(sed -n 's/^RESULT excused_repeats //p' "$out/global.txt"))"
		check "restore: $R's last ID within its renewal round + 2 s ($((rttl * 1000 / 3 + 2000)) ms) of $W's first" \
			'[[ "$rest_ov" =~ ^-?[0-9]+$ ]] && [ "$rest_ov" -le $((rttl * 1000 / 3 + 2000)) ]'
	fi
}
