/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fleet.pml - the fleet protocol (uidgen-lease + etcd + the kernel's node
 * rules) as a Promela model, checked exhaustively by spin (model/check.sh).
 *
 * What it owns: the protocol, nothing else. One etcd (a single
 * linearizable store), up to three kernels on up to three machines, up to
 * three agents, one or two node IDs, discrete time.
 *
 * Two protocols, chosen at compile time:
 *   spin -DTODAY ...   what lease/agent.c and module/node.c do today
 *   (default)          the NEW protocol of issue 17 (P1..P7 below)
 * and one scenario (CFG_*), which fixes the agents, the kernels and the
 * faults that may happen (each at any moment, within a small budget):
 *   CFG_RESTORE  etcd snapshot taken at any time, restored at any later
 *                time (revision, keys and the snapshot's leases come back,
 *                leases keep their IDs); 2 agents on 2 machines, 1 node ID.
 *                New protocol: the machines' clocks 2E apart (machine 0
 *                E ahead, machine 1 E behind: the pair P9's bound is
 *                about), agent 0 may be paused (-DPAUSES=0: not), and,
 *                unless -DNOSTOP, one holder stopped (SIGTERM: left for
 *                adoption, or a hand-over) and restarted a tick later.
 *                With -DOPRULE: the operator rule: every agent is stopped
 *                (SIGTERM or hand-over) and every kernel idle before the
 *                restore, and none starts before RWAIT ticks after it
 *                (new protocol: 0, restarted at once).
 *   CFG_LOSS     one etcd answer lost after the operation applied (claim,
 *                grant, lease revoke, release); 2 agents, 2 node IDs.
 *   CFG_TWO      a second agent started on the first agent's device (and
 *                a SIGTERM of it, a SIGKILL of the first); 3 agents on 2
 *                machines, 1 node ID.
 *   CFG_CLONE    the first machine cloned (the copy's kernel revokes at
 *                once, its agent carries on with the original's lease,
 *                token, claim; same machine ID and boot ID; the copy runs
 *                at once or is started any time later), the copy's agent
 *                restarted once; 1 node ID. Cloned only while agent 0 has
 *                no claim in flight; -DCLONE_INFLIGHT: at any point.
 *   CFG_LIVE     no faults; agents prompt (time passes only when every
 *                agent waits); SIGTERM and restart of any agent any number
 *                of times (HANDOVERS, 3), restarted a tick later:
 *                hand-overs, each taking at least a tick (an ID tick is a
 *                ms; a hand-over takes etcd round trips). Checks that a
 *                holder is never
 *                blocked at its grant (after every renew the grant covers
 *                the kernel's ID clock plus a whole round) and that the ID
 *                clock never runs ahead of the true time by more than the
 *                clock error E. -DRATCHET: today's protocol with grants
 *                following the ID clock instead of the wall clock.
 *
 * Properties (asserts):
 *   REPEAT   no (node, tick) issued by two kernels (a clone is another
 *            kernel): the monitor picks one issued (node, tick) at the
 *            moment it is issued and asserts no other kernel issues it.
 *   INFORCE  (-DINFORCE_CHECK) no node ID in force, before its deadline, in two
 *            kernels at once: the deadline fence alone.
 *   LEAK     no etcd lease holding two node IDs.
 *   LIVE     see CFG_LIVE (asserts in HRENEW and the timer).
 *
 * What is abstracted:
 *   - Time passes only when nothing is due (see PROMPT): agents keep to
 *     their sleeps, etcd expires a lease as soon as it may; one agent may
 *     be paused once for any time (PAUSES: not in CFG_TWO, CFG_CLONE,
 *     CFG_LIVE, OPRULE, to keep the state space small).
 *   - Time: one global tick counter `now` (CLOCK_BOOTTIME of every
 *     machine, rates exact); deadlines and lease expiry in it. Each
 *     machine's wall clock (CLOCK_REALTIME) is now + skew, |skew| <= E,
 *     chosen at the start. An ID tick is a wall-clock tick; the kernel's
 *     ID clock is wall + anchor offset (uidgen_set_floor() moves the anchor
 *     forward, never back); max_borrow_ticks = 0 (the default).
 *   - Every etcd request is one atomic step (linearizable); its answer may
 *     be lost after it applied (CFG_LOSS). Revisions grow by one per write
 *     transaction and per lease revoke/expiry that deletes keys; lease
 *     grant and keepalive do not move it (as etcd). Lease IDs are reused
 *     only when nothing refers to them (etcd's are unique).
 *   - A lease expires at any time at or after last keepalive + TTL (etcd
 *     only ever expires later). The agent's deadline is that keepalive's
 *     time + TTL - 1 (agent_deadline(): rate and margin as one tick).
 *   - Minting: callers are always there: a kernel in force issues its
 *     current ID-clock tick at every step where it may (never past its
 *     grant or deadline: uidgen_reserve()); issued ticks are kept per
 *     kernel and node (iss[]).
 *   - The claim nonce is the claiming agent's number, and P1's guard also
 *     compares create_revision with the token: two claims compare equal
 *     only if one agent made both with one lease at one revision.
 *   - An agent is a state machine whose steps are the requests it makes;
 *     its sleeps are "may happen any time later". Retries after errors
 *     are collapsed into the next round.
 *
 * How it maps to the code (TODAY):
 *   agent ACQ step          acquire() + keep_lease() + lease_grant(), the
 *                           node/ listing, claim() path A (txn A) and path
 *                           B's claim txn
 *   agent CLAIMB step       claim()'s floor: persist_grant() of path B
 *   agent INST1/INST1KA     install(): keepalive_in_time() (the deadline
 *                           check, then the keepalive sent)
 *   agent INST2             install(): lease_dev_install()
 *                           -> uidgen_node_assign_locked()
 *   agent HOLD/HRENEW       hold(): dev_holds(), keepalive(),
 *                           persist_grant(), lease_dev_renew() ->
 *                           uidgen_node_renew()
 *   release()               release(): lease_dev_revoke() ->
 *                           uidgen_node_revoke(), etcd_lease_revoke()
 *   agent START             adopt(), drop_stale_claim(), last_held()
 *   kassign/krenew/krevoke  node.c: uidgen_node_assign_locked(),
 *                           uidgen_node_renew(), uidgen_node_revoke();
 *                           kexpire = uidgen_node_expired(); clone =
 *                           uidgen_node_vmfork() in the copy
 *
 * The NEW protocol (default):
 *   P1 grant writes and adoption guarded by the claim being exactly ours:
 *      node/<id>'s nonce (random, per claim) and lease equal to ours.
 *   P2 the kernel takes a new assignment only with token > max_token; an
 *      equal token only for the node with that token already in force.
 *   P3 the agent keeps the highest revision it has seen; an answer with a
 *      lower one: revoke in the kernel at once, stop for good.
 *   P4 grant = max(wall, kernel ID clock) + window, every round; on release
 *      after its own successful device revoke, one transaction guarded by
 *      P1 writes floor/<id> = the kernel's high water (the slots' last
 *      tick, which includes the floor it was given) and deletes node/<id>;
 *      then the lease is revoked.
 *   P5 a claim without an answer: the lease is abandoned (no second ID on
 *      it) and revoked at the next answer.
 *   P6 a device revoke that fails (ESTALE, whatever the reason): the etcd
 *      lease is left to expire, no floor written; drop_stale_claim() frees
 *      nothing.
 *   P7 one agent per device (flock): a second cannot start while one
 *      runs. Adoption after a restart: the agent's run file (node, token,
 *      lease, nonce) must match the kernel and node/<id> exactly.
 *   P8 the agent reads the device's fence generation before each claim;
 *      it installs the claim closed, and opens its grant only if the
 *      fence has not moved (a VM cloned between the claim and the install
 *      moved it in the copy's kernel); else it revokes it and leaves the
 *      lease and claim in etcd alone, as in P6.
 *   P9 a fresh claim (not an adoption) opens only above any grant a holder
 *      unknown to this store could still have (a restore dropped its
 *      claim): once the claim is answered, the agent reads its wall clock
 *      c and waits, keepalives going on, until its wall clock passes
 *      F = max(floor, c + W + 2E); only then does it persist its first
 *      grant (max(wall, ID clock) + W) and install (closed, then open, as
 *      P8). The unknown holder's last grant was written before the
 *      restore, so before the claim: at most its wall then + W (its ID
 *      clock never ahead of its wall: every install comes after the wait,
 *      with the wall past the floor) <= c + 2E + W. Installing after the
 *      wait keeps the kernel's ID clock on the wall clock (a floor in the
 *      past moves nothing). -DNOWAIT: without P9 (the limit it fixes);
 *      -DFASTPATH: P9 skipped when this machine held the ID last (unsafe:
 *      a restore to just after its release).
 *   SIGTERM (new) leaves the claim in etcd and the node in force in the
 *      kernel (it stops at its deadline): a restart adopts it (P7) and
 *      pays no P9 wait. A hand-over (release) is asked for explicitly
 *      (uidgen-lease --release); the successor's fresh claim waits (P9).
 */

/* ---- scenario ---- */
#if defined(CFG_LOSS)
#define NA 2
#define NK 2
#define N 2
#elif defined(CFG_TWO)
#define NA 3
#define NK 2
#define N 1
#elif defined(CFG_CLONE)
#define NA 3
#define NK 3
#define N 1
#elif defined(CFG_LIVE)
#define NA 2
#define NK 2
#define N 1
#else
#define CFG_RESTORE 1
#define NA 2
#define NK 2
#define N 1
#endif

#define NL 6		/* lease IDs 1..NL-1 */
#define E 1		/* clock error bound: |skew| <= E */
#define TTL 6		/* lease TTL */
#define R 2		/* keepalive round, TTL/3 */
#define W 4		/* grant window, 2/3 TTL */
#ifndef TMAX
#if !defined(TODAY) && !defined(NOWAIT) && defined(CFG_LIVE)
#define TMAX 20		/* P9: a fresh claim opens W + 2E + 1 after it */
#elif !defined(TODAY) && !defined(NOWAIT) && !defined(OPRULE) && defined(CFG_RESTORE)
#define TMAX 17
#elif defined(OPRULE) && !defined(TODAY) && !defined(NOWAIT)
#define TMAX (T0 + 4 + PWAIT + 4)	/* restarted at once, P9's wait, then mints */
#elif defined(OPRULE)
#define TMAX (T0 + 4 + RWAIT + 3)
#elif defined(CFG_LIVE)
#define TMAX 12
#elif defined(CFG_LOSS)
#define TMAX 9
#else
#define TMAX 10
#endif
#endif
#define T0 2		/* the first tick (walls >= 1) */
/* P9: F = max(floor, wall at the claim + PWAIT). CFG_LOSS, CFG_TWO and
 * CFG_CLONE check their faults with the wait at 0 (-DWAIT0: the claim
 * goes through CWAIT and its deadline check, and opens at once): the wait
 * only delays, and their horizons are too short for it; the restore runs
 * check the wait itself, CFG_LIVE its length. */
#if !defined(CFG_RESTORE) && !defined(CFG_LIVE) && !defined(PWAIT)
#define WAIT0 1
#endif
#ifndef PWAIT
#define PWAIT (W + 2 * E)
#endif
#ifndef RWAIT
#if defined(TODAY) || defined(NOWAIT)
#define RWAIT (2 * E + W + 1)	/* OPRULE: stopped longer than clock error + window */
#else
#define RWAIT 0		/* P9 waits instead of the operator */
#endif
#endif

#define ETIME 1
#define ESTALE 2
#define EBUSY 3
#define ENOTAV 4

/* agent states */
#define IDLE 0		/* not started */
#define START 1
#define ACQ 2
#define CLAIMB 3
#define INST1 4
#define INST2 5
#define HOLD 6
#define HRENEW 7
#define DOWN 8		/* stopped (SIGTERM), may be restarted */
#define DEAD 9
#define INST3 10	/* install()'s opening renew (P8) */
#define CWAIT 11	/* P9: a fresh claim waiting for its wall to pass F */
#define CWKA 12		/* P9: its keepalive, a step after the deadline check */
#define INST1KA 13	/* install()'s keepalive, a step after its deadline check */

byte now = T0;

/* ---- etcd ---- */
byte rev;
byte nk_lease[N];	/* node/<id>: 0 absent, else its lease */
byte nk_crev[N];	/* its create_revision: the token */
byte nk_mid[N];		/* claim value: machine ID, boot ID, nonce */
byte nk_bid[N];
byte nk_nonce[N];
bool fk_has[N];		/* floor/<id> */
byte fk_val[N];
bool ck_has[N];		/* claimed/<id> */
byte mrec[2];		/* machine/<machine-id>: node + 1, or 0 */
bool l_alive[NL];
byte l_exp[NL];

#ifdef CFG_RESTORE
byte snap;		/* 0 none, 1 taken, 2 restored */
byte s_rev;
byte s_nk_lease[N], s_nk_crev[N], s_nk_mid[N], s_nk_bid[N], s_nk_nonce[N];
bool s_fk_has[N];
byte s_fk_val[N];
bool s_ck_has[N];
byte s_mrec[2];
bool s_l_alive[NL];
byte resume;		/* OPRULE: no agent starts before */
#endif

/* ---- kernels ---- */
bool k_act[NK];		/* node in force (until k_dl) */
byte k_node[NK];
byte k_tok[NK];
byte k_maxtok[NK];
byte k_grant[NK];
byte k_dl[NK];
byte k_off[NK];		/* ID clock = wall + k_off (the anchor) */
byte k_hw[NK];		/* highest tick issued or floored (the slots' last) */
byte k_skew[NK];	/* wall = now + k_skew - E */
byte k_mid[NK];		/* machine ID, boot ID of its machine */
byte k_bid[NK];
byte lock[NK];		/* P7: agent + 1 holding the device */
byte rf_lease[NK], rf_nonce[NK], rf_tok[NK];	/* NEW: the agent's run file */
/* P8: the agent read the fence before its claim; kfence() since then on
 * its kernel (uidgen_node_fence(): every revoke, deadline and VM fork, a
 * node in force or not) sets it */
bool kf[NA];

#define WALLK(k) (now + k_skew[k] - E)
#define CLK(k) (WALLK(k) + k_off[k])
#define INFORCE(k) (k_act[k] && now < k_dl[k])

/* ---- agents ---- */
byte pc[NA];
byte ak[NA];		/* its kernel */
byte lease[NA];
byte stale[NA];		/* a lease to revoke at the next answer */
byte node[NA];
byte tok[NA];
byte nonce[NA];
bool anew[NA];		/* floor NEW */
byte afl[NA];
byte agr[NA];		/* grant persisted and in force */
byte adl[NA];		/* deadline */
byte next[NA];		/* next hold round */
byte pend[NA];		/* the grant of this round, for the renew */
byte retry[NA];
bool held[NA];
bool inst[NA];
byte maxrev[NA];	/* P3 */
byte tdown[NA];
bool paused[NA];
byte afen[NA];		/* P9: F, the wall clock the claim waits to pass */
#ifdef CFG_LIVE
byte tcl[NA];		/* the tick of the claim (P9's wait bound) */
#endif

/* ---- faults ---- */
#ifndef PAUSES
#if defined(CFG_LIVE) || defined(CFG_TWO) || defined(CFG_CLONE) || defined(OPRULE)
#define PAUSES 0
#else
#define PAUSES 1
#endif
#endif
#if defined(CFG_RESTORE) && !defined(TODAY) && !defined(OPRULE)
/* the restore runs: the agent on the machine whose clock is ahead (see
 * init), either role: the holder the restore forgets, or a claimer whose
 * claim the restore brings back (half the states) */
#define MAYPAUSE(x) (x == 0)
#else
#define MAYPAUSE(x) true	/* CFG_CLONE: the copy may start late instead */
#endif
byte npause;
byte loss;		/* answers that may still be lost */
byte nsigterm, nsigkill, nrestart, nclone;

/* ---- the monitor: ticks issued, bit t of iss[k * N + node] ---- */
#ifndef CFG_LIVE
int iss[NK * N];
#endif
#ifdef CFG_LIVE
byte trel[N];		/* tick of the node's last release */
#endif

/* scratch, not in the state (only ever used within one atomic step;
 * spelt h_* so as not to clash with pan.c's own C names) */
hidden byte h_r, h_n, h_g, h_c, h_l, h_i, h_t;
hidden byte h_fe, h_ok, h_lost, h_m;

#ifdef TODAY
#define BACK(a) false
#define SEEN(a) skip
#else
#define BACK(a) (rev < maxrev[a])
#define SEEN(a) maxrev[a] = rev
#endif

#ifdef CFG_LOSS
#define LOSE(x) if :: loss > 0 -> loss--; x = 1 :: true -> x = 0 fi
#else
#define LOSE(x) x = 0
#endif

/* ---- kernel (node.c) ---- */
inline kfence(k) {
	k_act[k] = 0;
	k_tok[k] = 0;
	k_grant[k] = 0;
	/* the fence generation moves: for every agent reading this kernel */
	if
	:: ak[0] == k -> kf[0] = 1
	:: else
	fi;
	if
	:: ak[1] == k -> kf[1] = 1
	:: else
	fi;
#if NA > 2
	if
	:: ak[2] == k -> kf[2] = 1
	:: else
	fi
#endif
}

inline kexpire(k) {
	if
	:: k_act[k] && now >= k_dl[k] -> kfence(k)
	:: else
	fi
}

/* uidgen_set_floor(): the ID clock reads floor + 1 now, slots past it */
inline kfloor(k, fl) {
	h_c = CLK(k);
	if
	:: h_c <= fl -> k_off[k] = k_off[k] + fl + 1 - h_c
	:: else
	fi;
	if
	:: fl > k_hw[k] -> k_hw[k] = fl
	:: else
	fi
}

inline kassign(k, nd, isnew, fl, gr, dl, tk) {
	h_r = 0;
	if
	:: dl <= now -> h_r = ETIME
	:: else ->
#ifdef TODAY
		if
		:: tk < k_maxtok[k] -> h_r = ESTALE
		:: else
		fi;
#else
		if
		:: tk < k_maxtok[k] || (tk == k_maxtok[k] &&
		   !(INFORCE(k) && k_node[k] == nd && k_tok[k] == tk)) -> h_r = ESTALE
		:: else
		fi;
#endif
		if
		:: h_r == 0 ->
			kexpire(k);
			if
			:: k_act[k] && k_node[k] != nd -> h_r = EBUSY
			:: else ->
				if
				:: !isnew -> kfloor(k, fl)
				:: else
				fi;
				k_tok[k] = tk;
				k_maxtok[k] = tk;
				if
				:: k_act[k] ->
					if
					:: gr > k_grant[k] -> k_grant[k] = gr
					:: else
					fi;
					k_dl[k] = dl
				:: else ->
					k_grant[k] = gr;
					k_dl[k] = dl;
					k_node[k] = nd;
					k_act[k] = 1
				fi
			fi
		:: else
		fi
	fi
}

/* dl 0: leave the deadline (install()'s opening renew) */
inline krenew(k, nd, gr, dl, tk) {
	if
	:: dl != 0 && dl <= now -> h_r = ETIME
	:: else ->
		kexpire(k);
		if
		:: !k_act[k] -> h_r = ENOTAV
		:: k_act[k] && (k_node[k] != nd || tk != k_tok[k]) -> h_r = ESTALE
		:: else ->
			h_r = 0;
			if
			:: gr > k_grant[k] -> k_grant[k] = gr
			:: else
			fi;
			if
			:: dl != 0 -> k_dl[k] = dl
			:: else
			fi
		fi
	fi
}

inline krevoke(k, tk) {
	kexpire(k);
	if
	:: tk != k_tok[k] -> h_r = ESTALE
	:: else -> h_r = 0; kfence(k)
	fi
}

/* The callers are always there: a kernel in force issues its current
 * tick whenever it may, at the end of every step that could let it
 * (install, renew, adopt, a tick passing). Issued sets are then the
 * largest the protocol allows; what the protocol reads of them is the
 * high water (P4), which includes the floor given. */
#define CANMINT(k) (INFORCE(k) && CLK(k) <= k_grant[k])

inline mint(k) {
	if
	:: CANMINT(k) ->
		h_t = CLK(k);
#ifndef CFG_LIVE
		assert(h_t < 32);
		for (h_i : 0 .. NK - 1) {
			/* REPEAT: no other kernel issued (node, tick) */
			assert(h_i == k || (iss[h_i * N + k_node[k]] & (1 << h_t)) == 0)
		}
		if
		:: (iss[k * N + k_node[k]] & (1 << h_t)) == 0 ->
			printf("t%d: kernel %d issues node %d tick %d\n", now, k, k_node[k], h_t)
		:: else
		fi;
		iss[k * N + k_node[k]] = iss[k * N + k_node[k]] | (1 << h_t);
#endif
#ifndef TODAY
		if
		:: h_t > k_hw[k] -> k_hw[k] = h_t	/* P4 reads it; TODAY nothing does */
		:: else
		fi;
#endif
		h_t = 0;
		h_i = 0
	:: else
	fi
}

inline issue() {
	mint(0);
	mint(1);
#if NK > 2
	mint(2);
#endif
}

/* ---- etcd ---- */
/* a key deleted: its fields too (fewer states) */
inline nkdel(x) {
	nk_lease[x] = 0;
	nk_crev[x] = 0;
	nk_mid[x] = 0;
	nk_bid[x] = 0;
	nk_nonce[x] = 0
}

inline ldelete(ll) {
	l_alive[ll] = 0;
	h_fe = 0;
	for (h_i : 0 .. N - 1) {
		if
		:: nk_lease[h_i] == ll -> nkdel(h_i); h_fe = 1
		:: else
		fi
	}
	if
	:: h_fe -> rev++
	:: else
	fi
}

/* a free lease ID: nothing refers to it (spin: no line may start with an
 * operator, hence these macros) */
#if NA > 2
#define LFREE_A(x) (lease[0] != x && lease[1] != x && lease[2] != x && \
	stale[0] != x && stale[1] != x && stale[2] != x)
#else
#define LFREE_A(x) (lease[0] != x && lease[1] != x && stale[0] != x && stale[1] != x)
#endif
#if NK > 2
#define LFREE_K(x) (rf_lease[0] != x && rf_lease[1] != x && rf_lease[2] != x)
#else
#define LFREE_K(x) (rf_lease[0] != x && rf_lease[1] != x)
#endif
#ifdef CFG_RESTORE
#define LFREE(x) (LFREE_A(x) && LFREE_K(x) && !s_l_alive[x])
#else
#define LFREE(x) (LFREE_A(x) && LFREE_K(x))
#endif
inline lalloc(res) {
	res = 0;
	for (h_i : 1 .. NL - 1) {
		if
		:: res == 0 && !l_alive[h_i] && LFREE(h_i) -> res = h_i
		:: else
		fi
	}
}

/* release(): the kernel first, then etcd */
inline release(a) {
	printf("t%d: agent %d releases (node %d, token %d, lease %d)\n", now, a, node[a], tok[a], lease[a]);
	h_fe = 1;
	if
	:: inst[a] ->
		krevoke(ak[a], tok[a]);
#ifdef TODAY
		if
		:: h_r == ESTALE && now >= adl[a] -> h_fe = 1;	/* "at its deadline" */
			printf("t%d: agent %d: device revoke ESTALE past its deadline: revokes lease %d in etcd\n", now, a, lease[a])
		:: h_r != 0 && !(h_r == ESTALE && now >= adl[a]) -> h_fe = 0
		:: h_r == 0 -> h_fe = 1
		fi;
#else
		h_ok = held[a] && lease[a] != 0 && nk_lease[node[a]] == lease[a] &&
		       nk_nonce[node[a]] == nonce[a] && nk_crev[node[a]] == tok[a] && !BACK(a);
		if
		:: h_r == 0 && h_ok ->
			/* P4: floor = high water, claim deleted, one txn */
			printf("t%d: agent %d: floor/%d = high water %d, node/%d deleted\n", now, a, node[a], k_hw[ak[a]], node[a]);
			rev++;
			fk_val[node[a]] = k_hw[ak[a]];
			nkdel(node[a]);
			SEEN(a)
		:: h_r == 0 && !h_ok -> skip
		:: else -> h_fe = 0;	/* P6 */
			printf("t%d: agent %d: device revoke ESTALE: lease left to expire\n", now, a)
		fi;
		rf_lease[ak[a]] = 0;
		rf_nonce[ak[a]] = 0;
		rf_tok[ak[a]] = 0;
#endif
#ifdef CFG_LIVE
		trel[node[a]] = now;
#endif
		inst[a] = 0
	:: else
	fi;
	if
	:: lease[a] != 0 && h_fe ->
		LOSE(h_lost);
		if
		:: l_alive[lease[a]] -> ldelete(lease[a])
		:: else
		fi;
		if
		:: h_lost -> stale[a] = lease[a]
		:: else
		fi
	:: else
	fi;
	lease[a] = 0;
	held[a] = 0
}

#ifdef TODAY
/* drop_stale_claim(): this machine's claim with this boot ID, not in the
 * device: revoke its lease */
inline drop_stale(a) {
	if
	:: mrec[k_mid[ak[a]]] != 0 ->
		h_n = mrec[k_mid[ak[a]]] - 1;
		kexpire(ak[a]);
		if
		:: k_act[ak[a]] && k_node[ak[a]] == h_n -> skip
		:: else ->
			if
			:: nk_lease[h_n] != 0 && nk_mid[h_n] == k_mid[ak[a]] &&
			   nk_bid[h_n] == k_bid[ak[a]] && l_alive[nk_lease[h_n]] ->
				ldelete(nk_lease[h_n])
			:: else
			fi
		fi
	:: else
	fi
}
#else
#define drop_stale(a) skip	/* P6 */
#endif

inline reset(a) {
	lease[a] = 0; stale[a] = 0; node[a] = 0; tok[a] = 0; nonce[a] = 0;
	anew[a] = 0; afl[a] = 0; agr[a] = 0; adl[a] = 0; next[a] = 0;
	retry[a] = 0; held[a] = 0; inst[a] = 0; maxrev[a] = 0; pend[a] = 0
}

inline unlock(a) {
#ifndef TODAY
	if
	:: lock[ak[a]] == a + 1 -> lock[ak[a]] = 0
	:: else
	fi
#else
	skip
#endif
}

/* P3: etcd went back in time */
inline p3stop(a) {
	printf("t%d: agent %d: etcd revision %d < %d seen: revoke, stop\n", now, a, rev, maxrev[a]);
	if
	:: inst[a] -> krevoke(ak[a], tok[a]); inst[a] = 0
	:: else
	fi;
	pc[a] = DEAD;
	unlock(a)
}

/*
 * An agent stopped from outside. TODAY: SIGTERM releases. New: SIGTERM
 * leaves the claim in etcd and the node in force in the kernel (until its
 * deadline) for the next start to adopt; an explicit hand-over
 * (--release) releases. Either may happen.
 */
inline stop(a) {
#ifdef TODAY
	release(a)
#else
	if
	:: release(a)
	:: printf("t%d: agent %d stops, leaves node %d (lease %d) for adoption\n", now, a, node[a], lease[a]);
		lease[a] = 0; held[a] = 0; inst[a] = 0
	fi
#endif
}

/* P9: a claim past its deadline before its install: the lease and claim
 * are left alone (this may be a VM's copy, and they the original's, as
 * P6 and P8), a new lease for the next claim */
inline lapse(a) {
	lease[a] = 0;
	held[a] = 0;
	retry[a] = now + 1;
	pc[a] = ACQ
}

/* a hold round or install that ends: release, sleep, claim again */
inline lose(a) {
	release(a);
	retry[a] = now + 1;
	pc[a] = ACQ
}

/*
 * P9: from the claim to the install, the claim holds only while every
 * keepalive came before the deadline of the one before (the agent's own
 * deadline fence, the kernel's not being set yet): a pause past it may
 * have let the lease expire and the ID be taken, and a restore may bring
 * the claim back. -DNOCHAIN: without it.
 */
#if defined(TODAY) || defined(NOWAIT) || defined(NOCHAIN)
#define LAPSED(a) false
#else
#define LAPSED(a) (now >= adl[a])
#endif

#ifdef TODAY
#define LOCKFREE(a) true
#else
#define LOCKFREE(a) (lock[ak[a]] == 0)
#endif
#ifdef CFG_LIVE
#define HANDED(x) (now > trel[x])	/* a hand-over takes a tick */
#else
#define HANDED(x) true
#endif

#ifndef RULES_TIE
proctype agent(byte a)
{
	do
	/* adopt(); drop_stale_claim() */
	:: atomic { !paused[a] && pc[a] == START && LOCKFREE(a) ->
#ifndef TODAY
		lock[ak[a]] = a + 1;
#endif
		kexpire(ak[a]);
		if
		:: !k_act[ak[a]] -> drop_stale(a); pc[a] = ACQ
		:: else ->
			h_n = k_node[ak[a]];
#ifdef TODAY
			if
			:: nk_lease[h_n] != 0 && nk_crev[h_n] == k_tok[ak[a]] &&
			   nk_mid[h_n] == k_mid[ak[a]] -> h_ok = 1
			:: else -> h_ok = 0
			fi;
#else
			if
			:: rf_lease[ak[a]] != 0 && rf_tok[ak[a]] == k_tok[ak[a]] &&
			   nk_lease[h_n] == rf_lease[ak[a]] && nk_nonce[h_n] == rf_nonce[ak[a]] &&
			   nk_crev[h_n] == k_tok[ak[a]] -> h_ok = 1
			:: else -> h_ok = 0
			fi;
#endif
			node[a] = h_n;
			tok[a] = k_tok[ak[a]];
			inst[a] = 1;
			if
			:: h_ok ->
				printf("t%d: agent %d adopts node %d (token %d, lease %d) in force in kernel %d\n",
				       now, a, h_n, k_tok[ak[a]], nk_lease[h_n], ak[a]);
				lease[a] = nk_lease[h_n];
				nonce[a] = nk_nonce[h_n];
				held[a] = 1;
				agr[a] = k_grant[ak[a]];
				if
				:: l_alive[lease[a]] ->
					l_exp[lease[a]] = now + TTL;
					adl[a] = now + TTL - 1;
					krenew(ak[a], h_n, 0, adl[a], tok[a]);
					if
					:: h_r == 0 -> next[a] = now + R; pc[a] = HOLD
					:: else -> release(a); drop_stale(a); pc[a] = ACQ
					fi
				:: else -> release(a); drop_stale(a); pc[a] = ACQ
				fi
			:: else ->
				held[a] = 0;
				lease[a] = 0;
				release(a);
				drop_stale(a);
				pc[a] = ACQ
			fi
		fi;
		SEEN(a);
		issue()
	}

	/* acquire(): keep_lease() / lease_grant() */
	:: atomic { !paused[a] && pc[a] == ACQ && (lease[a] == 0 || !l_alive[lease[a]]) ->
		if
		:: BACK(a) -> p3stop(a)
		:: else ->
			if
			:: stale[a] != 0 ->
				if
				:: l_alive[stale[a]] -> ldelete(stale[a])
				:: else
				fi;
				stale[a] = 0
			:: else
			fi;
			lalloc(h_l);
			if
			:: h_l != 0 ->
				lease[a] = h_l;
				l_alive[h_l] = 1;
				l_exp[h_l] = now + TTL
			:: else -> pc[a] = DEAD	/* out of lease IDs: the run ends */
			fi;
			SEEN(a)
		fi
	}

	/* acquire(): keepalive, the node/ listing, claim() */
	:: atomic { !paused[a] && pc[a] == ACQ && lease[a] != 0 && l_alive[lease[a]] && now >= retry[a] ->
		if
		:: BACK(a) -> p3stop(a)
		:: else ->
			l_exp[lease[a]] = now + TTL;
			h_n = 255;
			if
			:: nk_lease[0] == 0 && HANDED(0) -> h_n = 0
#if N > 1
			:: nk_lease[1] == 0 -> h_n = 1
#endif
			:: else
			fi;
			if
			:: h_n == 255 -> retry[a] = now + 1	/* all held: wait */
			:: h_n != 255 && nk_lease[h_n] == 0 && !fk_has[h_n] && ck_has[h_n] ->
				retry[a] = now + 1	/* ESTALE: refused */
			:: h_n != 255 && nk_lease[h_n] == 0 && (fk_has[h_n] || !ck_has[h_n]) ->
				/* P8: the fence read just before the claim */
				kf[a] = 0;
				/* the claim txn (path A or B) */
				h_m = mrec[k_mid[ak[a]]];	/* FASTPATH: the ID this machine held last */
				rev++;
				nk_lease[h_n] = lease[a];
				nk_crev[h_n] = rev;
				nk_mid[h_n] = k_mid[ak[a]];
				nk_bid[h_n] = k_bid[ak[a]];
				nk_nonce[h_n] = a + 1;
				mrec[k_mid[ak[a]]] = h_n + 1;
				if
				:: !fk_has[h_n] ->
					/* path A: first grant = now + window, NEW */
					h_g = WALLK(ak[a]) + W;
					fk_has[h_n] = 1;
					fk_val[h_n] = h_g;
					ck_has[h_n] = 1;
					anew[a] = 1;
					afl[a] = 0;
					agr[a] = h_g;
					h_t = INST1
				:: else ->
					anew[a] = 0;
					afl[a] = fk_val[h_n];
					ck_has[h_n] = 1;
					h_t = CLAIMB
				fi;
				LOSE(h_lost);
				if
				:: h_lost ->
					printf("t%d: agent %d: claim of node %d applied, answer lost\n", now, a, h_n);
#ifdef TODAY
					/* r = -errno: break, list again; the key
					 * is busy now: another ID next */
					skip;
#else
					/* P5: abandon the lease */
					stale[a] = lease[a];
					lease[a] = 0;
#endif
					retry[a] = now + 1
				:: else ->
					node[a] = h_n;
					tok[a] = rev;
					nonce[a] = a + 1;
					SEEN(a);
					printf("t%d: agent %d claims node %d: token %d, NEW %d, grant/floor %d, lease %d\n", now, a, h_n, rev,
					       anew[a], (anew[a] -> agr[a] : afl[a]), lease[a]);
#if defined(TODAY) || defined(NOWAIT)
					pc[a] = h_t
#else
					/* P9: F from the wall clock read after the answer */
					h_g = WALLK(ak[a]) + PWAIT;
					if
					:: !anew[a] && afl[a] > h_g -> h_g = afl[a]
					:: else
					fi;
					afen[a] = h_g;
#ifdef WAIT0
					afen[a] = 0;
#endif
					next[a] = now + R;
					adl[a] = now + TTL - 1;	/* the claim's keepalive */
#ifdef CFG_LIVE
					tcl[a] = now;
#endif
#ifdef FASTPATH
					if
					:: h_m == h_n + 1 ->
						printf("t%d: agent %d: node %d was this machine's: no wait (FASTPATH)\n", now, a, h_n);
						pc[a] = h_t
					:: else -> pc[a] = CWAIT
					fi
#else
					pc[a] = CWAIT
#endif
#endif
				fi
			fi
		fi
	}

#if !defined(TODAY) && !defined(NOWAIT)
	/* P9: the claim waits for its wall clock to pass F; keepalives go
	 * on every round (a lease lost meanwhile: claim again) */
	:: atomic { !paused[a] && pc[a] == CWAIT && (now >= next[a] || WALLK(ak[a]) > afen[a]) ->
		if
		:: BACK(a) -> p3stop(a)
		:: !BACK(a) && LAPSED(a) ->
			/* past the deadline of its last keepalive: the lease may
			 * have expired and the ID been taken meanwhile, even if
			 * etcd (restored) shows the claim: start over */
			printf("t%d: agent %d: claim wait past its deadline %d: claims again\n", now, a, adl[a]);
			lapse(a)
		:: !BACK(a) && !LAPSED(a) && WALLK(ak[a]) > afen[a] ->
			printf("t%d: agent %d: wall %d past F %d: opens its claim\n", now, a, WALLK(ak[a]), afen[a]);
			pc[a] = CLAIMB
		:: !BACK(a) && !LAPSED(a) && WALLK(ak[a]) <= afen[a] ->
			pc[a] = CWKA
		fi
	}
	/* its keepalive, sent after the check above: a pause may come
	 * between them (the code: a check, then keepalive(), which may also
	 * try the next endpoint late); a send at or past the deadline of the
	 * last one is a lapse (-DNOKACHECK: taken, as the agent before did) */
	:: atomic { !paused[a] && pc[a] == CWKA ->
		if
		:: BACK(a) -> p3stop(a)
#ifndef NOKACHECK
		:: !BACK(a) && LAPSED(a) ->
			printf("t%d: agent %d: claim wait's keepalive sent past its deadline %d: claims again\n", now, a, adl[a]);
			lapse(a)
		:: !BACK(a) && !LAPSED(a) && l_alive[lease[a]] ->
#else
		:: !BACK(a) && l_alive[lease[a]] ->
#endif
			l_exp[lease[a]] = now + TTL;
			adl[a] = now + TTL - 1;
			next[a] = now + R;
			SEEN(a);
			pc[a] = CWAIT
#ifndef NOKACHECK
		:: !BACK(a) && !LAPSED(a) && !l_alive[lease[a]] ->
#else
		:: !BACK(a) && !l_alive[lease[a]] ->
#endif
			SEEN(a); lose(a)
		fi
	}
#endif

	/* claim() path B (every fresh claim in the new protocol, after P9's
	 * wait): the first grant, persist_grant() */
	:: atomic { !paused[a] && pc[a] == CLAIMB ->
		if
		:: BACK(a) -> p3stop(a)
		:: !BACK(a) && LAPSED(a) ->
			printf("t%d: agent %d: claim past its deadline %d: claims again\n", now, a, adl[a]);
			lapse(a)
		:: !BACK(a) && !LAPSED(a) ->
			h_g = WALLK(ak[a]);
			if
			:: h_g < afl[a] -> h_g = afl[a]
			:: else
			fi;
			h_g = h_g + W;
#ifdef TODAY
			h_ok = nk_lease[node[a]] != 0 && nk_crev[node[a]] == tok[a];
#else
			h_ok = lease[a] != 0 && nk_lease[node[a]] == lease[a] && nk_nonce[node[a]] == nonce[a] &&
			     nk_crev[node[a]] == tok[a];
#endif
			if
			:: h_ok ->
				if
				:: h_g > fk_val[node[a]] -> fk_val[node[a]] = h_g; rev++
				:: else
				fi;
				LOSE(h_lost);
				if
				:: h_lost ->
#ifdef TODAY
					skip;	/* claim(): -errno, list again */
#else
					stale[a] = lease[a];	/* P5 */
					lease[a] = 0;
#endif
					retry[a] = now + 1;
					pc[a] = ACQ
				:: else ->
					agr[a] = h_g;
					SEEN(a);
					pc[a] = INST1
				fi
			:: else ->
				retry[a] = now + 1;	/* -ENOLINK: -EAGAIN */
				SEEN(a);
				pc[a] = ACQ
			fi
		fi
	}

	/* install(): keepalive_in_time(), its deadline check */
	:: atomic { !paused[a] && pc[a] == INST1 ->
		if
		:: BACK(a) -> p3stop(a)
		:: !BACK(a) && LAPSED(a) ->
			printf("t%d: agent %d: claim past its deadline %d: claims again\n", now, a, adl[a]);
			lapse(a)
		:: !BACK(a) && !LAPSED(a) -> pc[a] = INST1KA
		fi
	}
	/* install(): keepalive_in_time(), the keepalive, a step after the
	 * check (a pause may come between them, as in the claim wait); one
	 * sent at or past the last one's deadline is a lapse (-DNOKACHECK_INST:
	 * taken) */
	:: atomic { !paused[a] && pc[a] == INST1KA ->
		if
		:: BACK(a) -> p3stop(a)
#ifndef NOKACHECK_INST
		:: !BACK(a) && LAPSED(a) ->
			printf("t%d: agent %d: install's keepalive sent past its deadline %d: claims again\n", now, a, adl[a]);
			lapse(a)
		:: !BACK(a) && !LAPSED(a) ->
#else
		:: !BACK(a) ->
#endif
			held[a] = 1;
			if
			:: l_alive[lease[a]] ->
				l_exp[lease[a]] = now + TTL;
				adl[a] = now + TTL - 1;
				SEEN(a);
				pc[a] = INST2
			:: else -> SEEN(a); lose(a)
			fi
		fi
	}

	/* install(): lease_dev_install() */
	:: atomic { !paused[a] && pc[a] == INST2 ->
#ifndef TODAY
		/*
		 * P8: the fence compared with the one read before the claim,
		 * the claim installed closed (grant 0 here: nothing is issued),
		 * the fence compared again (one step: the closed install issues
		 * nothing), then opened in a step of its own (INST3). A fence
		 * that moved: revoke what was installed, and leave the lease and
		 * claim in etcd alone (they may be the original's).
		 */
		h_r = 0;
		if
		:: !kf[a] -> kassign(ak[a], node[a], anew[a], afl[a], 0, adl[a], tok[a])
		:: else
		fi;
		if
		:: kf[a] ->
			printf("t%d: agent %d: kernel %d fenced since the claim (a clone?): revokes, leaves lease %d\n",
			       now, a, ak[a], lease[a]);
			if
			:: h_r == 0 -> krevoke(ak[a], tok[a])
			:: else
			fi;
			lease[a] = 0;
			held[a] = 0;
			retry[a] = now + 1;
			pc[a] = ACQ;
			h_r = 255
		:: else
		fi;
		if
		:: h_r == 255 -> skip
		:: h_r == 0 -> pc[a] = INST3
		:: h_r == ETIME -> lose(a)
		:: else -> release(a); pc[a] = DEAD; unlock(a)	/* fatal */
		fi;
#else
		kassign(ak[a], node[a], anew[a], afl[a], agr[a], adl[a], tok[a]);
		if
		:: h_r == 0 ->
			printf("t%d: agent %d installs node %d in kernel %d: token %d, floor %d, grant %d, deadline %d; ID clock %d\n",
			       now, a, node[a], ak[a], tok[a], afl[a], agr[a], adl[a], CLK(ak[a]));
			inst[a] = 1;
			next[a] = now + R;
			pc[a] = HOLD
		:: h_r == ETIME -> lose(a)
		:: else -> release(a); pc[a] = DEAD; unlock(a)	/* fatal */
		fi;
#endif
		issue()
	}

#ifndef TODAY
	/* install(): the opening renew (grant, deadline 0: left as it is); a
	 * failure (revoked under it: a fork, the deadline in a pause) means
	 * the fence moved: etcd is left alone */
	:: atomic { !paused[a] && pc[a] == INST3 ->
		krenew(ak[a], node[a], agr[a], 0, tok[a]);
		if
		:: h_r == 0 && !kf[a] ->
			printf("t%d: agent %d installs node %d in kernel %d: token %d, floor %d, grant %d, deadline %d; ID clock %d\n",
			       now, a, node[a], ak[a], tok[a], afl[a], agr[a], adl[a], CLK(ak[a]));
			inst[a] = 1;
			rf_lease[ak[a]] = lease[a];
			rf_nonce[ak[a]] = nonce[a];
			rf_tok[ak[a]] = tok[a];
			next[a] = now + R;
#if defined(CFG_LIVE) && !defined(NOWAIT)
			/* P9's wait, bounded: open W + 2E + 1 after the claim */
			assert(now <= tcl[a] + W + 2 * E + 1);
#endif
			pc[a] = HOLD
		:: else ->
			printf("t%d: agent %d: opening renew in kernel %d: %d (fence moved): leaves lease %d\n",
			       now, a, ak[a], h_r, lease[a]);
			lease[a] = 0;
			held[a] = 0;
			retry[a] = now + 1;
			pc[a] = ACQ
		fi;
		issue()
	}
#endif

	/* hold(): a round: dev_holds(), keepalive(), persist_grant() */
	:: atomic { !paused[a] && pc[a] == HOLD && now >= next[a] ->
		if
		:: now >= adl[a] -> lose(a)	/* HOLD_EXPIRED */
		:: else ->
			kexpire(ak[a]);
			if
			:: !(k_act[ak[a]] && k_node[ak[a]] == node[a] && k_tok[ak[a]] == tok[a]) ->
				lose(a)		/* HOLD_GONE */
			:: else ->
				if
				:: BACK(a) -> p3stop(a)
				:: !BACK(a) && !l_alive[lease[a]] -> SEEN(a); lose(a)	/* HOLD_LOST */
				:: !BACK(a) && l_alive[lease[a]] ->
					l_exp[lease[a]] = now + TTL;
					adl[a] = now + TTL - 1;
					next[a] = now + R;
#if defined(TODAY) && !defined(RATCHET)
					if
					:: agr[a] < WALLK(ak[a]) + W * 2 / 3 -> h_g = WALLK(ak[a]) + W
					:: else -> h_g = 0
					fi;
					h_ok = nk_lease[node[a]] != 0 && nk_crev[node[a]] == tok[a];
#else
					/* RATCHET, P4: grants follow the ID clock */
					h_g = WALLK(ak[a]);
					if
					:: h_g < CLK(ak[a]) -> h_g = CLK(ak[a])
					:: else
					fi;
					h_g = h_g + W;
#ifdef TODAY
					if
					:: agr[a] >= h_g - W + W * 2 / 3 -> h_g = 0
					:: else
					fi;
					h_ok = nk_lease[node[a]] != 0 && nk_crev[node[a]] == tok[a];
#else
					h_ok = lease[a] != 0 && nk_lease[node[a]] == lease[a] && nk_nonce[node[a]] == nonce[a] &&
			     nk_crev[node[a]] == tok[a];
#endif
#endif
					pend[a] = h_g;
					printf("t%d: agent %d hold round: grant %d (guard %d)\n", now, a, h_g, h_ok);
					if
					:: h_g == 0 -> SEEN(a); pc[a] = HRENEW
					:: h_g != 0 && !h_ok -> SEEN(a); lose(a)	/* -ENOLINK */
					:: h_g != 0 && h_ok ->
						if
						:: h_g > fk_val[node[a]] -> fk_val[node[a]] = h_g; rev++
						:: else
						fi;
						LOSE(h_lost);
						if
						:: h_lost -> pend[a] = 0
						:: else -> SEEN(a)
						fi;
						pc[a] = HRENEW
					fi
				fi
			fi
		fi
	}

	/* hold(): lease_dev_renew() */
	:: atomic { !paused[a] && pc[a] == HRENEW ->
		krenew(ak[a], node[a], pend[a], adl[a], tok[a]);
		if
		:: h_r == 0 ->
			if
			:: pend[a] != 0 -> agr[a] = pend[a]
			:: else
			fi;
#ifdef CFG_LIVE
			/* never blocked at the grant before the next round */
			assert(CLK(ak[a]) + R <= k_grant[ak[a]]);
#endif
			pc[a] = HOLD
		:: else -> lose(a)
		fi;
		pend[a] = 0;
		issue()
	}
	od
}

/* agents that must act before time passes (CFG_LIVE: prompt agents) */
/*
 * Time passes only when nothing is due: an agent that is not paused has
 * made the requests it was due to make (its sleeps end on time), and etcd
 * has expired every lease whose TTL ran out (the earliest it may: the
 * worst case for the deadline fence). One agent may be paused once, at
 * any point and for any number of ticks (PAUSES; not in CFG_LIVE): it
 * makes no step meanwhile (SIGSTOP, a VM suspended, or cloned and started
 * later, an etcd that takes that long to answer).
 */
#define DUE(a) (!paused[a] && (pc[a] == START || pc[a] == CLAIMB || pc[a] == INST1 || \
	(pc[a] == CWAIT && (now >= next[a] || WALLK(ak[a]) > afen[a])) || pc[a] == CWKA || \
	pc[a] == INST1KA || pc[a] == INST2 || pc[a] == INST3 || pc[a] == HRENEW || (pc[a] == HOLD && now >= next[a]) || \
	(pc[a] == ACQ && (now >= retry[a] || lease[a] == 0 || !l_alive[lease[a]]))))
#define XDUE(x) (l_alive[x] && now >= l_exp[x])
#define EXPDUE (XDUE(1) || XDUE(2) || XDUE(3) || XDUE(4) || XDUE(5))
#ifdef OPRULE
#define STOPPED(a) (pc[a] == DOWN || pc[a] == DEAD)
#define RESTORABLE (STOPPED(0) && STOPPED(1) && !INFORCE(0) && !INFORCE(1))
#else
#define RESTORABLE true
#endif
#if defined(CFG_RESTORE) && defined(OPRULE)
/* the operator stops every agent by STOPBY, restores as soon as they are
 * stopped, and starts them again as soon as RWAIT has passed (the
 * earliest: the worst case) */
#ifndef STOPBY
#define STOPBY (T0 + 4)
#endif
#define OPDUE ((snap == 1 && RESTORABLE) || \
	(snap != 2 && now >= STOPBY && !(STOPPED(0) && STOPPED(1))) || \
	(snap == 2 && now >= resume && (pc[0] == DOWN || pc[1] == DOWN)))
#else
#define OPDUE false
#endif
#if defined(CFG_LIVE) || (defined(CFG_RESTORE) && !defined(OPRULE) && !defined(TODAY))
/* a stopped agent is started again the next tick */
#define RESTARTDUE ((pc[0] == DOWN && now > tdown[0]) || (pc[1] == DOWN && now > tdown[1]))
#else
#define RESTARTDUE false
#endif
#if NA > 2
#define PROMPT (!DUE(0) && !DUE(1) && !DUE(2) && !EXPDUE && !OPDUE)
#else
#define PROMPT (!DUE(0) && !DUE(1) && !EXPDUE && !OPDUE && !RESTARTDUE)
#endif

active proctype timer()
{
	do
	:: atomic { now < TMAX && PROMPT ->
#if defined(CFG_LIVE) && !defined(NOBOUND)
		/* the ID clock never ahead of the true time by more than E
		 * (-DNOBOUND: the grant check alone) */
		assert(!INFORCE(0) || CLK(0) <= now + E);
		assert(!INFORCE(1) || CLK(1) <= now + E);
#endif
		now++;
		issue()
	}
	od
}

/* etcd expires a lease at or after its TTL */
active proctype expiry()
{
#define EXPIRE(x) :: atomic { l_alive[x] && now >= l_exp[x] -> printf("t%d: lease %d expires\n", now, x); ldelete(x) }
	do
	EXPIRE(1)
	EXPIRE(2)
	EXPIRE(3)
	EXPIRE(4)
	EXPIRE(5)
	od
}

/* the properties checked in every state */
#define LEAK_OK (N < 2 || nk_lease[0] == 0 || nk_lease[0] != nk_lease[N - 1])
#if NK > 2
#define TWICE(x, y) (INFORCE(x) && INFORCE(y) && k_node[x] == k_node[y])
#define INF_OK (!TWICE(0, 1) && !TWICE(0, 2) && !TWICE(1, 2))
#else
#define INF_OK (!(INFORCE(0) && INFORCE(1) && k_node[0] == k_node[1]))
#endif

active proctype invariants()
{
	do
	:: atomic { !LEAK_OK -> assert(LEAK_OK) }	/* LEAK */
#ifdef INFORCE_CHECK
	:: atomic { !INF_OK -> assert(INF_OK) }	/* INFORCE */
#endif
	od
}


/* the faults (and CFG_LOSS's LOSE(), in the agent) */
active proctype faults()
{
	do
	/* an agent paused, later resumed */
	:: atomic { npause < PAUSES && MAYPAUSE(0) && !paused[0] && pc[0] != DEAD -> npause++; paused[0] = 1; printf("t%d: agent 0 paused\n", now) }
	:: atomic { npause < PAUSES && MAYPAUSE(1) && !paused[1] && pc[1] != DEAD -> npause++; paused[1] = 1; printf("t%d: agent 1 paused\n", now) }
#if NA > 2
	:: atomic { npause < PAUSES && MAYPAUSE(2) && !paused[2] && pc[2] != DEAD -> npause++; paused[2] = 1; printf("t%d: agent 2 paused\n", now) }
	:: atomic { paused[2] -> paused[2] = 0 }
#endif
	:: atomic { paused[0] -> paused[0] = 0 }
	:: atomic { paused[1] -> paused[1] = 0 }
#ifdef CFG_RESTORE
	:: atomic { snap == 0 ->
		s_rev = rev;
		for (h_i : 0 .. N - 1) {
			s_nk_lease[h_i] = nk_lease[h_i]; s_nk_crev[h_i] = nk_crev[h_i];
			s_nk_mid[h_i] = nk_mid[h_i]; s_nk_bid[h_i] = nk_bid[h_i];
			s_nk_nonce[h_i] = nk_nonce[h_i]; s_fk_has[h_i] = fk_has[h_i];
			s_fk_val[h_i] = fk_val[h_i]; s_ck_has[h_i] = ck_has[h_i]
		}
		s_mrec[0] = mrec[0]; s_mrec[1] = mrec[1];
		for (h_i : 1 .. NL - 1) { s_l_alive[h_i] = l_alive[h_i] }
		printf("t%d: etcd snapshot at revision %d\n", now, rev);
		snap = 1
	}
	:: atomic { snap == 1 && RESTORABLE ->
		rev = s_rev;
		for (h_i : 0 .. N - 1) {
			nk_lease[h_i] = s_nk_lease[h_i]; nk_crev[h_i] = s_nk_crev[h_i];
			nk_mid[h_i] = s_nk_mid[h_i]; nk_bid[h_i] = s_nk_bid[h_i];
			nk_nonce[h_i] = s_nk_nonce[h_i]; fk_has[h_i] = s_fk_has[h_i];
			fk_val[h_i] = s_fk_val[h_i]; ck_has[h_i] = s_ck_has[h_i]
		}
		mrec[0] = s_mrec[0]; mrec[1] = s_mrec[1];
		for (h_i : 1 .. NL - 1) {
			l_alive[h_i] = s_l_alive[h_i];
			if
			:: l_alive[h_i] -> l_exp[h_i] = now + TTL	/* a new leader: full TTL */
			:: else
			fi;
			s_l_alive[h_i] = 0
		}
		/* the snapshot's copy is consumed */
		for (h_i : 0 .. N - 1) {
			s_nk_lease[h_i] = 0; s_nk_crev[h_i] = 0; s_nk_mid[h_i] = 0; s_nk_bid[h_i] = 0;
			s_nk_nonce[h_i] = 0; s_fk_has[h_i] = 0; s_fk_val[h_i] = 0; s_ck_has[h_i] = 0
		}
		s_mrec[0] = 0; s_mrec[1] = 0; s_rev = 0;
		resume = now + RWAIT;
		printf("t%d: etcd restored to the snapshot (revision %d)\n", now, rev);
		snap = 2
	}
#ifdef OPRULE
	/* the operator stops every agent (SIGTERM) before the restore, and
	 * starts them again RWAIT after it */
	:: atomic { snap != 2 && (pc[0] == ACQ || pc[0] == HOLD || pc[0] == CWAIT) ->
		if
		:: BACK(0) -> p3stop(0)
		:: else -> stop(0); pc[0] = DOWN; unlock(0)
		fi
	}
	:: atomic { snap != 2 && (pc[1] == ACQ || pc[1] == HOLD || pc[1] == CWAIT) ->
		if
		:: BACK(1) -> p3stop(1)
		:: else -> stop(1); pc[1] = DOWN; unlock(1)
		fi
	}
	:: atomic { snap == 2 && now >= resume && pc[0] == DOWN -> reset(0); pc[0] = START }
	:: atomic { snap == 2 && now >= resume && pc[1] == DOWN -> reset(1); pc[1] = START }
#elif !defined(TODAY) && !defined(NOSTOP)
	/* new protocol, agents running through the restore: one holder
	 * stopped (SIGTERM or hand-over) at any time, started again the next
	 * tick; FASTPATH: or a claim in its wait (the shortest way, within the
	 * horizon, to a machine that held the ID last claiming it again; in
	 * the pass run it adds 4x the states) */
#ifdef FASTPATH
#define RSTOPPABLE(x) (pc[x] == HOLD || pc[x] == CWAIT)
#else
#define RSTOPPABLE(x) (pc[x] == HOLD)
#endif
	:: atomic { nsigterm == 0 && RSTOPPABLE(0) ->
		nsigterm++;
		if
		:: BACK(0) -> p3stop(0)
		:: else -> stop(0); pc[0] = DOWN; tdown[0] = now; unlock(0)
		fi
	}
	:: atomic { nsigterm == 0 && RSTOPPABLE(1) ->
		nsigterm++;
		if
		:: BACK(1) -> p3stop(1)
		:: else -> stop(1); pc[1] = DOWN; tdown[1] = now; unlock(1)
		fi
	}
	:: atomic { pc[0] == DOWN && now > tdown[0] -> reset(0); tdown[0] = 0; pc[0] = START }
	:: atomic { pc[1] == DOWN && now > tdown[1] -> reset(1); tdown[1] = 0; pc[1] = START }
#endif
#endif
#ifdef CFG_LIVE
#ifndef HANDOVERS
#define HANDOVERS 3
#endif
	/* SIGTERM of a holder (HANDOVERS of them); restart a tick later */
	:: atomic { nsigterm < HANDOVERS && pc[0] == HOLD ->
		nsigterm++; stop(0); pc[0] = DOWN; tdown[0] = now; unlock(0) }
	:: atomic { nsigterm < HANDOVERS && pc[1] == HOLD ->
		nsigterm++; stop(1); pc[1] = DOWN; tdown[1] = now; unlock(1) }
	:: atomic { pc[0] == DOWN && now > tdown[0] -> reset(0); tdown[0] = 0; pc[0] = START }
	:: atomic { pc[1] == DOWN && now > tdown[1] -> reset(1); tdown[1] = 0; pc[1] = START }
#endif
#ifdef CFG_TWO
	/* agent 1 (B) started on agent 0's (A's) device; SIGTERM of B; SIGKILL of A */
	:: atomic { pc[1] == IDLE -> pc[1] = START; printf("t%d: agent 1 started on kernel 0\n", now) }
	:: atomic { nsigterm == 0 && (pc[1] == ACQ || pc[1] == HOLD) ->
		nsigterm++;
		printf("t%d: SIGTERM to agent 1\n", now);
		if
		:: BACK(1) -> p3stop(1)
		:: else -> stop(1); pc[1] = DOWN; unlock(1)
		fi
	}
	:: atomic { nsigkill == 0 && pc[0] != DEAD && pc[0] != DOWN ->
		nsigkill++;
		printf("t%d: SIGKILL to agent 0\n", now); pc[0] = DEAD; unlock(0)
	}
#endif
#ifdef CFG_CLONE
#ifdef CLONE_INFLIGHT
#define CLONABLE (pc[0] != IDLE && pc[0] != START)
#else
/* no claim of agent 0 in flight (see CLONE_INFLIGHT) */
#define CLONABLE (pc[0] == ACQ || pc[0] == HOLD)
#endif
	/* agent 0's machine cloned: kernel 2, agent 2 */
	:: atomic { nclone == 0 && CLONABLE ->
		nclone++;
		printf("t%d: machine 0 cloned: kernel 2 (revoked), agent 2\n", now);
		k_node[2] = k_node[0]; k_tok[2] = k_tok[0]; k_maxtok[2] = k_maxtok[0];
		k_grant[2] = k_grant[0]; k_dl[2] = k_dl[0]; k_off[2] = k_off[0];
		k_hw[2] = k_hw[0]; k_skew[2] = k_skew[0];
		k_mid[2] = k_mid[0]; k_bid[2] = k_bid[0];
		rf_lease[2] = rf_lease[0]; rf_nonce[2] = rf_nonce[0]; rf_tok[2] = rf_tok[0];
		k_act[2] = k_act[0];
		kf[2] = kf[0];		/* the copy's agent remembers the fence too */
		kfence(2);		/* uidgen_node_vmfork() in the copy */
		lease[2] = lease[0]; stale[2] = stale[0]; node[2] = node[0];
		tok[2] = tok[0]; nonce[2] = nonce[0]; anew[2] = anew[0];
		afl[2] = afl[0]; agr[2] = agr[0]; adl[2] = adl[0]; next[2] = next[0];
		pend[2] = pend[0];
		retry[2] = retry[0]; held[2] = held[0]; inst[2] = inst[0];
		maxrev[2] = maxrev[0];
#ifndef TODAY
		lock[2] = 3;
#endif
		pc[2] = pc[0];
		/* the copy runs at once, or is started any time later */
		if
		:: paused[2] = 1
		:: skip
		fi
	}
	/* the copy's agent restarted (its previous run stopped or killed) */
	:: atomic { nclone == 1 && nrestart == 0 && pc[2] != IDLE && pc[2] != START ->
		nrestart++;
		unlock(2);
		reset(2);
		pc[2] = START
	}
#endif
	od
}

init {
	atomic {
		/* clocks: any skew in -E..E per machine */
#if defined(CFG_RESTORE) && !defined(TODAY) && !defined(OPRULE)
		k_skew[0] = 2 * E;	/* E ahead; machine 1 up to 2E behind it */
#else
		k_skew[0] = E;	/* exact; machine 1 off by up to E either way */
#endif
#if defined(CFG_RESTORE) && !defined(TODAY) && !defined(OPRULE) && !defined(ALLSKEW)
		h_c = 0;	/* the extreme pair only: 2E apart (either agent may be the one ahead's) */
#else
		select (h_c : 0 .. 2 * E);
#endif
		k_skew[1] = h_c;
		h_c = 0;
		k_mid[0] = 0; k_bid[0] = 0;
		k_mid[1] = 1; k_bid[1] = 1;
#ifdef CFG_LOSS
		loss = 1;
#endif
		pc[0] = START;
		ak[0] = 0;
#if defined(CFG_TWO)
		/* A and B on kernel 0, W on kernel 1 */
		ak[1] = 0;
		pc[1] = IDLE;
		ak[2] = 1;
		pc[2] = START;
#elif defined(CFG_CLONE)
		ak[1] = 1;
		pc[1] = START;
		ak[2] = 2;
		pc[2] = IDLE;
#else
		ak[1] = 1;
		pc[1] = START;
#endif
		run agent(0);
		run agent(1);
#if NA > 2
		run agent(2);
#endif
	}
}
#else
/* model/tie.sh: the kernel's inlines above against module/tests/noderules_cases.h */
#include "rules_tie.pml"
#endif /* RULES_TIE */
