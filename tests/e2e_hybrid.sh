#!/bin/sh
# e2e_hybrid.sh - the hybrid engines in a running OpenSM: provisional PIRa
# tables right after a topology change, the final engine's after.
#
# ibsim serves a generated random fabric; OpenSM runs as a daemon (sweep
# every second) with `routing_engine pira+fera`, then `pira+colorl` at
# `lmc 2`, the plugin dumping its tables after every pass (dump_dir).  The
# test sets the pace: hybrid_final_delay is the longest there is (10
# minutes), and once the tables of a pass are read back and judged the
# test sends SIGHUP; OpenSM sweeps the same fabric and the hybrid takes its
# next step in that pass (a read-back can take longer than any fixed
# delay on a busy machine).  For each, at
# start-up and after ibsim cuts an inter-switch link:
#   - the log shows the provisional pass (after the cut in steps too, when
#     its union with the prior tables is not clean: reconf.h), then the
#     final pass (in one or more safe steps), in that order, OpenSM used no
#     other engine and the plugin logged no error;
#   - after every pass, the tables read back from the switches equal the
#     plugin's dump of that pass, and `ibrouting verify` accepts them: no
#     walk loops or fails (but a pass that empties entries first, whose
#     holes are its point), no credit loop, at any point between the passes
#     (while OpenSM sends a pass, the union check the INFO line reports
#     covers the switches' mix of both);
#   - after the provisional pass at start-up the switches hold exactly what
#     `ibrouting route -e pira` computes offline for the fabric OpenSM saw;
#     after the cut, every entry is the one from before the change, the
#     final engine's from the prior tables or PIRa's, with LIDs kept
#     as the INFO line says; after
#     the last pass exactly what the final engine makes alone offline:
#     at start-up on the same fabric and LIDs, after the cut from the
#     tables of the last pass before it (`route --prior`: fera's and
#     colorl's final passes keep their routes, prior.h);
#   - pira+fera runs under valgrind: no leak or invalid access in the
#     plugin over all its passes.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

net=$TMP/hybrid.net
"$IBROUTING" generate -o "$net" random:sw=24,ca=48,seed=3 > /dev/null
ibsim_start "$net"
# the link the test cuts: port 1 of the first switch whose port 1 leads
# to a switch ("S-..." ibsim names), and its peer ("S-..."[PORT])
cut=$(awk '/^Switch/ { sw = $3; gsub(/"/, "", sw); next }
	/^$/ { sw = "" }
	sw != "" && /^\[1\][ \t]+"S-/ { print sw; exit }' "$net")
peer=$(awk -v s="$cut" '/^Switch/ { sw = $3; gsub(/"/, "", sw); next }
	/^$/ { sw = "" }
	sw == s && $1 == "[1]" { print $2; exit }' "$net")
[ -n "$cut" ] && [ -n "$peer" ] || { flunk "no inter-switch link on a port 1 in $net"; finish; }

# hybrid_daemon NAME ENGINE LMC: OpenSM as a daemon over ibsim.
hybrid_daemon() {
	d=$TMP/$1
	mkdir -p "$d/cache" "$d/ours"
	printf 'dump_dir %s/ours\nhybrid_final_delay 600000\n' "$d" > "$d/plugin.conf"
	printf 'event_plugin_name ibrouting\nrouting_engine %s\nlmc %s\nsweep_interval 1\nforce_log_flush TRUE\n' \
		"$2" "$3" > "$d/opensm.conf"
	# under valgrind when $4 is given (the leak check below)
	IBROUTING_CONF=$d/plugin.conf OSM_CACHE_DIR=$d/cache \
		LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$UMAD2SIM \
		${4:+valgrind --leak-check=full --show-leak-kinds=definite --log-file=$d/valgrind.log} \
		opensm -F "$d/opensm.conf" -f "$d/osm.log" -D 0x07 > "$d/out" 2>&1 &
	OSM_PID=$!
}

count() { grep -c -- "$1" "$2" 2>/dev/null || true; }

# our passes: e2e_lib.sh's is_pass, pass_line and wait_pushed

# check_pass NAME K WHAT: after pass K, the switches equal the plugin's
# dump, which the verifier accepts.
check_pass() {
	# a push that empties entries first (reconf.h: no safe step left)
	# drops their packets until the next: holes, never a loop or a cycle
	ok='^verify    OK'
	pass_line "$dir/osm.log" "$2" | grep -q 'emptied first' &&
		ok='^verify    FAILED: [0-9]* findings\{0,1\} (0 bad ports, 0 loops, [0-9]* unreachable, 0 dependency cycles,'
	same_as_dump "$dir" "$ok" "$1: after pass $2 ($3)"
}

# offline_equal NAME ENGINE LMC WHAT: the switches equal ENGINE offline on
# the plugin's dump (the fabric OpenSM saw), rooted where the plugin was.
# With PRIOR (a dump of the tables before a change), ENGINE routes from
# them (--prior), as the plugin's final pass does after a change.
offline_equal() {
	root=$(pass_line "$dir/osm.log" 1 | sed -n 's/.*root \(0x[0-9a-f]*\).*/\1/p')
	"$IBROUTING" route -e "$2" --lmc "$3" --root "$root" ${5:+--prior "$5"} --print-lfts "$dir/ours" |
		grep '^0x' | sort > "$dir/offline.lft"
	if cmp -s "$dir/switches.lft" "$dir/offline.lft"; then
		pass "$1: $4: the switches hold exactly $2's tables ($(wc -l < "$dir/offline.lft") entries, offline on the fabric OpenSM saw, root $root)"
	else
		flunk "$1: $4: the switches do not hold $2's tables"
		diff "$dir/switches.lft" "$dir/offline.lft" | head -5 | sed 's/^/# /'
	fi
}

# kept_or_mended NAME K WHAT: after a change, the provisional pass K keeps
# the prior tables where their walks still hold and mends the others
# as the final engine mends them when it routes from the prior tables
# (PIRa's walks only where no walk that holds is reached): every entry
# read back is the one from before the change ($dir/before.lft), the
# final engine's from the tables before (`route --prior`, on the fabric
# OpenSM saw) or PIRa's, and the INFO line says LIDs were kept.  Those
# the final engine's alone are what its pass will not send again.
kept_or_mended() {
	root=$(pass_line "$dir/osm.log" 1 | sed -n 's/.*root \(0x[0-9a-f]*\).*/\1/p')
	"$IBROUTING" route -e pira --lmc "$lmc" --root "$root" --print-lfts "$dir/ours" |
		grep '^0x' | sort > "$dir/offline.lft"
	"$IBROUTING" route -e "$final" --lmc "$lmc" --root "$root" --prior "$dir/ours-before" \
		--print-lfts "$dir/ours" | grep '^0x' | sort > "$dir/mended.lft"
	said=$(pass_line "$dir/osm.log" "$first_after_cut" | sed -n 's/.*, \([0-9]*\) LIDs kept from the prior tables.*/\1/p')
	verdict=$(awk 'FILENAME == ARGV[1] { b[$1 " " $2] = $3; next }
		FILENAME == ARGV[2] { m[$1 " " $2] = $3; next }
		FILENAME == ARGV[3] { p[$1 " " $2] = $3; next }
		{ k = $1 " " $2; if ($3 == b[k]) before++; else if ($3 == m[k]) mended++; else if ($3 == p[k]) pira++; else other++ }
		END { printf "%d %d %d %d", before, mended, pira, other }' \
		"$dir/before.lft" "$dir/mended.lft" "$dir/offline.lft" "$dir/switches.lft")
	set -- "$1" "$2" "$3" $verdict
	if [ "$7" = 0 ] && [ "$5" -gt 0 ] && [ "${said:-0}" -gt 0 ]; then
		pass "$1: $3: every entry is as before the change ($4), $final's from the prior tables ($5) or PIRa's ($6); the INFO line says $said LIDs kept"
	else
		flunk "$1: $3: $4 entries as before, $5 as $final's from the prior tables, $6 as PIRa's, $7 none of these; the INFO line says ${said:-none} kept"
	fi
}

# follow NAME FIRST WHAT: passes FIRST, FIRST+1, ... until one is not
# followed by a scheduled next pass; checks each, then asks for the next
# (SIGHUP); sets $last.
follow() {
	k=$2
	while :; do
		wait_pushed "$dir/osm.log" "$k" || { flunk "$1: pass $k never came or was never pushed"; last=$k; return; }
		check_pass "$1" "$k" "$(pass_line "$dir/osm.log" "$k" | cut -d: -f1)"
		# the provisional prior tables: at once, or at the end of
		# a way to them that emptied entries first (reconf.h)
		if [ "$k" = "$2" ] && [ "$k" = 1 ]; then
			offline_equal "$1" pira "$lmc" "$3, provisional pass"
		elif pass_line "$dir/osm.log" "$k" | grep -q '^provisional pass' &&
		     ! pass_line "$dir/osm.log" "$k" | grep -q 'emptied first'; then
			kept_or_mended "$1" "$k" "$3, provisional pass"
		fi
		more=0
		scheduled "$dir/osm.log" "$k" || more=$?
		if [ "$more" = 0 ]; then
			k=$((k + 1))
			kill -HUP "$OSM_PID"
			continue
		fi
		[ "$more" = 1 ] || flunk "$1: after pass $k neither a next pass nor another sweep in 300 s"
		last=$k
		return
	done
}

# run NAME FINAL LMC [valgrind]
run() {
	name=$1 final=$2 lmc=$3 engine=pira+$2 dir=$TMP/$1
	hybrid_daemon "$name" "$engine" "$lmc" "${4:-}"
	follow "$name" 1 "start-up"
	# fera offline on OpenSM's fabric equals fera inside it; colorl's
	# choices also follow the order OpenSM lists the CAs in, so it is
	# compared with itself inside OpenSM, below
	[ "$final" != fera ] || offline_equal "$name" "$final" "$lmc" "start-up, after pass $last"
	cp "$dir/switches.lft" "$dir/before.lft"
	rm -rf "$dir/ours-before"
	cp -r "$dir/ours" "$dir/ours-before"
	first_after_cut=$((last + 1))
	echo "Unlink \"$cut\"[1]" >&7
	follow "$name" "$first_after_cut" "link cut"
	# the final pass keeps its routes from before the cut (prior.h): the
	# same as the final engine offline from the tables of the last pass
	# before
	offline_equal "$name" "$final" "$lmc" \
		"link cut, after pass $last, from the tables before the cut" "$dir/ours-before"

	# the order of the passes, and nothing else of OpenSM's routing
	awk -v engine="$engine" "$is_pass"' {
			sub(/.*build_lid_matrices: [^:]*: /, ""); sub(/:.*/, ""); print }' \
		"$dir/osm.log" > "$dir/passes"
	# start-up: a provisional pass, final passes; after the cut: the
	# provisional pass (steps to it included), final passes
	expect=$(awk -v f="$first_after_cut" '
		{ kind = /^provisional pass/ ? "p" : /^final pass/ ? "f" : "x" }
		NR == 1 || NR == f { print (kind == "p" ? "ok" : "bad"); last = kind; next }
		{ print (kind == "f" || (kind == "p" && last == "p") ? "ok" : "bad"); last = kind }' \
		"$dir/passes" | sort -u | tr '\n' ' ')
	if [ "$expect" = "ok " ]; then
		pass "$name: passes in order: $(tr '\n' ';' < "$dir/passes" | sed 's/;$//; s/;/; /g')"
	else
		flunk "$name: passes out of order: $(tr '\n' ';' < "$dir/passes")"
	fi
	# errors of ours (OpenSM's own MAD timeouts while it rediscovers a
	# changed fabric under valgrind, and its trap notices, are not)
	if grep ' 0x01 -> ' "$dir/osm.log" | grep -q 'ERR IB' ||
	   grep -q "building routing with '\(minhop\|updn\)'" "$dir/osm.log"; then
		flunk "$name: an error or another engine in OpenSM's log"
		grep "ERR IB\|building routing with" "$dir/osm.log" | grep -v "'$engine'" | head -5 | sed 's/^/# /'
	else
		pass "$name: no error of ours, no other engine in $(wc -l < "$dir/passes") passes"
	fi
	opensm_stop
	[ -z "${4:-}" ] || valgrind_clean "$name" "$dir/valgrind.log" "$(wc -l < "$dir/passes") passes"
	# the link back before the next run starts
	ibsim_do "Link \"$cut\"[1] $peer"
}

need_tool valgrind
run hybrid-fera fera 0 valgrind
run hybrid-colorl colorl 2
finish
