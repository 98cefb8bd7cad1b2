#!/bin/sh
# e2e_management.sh - management traffic over the plugin's tables
# (management.h), stock OpenSM over ibsim, which forwards LID-routed MADs
# hop by hop through the switches' tables and drops them at a missing
# entry:
#   (a) a 4-ary 3-tree with 2 links cut, the SM on a host, fera: perfquery
#       from a host on every leaf to every switch's LID is answered (the
#       query climbs to the switch, the answer comes back), and the
#       tables read back verify (every switch reaches every LID);
#   (b) the intact tree, the SM on a root switch: a link cut between
#       another root and a switch not below the SM's makes both ends send
#       a trap, and the SM receives the trap (sweep_interval 0: no sweep
#       would notice otherwise) within milliseconds; OpenSM's updn and
#       ftree, run the same way for reference (a comment line, not a
#       check), lose it: their tables give that switch no route to the
#       SM's; perfquery from hosts of every pod to every switch is
#       answered;
#   (c) a Dragonfly+ with 2 group pairs isolated, the SM on a spine (a
#       root), dr at LMC 1: perfquery from a host of every group to every
#       switch is answered, the tables read back verify.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements
need_tool perfquery ibswitches

# generate NAME SPEC: the net file $TMP/NAME.net
generate() {
	if ! "$IBROUTING" generate -o "$TMP/$1.net" "$2" 2> "$TMP/gen.err"; then
		flunk "ibrouting generate $2: $(cat "$TMP/gen.err")"
		finish
		exit 1
	fi
}

# first_hosts NETFILE: the ibsim name of the first CA on each switch
first_hosts() {
	awk '/^(Ca|Hca)[ \t]/ { n = $3; gsub(/"/, "", n); getline
		split($0, a, "\""); if (!(a[2] in seen)) { seen[a[2]] = 1; print n } }' "$1"
}

# perf_sweep NAME HOSTS...: perfquery from each host (SIM_HOST) to every
# switch's LID (as ibswitches lists them from the first host); sets
# asked, unanswered, and $TMP/NAME.unanswered lists "HOST LID" pairs
perf_sweep() {
	sweep=$1
	shift
	SIM_HOST=$1 LD_PRELOAD=$UMAD2SIM ibswitches 2>/dev/null |
		sed -n 's/.* lid \([0-9]*\) lmc .*/\1/p' > "$TMP/$sweep.lids"
	asked=0 unanswered=0
	: > "$TMP/$sweep.unanswered"
	for h in "$@"; do
		while read -r lid; do
			asked=$((asked + 1))
			# a lost query costs the bound; a slow answer, nothing
			if ! SIM_HOST=$h LD_PRELOAD=$UMAD2SIM timeout 30 \
			     perfquery -t 3000 "$lid" 1 > /dev/null 2>&1; then
				unanswered=$((unanswered + 1))
				echo "$h $lid" >> "$TMP/$sweep.unanswered"
			fi
		done < "$TMP/$sweep.lids"
	done
}

# expect_answered NAME SWITCHES WHAT: the sweep asked every switch from
# every host and had every query answered
expect_answered() {
	if [ "$asked" -gt 0 ] && [ "$(wc -l < "$TMP/$1.lids")" = "$2" ] && [ "$unanswered" = 0 ]; then
		pass "$1: perfquery $3: $asked queries to $2 switches' LIDs, every one answered"
	else
		flunk "$1: perfquery $3: $unanswered of $asked unanswered ($(wc -l < "$TMP/$1.lids") switch LIDs listed, $2 expected)"
		head -5 "$TMP/$1.unanswered" | sed 's/^/# /'
	fi
}

# verified_readback NAME: the tables the switches hold verify (every
# switch reaches every LID: the verifier's management check)
verified_readback() {
	readback "$1"
	if [ "$rb_findings" = 0 ]; then
		pass "$1: the tables read back verify: $(grep -E '^manage' "$TMP/$1/readback.out" | head -n 1)"
	else
		flunk "$1: the tables read back: $rb_findings findings"
		grep -E '^(verify|  )' "$TMP/$1/readback.out" | head -6 | sed 's/^/# /'
	fi
}

# since_mark ERE: a line of $name's log after line $mark matches ERE
since_mark() { tail -n +"$((mark + 1))" "$TMP/$name/osm.log" | grep -qE -- "$1"; }

# daemon NAME ENGINE SM-HOST [CONF-LINES]: OpenSM as a daemon on SM-HOST
# (a host, or a switch: ibsim runs the SM on its port 0), until SUBNET UP
daemon() {
	mkdir -p "$TMP/$1"
	if [ -n "$3" ]; then export SIM_HOST="$3"; else unset SIM_HOST; fi
	opensm_daemon "$TMP/$1" "$2" "${4:-}" || flunk "$1: OpenSM with $2 did not bring the subnet up"
	unset SIM_HOST
}

# ---- (a) a cut fat tree, the SM on a host ------------------------------
generate cut kary:k=4,n=3,cut=2,seed=1
ibsim_start "$TMP/cut.net"
daemon a-fera fera ""
perf_sweep a-fera $(first_hosts "$TMP/cut.net")
expect_answered a-fera 48 "from a host on each of 16 leaves (fera, 2 links cut)"
opensm_stop
opensm_run a-fera-once fera || true
verified_readback a-fera-once
ibsim_stop

# ---- (b) the SM on a root switch: traps -------------------------------
generate tree kary:k=4,n=3
ibsim_start "$TMP/tree.net"
# the SM's root S-...200000 is above L1 S0..S3; L1 S4 (LID 31) is not,
# nor is the root L0 S4 at its port 5
sm_switch=S-0000000000200000
cut_link='Unlink "S-0000000000200014"[5]'
for engine in fera updn ftree; do
	name=b-$engine
	daemon "$name" "$engine" "$sm_switch" "sweep_interval 0"
	mark=$(wc -l < "$TMP/$name/osm.log")
	echo "$cut_link" >&7
	t0=$(date +%s%N)
	got=
	# ours: 120 s at most (it comes in milliseconds); the references,
	# which lose it: 10 s
	limit=120
	[ "$engine" = fera ] || limit=10
	if osm_wait "$limit" since_mark "Received Generic Notice type:1 num:128 .* from LID:31 "; then
		got=$(( ($(date +%s%N) - t0) / 1000000 ))
	fi
	if [ "$engine" != fera ]; then
		echo "# reference: $engine: the SM on root $sm_switch received ${got:+the trap of LID 31 after $got ms}${got:-no trap from LID 31 in $limit s}"
	elif [ -n "$got" ]; then
		pass "$name: the SM on root $sm_switch received the trap of switch LID 31 (not below it) after the cut, ${got} ms"
	else
		flunk "$name: the SM on root $sm_switch received no trap from LID 31 in $limit s after the cut"
	fi
	if [ "$engine" = fera ]; then
		# the heavy sweep the trap forced routes the cut tree again
		osm_wait 300 since_mark "SUBNET UP" || flunk "$name: no SUBNET UP after the cut in 300 s"
		perf_sweep "$name" H-0000000000100000 H-0000000000100010 H-0000000000100020 H-0000000000100030
		expect_answered "$name" 48 "from 4 hosts, the SM on a root switch, after the cut"
	fi
	opensm_stop
	ibsim_stop
	ibsim_start "$TMP/tree.net"
done
ibsim_stop

# ---- (c) a Dragonfly+, the SM on a spine ------------------------------
generate dfp dfplus:groups=9,leaves=4,spines=4,isolate=2
ibsim_start "$TMP/dfp.net"
spine=$(awk '/^Switch/ && /spine/ { n = $3; gsub(/"/, "", n); print n; exit }' "$TMP/dfp.net")
daemon c-dr dr "$spine" "lmc 1"
# a host of every group: the first on every fourth leaf
perf_sweep c-dr $(first_hosts "$TMP/dfp.net" | awk 'NR % 4 == 1')
expect_answered c-dr 72 "from a host of each of 9 groups (dr at LMC 1, the SM on spine $spine)"
opensm_stop
if [ -n "$spine" ]; then export SIM_HOST=$spine; fi
opensm_run c-dr-once dr "lmc 1" || true
unset SIM_HOST
verified_readback c-dr-once
ibsim_stop

finish
