#!/usr/bin/env bash
# bench_assim.sh - change assimilation inside OpenSM over ibsim: how long
# after a topology change every switch holds complete tables again, how
# many LFT blocks OpenSM sends, how many entries change.  Never a timed
# test: it measures and reports.
#
#   bench/bench_assim.sh          random 128 switches / 1024 CAs and 256 /
#                                 2048 -> bench/results/assim.csv, assim.md,
#                                 assim_timeline.png
#   bench/bench_assim.sh --smoke  random 16 / 64, fera and pira+colorl at
#                                 LMC 2, one timed round, into a temporary
#                                 directory; non-zero when one of our
#                                 engines fell back, left no tables after a
#                                 change, kept its provisional tables, or
#                                 the tables read back do not verify
#   bench/bench_assim.sh --report the table and plot again from assim.csv
#   FABRICS=, ENGINES="ENGINE@LMC ...", REPEATS=N, APPEND=1 (add rows to
#   an existing assim.csv), ASSIM_KEEP=DIR (keep every session's logs)
#
# One OpenSM daemon per (fabric, engine): our plugin, sweep_interval 1,
# log_flags 0x07 (the VERBOSE message boxes, no routing dumps),
# force_log_flush.  Once it has routed the fabric and gone quiet (two
# light sweeps after the last tables, the last a second or more after
# them, nothing new begun), the switches' tables are read back (dump_fts
# over ibsim: R0).  Then, for each change (one inter-switch link cut, one
# switch taken down: all its links, its CAs fall off with it):
#   1. timed rounds (3; REPEATS=N): the script notes the time and writes
#      the change to ibsim's console; from OpenSM's log (timestamps of the
#      lines and of the lines that open its message boxes), in ms after
#      that moment: the heavy sweep the change triggers, the first routing
#      run, the first "SWITCHES CONFIGURED FOR UNICAST" box after it (first
#      tables: every LFT block sent and acknowledged) and the final
#      tables: for a hybrid the "REROUTE COMPLETE" of the re-route pass
#      whose INFO line says the final pass is done (after its steps, if
#      any), for the others the first tables.  OpenSM sometimes routes the
#      same fabric once more a second later (after a switch went down);
#      that sweep's tables are reported apart (last_tables_ms).  Reported:
#      the round with the median final time.  After the first round the
#      switches' tables are read back (R1), written as an opensm-lfts.dump
#      beside the subnet list OpenSM wrote for the changed fabric and
#      judged with `ibrouting verify` (judge_dump): so "complete,
#      verified" is what the switches hold, not what OpenSM meant to send.
#      Entries changed: R0 against R1 on the switches still there.  Each
#      round is undone (ibsim ReLink) and OpenSM let go quiet; after the
#      first, the tables are read back and compared with R0 (fera,
#      colorl, dr and their hybrids route from the prior tables: the
#      pairs the change moved stay moved, and the tables read back must
#      verify: "kept").
#   2. count round: the same change once more with OpenSM's log at DEBUG
#      (log_flags 0x0F in its conf file, which OpenSM re-reads at the heavy
#      sweep the change triggers): the "Writing FT block" lines of its
#      set_lft_block count the LFT blocks sent.  DEBUG logging slows
#      OpenSM, so blocks are counted in a round of their own, never timed.
#      Undone.
#   3. hybrids only, provisional round: the change once more; OpenSM is
#      stopped (SIGSTOP) as soon as the provisional "SWITCHES CONFIGURED
#      FOR UNICAST" box is in its log, before the re-route pass can send a
#      block, the switches' tables are read back and judged as above, and
#      OpenSM continues.  Undone.
# Engines: fera, colorl and dr (LMC 2), updn (root_guid_file: the SM's
# switch, where ours root), minhop, and the hybrids pira+fera, pira+colorl
# and pira+dr (LMC 2) when the plugin registers them.  LMC 0 engines run on the fabric as
# generated (LIDs packed), the others on the same fabric with LIDs aligned
# to their LMC.  ibsim is started afresh for every engine.
set -euo pipefail
export IBROUTING_WIDTH=0   # ibrouting's lines whole (ibrouting(1), ENVIRONMENT): parsed below
top=$(cd "$(dirname "$0")/.." && pwd)
smoke=false report_only=false
out=$top/bench/results
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=true; out=$(mktemp -d) ;;
	--out) out=$2; shift ;;
	--report) report_only=true ;;
	*) echo "usage: bench/bench_assim.sh [--smoke] [--out DIR] [--report]" >&2; exit 2 ;;
	esac
	shift
done
mkdir -p "$out"
$report_only || git -C "$top" rev-parse --short HEAD > "$out/assim.commit" 2>/dev/null || true
build=${BUILD_DIR:-$top/build}
[ -x "$build/ibrouting" ] && [ -f "$build/.libs/libibrouting.so" ] || {
	echo "bench_assim.sh: build first (scripts/run-tests.sh or make in $build)" >&2; exit 2; }
export IBROUTING=$build/ibrouting PLUGIN_DIR=$build/.libs FABRICS_DIR=$top/tests/fabrics
. "$top/tests/lib.sh"
. "$top/tests/e2e_lib.sh"
e2e_requirements

# ENGINE@LMC; hybrids only when the plugin registers them (their names
# are among its NUL-terminated strings; `ibrouting engines` lists the
# core's engines)
has_engine() {
	"$IBROUTING" engines --names | grep -qx -- "$1" ||
		grep -aqzx -- "$1" "$PLUGIN_DIR/libibrouting.so"
}
if $smoke; then
	fabrics="random:sw=16,ca=64,seed=1"
	engines="fera@0"
	! has_engine pira+colorl || engines="$engines pira+colorl@2"
else
	fabrics="random:sw=128,ca=1024,seed=1 random:sw=256,ca=2048,seed=1"
	engines="fera@0 colorl@2 dr@2 updn@0 minhop@0"
	for h in pira+fera@0 pira+colorl@2 pira+dr@2; do
		if has_engine "${h%@*}"; then engines="$engines $h"
		else echo "bench_assim.sh: the plugin has no ${h%@*}: no row for it" >&2; fi
	done
fi
fabrics=${FABRICS:-$fabrics}
engines=${ENGINES:-$engines}

csv=$out/assim.csv
[ "${APPEND:-}" = 1 ] && [ -f "$csv" ] || $report_only ||
	echo "fabric,switches,cas,lmc,engine,change,used,routings,heavy_sweeps,detect_ms,route_ms,first_ms,final_ms,provisional_pass_ms,final_pass_ms,first_check,final_findings,final_unreachable,final_cycles,entries_before,entries_moved,entries_removed,entries_added,entries_changed_pct,blocks_changed,blocks_sent,blocks_sent_final,restored,errors,target,repeats,first_runs_ms,final_runs_ms,reroutes,last_tables_ms" > "$csv"
timeline=$out/assim_timeline.dat

LOG_FLAGS=0x07 DEBUG_FLAGS=0x0F

# ---- the fabric and its changes -----------------------------------------

# pick_changes NETFILE: "A PA B PB X": the link A[PA]-B[PB] to cut (from
# the switch in the middle of the file, not the SM's) and the switch X to
# take down (from a quarter into the file), each chosen so that the
# switches left stay connected.  The SM runs on the file's first switch.
pick_changes() {
	awk '
	/^Switch/ { cur = $3; gsub(/"/, "", cur); ns++; name[ns] = cur; idx[cur] = ns; next }
	/^\[[0-9]+\][ \t]+"S-/ {
		p = $1; gsub(/[][]/, "", p)
		r = $2; q = $2; sub(/\[.*/, "", r); gsub(/"/, "", r); sub(/^[^[]*\[/, "", q); sub(/\].*/, "", q)
		nl++; la[nl] = cur; lp[nl] = p; lb[nl] = r; lq[nl] = q
	}
	# connected(CUT_LINK, DOWN): the switches other than DOWN reach each
	# other without link number CUT_LINK (both of its directions)
	function connected(cut, down,   head, tail, seen, q, u, i, n, v) {
		head = tail = 1; q[1] = name[1]; seen[name[1]] = 1; n = 1
		while (head <= tail) {
			u = q[head++]
			for (i = 1; i <= nl; i++) {
				if (la[i] != u || lb[i] == down) continue
				if (cut && ((la[i] == la[cut] && lp[i] == lp[cut]) || (la[i] == lb[cut] && lp[i] == lq[cut]))) continue
				v = lb[i]
				if (!(v in seen)) { seen[v] = 1; q[++tail] = v; n++ }
			}
		}
		return n == ns - (down != "")
	}
	END {
		for (k = 0; k < ns && !link; k++) {
			s = name[2 + (int(ns / 2) + k) % (ns - 1)]
			for (i = 1; i <= nl && !link; i++)
				if (la[i] == s && lb[i] != name[1] && connected(i, "")) link = i
		}
		for (k = 0; k < ns && down == ""; k++) {
			s = name[2 + (int(ns / 4) + k) % (ns - 1)]
			if (connected(0, s)) down = s
		}
		if (!link || down == "") exit 1
		print la[link], lp[link], lb[link], lq[link], down
	}' "$1"
}

# ---- OpenSM's log -----------------------------------------------------------

# now_sod: the time of day in seconds (OpenSM's log has no date either)
now_sod() { date '+%H %M %S %N' | awk '{ printf "%.6f\n", $1 * 3600 + $2 * 60 + $3 + $4 / 1e9 }'; }

EVENTS='INITIATING HEAVY SWEEP|LIGHT SWEEP COMPLETE|SWITCHES CONFIGURED FOR UNICAST|REROUTE COMPLETE|REROUTE FAILED|building routing with|tables configured on all switches|-> SUBNET UP|: provisional pass |: final pass |WRN IB26|ERRORS DURING INITIALIZATION| 0x01 -> '

# events LOG MARK: OpenSM's log after line MARK as "SECONDS EVENT [WHAT]"
# lines, SECONDS the time of day of the line (of the log line that opens a
# message box, for the boxes).  Events: H heavy sweep, L light sweep
# complete, R routing started (engine), T tables configured (engine), C
# tables on every switch (heavy or reroute), X reroute failed, U subnet
# up, E error (an ERR line: not trap notices); a hybrid's INFO lines: P
# provisional pass, M the union not clean (safe steps follow), S a step,
# W no safe step left, F the final pass done: final (whole), last (its
# last step) or refused (the prior tables stay).
events() {
	[ -f "$1" ] || return 0
	tail -n +"$(($2 + 1))" "$1" | { grep -a -B4 -E "$EVENTS" || true; } | awk '
	function ev(kind, what) { printf "%.6f %s %s\n", now, kind, what }
	/^[A-Z][a-z][a-z] +[0-9]+ [0-9][0-9]:[0-9][0-9]:[0-9][0-9] [0-9]+ \[/ {
		split($3, a, ":"); now = a[1] * 3600 + a[2] * 60 + a[3] + $4 / 1e6 }
	/INITIATING HEAVY SWEEP/ { ev("H"); next }
	/LIGHT SWEEP COMPLETE/ { ev("L"); next }
	/SWITCHES CONFIGURED FOR UNICAST/ { ev("C", "heavy"); next }
	/REROUTE COMPLETE/ { ev("C", "reroute"); next }
	/REROUTE FAILED/ { ev("X"); next }
	/building routing with/ { e = $0; sub(/.*building routing with ./, "", e); sub(/. routing algorithm.*/, "", e); ev("R", e); next }
	/tables configured on all switches/ { e = $0; sub(/.*osm_ucast_mgr_process: /, "", e); sub(/ tables configured.*/, "", e); ev("T", e); next }
	/-> SUBNET UP/ { ev("U"); next }
	/ERRORS DURING INITIALIZATION/ { ev("E", "init"); next }
	/ 0x01 -> / && !/log_trap_info|Received Generic Notice/ { ev("E", "err"); next }
	/phases: fabric model/ { next }
	/: provisional pass \(/ { ev("P"); next }
	/WRN IB26/ { ev("W"); next }
	/: final pass \([^)]*\): the switches may mix/ { ev("M"); next }
	/: final pass \([^)]*\), step [0-9]+, the last/ { ev("F", "last"); next }
	/: final pass \([^)]*\), step [0-9]+/ { ev("S"); next }
	/: final pass \([^)]*\): change refused/ { ev("F", "refused"); next }
	/: final pass \([^)]*\): / { ev("F", "final") }'
}

# events_settled EVENTS HYBRID: "yes" once the events show tables on
# every switch (a C), for a hybrid its final pass too, and after the last
# C at least two light sweeps, the last a second or more after the C,
# with no heavy sweep or routing run begun (not e2e_lib's settled, which
# reads OpenSM's log itself)
events_settled() {
	awk -v hybrid="$2" '
	{ t[NR] = $1; ev[NR] = $2; if ($2 == "C") last = NR; if ($2 == "F") f = 1 }
	END {
		if (!last || (hybrid && !f)) { print "no"; exit }
		for (i = last + 1; i <= NR; i++) {
			if (ev[i] == "H" || ev[i] == "R") { print "no"; exit }
			if (ev[i] == "L") { l++; lt = t[i] }
		}
		print (l >= 2 && lt - t[last] >= 1) ? "yes" : "no"
	}' "$1"
}

# wait_quiet LOG MARK HYBRID SECONDS EVENTS-FILE: until events_settled
# (bounded); returns 1 on timeout
wait_quiet() {
	local end=$((SECONDS + $4))
	while [ $SECONDS -lt "$end" ]; do
		events "$1" "$2" > "$5"
		[ "$(events_settled "$5" "$3")" = no ] || return 0
		kill -0 "$OSM_PID" 2>/dev/null || return 1
		sleep 0.25
	done
	return 1
}

# summary EVENTS T0: "used routings heavy detect route first final prov
# finalpass errors reroutes last", times in ms after T0 ("?" when absent):
# first the first tables on every switch (C) after the change; final, for
# a hybrid, the C that completes the pass its final pass line (F) names
# (the final tables, or its last step, or the change refused: finalpass then
# ends in "-refused"), for the others the first C (first = final); last the
# last C (a later sweep that routes the same fabric again, as OpenSM
# sometimes runs one more heavy sweep after a switch went down); reroutes
# the re-route passes that completed (a hybrid's final pass or steps)
summary() {
	awk -v t0="$2" '
	function ms(t) { if (t < t0 - 43200) t += 86400; return sprintf("%.0f", (t - t0) * 1000) }
	$2 == "H" { h++; if (detect == "") detect = ms($1) }
	$2 == "R" { r++; if (route == "") route = ms($1) }
	$2 == "T" { if (!($3 in seen)) { seen[$3] = 1; used = used (used == "" ? "" : "/") $3 } }
	$2 == "C" { if (first == "") first = ms($1); last = ms($1); if ($3 == "reroute") rr++
		if (want_final) { final = ms($1); want_final = 0 } }
	$2 == "P" { if (prov == "") prov = ms($1); hybrid = 1 }
	$2 == "F" && fin == "" { fin = ms($1) ($3 == "refused" ? "-refused" : ""); want_final = 1 }
	$2 == "E" || $2 == "X" { err++ }
	END {
		d = "?"
		if (!hybrid) final = first
		printf "%s %d %d %s %s %s %s %s %s %d %d %s\n", (used == "" ? "none" : used), r, h,
			(detect == "" ? d : detect), (route == "" ? d : route), (first == "" ? d : first),
			(final == "" ? d : final), (prov == "" ? d : prov), (fin == "" ? d : fin), err, rr,
			(last == "" ? d : last)
	}' "$1"
}

# medians SUMMARIES: summary lines of repeated rounds as one: the times
# of the round with the median final tables (the lower middle one of
# those that got tables), engines used joined, routing runs and heavy
# sweeps and re-routes at most, errors summed
medians() {
	awk '{ row[NR] = $0; n = split($1, u, "/")
	  for (i = 1; i <= n; i++) if (!(u[i] in seen)) { seen[u[i]] = 1; used = used (used == "" ? "" : "/") u[i] }
	  if ($2 > r) r = $2; if ($3 > h) h = $3; e += $10; if ($11 > rr) rr = $11
	  if ($7 != "?") { k++; fin[k] = $7 + 0; at[k] = NR } }
	END {
		for (i = 2; i <= k; i++) { t = fin[i]; a = at[i]
			for (j = i - 1; j >= 1 && fin[j] > t; j--) { fin[j + 1] = fin[j]; at[j + 1] = at[j] }
			fin[j + 1] = t; at[j + 1] = a }
		split(row[k ? at[int((k + 1) / 2)] : 1], f, " ")
		printf "%s %d %d %s %s %s %s %s %s %d %d %s\n", used, r, h, f[4], f[5], f[6], f[7], f[8], f[9], e, rr, f[12] }' "$1"
}

# ---- the switches' tables -------------------------------------------------

# lfts_dump (e2e_lib.sh) writes them as an opensm-lfts.dump

# lfts: switch_lfts (e2e_lib.sh), whose pipelines expect no pipefail
lfts() {
	set +o pipefail
	switch_lfts
	set -o pipefail
}

# readback DIR LMC: the switches' tables into DIR/switches.lft, judged
readback() {
	mkdir -p "$1"
	lfts > "$1/switches.lft"
	judge_readback "$1" "$2"
}

# judge_readback DIR LMC: DIR/switches.lft as an opensm-lfts.dump beside
# OpenSM's latest subnet list (written at the SUBNET UP of its last heavy
# sweep) in DIR/dump, judged (judge_dump sets findings, unreachable,
# cycles) under the root set the plugin last logged (DIR/osm.log holds
# its lines for roots_opt): on a fat tree the roots owe each other no
# route, and without the set every such switch LID would count as a
# finding
judge_readback() {
	mkdir -p "$1/dump"
	grep ': root set [0-9]*-[0-9]* of ' "$osmdir/osm.log" > "$1/osm.log" || true
	cp "$osmdir/dump/opensm-subnet.lst" "$1/dump/"
	lfts_dump "$1/dump/opensm-subnet.lst" "$2" < "$1/switches.lft" > "$1/dump/opensm-lfts.dump"
	judge_dump "$1"
}

# lft_diff BEFORE AFTER: "entries moved removed added blocks" over the
# switches in AFTER: entries of BEFORE there, entries whose port changed,
# LIDs that lost or gained an entry, 64-LID blocks with any of those
lft_diff() {
	awk 'FNR == NR { was[$1 " " $2] = $3; next }
	{ sw[$1] = 1; k = $1 " " $2
	  if (k in was) { if (was[k] != $3) { moved++; blk[$1 " " int($2 / 64)] = 1 } delete was[k] }
	  else { added++; blk[$1 " " int($2 / 64)] = 1 } }
	END {
		for (k in was) { split(k, f, " "); if (f[1] in sw) { removed++; blk[f[1] " " int(f[2] / 64)] = 1 } }
		for (k in blk) b++
		printf "%d %d %d %d %d\n", 0, moved, removed, added, b
	}' "$1" "$2" | awk -v before="$(awk 'FNR == NR { sw[$1] = 1; next } $1 in sw' "$2" "$1" | wc -l)" '{ $1 = before; print }'
}

# ---- one OpenSM per (fabric, engine) --------------------------------------

osm_conf() {  # FLAGS: the daemon's opensm.conf (re-read at heavy sweeps)
	{
		echo "event_plugin_name ibrouting"
		echo "routing_engine $engine"
		echo "sweep_interval 1"
		echo "force_log_flush TRUE"
		echo "log_flags $1"
		echo "lmc $lmc"
		echo "dump_files_dir $osmdir/dump/"
		case $engine in updn|dnup) echo "root_guid_file $TMP/roots" ;; esac
	} > "$osmdir/opensm.conf.new"
	mv "$osmdir/opensm.conf.new" "$osmdir/opensm.conf"
}

# ibsim_cmd LINE: one console command, t0 the time of day it was written
# at; fails if ibsim refused it (read once ibsim has done it: ibsim_do)
ibsim_cmd() {
	local before
	before=$(wc -l < "$TMP/ibsim.out")
	t0=$(now_sod)
	ibsim_do "$1" || { echo "ibsim did not take '$1' in 120 s"; return 1; }
	if tail -n +"$((before + 1))" "$TMP/ibsim.out" | grep -qE "not found|can.t |bad param|unknown|not linked"; then
		echo "ibsim refused '$1':"; tail -n +"$((before + 1))" "$TMP/ibsim.out"
		return 1
	fi
}

# change ROUND CMD: write CMD to ibsim and wait for OpenSM to go quiet;
# sets t0, mark, ev (the events file); returns 1 on timeout
change() {
	mark=$(wc -l < "$osmdir/osm.log")
	ev=$osmdir/$1.events
	ibsim_cmd "$2" || return 1
	wait_quiet "$osmdir/osm.log" "$mark" "$hybrid" "$quiet_limit" "$ev"
}

# provisional_readback DIR CMD: a hybrid's provisional round: CMD
# written to ibsim, OpenSM stopped as soon as the provisional tables are on
# every switch (before the re-route pass), the switches' tables read into
# DIR/switches.lft, OpenSM continued and let go quiet; the tables are then
# judged on the subnet list of that sweep (OpenSM writes it at SUBNET UP,
# after the box, and not again in its re-route pass).  Sets prov_check:
# verified, findings=N, missed (never stopped) or too-late (a final pass
# had run when it stopped).  In this round alone the plugin's file asks
# for PROV_DELAY_MS between the provisional tables and the final pass's
# request (hybrid_final_delay; the plugin reads its file again before
# routing): on a small fabric the final routes are ready within
# milliseconds, and a stop that comes by way of OpenSM's log could land
# after the re-route had been asked for (too-late, one CI run in many).
# The timed rounds run with the defaults (no delay).
PROV_DELAY_MS=3000
provisional_readback() {
	local tailer waiter stopped=false
	prov_check="missed"
	echo "hybrid_final_delay $PROV_DELAY_MS" > "$osmdir/plugin.conf"
	mark=$(wc -l < "$osmdir/osm.log")
	rm -f "$TMP/follow"
	mkfifo "$TMP/follow"
	tail -n +"$((mark + 1))" -F "$osmdir/osm.log" > "$TMP/follow" 2>/dev/null &
	tailer=$!
	{ grep -a -m1 -q "SWITCHES CONFIGURED FOR UNICAST" < "$TMP/follow" && kill -STOP "$OSM_PID"; } &
	waiter=$!
	ibsim_cmd "$2" || return 1
	for _ in $(seq 1 "$((quiet_limit * 10))"); do
		kill -0 "$waiter" 2>/dev/null || break
		sleep 0.1
	done
	kill "$waiter" "$tailer" 2>/dev/null || true
	wait "$waiter" "$tailer" 2>/dev/null || true
	rm -f "$TMP/follow"
	if [ "$(ps -o state= -p "$OSM_PID" 2>/dev/null)" = T ]; then
		stopped=true
		mkdir -p "$1"
		if tail -n +"$((mark + 1))" "$osmdir/osm.log" | grep -aq "asking OpenSM for a re-route"; then
			prov_check="too-late"
		else
			lfts > "$1/switches.lft"
		fi
		kill -CONT "$OSM_PID"
	fi
	wait_quiet "$osmdir/osm.log" "$mark" "$hybrid" "$quiet_limit" "$osmdir/$(basename "$1").events" ||
		echo "  $engine: no quiet after the provisional round"
	: > "$osmdir/plugin.conf"       # the defaults again
	if $stopped && [ -f "$1/switches.lft" ]; then
		judge_readback "$1" "$lmc"
		prov_check="verified"
		[ "$findings" = 0 ] || prov_check="findings=$findings"
	fi
}

session() {  # SPEC NETFILE ENGINE LMC
	local spec=$1 net=$2 what
	engine=$3 lmc=$4
	hybrid=""
	case $engine in *+*) hybrid=1 ;; esac
	osmdir=$TMP/$(echo "$spec-$engine" | tr ':=,+' '____')
	rm -rf "$osmdir"
	mkdir -p "$osmdir/dump" "$osmdir/cache"
	ibsim_start "$net"
	osm_conf "$LOG_FLAGS"
	: > "$osmdir/plugin.conf"       # the plugin's defaults (but see provisional_readback)
	OSM_CACHE_DIR=$osmdir/cache IBROUTING_CONF=$osmdir/plugin.conf \
		LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$UMAD2SIM" \
		opensm -F "$osmdir/opensm.conf" -f "$osmdir/osm.log" > "$osmdir/opensm.out" 2>&1 &
	OSM_PID=$!
	if ! wait_quiet "$osmdir/osm.log" 0 "$hybrid" "$start_limit" "$osmdir/start.events"; then
		echo "  $engine: OpenSM did not route the fabric in ${start_limit}s"
		opensm_stop; ibsim_stop
		return 0
	fi
	mkdir -p "$osmdir/r0"
	lfts > "$osmdir/r0/switches.lft"
	echo "  $engine (lmc $lmc): routed by $(summary "$osmdir/start.events" 0 | cut -d' ' -f1), $(wc -l < "$osmdir/r0/switches.lft") LFT entries read back"

	for kind in link switch; do
		case $kind in
		link) cmd="Unlink \"$la\"[$pa]" undo="ReLink \"$la\"[$pa]" target="$la[$pa]-$lb[$pb]" what="link $la[$pa]-$lb[$pb] cut" ;;
		switch) cmd="Unlink \"$sx\"" undo="ReLink \"$sx\"" target=$sx what="switch $sx down" ;;
		esac
		# 1. timed, $repeats times, each undone; the first read back
		# (and the tables after its undo: the same as R0?)
		local used routings heavy detect route first final prov fin errors reroutes last
		local before moved removed added blocks restored sent sent_final first_check
		local rf ru rc r firsts finals
		: > "$osmdir/$kind.summaries"
		for r in $(seq 1 "$repeats"); do
			change "$kind-$r" "$cmd" || echo "  $engine: no quiet after '$cmd' in ${quiet_limit}s"
			summary "$ev" "$t0" >> "$osmdir/$kind.summaries"
			if [ "$r" = 1 ]; then
				readback "$osmdir/$kind" "$lmc"
				rf=$findings ru=$unreachable rc=$cycles
				read -r before moved removed added blocks <<< "$(lft_diff "$osmdir/r0/switches.lft" "$osmdir/$kind/switches.lft")"
			fi
			# undone
			change "$kind-$r-undo" "$undo" || echo "  $engine: no quiet after '$undo'"
			if [ "$r" = 1 ]; then
				mkdir -p "$osmdir/$kind-undo"
				lfts > "$osmdir/$kind-undo/switches.lft"
				restored=no
				if cmp -s "$osmdir/r0/switches.lft" "$osmdir/$kind-undo/switches.lft"; then
					restored=yes
				elif [ "${engine##*+}" = fera ] || [ "${engine##*+}" = colorl ] ||
				     [ "${engine##*+}" = dr ]; then
					# routed from the prior tables (prior.h): the
					# pairs moved by the change stay where they went;
					# what the switches hold must still verify
					local uf=$findings uu=$unreachable uc=$cycles
					judge_readback "$osmdir/$kind-undo" "$lmc"
					[ "$findings" != 0 ] || restored=kept
					findings=$uf unreachable=$uu cycles=$uc
				fi
			fi
		done
		read -r used routings heavy detect route first final prov fin errors reroutes last <<< "$(medians "$osmdir/$kind.summaries")"
		firsts=$(cut -d' ' -f6 "$osmdir/$kind.summaries" | paste -sd';')
		finals=$(cut -d' ' -f7 "$osmdir/$kind.summaries" | paste -sd';')
		first_check="same-as-final"
		[ -n "$hybrid" ] && first_check="?"
		# a single engine's first tables are those read back when no
		# routing run came after them; a hybrid's are read back in the
		# provisional round
		[ "$routings" -le 1 ] || [ -n "$hybrid" ] || first_check="not-read-back"
		# 2. counted
		osm_conf "$DEBUG_FLAGS"
		change "$kind-count" "$cmd" || echo "  $engine: no quiet in the count round"
		osm_conf "$LOG_FLAGS"
		sent=$(tail -n +"$((mark + 1))" "$osmdir/osm.log" | grep -ac "Writing FT block" || true)
		sent_final=""
		if [ -n "$hybrid" ]; then
			sent_final=$(tail -n +"$((mark + 1))" "$osmdir/osm.log" |
				awk '/asking OpenSM for a re-route/ { f = 1 } f && /Writing FT block/ { n++ } END { print n + 0 }')
		fi
		change "$kind-count-undo" "$undo" || echo "  $engine: no quiet after '$undo' (count round)"
		# 3. a hybrid's provisional tables
		if [ -n "$hybrid" ]; then
			provisional_readback "$osmdir/$kind-prov" "$cmd"
			first_check=$prov_check
			change "$kind-prov-undo" "$undo" || echo "  $engine: no quiet after '$undo' (provisional round)"
		fi

		local pct
		pct=$(awk -v b="$before" -v m="$moved" -v r="$removed" -v a="$added" 'BEGIN { if (b > 0) printf "%.3f", 100 * (m + r + a) / b; else print "?" }')
		echo "$(echo "$spec" | tr , ';'),$switches,$cas,$lmc,$engine,$kind,$used,$routings,$heavy,$detect,$route,$first,$final,$prov,$fin,$first_check,$rf,$ru,$rc,$before,$moved,$removed,$added,$pct,$blocks,$sent,$sent_final,$restored,$errors,$target,$repeats,$firsts,$finals,$reroutes,$last" >> "$csv"
		echo "  $engine, $what: used $used; the median of $repeats: heavy sweep $detect ms, routing from $route ms, first tables $first ms ($firsts), final $final ms ($finals) ($routings routing runs and $reroutes re-routes at most, first: $first_check); read back: findings $rf; $pct% of $before entries changed ($moved moved, $removed removed, $added added), $blocks blocks changed, $sent blocks sent${sent_final:+ ($sent_final by the final pass)}; undone: tables restored $restored; errors $errors"
	done
	opensm_stop
	ibsim_stop
	# ASSIM_KEEP=DIR keeps every session's logs, events and read-backs
	[ -z "${ASSIM_KEEP:-}" ] || { mkdir -p "$ASSIM_KEEP"; cp -r "$osmdir" "$ASSIM_KEEP/"; }
	rm -rf "$osmdir"
}

# the limits only end a session that never goes quiet: a loaded machine
# takes minutes where an idle one takes seconds
if $smoke; then quiet_limit=300 start_limit=300 repeats=1; else quiet_limit=300 start_limit=900 repeats=3; fi
repeats=${REPEATS:-$repeats}
$report_only && fabrics=""
for spec in $fabrics; do
	for e in $engines; do
		engine=${e%@*} lmc=${e#*@}
		net=$TMP/fabric-$lmc.net
		# LMC 0 engines on the fabric as generated (LIDs packed), the
		# others on the same fabric with LIDs aligned to their LMC
		"$IBROUTING" generate --lmc "$lmc" -o "$net" "$spec"
		switches=$(grep -c '^Switch' "$net")
		cas=$(grep -c '^Ca' "$net")
		grep -m 1 '^switchguid=' "$net" | sed 's/^switchguid=\(0x[0-9a-f]*\).*/\1/' > "$TMP/roots"
		read -r la pa lb pb sx <<< "$(pick_changes "$net")"
		echo "== $spec ($switches switches, $cas CAs), lmc $lmc, $engine: cut $la[$pa]-$lb[$pb], down $sx"
		session "$spec" "$net" "$engine" "$lmc"
	done
done

# ---- tables and plot ------------------------------------------------------

# The table, per fabric and change: times after the change in ms.
{
	echo "| fabric | change | engine (LMC) | used | routing runs | heavy sweep ms | routing ms | first tables ms | final tables ms | routing to first tables ms | routing to final tables ms | first tables read back | final tables read back | entries changed % (moved / removed / added of before) | blocks changed | blocks sent | undone: same tables |"
	echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | --- |"
	awk -F, 'NR > 1 {
		fab = $2 "/" $3; chg = ($6 == "link") ? "link cut" : "switch down"
		v = ($17 == "0") ? "verified" : ($17 == "?" ? "?" : sprintf("%s findings (%s unreachable, %s cycles)", $17, $18, $19))
		fc = $16; if (fc == "same-as-final") fc = "= final"
		sent = $26; if ($27 != "") sent = sent " (final pass " $27 ")"
		push = ($12 != "?" && $11 != "?") ? $12 - $11 : "?"
		push_final = ($13 != "?" && $11 != "?") ? $13 - $11 : "?"
		runs = $8; if ($34 + 0 > 0) runs = runs " (" $34 " re-route" ($34 > 1 ? "s" : "") ")"
		fin = $13; if ($15 ~ /refused/) fin = fin " (change refused, the prior tables stay)"
		if ($35 != "" && $35 != $13) fin = fin " (same fabric routed again: tables at " $35 ")"
		printf "| %s | %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s (%s / %s / %s of %s) | %s | %s | %s |\n",
			fab, chg, $5, $4, $7, runs, $10, $11, $12, fin, push, push_final, fc, v, $24, $21, $22, $23, $20, $25, sent, $28 }' "$csv" |
		sort -t'|' -s -k2,2V -k3,3
} > "$out/assim.md"
cat "$out/assim.md"

# Timelines: per fabric and change one panel, per engine a bar from the
# change to the heavy sweep (detection), to the routing run, to the first
# tables on every switch, to the final ones.
awk -F, 'NR > 1 { key = $2 "/" $3 " CAs, " (($6 == "link") ? "one link cut" : "one switch down")
		if (!(key in panel)) { panel[key] = ++np; title[np] = key }
		p = panel[key]; n[p]++
		row[p, n[p]] = sprintf("%d \"%s\" %s %s %s %s", n[p], $5 ($4 > 0 ? " (lmc " $4 ")" : ""), $10, $11, $12, $13) }
	END { for (p = 1; p <= np; p++) {
		printf "# %s\n", title[p]
		for (i = 1; i <= n[p]; i++) print row[p, i]
		printf "\n\n" } }' "$csv" > "$timeline"
if command -v gnuplot >/dev/null && [ -s "$timeline" ]; then
	panels=$(grep -c '^# ' "$timeline")
	{
		echo "set terminal pngcairo size 1400,$((60 + 300 * ((panels + 1) / 2))) noenhanced"
		echo "set output '$out/assim_timeline.png'"
		echo "set multiplot layout $(((panels + 1) / 2)),2 title 'change assimilation inside OpenSM over ibsim: ms after the change'"
		echo "set datafile missing '?'; set style fill solid 0.8 noborder; set grid x; set xlabel 'ms after the change'"
		echo "set key at screen 0.5, screen 0.005 center bottom horizontal; set bmargin 5; set yrange [0.4:*] reverse; set offsets 0, 0, 0.3, 0.3"
		i=0
		grep '^# ' "$timeline" | sed 's/^# //' | while read -r title; do
			[ "$i" = 0 ] || echo "unset key"
			echo "set title '$title'"
			echo "plot '$timeline' index $i using ((0+\$3)/2):1:(0):3:(\$1-0.3):(\$1+0.3):ytic(2) with boxxyerror lc rgb '#bbbbbb' title 'until the heavy sweep', \\"
			echo "  '' index $i using ((\$3+\$4)/2):1:3:4:(\$1-0.3):(\$1+0.3) with boxxyerror lc rgb '#8fb3d9' title 'discovery', \\"
			echo "  '' index $i using ((\$4+\$5)/2):1:4:5:(\$1-0.3):(\$1+0.3) with boxxyerror lc rgb '#1f5fa8' title 'routing + LFT blocks', \\"
			echo "  '' index $i using ((\$5+\$6)/2):1:5:6:(\$1-0.3):(\$1+0.3) with boxxyerror lc rgb '#e08a1e' title 'first -> final tables'"
			i=$((i + 1))
		done
		echo "unset multiplot"
	} > "$TMP/timeline.gp"
	gnuplot "$TMP/timeline.gp"
fi

# Every row of our engines: the engine asked for was used, tables came
# after the change, and what the switches hold verifies.
bad=$(awk -F, 'NR > 1 && $5 !~ /^(updn|minhop|dnup)$/ &&
	($7 != $5 || $13 == "?" || $17 != "0" || ($16 != "same-as-final" && $16 != "verified" && $16 != "not-read-back") || ($28 != "yes" && $28 != "kept") || $15 ~ /refused/)' "$csv")
if [ -n "$bad" ]; then
	echo "bench_assim: runs of our engines that failed:"; echo "$bad"
	! $smoke || exit 1
fi
rows=$(awk -F, 'NR > 1' "$csv" | wc -l)
if $smoke && [ "$rows" -lt 2 ]; then
	echo "bench_assim smoke: $rows rows"; exit 1
fi
if $smoke; then
	echo "bench_assim smoke: $rows changes assimilated by our engines, every switch's tables read back and verified"
fi
