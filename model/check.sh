#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# model/check.sh: check the fleet protocol's Promela model (model/fleet.pml)
# exhaustively with spin, one run per configuration; kselftest-style TAP.
#
# "pass" runs (the new protocol) succeed when pan explores the whole
# bounded state space and finds no error. "cex" runs (today's protocol,
# and the new one's known limits) succeed only when pan finds the
# counterexample and writes a trail that violates the assertion the run
# names (cex_assert, below), whose events are printed: a model that stops
# finding them, or finds another error instead, fails, so the check
# cannot go quiet.
#
# Then the tie to the code: the model's kernel against the node rules'
# table (see tie() below).
#
# ONLY="NAME..." runs those runs alone (no tie). Needs spin and gcc. Each
# run takes seconds (the largest about 20 s and 1 GB); MEMLIM (MB,
# default 2048) bounds pan's memory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
memlim=${MEMLIM:-2048}

for tool in spin gcc; do
	if ! command -v "$tool" > /dev/null; then
		echo "TAP version 13"
		echo "1..0 # SKIP $tool not installed (tests/setup.sh installs it)"
		echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
		exit 4
	fi
done

# NAME EXPECT(pass|cex) WHAT FLAGS...
runs=(
	"today-restore cex finding_2:_a_restore_reissues_A's_token_to_W:_both_mint_node_0 -DTODAY -DCFG_RESTORE -DPAUSES=0"
	"today-loss cex finding_6:_a_lost_claim_answer:_two_node_IDs_on_one_lease -DTODAY -DCFG_LOSS"
	"today-two-agents cex finding_5:_a_second_agent_on_the_device_frees_the_first's_claim:_node_in_force_twice -DTODAY -DCFG_TWO -DINFORCE_CHECK"
	"today-clone cex finding_4:_the_clone's_agent_revokes_the_original's_lease:_node_in_force_twice -DTODAY -DCFG_CLONE -DINFORCE_CHECK"
	"today-stall cex finding_3:_the_successor's_ID_clock_runs_past_its_grants -DTODAY -DCFG_LIVE"
	"today-stall-grant cex finding_3:_the_successor_is_blocked_at_its_grant_round_after_round -DTODAY -DCFG_LIVE -DNOBOUND -DHANDOVERS=1"
	"today-ratchet cex finding_3:_grants_following_the_ID_clock_ratchet_it_ahead -DTODAY -DRATCHET -DCFG_LIVE"
	"new-loss pass lost_answers:_no_repeat,_no_leak -DCFG_LOSS"
	"new-two-agents pass second_agent_(P7),_SIGKILL_and_adoption:_no_repeat,_never_in_force_twice -DCFG_TWO -DINFORCE_CHECK"
	"new-clone pass VM_clone_(no_claim_in_flight),_restart_of_the_copy:_no_repeat,_never_in_force_twice -DCFG_CLONE -DINFORCE_CHECK"
	"new-live pass no_faults,_hand-overs:_never_blocked_at_the_grant,_ID_clock_within_E -DCFG_LIVE"
	"new-restore-oprule pass restore_with_every_agent_stopped_(SIGTERM_or_hand-over),_started_at_once_after_it:_no_repeat,_never_in_force_twice -DCFG_RESTORE -DOPRULE -DINFORCE_CHECK"
	"new-restore pass restore_with_agents_running,_a_pause_(P9:_a_fresh_claim_waits_W+2E_past_its_claim,_within_its_keepalives'_deadlines):_no_repeat,_never_in_force_twice -DCFG_RESTORE -DINFORCE_CHECK -DNOSTOP"
	"new-restore-stop pass restore_with_agents_running,_a_SIGTERM_(adopted)_or_hand-over_(released)_and_restart:_no_repeat,_never_in_force_twice -DCFG_RESTORE -DINFORCE_CHECK -DPAUSES=0"
	"new-restore-nowait cex without_P9:_a_restore_with_agents_running_repeats_until_A's_next_guarded_write -DCFG_RESTORE -DNOWAIT -DPAUSES=0"
	"new-restore-short cex P9_waiting_W+2E-1:_the_unknown_holder's_last_grant_tick_repeats_(2E_is_needed) -DCFG_RESTORE -DNOSTOP -DPWAIT=5"
	"new-restore-nochain cex P9_without_the_deadline_check_in_the_wait:_a_claim_paused_past_its_lease,_brought_back_by_the_restore,_repeats -DCFG_RESTORE -DNOSTOP -DNOCHAIN"
	"new-restore-kagap cex P9_taking_the_wait's_keepalive_though_sent_past_the_deadline_checked_a_step_before_it:_a_claim_paused_between_them,_brought_back_by_the_restore,_repeats -DCFG_RESTORE -DNOSTOP -DNOKACHECK"
	"new-restore-fastpath cex P9_skipped_for_the_machine_that_held_the_ID_last:_a_restore_to_just_after_its_release_repeats -DCFG_RESTORE -DFASTPATH -DPAUSES=0"
	"today-clone-inflight cex model_finding:_a_VM_clone_between_claim_and_install_issues_the_claim_twice -DTODAY -DCFG_CLONE -DCLONE_INFLIGHT"
	"new-clone-inflight pass VM_clone_at_any_point_(P8:_the_fence_read_before_the_claim):_no_repeat,_never_in_force_twice -DCFG_CLONE -DCLONE_INFLIGHT -DINFORCE_CHECK"
)

# The assertion each cex run must violate (spin's "text of failed
# assertion", macros expanded), as a label and an extended regex: a trail
# of another error (a bound of the model, another property) is a failure.
declare -A assert_label=(
	[repeat]='REPEAT: a (node, tick) issued by two kernels'
	[leak]='LEAK: one lease holding two node IDs'
	[inforce]='INFORCE: one node ID in force in two kernels'
	[grant]='never blocked at the grant before the next round'
	[clock]='the ID clock within E of the true time'
)
declare -A assert_re=(
	[repeat]='iss\['
	[leak]='nk_lease\[0\]'
	[inforce]='k_node\[0\]==k_node\[1\]'
	[grant]='k_grant\['
	[clock]='<=\(now\+1\)'
)
declare -A cex_assert=(
	[today-restore]=repeat
	[today-loss]=leak
	[today-two-agents]=inforce
	[today-clone]=inforce
	[today-stall]=clock
	[today-stall-grant]=grant
	[today-ratchet]=clock
	[new-restore-nowait]=repeat
	[new-restore-short]=repeat
	[new-restore-nochain]=repeat
	[new-restore-kagap]=repeat
	[new-restore-fastpath]=repeat
	[today-clone-inflight]=repeat
)

# ONLY="NAME..." runs just those (while working on the model).
if [ -n "${ONLY:-}" ]; then
	sel=()
	for r in "${runs[@]}"; do
		case " $ONLY " in *" ${r%% *} "*) sel+=("$r") ;; esac
	done
	runs=("${sel[@]}")
fi
echo "TAP version 13"
if [ -z "${ONLY:-}" ]; then
	echo "1..$(( ${#runs[@]} + 2 ))"
else
	echo "1..${#runs[@]}"
fi
pass=0
fail=0
nr=0
for r in "${runs[@]}"; do
	set -- $r
	name=$1
	expect=$2
	what=${3//_/ }
	shift 3
	nr=$((nr + 1))
	d=$work/$name
	mkdir -p "$d"
	cp "$here/fleet.pml" "$d/"
	ok=0
	if ! (cd "$d" && spin -a "$@" fleet.pml > spin.out 2>&1 &&
	      gcc -O0 -w -DSAFETY -DCOLLAPSE -DMEMLIM="$memlim" -o pan pan.c > gcc.out 2>&1); then
		sed 's/^/# /' "$d/spin.out" "$d/gcc.out" 2>/dev/null | head -n 20
		echo "not ok $nr - $name: $what (does not build)"
		fail=$((fail + 1))
		continue
	fi
	t0=$(date +%s.%N)
	(cd "$d" && timeout 600 ./pan -E -m200000 -w24 > pan.out 2>&1)
	t1=$(date +%s.%N)
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$d/pan.out" | tail -n 1)
	states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$d/pan.out" | tail -n 1)
	secs=$(echo "$t1 - $t0" | bc)
	incomplete=0
	grep -q "Search not completed" "$d/pan.out" && incomplete=1
	grep -q "max search depth too small" "$d/pan.out" && incomplete=1
	echo "# $name ($*): ${states:-?} states, ${secs} s, errors ${errors:-?}"
	case $expect in
	pass)
		if [ "${errors:-1}" = 0 ] && [ "$incomplete" = 0 ]; then
			ok=1
		else
			grep -E "pan:|assert|Search not completed|out of memory" "$d/pan.out" |
				head -n 5 | sed 's/^/#   /'
			if [ -f "$d/fleet.pml.trail" ]; then
				(cd "$d" && spin -t "$@" fleet.pml 2>&1) |
					sed -n 's/^ *\(t[0-9].*\)/#   \1/p; s/^spin: \(.*\)/#   \1/p' | head -n 40
			fi
		fi
		;;
	cex)
		kind=${cex_assert[$name]:-}
		failed=
		[ ! -f "$d/fleet.pml.trail" ] ||
			failed=$(cd "$d" && spin -t "$@" fleet.pml 2>&1 | sed -n 's/^spin: text of failed assertion: //p' | head -n 1)
		if [ -z "$kind" ]; then
			echo "#   no assertion named for this cex run (cex_assert)"
		elif [ "${errors:-0}" != 0 ] && [ -n "$failed" ] && ! echo "$failed" | grep -Eq "${assert_re[$kind]}"; then
			echo "#   the trail violates another assertion than ${assert_label[$kind]}: $failed"
		elif [ "${errors:-0}" != 0 ] && [ -n "$failed" ]; then
			ok=1
			echo "#   violates ${assert_label[$kind]}: $failed"
			grep -E "^pan:1:" "$d/pan.out" | head -n 1 | sed 's/^/#   /'
			(cd "$d" && spin -t "$@" fleet.pml 2>&1) |
				sed -n 's/^ *\(t[0-9].*\)/#   \1/p; s/^spin: \(text of failed.*\)/#   \1/p' |
				grep -v " issues node " | head -n 30
			(cd "$d" && spin -t "$@" fleet.pml 2>&1) |
				sed -n 's/^ *\(t[0-9].* issues node .*\)/\1/p' | tail -n 3 | sed 's/^/#   ... /'
		elif [ "${errors:-0}" = 0 ] || [ ! -f "$d/fleet.pml.trail" ]; then
			echo "#   expected a counterexample, pan found none"
		else
			echo "#   a trail, but no failed assertion in it (an invalid end state, a bound?)"
		fi
		;;
	esac
	if [ "$ok" = 1 ]; then
		echo "ok $nr - $name: $what"
		pass=$((pass + 1))
	else
		echo "not ok $nr - $name: $what"
		fail=$((fail + 1))
	fi
done

# The tie between the model's kernel and the code's node rules: every row
# of module/tests/noderules_cases.h that the lease agent's requests can
# produce, run through kassign()/krenew()/krevoke() (lease/tests/modeltie
# writes them as Promela). It must hold for the new model and fail for
# today's (1.4.0's kernel took an equal token): a tie that cannot fail
# ties nothing.
tie() {
	local name=$1 want=$2 what=$3 out
	shift 3
	nr=$((nr + 1))
	out=$(cd "$work/tie" && spin -DRULES_TIE "$@" fleet.pml 2>&1)
	tied=$(echo "$out" | sed -n 's/.*tie: \([0-9]*\) rows tied, \([0-9]*\) left out.*/\1 tied, \2 left out/p')
	echo "# $name ($*): ${tied:-no rows}"
	echo "$out" | grep -E "assertion violated|Error" | head -n 2 | sed 's/^/#   /'
	if { [ "$want" = pass ] && [ -n "$tied" ] && ! echo "$out" | grep -q "assertion violated"; } ||
	   { [ "$want" = fail ] && echo "$out" | grep -q "assertion violated"; }; then
		echo "ok $nr - $name: $what"
		pass=$((pass + 1))
	else
		echo "not ok $nr - $name: $what"
		fail=$((fail + 1))
	fi
}
if [ -z "${ONLY:-}" ]; then
	mkdir -p "$work/tie"
	cp "$here/fleet.pml" "$work/tie/"
	if make -s -C "$here/../lease" tests/modeltie > "$work/tie/make.out" 2>&1 &&
	   "$here/../lease/tests/modeltie" > "$work/tie/rules_tie.pml"; then
		tie rules-tie pass "the model's kernel agrees with module/noderules.c's table"
		tie rules-tie-today fail "today's model's kernel disagrees with it (an equal token)" -DTODAY
	else
		sed 's/^/# /' "$work/tie/make.out"
		nr=$((nr + 1)); fail=$((fail + 1)); echo "not ok $nr - rules-tie: lease/tests/modeltie does not build"
	fi
fi
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:0 error:0"
[ "$fail" = 0 ]
