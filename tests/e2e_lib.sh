# e2e_lib.sh - run stock OpenSM with the ibrouting plugin over ibsim
# (sourced by the end-to-end tests, after lib.sh).
#
# Every test gets its own ibsim socket (IBSIM_SOCKNAME), OpenSM cache
# directory (so no guid2lid from another run pins LIDs) and dump
# directory.  ibsim's stdin is a FIFO held open by this shell: ibsim spins
# on EOF.  Everything started is stopped on exit.
: "${PLUGIN_DIR:?PLUGIN_DIR must name the directory holding libibrouting.so}"
UMAD2SIM=${UMAD2SIM:-/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so}
IBSIM_PID=

e2e_requirements() {
	need_tool ibsim opensm dump_fts ibroute smpdump ibnetdiscover ibdmchk
	[ -f "$UMAD2SIM" ] || skip "$UMAD2SIM is not installed (Debian libumad2sim0)"
	[ -f "$PLUGIN_DIR/libibrouting.so" ] ||
		skip "the OpenSM plugin was not built ($PLUGIN_DIR/libibrouting.so; configure found no OpenSM headers, or --without-opensm)"
	PATH=$PATH:/usr/sbin
}

# ibsim_start NETFILE: serve the fabric on a socket of our own.
ibsim_start() {
	export IBSIM_SOCKNAME="ibr$$-$(basename "$1" .net)"
	mkfifo "$TMP/ibsim.in"
	# ibsim's node, switch and port tables sized to the fabric
	set -- "$1" $(awk '/^(Switch|Hca|Ca)[ \t]/ { n++; p += $2 + 1; if ($1 == "Switch") s++ }
		END { printf "%d %d %d", n + 64, s + 64, p + 1024 }' "$1")
	ibsim -s -N "$2" -S "$3" -P "$4" "$1" < "$TMP/ibsim.in" > "$TMP/ibsim.out" 2>&1 &
	IBSIM_PID=$!
	exec 7> "$TMP/ibsim.in"
	# ibsim prints its prompt once the fabric is up
	wait_until 300 ibsim_ready && grep -q "sim>" "$TMP/ibsim.out" && return 0
	echo "# ibsim did not start:"; sed 's/^/# /' "$TMP/ibsim.out"
	return 1
}
# its prompt printed, or ibsim gone
ibsim_ready() { grep -q "sim>" "$TMP/ibsim.out" 2>/dev/null || ! kill -0 "$IBSIM_PID" 2>/dev/null; }

# ibsim_do CMD: CMD on ibsim's console; returns once ibsim has done it
# (its prompt printed again after the command; 1 after 120 s)
ibsim_do() {
	id_n=$(ibsim_prompts)
	echo "$1" >&7
	wait_until 120 ibsim_prompted "$id_n"
}
ibsim_prompts() { grep -o 'sim> ' "$TMP/ibsim.out" 2>/dev/null | wc -l; }
ibsim_prompted() { [ "$(ibsim_prompts)" -gt "$1" ]; }

ibsim_stop() {
	[ -n "$IBSIM_PID" ] || return 0
	exec 7>&-
	kill "$IBSIM_PID" 2>/dev/null || true
	wait "$IBSIM_PID" 2>/dev/null || true
	IBSIM_PID=
	rm -f "$TMP/ibsim.in"
}
OSM_PID=
# OpenSM (a daemon started by opensm_daemon) and ibsim are stopped on any
# exit; a signal exits through the EXIT trap.
trap '[ -z "$OSM_PID" ] || opensm_stop; ibsim_stop; drop_tmp' EXIT
trap 'exit 1' HUP INT TERM

# opensm_run NAME ENGINES [EXTRA-CONF-LINES]: one routing pass, -o.
# Leaves $TMP/NAME/{osm.log,dump/}; OSM_DEBUG (default 0x47: with the
# routing dumps) sets OpenSM's -D flags; OSM_PLUGINS (default ibrouting)
# the event plugins OpenSM loads, found in $PLUGIN_DIR or
# LD_LIBRARY_PATH.
opensm_run() {
	name=$1 engines=$2 extra=${3:-}
	dir=$TMP/$name
	mkdir -p "$dir/dump" "$dir/cache"
	{
		echo "event_plugin_name ${OSM_PLUGINS:-ibrouting}"
		echo "routing_engine $engines"
		echo "dump_files_dir $dir/dump/"
		echo "force_log_flush TRUE"
		[ -z "$extra" ] || printf '%s\n' "$extra"
	} > "$dir/opensm.conf"
	# the bound only stops a hung run (one sweep takes seconds)
	OSM_CACHE_DIR=$dir/cache timeout -s INT 900 env \
		LD_LIBRARY_PATH="$PLUGIN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		LD_PRELOAD="$UMAD2SIM" opensm -F "$dir/opensm.conf" -o \
		-f "$dir/osm.log" -D "${OSM_DEBUG:-0x47}" > "$dir/opensm.out" 2>&1
}

# opensm_daemon DIR ENGINE [EXTRA-CONF-LINES]: OpenSM as a daemon (SA and
# multicast up) with our plugin and routing_engine ENGINE; returns once it
# reports SUBNET UP (300 s at most; 1 at once if it died), with its pid in
# OSM_PID.  opensm_stop ends it.  OSM_DEBUG (default 0x03) sets OpenSM's
# -D flags.
opensm_daemon() {
	mkdir -p "$1/cache"
	printf 'event_plugin_name ibrouting\nrouting_engine %s\nforce_log_flush TRUE\n' "$2" > "$1/opensm.conf"
	[ -z "${3:-}" ] || printf '%s\n' "$3" >> "$1/opensm.conf"
	OSM_CACHE_DIR=$1/cache LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$UMAD2SIM \
		opensm -F "$1/opensm.conf" -f "$1/osm.log" -D "${OSM_DEBUG:-0x03}" > "$1/out" 2>&1 &
	OSM_PID=$!
	osm_wait 300 grep -q "SUBNET UP" "$1/osm.log" 2>/dev/null
}

# osm_wait SECONDS CMD...: wait_until CMD succeeds, but 1 as soon as
# OpenSM ($OSM_PID) is gone
osm_wait() {
	ow_limit=$1
	shift
	wait_until "$ow_limit" or_osm_gone "$@" && "$@"
}
or_osm_gone() { "$@" || ! kill -0 "$OSM_PID" 2>/dev/null; }

# The passes of our hybrid $engine in an OpenSM log: a pass is its
# build_lid_matrices INFO line (the VERBOSE phases line after it names it
# too, without " switches, ").
is_pass='index($0, "build_lid_matrices: " engine ": ") && index($0, " switches, ")'
# pass_count LOG: how many so far
pass_count() { awk -v engine="$engine" "$is_pass { n++ } END { print n + 0 }" "$1" 2>/dev/null; }
# pass_line LOG K: pass K's text after "ENGINE: " ("provisional pass
# (pira): 24 switches, ...")
pass_line() {
	awk -v engine="$engine" -v k="$2" "$is_pass"' { if (++n == k) { sub(/.*build_lid_matrices: [^:]*: /, ""); print; exit } }' "$1"
}
# wait_pushed LOG K: until pass K is logged and sent: the plugin schedules
# the next pass, or OpenSM completes the re-route or the sweep after it.
# Bounded: 300 s.
wait_pushed() { wait_until 300 pushed "$@"; }
pushed() {
	awk -v engine="$engine" -v k="$2" "$is_pass"' { n++; next }
		n == k && (/final pass in [0-9]+ ms/ || /REROUTE COMPLETE/ || /SUBNET UP/) { ok = 1 }
		END { exit !ok }' "$1" 2>/dev/null
}

# scheduled LOG K: once pass K is pushed, did the plugin schedule
# another ("final pass in N ms")?  0 yes, 1 no, 2 when OpenSM said
# neither in 300 s.  OpenSM logs a re-route's or a sweep's end before it
# reports the event on which the plugin schedules, so "no" waits for a
# line OpenSM logs after that report: its next sweep (sweep_interval set).
scheduled() {
	wait_until 300 sched_known "$@" || return 2
	[ "$(sched_state "$@")" = yes ]
}
sched_known() { [ -n "$(sched_state "$@")" ]; }
sched_state() {
	awk -v engine="$engine" -v k="$2" "$is_pass"' { n++; next }
		n == k && /final pass in [0-9]+ ms/ { r = "yes"; exit }
		n == k && /REROUTE COMPLETE|SUBNET UP/ { up = 1; next }
		n == k && up && /LIGHT SWEEP COMPLETE|INITIATING HEAVY SWEEP/ { r = "no"; exit }
		END { print r }' "$1" 2>/dev/null
}

# pushed_after LOG ERE: a line of LOG matches ERE (awk's: write a + as
# [+]), and OpenSM completed a re-route or a sweep after the last such
# line: the tables of the pass that line belongs to are on the switches.
# One read of the log (ENVIRON: -v would take the ERE's backslashes).
pushed_after() {
	PA_RE=$2 awk '$0 ~ ENVIRON["PA_RE"] { seen = 1; up = 0; next }
		seen && /REROUTE COMPLETE|SUBNET UP/ { up = 1 }
		END { exit !up }' "$1" 2>/dev/null
}

# way_done LOG ENGINE: ENGINE's last routing run in LOG ended its way
# (reconf.h: a single engine's tables, or a hybrid's final ones, in
# place): its INFO line is neither a step still on the way (", step N"
# without ", the last") nor a provisional pass, and OpenSM configured the
# tables after it
way_done() {
	awk -v e="$2" '
		index($0, "build_lid_matrices: " e) && index($0, " switches, ") {
			pending = ($0 ~ /, step [0-9]+:/ ||
				   index($0, "build_lid_matrices: " e ": provisional pass"))
			cfg = 0; seen = 1; next
		}
		/tables configured on all switches|REROUTE COMPLETE|SUBNET UP/ { cfg = 1 }
		END { exit !(seen && cfg && !pending) }' "$1" 2>/dev/null
}

# wait_way_done LOG ENGINE [LIMIT]: until way_done, at most LIMIT seconds
# (default 120)
wait_way_done() {
	for _ in $(seq 1 $((${3:-120} * 5))); do
		way_done "$1" "$2" && return 0
		sleep 0.2
	done
	return 1
}

opensm_stop() {
	kill -INT "$OSM_PID" 2>/dev/null || true
	wait "$OSM_PID" 2>/dev/null || true
	OSM_PID=
}

# The LFTs the simulated switches hold, as "GUID LID PORT" lines, read
# with dump_fts.  dump_fts (infiniband-diags 44) never reads the block of
# the top LID when LinearFDBTop is a multiple of 64 (it rounds the end
# block down), so that one entry is read with smpdump from the switch's
# LinearForwardingTable block itself.
switch_lfts() {
	LD_PRELOAD="$UMAD2SIM" dump_fts 2>/dev/null > "$TMP/dump_fts.out"
	awk '
		function hex(s,   v, i) {
			v = 0; s = tolower(s); sub(/^0x/, "", s)
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		/^Unicast lids/ {
			for (i = 1; i <= NF; i++) if ($i == "guid") { guid = $(i + 1); path = $(i - 1) }
			split($3, range, "-"); top = hex(substr(range[2], 1, length(range[2]) - 1))
			if (top % 64 == 0) printf "TOP %s %s %d\n", guid, path, top
		}
		/^0x[0-9a-fA-F]+ [0-9]+ :/ { printf "%s %d %d\n", guid, hex($1), $2 + 0 }' \
		"$TMP/dump_fts.out" > "$TMP/lfts.raw"
	grep '^TOP ' "$TMP/lfts.raw" | while read -r _ guid path top; do
		port=$(LD_PRELOAD="$UMAD2SIM" smpdump -D "$path" 0x19 $((top / 64)) 2>/dev/null |
			head -n 1 | cut -c1-2)
		[ "$port" = ff ] || [ -z "$port" ] || echo "$guid $top $((0x$port))"
	done > "$TMP/lfts.top"
	grep -v '^TOP ' "$TMP/lfts.raw" | cat - "$TMP/lfts.top" | sort
}

# "SWITCH-GUID LID PORT" of an LFT dump (ours or OpenSM's), sorted.
dump_lfts() {
	awk '/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") guid = $(i + 1); next }
		/^0x[0-9a-f]+ [0-9]+ / {
			lid = 0; s = substr($1, 3)
			for (i = 1; i <= length(s); i++)
				lid = lid * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			printf "%s %d %d\n", guid, lid, $2 + 0
		}' "$1" | sort
}

# lfts_dump SUBNET-LST LMC < "GUID LID PORT" lines (switch_lfts): the
# tables as OpenSM's opensm-lfts.dump (what `ibrouting verify` reads), each LID's owner named from the
# subnet list (a CA port's 2^LMC LIDs from its base, a switch's one LID)
lfts_dump() {
	awk -v lmc="$2" '
	function hex(s,   v, i) {
		v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	function flush(   l) {
		if (sw == "") return
		printf "Unicast lids [0-%d] of switch Lid %d guid 0x%s (\x27readback\x27):\n", top, swlid[sw], sw
		for (l = 1; l <= top; l++)
			if (l in port)
				printf "0x%04x %03d # %s\n", l, port[l], (l in owner) ? "portguid 0x" owner[l] : "nobody"
		printf "%d lids dumped\n", top
		split("", port)
	}
	FNR == NR {
		for (i = 1; i <= NF; i++) {
			if ($i == "{") type = $(i + 1)
			else if ($i ~ /^NodeGUID:/) node = tolower(substr($i, 10))
			else if ($i ~ /^PortGUID:/) pg = tolower(substr($i, 10))
			else if ($i ~ /^LID:/) {
				lid = hex(substr($i, 5))
				if (type ~ /^SW/) { swlid[node] = lid; owner[lid] = pg; n = 1 }
				else { n = 2 ^ lmc; for (k = 0; k < n; k++) owner[lid + k] = pg }
				if (lid + n - 1 > top) top = lid + n - 1
			}
		}
		next
	}
	{ g = tolower($1); sub(/^0x/, "", g)
	  if (g != sw) { flush(); sw = g }
	  if ($2 > top) top = $2
	  port[$2] = $3 }
	END { flush() }' "$1" -
}

# trace_hops DLID: ibtracert's output (stdin) as "SWITCH-GUID DLID PORT"
# lines, one per switch crossed: each "[out] -> ... {guid}" line names the
# out port of the node before it.
trace_hops() {
	awk -v d="$1" '
		/^From ca/ { prev = ""; next }
		/^\[[0-9]+\] ->/ {
			out = substr($1, 2, length($1) - 2) + 0
			if (prev != "") printf "%s %d %d\n", prev, d, out
			match($0, /\{0x[0-9a-f]+\}/)
			guid = substr($0, RSTART + 1, RLENGTH - 2)
			prev = ($3 == "switch") ? guid : ""
		}'
}

# log_has NAME PATTERN DESCRIPTION: $TMP/NAME/osm.log has a line matching
# PATTERN (grep -E): one check, the line quoted, or the log's errors.
log_has() {
	if grep -qE -- "$2" "$TMP/$1/osm.log"; then
		pass "$1: $3: $(grep -E -- "$2" "$TMP/$1/osm.log" | head -n 1 | sed 's/.*-> //' | cut -c1-200)"
	else
		flunk "$1: $3: no /$2/ in the log"
		grep -E "ERR|routing|configured" "$TMP/$1/osm.log" | head | sed 's/^/# /'
	fi
}

# roots_opt DIR: "--roots FILE" for `ibrouting verify` when DIR/osm.log
# has our plugin's root set (the last "root set I-J of N:" lines it
# logged), so the verifier knows which root LIDs owe no route (a root of a
# set is a sink: verify.h); nothing when the log has none.
roots_opt() {
	[ -f "$1/osm.log" ] || return 0
	awk '/: root set [0-9]+-[0-9]+ of [0-9]+:/ {
		if ($0 ~ /: root set 1-/) n = 0
		for (i = 1; i <= NF; i++) if ($i ~ /^0x[0-9a-f]+$/ && length($i) == 18) g[++n] = $i
	} END { for (i = 1; i <= n; i++) print g[i] }' "$1/osm.log" > "$1/roots.guid"
	[ -s "$1/roots.guid" ] && echo "--roots $1/roots.guid"
	return 0
}

# judge_dump DIR: our verifier and ibdmchk on the OpenSM dumps in
# DIR/dump (with an ibrouting-dlids.dump beside them when there is one);
# sets findings, unreachable, cycles, load, mean, dlids (from
# DIR/verify.out) and loops (ibdmchk's credit loops, DIR/ibdmchk.out),
# each "?" when unknown.
judge_dump() {
	findings=? unreachable=? cycles=? load=? mean=? dlids=? loops=?
	[ -f "$1/dump/opensm-lfts.dump" ] || return 0
	"$IBROUTING" verify $(roots_opt "$1") "$1/dump" > "$1/verify.out" 2>&1 || true
	findings=$(sed -n 's/^verify    OK.*/0/p; s/^verify    FAILED: \([0-9]*\) findings\{0,1\} .*/\1/p' "$1/verify.out")
	unreachable=$(sed -n 's/^verify    OK.*/0/p; s/^verify    FAILED:.* \([0-9]*\) unreachable.*/\1/p' "$1/verify.out")
	cycles=$(sed -n 's/^verify    OK.*/0/p; s/^verify    FAILED:.* \([0-9]*\) dependency cycles.*/\1/p' "$1/verify.out")
	load=$(sed -n 's/^load      max link load \([0-9]*\) flows.*/\1/p' "$1/verify.out")
	mean=$(sed -n 's/.*mean path \([0-9.]*\) links.*/\1/p' "$1/verify.out")
	dlids=$(sed -n 's/.* \([0-9]*\) DLIDs used.*/\1/p' "$1/verify.out")
	: > "$1/empty.mcfdbs"
	(cd "$1" && timeout 900 ibdmchk -s dump/opensm-subnet.lst -f dump/opensm.fdbs \
		-m empty.mcfdbs > ibdmchk.out 2>&1) 2>/dev/null || true  # 1.5.7 segfaults after its report
	if grep -q "no credit loops found" "$1/ibdmchk.out"; then
		loops=0
	elif grep -q "credit loops in routing" "$1/ibdmchk.out"; then
		loops=$(grep -c "Found credit loop" "$1/ibdmchk.out" || true)
	fi
}

# Routing time from OpenSM's own log: 'building routing with' to
# 'tables configured', in milliseconds.
routing_ms() {
	awk '
		function t(line,   a) { split($3, a, ":"); return (a[1] * 3600 + a[2] * 60 + a[3]) * 1000 + $4 / 1000 }
		/building routing with/ { start = t() }
		/tables configured on all switches/ { end = t() }
		END { if (start && end) printf "%.1f\n", end - start; else print "?" }' "$1"
}

# ours_ms OSM-LOG: the plugin's part of the routing window, ms from
# "building routing with" to the plugin's tables handed to OpenSM (its
# build_fwd_tables line); the rest of the window is OpenSM's, sending the
# LFT blocks.  "?" for a run of an engine not ours.
ours_ms() {
	awk '
		function t(line,   a) { split($3, a, ":"); return (a[1] * 3600 + a[2] * 60 + a[3]) * 1000 + $4 / 1000 }
		/building routing with/ { start = t() }
		/build_fwd_tables: .*tables into OpenSM/ { end = t() }
		END { if (start && end) printf "%.1f\n", end - start; else print "?" }' "$1"
}

# fdbs_port_hops FDBS SUBNET-LST: "SWITCH LID PORT HOPS" from an
# opensm.fdbs, whoever wrote it; HOPS is "-" for a LID that is not a
# switch's in SUBNET-LST.  The hops OpenSM prints for a CA LID are not its
# hop table's: with no entry for the CA LID (the plugin sets one only where
# the CA's port differs from its switch's), dump_ucast_routes prints the
# hops to the CA's switch plus one, but without the plus one once an
# earlier CA LID of the same switch had an entry (OpenSM 3.3.23 never
# resets direct_route_exists); so they depend on the LID order.
fdbs_port_hops() {
	awk 'FNR == NR {
		line = $0
		while (match(line, /[{] SW[^{]*[{][^}]*[}] LID:[0-9A-Fa-f]+/)) {
			lid = substr(line, RSTART, RLENGTH)
			sub(/.*LID:/, "", lid)
			sw_lid["0x" toupper(lid)] = 1
			line = substr(line, RSTART + RLENGTH)
		}
		next
	}
	/^dump_ucast_routes: Switch/ { sw = $3 }
	/^0x[0-9A-F]+ : [0-9]+ +: [0-9]+/ { print sw, $1, $3, ($1 in sw_lid) ? $5 : "-" }' \
		"$2" "$1" | sort
}

# The node GUID OpenSM ran on, from its subnet list ("-SM" marks it).
sm_node_guid() {
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /-SM$/) { for (j = i; j <= NF; j++)
		if ($j ~ /^NodeGUID:/) { print "0x" substr($j, 10); exit } } }' "$1"
}

# check_run NAME ENGINE NETFILE [LMC]: after opensm_run NAME ENGINE (with
# `lmc LMC` in its conf if given), the checks of every end-to-end test
# (CHECK_ROUTE_ARGS: what the offline route needs to match the plugin's
# options file, e.g. "--root-strategy sm --port-choice lowest"):
#   (e) OpenSM used our engine, no fallback, and logged no error;
#   (b) the switches' tables equal what `ibrouting route` computes offline
#       for the same fabric and SM: on OpenSM's subnet list (OpenSM's
#       LIDs), and on the topology file (its LIDs, or, where it gives
#       none, those ibrouting assigns as OpenSM does, with --lmc LMC);
#   (c) `ibrouting verify` accepts OpenSM's own dumps;
#   (d) ibdmchk finds no credit loop in them.
check_run() {
	name=$1 engine=$2 net=$3 dir=$TMP/$1 lmc=${4:-0}
	if grep -q "$engine tables configured on all switches" "$dir/osm.log" &&
	   grep -q "build_lid_matrices: $engine: .*verified" "$dir/osm.log" &&
	   ! grep -q "building routing with 'minhop'" "$dir/osm.log"; then
		pass "$name: OpenSM routed with $engine ($(routing_ms "$dir/osm.log") ms): $(sed -n "s/.*build_lid_matrices: $engine: //p" "$dir/osm.log" | head -n 1 | cut -c1-90)"
	else
		flunk "$name: OpenSM did not route with $engine:"
		grep -E "ERR|routing|tables configured" "$dir/osm.log" | sed 's/^/# /' | head -20
	fi

	# No error of any kind in OpenSM's log: unicast, multicast (it reads
	# the hop tables we fill), SA, LFT distribution.
	if grep -q ' 0x01 -> ' "$dir/osm.log"; then
		flunk "$name: OpenSM logged errors:"
		grep ' 0x01 -> ' "$dir/osm.log" | head -5 | sed 's/^/# /'
	else
		pass "$name: no ERR line in OpenSM's log ($(grep -c . "$dir/osm.log") lines; multicast groups: $(grep -c 'mcast_mgr_process_mgrp\|Configuring MLID' "$dir/osm.log"))"
	fi

	sm=$(sm_node_guid "$dir/dump/opensm-subnet.lst")
	switch_lfts > "$dir/switches.lft"
	# Offline on the topology file itself, LIDs given or not, and on the
	# fabric OpenSM discovered (its subnet list and LIDs; its offline dump
	# is the one compared below).
	for src in "$net" "$dir/dump"; do
		rm -rf "$dir/offline-dump"
		"$IBROUTING" route -e "$engine" --sm "$sm" --lmc "$lmc" ${CHECK_ROUTE_ARGS:-} --print-lfts \
			--dump-dir "$dir/offline-dump" "$src" 2> "$dir/offline.err" |
			grep '^0x' | sort > "$dir/offline.lft"
		if [ -s "$dir/switches.lft" ] && cmp -s "$dir/switches.lft" "$dir/offline.lft"; then
			pass "$name: $(wc -l < "$dir/switches.lft") LFT entries read back from the switches equal 'ibrouting route' offline on $(basename "$src") (SM $sm)"
		else
			flunk "$name: switch LFTs differ from 'ibrouting route' on $src ($(wc -l < "$dir/switches.lft") vs $(wc -l < "$dir/offline.lft") entries; stderr: $(head -c 400 "$dir/offline.err")"
			diff "$dir/switches.lft" "$dir/offline.lft" | head -10 | sed 's/^/# /'
		fi
	done

	# The hop tables we fill for OpenSM (read by its multicast manager and
	# its fdbs dump) agree with the walks of our tables: OpenSM's
	# opensm.fdbs and ours give every (switch, LID) the same port, and
	# every switch LID the same hops (see fdbs_port_hops for CA LIDs).
	fdbs_port_hops "$dir/dump/opensm.fdbs" "$dir/dump/opensm-subnet.lst" > "$dir/osm.fdbs"
	fdbs_port_hops "$dir/offline-dump/opensm.fdbs" "$dir/dump/opensm-subnet.lst" > "$dir/our.fdbs"
	if [ -s "$dir/osm.fdbs" ] && cmp -s "$dir/osm.fdbs" "$dir/our.fdbs"; then
		pass "$name: OpenSM's hop tables match our routes ($(wc -l < "$dir/osm.fdbs") ports, $(grep -vc ' -$' "$dir/osm.fdbs") switch-LID hops in opensm.fdbs)"
	else
		flunk "$name: OpenSM's opensm.fdbs disagrees with our routes' hops"
		diff "$dir/osm.fdbs" "$dir/our.fdbs" | head -6 | sed 's/^/# /'
	fi

	if "$IBROUTING" verify $(roots_opt "$dir") "$dir/dump" > "$dir/verify.out" 2>&1; then
		pass "$name: ibrouting verify on OpenSM's dumps: $(grep '^verify' "$dir/verify.out")"
	else
		flunk "$name: ibrouting verify on OpenSM's dumps failed:"
		sed 's/^/# /' "$dir/verify.out"
	fi

	: > "$dir/empty.mcfdbs"
	(cd "$dir" && ibdmchk -s dump/opensm-subnet.lst -f dump/opensm.fdbs \
		-m empty.mcfdbs > ibdmchk.out 2>&1) 2>/dev/null || true  # 1.5.7 segfaults after its report
	if grep -q "no credit loops found" "$dir/ibdmchk.out" &&
	   ! grep -q -- "-E-" "$dir/ibdmchk.out"; then
		pass "$name: ibdmchk: $(grep -o 'Scanned:[0-9]* CA to CA paths' "$dir/ibdmchk.out"), no credit loops found"
	else
		flunk "$name: ibdmchk reports problems:"
		grep -E -- "-E-|-W-|credit" "$dir/ibdmchk.out" | head -10 | sed 's/^/# /'
	fi
}

# lfts_fts TOP < "GUID LID PORT" lines (switch_lfts): the same tables in
# dump_fts's own format, every section over LIDs 0..TOP, for `ibrouting
# verify --lfts` (switch_lfts has read the top LID dump_fts skips).
lfts_fts() {
	sort -k1,1 -k2,2n | awk -v top="$1" '
	function close_sw() { if (sw != "") printf "%d valid lids dumped\n", n }
	# GUIDs compared as strings: awk reads 0x... as a number, and two
	# GUIDs that differ in their last bits are one double
	$1 "" != sw { close_sw(); sw = $1 ""; n = 0
		printf "Unicast lids [0x0-0x%x] of switch Lid 0 guid %s (readback):\n", top, sw }
	{ printf "0x%04x %03d :\n", $2, $3; n++ }
	END { close_sw() }'
}

# same_as_dump DIR OK WHAT [VERIFY-OPTION...]: the LFTs the switches hold
# (switch_lfts, DIR/switches.lft) are the plugin's dump in DIR/ours
# (DIR/ours.lft), not empty, and `ibrouting verify` of that dump
# (DIR/verify.out) prints a line matching OK (grep's): ok "WHAT: " with
# the entries' count and the verify line; else not ok, with the first
# differences and the verify lines as comments.
same_as_dump() {
	sd_dir=$1 sd_ok=$2 sd_what=$3
	shift 3
	switch_lfts > "$sd_dir/switches.lft"
	dump_lfts "$sd_dir/ours/opensm-lfts.dump" > "$sd_dir/ours.lft"
	"$IBROUTING" verify "$@" "$sd_dir/ours" > "$sd_dir/verify.out" 2>&1 || true
	if [ -s "$sd_dir/switches.lft" ] && cmp -s "$sd_dir/switches.lft" "$sd_dir/ours.lft" &&
	   grep -q "$sd_ok" "$sd_dir/verify.out"; then
		pass "$sd_what: $(wc -l < "$sd_dir/switches.lft") entries read back equal the plugin's dump; $(grep -m1 '^verify    ' "$sd_dir/verify.out" | cut -c11-90)"
	else
		flunk "$sd_what: the switches differ from the plugin's dump, or it does not verify"
		diff "$sd_dir/switches.lft" "$sd_dir/ours.lft" | head -5 | sed 's/^/# /'
		grep '^verify' "$sd_dir/verify.out" | sed 's/^/# /'
	fi
}

# readback NAME: after opensm_run NAME, the tables the switches hold
# (switch_lfts) judged by `ibrouting verify --lfts` on the fabric of
# OpenSM's dump of that run.  Sets rb_findings (our verifier's), rb_load
# (max link load, CA pairs), rb_hosts, rb_links (inter-switch links) and
# rb_bound (the load no routing of the fabric goes below: the verifier's
# bound line), each "?" when unknown.  Our engines' root set, from the
# plugin's log (roots_opt), tells the verifier which root LIDs owe no
# route.  Tables whose walks from some switches are not delivered (ftree
# and updn leave switch-to-switch LIDs unrouted) are still measured when
# every CA pair is delivered (findings, but a load); tables that leave CA
# pairs undelivered get rb_partial, their load over the pairs they
# deliver, and rb_undelivered, the pairs they do not (both empty
# otherwise), and rb_load "?".
readback() {
	rb_dir=$TMP/$1 rb_findings="?" rb_load="?" rb_hosts="?" rb_links="?" rb_bound="?"
	rb_partial="" rb_undelivered=""
	[ -f "$rb_dir/dump/opensm-subnet.lst" ] || return 0
	switch_lfts > "$rb_dir/switches.lft"
	rb_top=$(awk '$2 > t { t = $2 } END { print t + 0 }' "$rb_dir/switches.lft")
	lfts_fts "$rb_top" < "$rb_dir/switches.lft" > "$rb_dir/readback.fts"
	# our engines' root set (the plugin's log): the entries it leaves
	# without a legal route owe none (roots_opt)
	rb_roots=$(roots_opt "$rb_dir")
	"$IBROUTING" verify $rb_roots --lfts "$rb_dir/readback.fts" "$rb_dir/dump" > "$rb_dir/readback.out" 2>&1 || true
	rb_findings=$(sed -n 's/^verify    OK.*/0/p; s/^verify    FAILED: \([0-9]*\) findings\{0,1\} .*/\1/p' "$rb_dir/readback.out")
	rb_hosts=$(sed -n 's/^fabric .* \([0-9]*\) CA ports.*/\1/p' "$rb_dir/readback.out")
	rb_links=$(sed -n 's/^fabric .* \([0-9]*\) inter-switch links\{0,1\}[,;].*/\1/p' "$rb_dir/readback.out")
	rb_load=$(sed -n 's/^load      max link load \([0-9]*\) flows.*/\1/p' "$rb_dir/readback.out")
	set -- $(sed -n 's/^load      over delivered pairs only: max link load \([0-9]*\) flows, \([0-9]*\) of .*/\1 \2/p' "$rb_dir/readback.out")
	rb_partial=${1:-} rb_undelivered=${2:-}
	rb_bound=$(sed -n 's/^bound     no routing loads a link under \([0-9]*\) flows.*/\1/p' "$rb_dir/readback.out")
	: "${rb_findings:=?}" "${rb_load:=?}" "${rb_hosts:=?}" "${rb_links:=?}" "${rb_bound:=?}"
}

# ca_names NETFILE: "PORT-GUID NAME" for every CA port of an ibsim net
# file, GUIDs as 0x%016x, NAME the node's ibsim name (SIM_HOST, ibsim's
# console commands).
ca_names() {
	awk '/^(Ca|Hca)[ \t]/ { name = $3; gsub(/"/, "", name); next }
		/^\[[0-9]+\]\(/ && name != "" {
			g = $1; sub(/.*\(/, "", g); sub(/\).*/, "", g)
			while (length(g) < 16) g = "0" g
			print "0x" tolower(g), name
		}
		/^$/ { name = "" }' "$1"
}

# port_base_lid PORT-GUID: the port's base LID in decimal, as the SM gave
# it (ibaddr), or nothing.
port_base_lid() {
	b=$(LD_PRELOAD=$UMAD2SIM ibaddr -G "$1" 2>/dev/null | sed -n 's/.*LID start 0x\([0-9a-f]*\).*/\1/p')
	[ -z "$b" ] || echo $((0x$b))
}

# DS_LIFETIMES: opensm.conf lines for the Double Scheme's tests: packet
# life and head-of-queue lifetimes of 8 (4.096 us * 2^8 = 1 ms a switch),
# so a drain bound is milliseconds, not seconds.
DS_LIFETIMES=$(printf 'packet_life_time 8\nhead_of_queue_lifetime 8\nleaf_head_of_queue_lifetime 8')

# ds_fabric NAME: the start of a Double Scheme test: OpenSM's tools and
# smpquery, ibaddr and tests/prquery (PRQUERY) present, else skip; a
# 4-ary 2-tree generated into net=$TMP/NAME.net, served by ibsim.
ds_fabric() {
	e2e_requirements
	need_tool smpquery
	need_tool ibaddr
	PRQUERY=${PRQUERY:-$(dirname "$IBROUTING")/tests/prquery}
	[ -x "$PRQUERY" ] || skip "$PRQUERY was not built (configure found no libibmad/libibumad)"
	net=$TMP/$1.net
	"$IBROUTING" generate -o "$net" kary:k=4,n=2 > /dev/null
	ibsim_start "$net"
}

# valgrind_clean NAME LOG WHAT: valgrind's LOG (OpenSM run under it, WHAT
# says over what) holds no definite leak, invalid access or use of
# uninitialised memory whose stack passes through our plugin (OpenSM's
# own are not ours to judge).
valgrind_clean() {
	ours=$(awk '/^==[0-9]+== *$/ { if (rec ~ /libibrouting|ibr_/ && rec ~ /(definitely lost|Invalid|uninitialised)/) n++; rec = ""; next }
		{ rec = rec $0 "\n" } END { print n + 0 }' "$2")
	if [ "$ours" = 0 ] && grep -q "ERROR SUMMARY" "$2"; then
		pass "$1: valgrind over $3: no leak or invalid access in libibrouting"
	else
		flunk "$1: valgrind: $ours records in our plugin"
		grep -B2 -A12 "libibrouting" "$2" | head -40 | sed 's/^/# /'
	fi
}

# settled MARK: $dir/osm.log after line MARK shows tables on every switch
# (a heavy sweep's or a re-route's), then two light sweeps with no heavy
# sweep or routing run begun after them (OpenSM run with sweep_interval 1
# and -D 0x07 or more); for $engine (any engine: its way after a change goes in
# passes too, reconf.h) also no pass scheduled after
# its last pass ("final pass in N ms": the light sweeps within
# hybrid_final_delay are no end).  One read of the log: read twice, a
# pass logged in between looked done before it was pushed.
settled() {
	tail -n +"$(($1 + 1))" "$dir/osm.log" 2>/dev/null | awk -v e="${engine:-}" '
		/INITIATING HEAVY SWEEP|building routing with/ { busy = 1; l = 0; next }
		/SWITCHES CONFIGURED FOR UNICAST|REROUTE COMPLETE/ { c = 1; busy = 0; l = 0; next }
		/LIGHT SWEEP COMPLETE/ { if (!busy) l++; next }
		e == "" { next }
		# a pass still due: the final pass of a hybrid, or the next push of
		# the way of any engine after a change (reconf.h)
		(index($0, "build_lid_matrices: " e ": ") ||
		 index($0, "build_lid_matrices: " e ", ")) && / switches, / { due = 0; next }
		/ final pass in [0-9]+ ms|asking OpenSM for a re-route/ { due = 1 }
		END { exit !(c && l >= 2 && !due) }'
}

# wait_settled MARK LIMIT: until settled MARK, at most LIMIT seconds; 1 on
# timeout or when OpenSM ($OSM_PID) died
wait_settled() {
	end=$(( $(date +%s) + $2 ))
	while [ "$(date +%s)" -lt "$end" ]; do
		settled "$1" && return 0
		kill -0 "$OSM_PID" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}
