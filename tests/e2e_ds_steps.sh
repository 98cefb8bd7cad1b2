#!/bin/sh
# e2e_ds_steps.sh - the Double Scheme inside OpenSM read back at every
# sub-step (doc/double-scheme-plugin.md 5.3, 5.5):
#   - pira+colorl at lmc 2 at OpenSM's start-up (half 0 in force, colorl
#     pushed on half 1);
#   - pira+fera at lmc 2 after an inter-switch link is cut (its start-up
#     transition is run to its end first, unread; after the cut the half in
#     force is 1 and fera goes onto half 0).
# OpenSM runs as a daemon with qos TRUE and transition double_scheme.
# The test sets the pace: hybrid_final_delay is the longest there is (10
# minutes), so no pass of the machine comes on its timer; once the test
# has read a step back it sends SIGHUP, OpenSM sweeps the same fabric and
# the machine takes its next sub-step in that pass.  A fixed delay cannot
# do this: a read-back takes longer the busier the machine, and SIGSTOP
# cannot hold OpenSM while the test reads (OpenSM takes SIGCONT as
# SIGHUP: a sweep).
# Checked: no pass came while reading (OpenSM sweeping on its own).
# After the provisional pass (step 0) and after each sub-step N/6 it
# reads: every switch's LFT (dump_fts), the SL-to-VL table of every active
# switch port (smpquery sl2vl LID OUT: every input port) and of every CA
# port, and one PathRecord (tests/prquery).  Then per step:
#   LFTs:   1 = step 0; 2-3 the in-force half and switch LIDs as step 0,
#           the new half as the final tables (step 6's read-back, which
#           must equal the plugin's dump); 4-5 the switch LIDs the final
#           ones too; the in-force half never changes;
#   SL2VL:  steps 1-5 restricted on every port with 2 or more data VLs
#           (the in-force SL set onto VL set A = [0, D/2), the other onto
#           B; ibr_ds_sl2vl), steps 0 and 6 as before the transition;
#   SA:     the PathRecord's DLID and SL bit 3 on the in-force half up to
#           step 3, on the new half from step 4 (SWITCH_SA) on;
#   verify: `ibrouting verify --half H` on the read-back (lfts_dump + the
#           subnet list) for each half holding a function;
#   the log: steps 1..6 in order, each in its own pass.
# A table, one row per step, is printed as comments.
# After the cut the half in force is 1, and a host's SA query goes out
# from its base LID, in half 0: the provisional pass mirrors its half onto
# the other (ibr_ds_mirror), so at step 0 both halves hold as many
# entries, and the PathRecords of steps 0 and 1 are answered.
# The SM's switch's port 0 is not read: OpenSM's QoS setup skips a base
# port 0 without enhanced port 0 (see e2e_double_scheme.sh).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
ds_fabric ds

DELAY=600000  # hybrid_final_delay, ms: the passes come on SIGHUP
LMC=2
smp() { LD_PRELOAD=$UMAD2SIM smpquery "$@" 2>/dev/null; }

# the PathRecord of the first CA to the second, as e2e_double_scheme.sh
ca_names "$net" > "$TMP/ca_names"
src_host=$(sed -n 1p "$TMP/ca_names" | cut -d' ' -f2)
dst_guid=$(sed -n 2p "$TMP/ca_names" | cut -d' ' -f1)
# (bounded: an SA that never answers; a loaded machine answers late)
pr() { SIM_HOST=$src_host LD_PRELOAD=$UMAD2SIM timeout 30 "$PRQUERY" "$dst_guid" 2>&1 | head -1; }

# ds_daemon NAME ENGINE: OpenSM with the Double Scheme; dir=$TMP/NAME
ds_daemon() {
	dir=$TMP/$1 engine=$2
	mkdir -p "$dir/ours"
	printf 'dump_dir %s/ours\nhybrid_final_delay %s\ntransition double_scheme\n' \
		"$dir" "$DELAY" > "$dir/plugin.conf"
	IBROUTING_CONF=$dir/plugin.conf OSM_DEBUG=0x07 opensm_daemon "$dir" "$engine" \
		"$(printf 'lmc %s\nqos TRUE\n%s\nsweep_interval 0' "$LMC" "$DS_LIFETIMES")" ||
		flunk "$1: OpenSM did not bring the subnet up"
}

# our passes (e2e_lib.sh: is_pass, pass_count, pass_line, wait_pushed)
passes() { pass_count "$dir/osm.log"; }

# ports S.lst: "SW PATH PORT" for each switch port with a link, "CA PATH"
# for each CA port, PATH a directed route from the SM's node (its subnet
# list's "-SM" end) found breadth first over the links of OpenSM's subnet
# list (one a line, both ends): directed routes, so that the read-back
# does not depend on the LFTs being read (a LID the tables do not route
# would time out)
ports() {
	awk '{ n = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "{") { n++; type[n] = $(i + 1) }
			else if ($i ~ /^NodeGUID:/) g[n] = substr($i, 10)
			else if ($i ~ /^PN:/) pn[n] = substr($i, 4) + 0
		}
		if (n != 2) next
		for (e = 1; e <= 2; e++) {
			o = 3 - e
			kind[g[e]] = type[e] ~ /^SW/ ? "SW" : "CA"
			if (type[e] ~ /-SM$/) sm = g[e]
			nb[g[e], pn[e]] = g[o]; deg[g[e]]++; port[g[e], deg[g[e]]] = pn[e]
		}
	}
	END {
		q[1] = sm; path[sm] = "0"; head = 1; tail = 1
		while (head <= tail) {
			u = q[head++]
			if (kind[u] == "CA" && u != sm) { print "CA", path[u]; continue }
			for (j = 1; j <= deg[u]; j++) {
				pp = port[u, j]; v = nb[u, pp]
				print "SW", path[u], pp
				if (!(v in path)) { path[v] = path[u] "," pp; q[++tail] = v }
			}
		}
	}' "$1" | sort -u
}
# lid_classes S.lst: "LID CLASS" for every LID: h0 / h1 (CA LIDs of each
# half at $LMC), sw (switch LIDs)
lid_classes() {
	awk -v lmc="$LMC" 'function hex(s,   v, i) {
		v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	{ for (i = 1; i <= NF; i++) {
			if ($i == "{") type = $(i + 1)
			else if ($i ~ /^LID:/) {
				lid = hex(substr($i, 5))
				if (type ~ /^SW/) print lid, "sw"
				else for (k = 0; k < 2 ^ lmc; k++) print lid + k, "h" int(k / 2 ^ (lmc - 1))
			}
		} }' "$1" | sort -u
}

# snap K: the read-back after step K into $dir/sK.*
snap() {
	k=$1
	cp "$dir/ours/opensm-subnet.lst" "$dir/s$k.lst"
	switch_lfts > "$dir/s$k.lft"
	ports "$dir/s$k.lst" | while read -r kind path port; do
		if [ "$kind" = SW ]; then
			smp -D sl2vl "$path" "$port" | sed -n "s/^ports: in *\([0-9]*\), out *\([0-9]*\): /$path \2 \1 /p"
		else
			smp -D sl2vl "$path" | sed -n "s/^ports: in *\([0-9]*\), out *\([0-9]*\): /$path ca ca /p"
		fi
	done > "$dir/s$k.sl2vl"
	pr > "$dir/s$k.pr"
}

# opervls S.lst: "PATH PORT D" (D data VLs, from OperVLs) for every port
opervls() {
	ports "$1" | while read -r kind path port; do
		if [ "$kind" = SW ]; then
			v=$(smp -D portinfo "$path" "$port" | sed -n 's/^OperVLs:\.*//p')
		else
			v=$(smp -D portinfo "$path" | sed -n 's/^OperVLs:\.*//p')
			port=ca
		fi
		case $v in VL0) d=1 ;; VL0-*) d=$((${v#VL0-} + 1)) ;; *) d=0 ;; esac
		echo "$path $port $d"
	done
}

# next_pass K: SIGHUP once pass K is pushed, for pass K + 1
next_pass() {
	wait_pushed "$dir/osm.log" "$1" || return 1
	kill -HUP "$OSM_PID"
}

# transition NAME FIRST: pass FIRST is the provisional pass, FIRST+1..+6
# the sub-steps, each asked for by SIGHUP after the read-back of the one
# before; snapshots s0..s6
follow_steps() {
	for k in 0 1 2 3 4 5 6; do
		p=$(($2 + k))
		if ! wait_pushed "$dir/osm.log" "$p"; then
			flunk "$1: pass $p (step $k) never came or was never pushed"
			return 1
		fi
		t0=$(date +%s%N)
		snap "$k"
		echo "# $1 step $k: read back in $((($(date +%s%N) - t0) / 1000000)) ms"
		if [ "$(passes)" != "$p" ]; then
			flunk "$1: step $k read back too late: pass $((p + 1)) started while reading"
		fi
		[ "$k" != 0 ] || opervls "$dir/s0.lst" > "$dir/opervls"
		pass_line "$dir/osm.log" "$p" | cut -c1-80 > "$dir/s$k.pass"
		[ "$k" = 6 ] || kill -HUP "$OSM_PID"
	done
}

# lft_diff A B CLASSES: "h0 h1 sw" entries that differ between two
# read-backs, per LID class (a missing line is no entry)
lft_diff() {
	awk 'FNR == 1 { f++ }
		f == 3 { cls[$1] = $2; next }
		f == 1 { a[$1 " " $2] = $3; keys[$1 " " $2] = $2; next }
		{ b[$1 " " $2] = $3; keys[$1 " " $2] = $2 }
		END { for (k in keys) if (a[k] != b[k]) n[cls[keys[k]]]++
			printf "%d %d %d\n", n["h0"], n["h1"], n["sw"] }' "$1" "$2" "$3"
}

# lft_count LFT CLASSES: "h0 h1 sw" entries the read-back holds per class
lft_count() {
	awk 'FNR == 1 { f++ }
		f == 2 { cls[$1] = $2; next }
		{ lid[$2]++ }
		END { for (l in lid) n[cls[l]] += lid[l]; printf "%d %d %d\n", n["h0"], n["h1"], n["sw"] }' "$1" "$2"
}

# sl2vl_state K OLD: "restricted N", "normal N" or "mixed: ..." over the
# ports with 2 or more data VLs; normal = step 0's table of the port,
# restricted = ibr_ds_sl2vl of it: SL s of class c = s & 7 onto VL
# t[c] mod H, plus H unless s's set (s >> 3) is OLD's, H = D / 2
sl2vl_state() {
	awk -v old="$2" 'FNR == 1 { f++ }
		f == 1 { d[$1 " " $2] = $3; next }
		f == 2 { t[$1 " " $2 " " $3] = $0; if (d[$1 " " $2] >= 2) ref++; next }
		{ key = $1 " " $2 " " $3
		  if (d[$1 " " $2] < 2) { few++; next }
		  split(t[key], n, "|"); split($0, v, "|")
		  H = int(d[$1 " " $2] / 2); norm = 1; restr = 1
		  for (s = 0; s < 16; s++) {
			want = n[2 + s] + 0; got = v[2 + s] + 0
			if (got != want) norm = 0
			r = (want == 15) ? 15 : want % H + (int(s / 8) == old ? 0 : H)
			if (got != r) restr = 0
		  }
		  if (restr && !norm) R++; else if (norm && !restr) N++
		  else if (norm) B++; else { X++; if (!bad) bad = $0 }
		  all++ }
		END { if (all != ref) printf "missing: %d tables read, %d at step 0\n", all, ref
			else if (X) printf "mixed: %d of %d tables neither (%s)\n", X, all, bad
			else if (R && N) printf "mixed: %d restricted, %d normal\n", R, N
			else if (R) printf "restricted %d%s\n", R, skipped()
			else printf "normal %d%s\n", N + B, skipped() }
		function skipped() { return few ? sprintf(" (%d with < 2 data VLs)", few) : "" }' "$dir/opervls" "$dir/s0.sl2vl" "$dir/s$1.sl2vl"
}

# pr_half K: the half of the PathRecord's DLID and of its SL (bit 3),
# "H" when they agree, else what was read
pr_half() {
	set -- $(cat "$dir/s$1.pr")
	if [ "${1:-}" = dlid ] && [ "${5:-}" = sl ] && [ "$2" -ge "$dst_base" ] &&
	   [ "$2" -lt $((dst_base + (1 << LMC))) ] &&
	   [ $((($2 - dst_base) >> (LMC - 1))) -eq $((($6 >> 3) & 1)) ]; then
		echo $((($2 - dst_base) >> (LMC - 1)))
	else
		echo "? ($*)"
	fi
}

# verify_half K H: `ibrouting verify --half H` on read-back K
verify_half() {
	vd=$dir/v$1
	mkdir -p "$vd"
	cp "$dir/s$1.lst" "$vd/opensm-subnet.lst"
	lfts_dump "$vd/opensm-subnet.lst" "$LMC" < "$dir/s$1.lft" > "$vd/opensm-lfts.dump"
	# the root set (the plugin's log) names the entries that owe no route
	"$IBROUTING" verify $(roots_opt "$dir") --lmc "$LMC" --half "$2" "$vd" > "$vd/half$2.out" 2>&1 || true
	sed -n 's/^verify    \(OK\|FAILED\).*/\1/p' "$vd/half$2.out"
}

# judge NAME OLD: the checks above on s0..s6; OLD the half in force
# before the transition
judge() {
	name=$1 old=$2 new=$((1 - $2))
	cls=$dir/classes
	lid_classes "$dir/s0.lst" > "$cls"
	dump_lfts "$dir/ours/opensm-lfts.dump" > "$dir/ours.lft"
	if cmp -s "$dir/s6.lft" "$dir/ours.lft"; then
		pass "$name: step 6's read-back ($(wc -l < "$dir/s6.lft") entries) equals the plugin's dump of its last pass"
	else
		flunk "$name: step 6's read-back differs from the plugin's dump"
	fi
	steps=$(sed -n "s/.*ds_step: $engine: double scheme step \([1-6]\)\/6: .*/\1/p" "$dir/osm.log" | tail -6 | tr -d '\n')
	pos=$(for k in 1 2 3 4 5 6; do grep -c "double scheme step $k/6" "$dir/s$k.pass" || true; done | tr -d '\n')
	if [ "$steps" = 123456 ] && [ "$pos" = 111111 ] && grep -q '^provisional pass' "$dir/s0.pass"; then
		pass "$name: the log: provisional pass, then steps 1/6..6/6 in order, one pass each"
	else
		flunk "$name: the log's steps '$steps', passes read as steps '$pos': $(cat "$dir/s0.pass")"
	fi
	echo "# $name: half $old in force, the new function onto half $new; LFT entries that differ per LID class (CA half 0 / CA half 1 / switch LIDs)"
	echo "# step | SL2VL (ports >= 2 data VLs)  | entries held         | vs step 0 (before)   | vs step 6 (final)    | PathRecord                 | verify --half"
	for k in 0 1 2 3 4 5 6; do
		set -- $(lft_diff "$dir/s0.lft" "$dir/s$k.lft" "$cls") $(lft_diff "$dir/s6.lft" "$dir/s$k.lft" "$cls")
		b0=$1 b1=$2 bsw=$3 f0=$4 f1=$5 fsw=$6
		eval "bold=\$b$old fnew=\$f$new bnew=\$b$new"
		state=$(sl2vl_state "$k" "$old")
		prh=$(pr_half "$k")
		halves="$old"
		[ "$k" -lt 2 ] || halves="0 1"
		vv=""
		for h in $halves; do vv="$vv h$h:$(verify_half "$k" "$h")"; done
		held=$(lft_count "$dir/s$k.lft" "$cls" | awk '{ printf "h0 %d h1 %d sw %d", $1, $2, $3 }')
		printf '# %4s | %-28s | %-20s | %-20s | %-20s | %-26s |%s\n' "$k" "$state" "$held" \
			"h0 $b0 h1 $b1 sw $bsw" "h0 $f0 h1 $f1 sw $fsw" \
			"$(tr -s ' ' < "$dir/s$k.pr" | cut -c1-26)" "$vv"
		# what the step must show
		case $k in
		0) want_sl=normal want_pr=$old
		   # the provisional pass's mirror: as many entries on each half
		   lft_ok=$(lft_count "$dir/s$k.lft" "$cls" | awk '{ print ($1 == $2 && $1 > 0) ? "y" : "n" }') ;;
		1) want_sl=restricted want_pr=$old lft_ok=$([ $((b0 + b1 + bsw)) = 0 ] && echo y || echo n) ;;
		2|3) want_sl=restricted want_pr=$old
		   lft_ok=$([ "$bold" = 0 ] && [ "$bsw" = 0 ] && [ "$fnew" = 0 ] && echo y || echo n) ;;
		4|5) want_sl=restricted want_pr=$new
		   lft_ok=$([ "$bold" = 0 ] && [ "$fsw" = 0 ] && [ "$fnew" = 0 ] && [ "$bsw" != 0 ] && echo y || echo n) ;;
		6) want_sl=normal want_pr=$new lft_ok=$([ "$bold" = 0 ] && echo y || echo n) ;;
		esac
		what="$name step $k"
		[ "$lft_ok" = y ] && pass "$what: LFTs as the step wants (vs before: h0 $b0 h1 $b1 sw $bsw; vs final: h0 $f0 h1 $f1 sw $fsw)" ||
			flunk "$what: LFTs: vs before: h0 $b0 h1 $b1 sw $bsw; vs final: h0 $f0 h1 $f1 sw $fsw"
		case $state in
		"$want_sl "[1-9]*) pass "$what: SL-to-VL $state" ;;
		*) flunk "$what: SL-to-VL '$state', want $want_sl"; head -3 "$dir/s$k.sl2vl" | sed 's/^/# /' ;;
		esac
		[ "$prh" = "$want_pr" ] && pass "$what: PathRecord on half $prh: $(cat "$dir/s$k.pr")" ||
			flunk "$what: PathRecord half '$prh', want $want_pr: $(cat "$dir/s$k.pr")"
		for h in $halves; do
			if grep -q '^verify    OK' "$dir/v$k/half$h.out"; then
				pass "$what: verify --half $h: $(grep -m1 '^verify    ' "$dir/v$k/half$h.out" | cut -c11-80)"
			else
				flunk "$what: verify --half $h:"
				grep '^verify\|^  ' "$dir/v$k/half$h.out" | head -4 | sed 's/^/# /'
			fi
		done
	done
}

# base LID of the PathRecord's destination (the same in both runs: the
# cache of each run is its own, but LIDs follow the GUIDs from ibsim's file
# in OpenSM's order; read per run)
dst_base_of() {
	b=$(port_base_lid "$dst_guid")
	[ -n "$b" ] || { flunk "no base LID for $dst_guid"; b=0; }
	echo "$b"
}

# --- pira+colorl at start-up ------------------------------------------
ds_daemon colorl pira+colorl
dst_base=$(dst_base_of)
follow_steps colorl 1 && judge "pira+colorl start-up" 0
grep -E 'ds_step: .*double scheme step|ERR IB' "$dir/osm.log" | sed 's/^.* 0x0[0-9] -> //; s/^/# /' | cut -c1-200
opensm_stop

# --- pira+fera after a link cut ----------------------------------------
ds_daemon fera pira+fera
dst_base=$(dst_base_of)
# the start-up transition to its end, unread: pass 7 is its step 6/6
for p in 1 2 3 4 5 6; do next_pass "$p" || break; done
if wait_pushed "$dir/osm.log" 7 &&
   pass_line "$dir/osm.log" 7 | grep -q 'double scheme step 6/6'; then
	pass "pira+fera: start-up transition done: $(pass_line "$dir/osm.log" 7 | cut -c1-60)"
else
	flunk "pira+fera: the start-up transition did not end at pass 7"
fi
# "kary L0 S3" port 1 <-> "kary L1 S0" port 8: ibsim's trap 128 makes
# OpenSM sweep (not SIGHUP: a sweep on the same fabric would be the
# machine's next sub-step, not a change)
echo 'Unlink "S-0000000000200003"[1]' >&7
follow_steps fera 8 && judge "pira+fera link cut" 1
grep -E 'ds_step: .*double scheme step|ERR IB' "$dir/osm.log" | sed 's/^.* 0x0[0-9] -> //; s/^/# /' | cut -c1-200
opensm_stop
finish
