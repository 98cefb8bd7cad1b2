#!/bin/sh
# e2e_ops.sh - the plugin in operation, on the Fig. 1 fabric served by
# ibsim:
#   - bytes of the options file that are not printable appear escaped in
#     OpenSM's log; `key value # comment` and long lines work;
#   - an options file that is not one ($IBROUTING_CONF a device, a
#     directory, a FIFO, a file above the 64 KiB limit): OpenSM starts, an
#     ERR IB30 line says why, our engine routes with the defaults;
#   - the file changed under a running OpenSM daemon, then SIGHUP (a heavy
#     sweep, where OpenSM re-reads opensm.conf): the log names the file
#     read again and every changed key "key: old -> new", and the next run
#     uses the new value; an unchanged file is not read again; a file
#     changed before a run that no heavy sweep precedes (a hybrid's final
#     pass, a re-route) is read again before it;
#   - dump_dir: every file replaced by rename (a new inode, no temporary
#     file left), the dumps verify; ibrouting.status counts runs, pushes
#     and fallbacks; a run our engine refuses (OpenSM falls back) and a
#     sweep served from OpenSM's unicast cache remove the dumps, which no
#     longer describe the switches, and the status file says so.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

net=$FABRICS_DIR/fig1.net
ibsim_start "$net"

# Files that are not options files: refused unread, defaults used.
mkdir -p "$TMP/confdir"
mkfifo "$TMP/conf.fifo"
awk 'BEGIN { for (i = 0; i < 1200; i++) printf "# %060d\n", i }' > "$TMP/big.conf"
for c in devzero:/dev/zero:"is not a regular file" \
	 dir:"$TMP/confdir":"is a directory" \
	 fifo:"$TMP/conf.fifo":"is not a regular file" \
	 big:"$TMP/big.conf":"has more than 65536 bytes"; do
	# (opensm_run sets $name: a name of our own)
	run=conf-${c%%:*} rest=${c#*:}
	path=${rest%%:*} why=${rest#*:}
	t0=$(date +%s)
	IBROUTING_CONF=$path opensm_run "$run" pira
	log_has "$run" "ERR IB30: $path $why.*using defaults" "refused, OpenSM done in $(($(date +%s) - t0)) s"
	log_has "$run" "build_lid_matrices: pira: .*root 0x0000000000200006 \\(auto: irregular, a switch of minimum eccentricity \\(unmeasured: the engine does not balance\\)\\), verified: legal up\\*/down\\* \\(certificate\\)" "defaults used"
	log_has "$run" "pira tables configured on all switches" "pira routes"
done

# Bytes that are not printable reach OpenSM's log escaped, a trailing
# comment is a comment, and long lines keep their numbers.
{
	printf 'root \033[2Jx\001\377  # an escape sequence, a control byte, not UTF-8\n'
	awk 'BEGIN { printf "# "; for (i = 0; i < 3000; i++) printf "long"; printf "\n" }'
	printf 'verify_method full # a trailing comment\nhybrid_final_delay soon\n'
} > "$TMP/bytes.conf"
IBROUTING_CONF=$TMP/bytes.conf opensm_run bytes pira
log_has bytes 'ERR IB01: .*bytes.conf:1: root "\\x1b\[2Jx\\x01\\xff": expected a switch GUID' "bytes escaped in the ERR line"
log_has bytes 'ERR IB08: .*bytes.conf:4: hybrid_final_delay "soon"' "the line number after a 12002-byte line"
log_has bytes "build_lid_matrices: pira: .*acyclic \\(full check\\)" "value with a trailing comment taken"
if LC_ALL=C grep -q "$(printf '[\001\033\377]')" "$TMP/bytes/osm.log"; then
	flunk "bytes: a raw control or non-ASCII byte reached OpenSM's log"
else
	pass "bytes: no raw control or non-ASCII byte in OpenSM's log"
fi

# wait_status NAME LINE: ibrouting.status in NAME's dumps holds LINE
# (300 s at most).
wait_status() { osm_wait 300 grep -qx -- "$2" "$TMP/$1/dumps/ibrouting.status" 2>/dev/null; }

# status_is NAME LINE...: every LINE is a line of the status file.
status_is() {
	name=$1
	shift
	missing=
	for line in "$@"; do
		grep -qx -- "$line" "$TMP/$name/dumps/ibrouting.status" 2>/dev/null ||
			missing="$missing $line"
	done
	if [ -z "$missing" ]; then
		pass "$name: ibrouting.status: $*"
	else
		flunk "$name: ibrouting.status lacks$missing:"
		sed 's/^/# /' "$TMP/$name/dumps/ibrouting.status" 2>/dev/null || echo "# (no status file)"
	fi
}

# hup NAME LINE: SIGHUP to the daemon (OpenSM's heavy sweep), then wait
# for LINE in the status file.
hup() {
	kill -HUP "$OSM_PID"
	wait_status "$1" "$2" || flunk "$1: no '$2' in ibrouting.status 300 s after SIGHUP"
}

no_temporary_files() {
	if ls -A "$TMP/$1/dumps" | grep -q '\.tmp\.'; then
		flunk "$1: temporary files left in dump_dir: $(ls -A "$TMP/$1/dumps" | tr '\n' ' ')"
	else
		pass "$1: no temporary file left in dump_dir ($(ls "$TMP/$1/dumps" | tr '\n' ' '))"
	fi
}

# A daemon whose options file changes under it.
dir=$TMP/live conf=$TMP/live.conf
mkdir -p "$dir/dumps"
printf 'dump_dir %s/dumps\n' "$dir" > "$conf"
IBROUTING_CONF=$conf opensm_daemon "$dir" pira || flunk "live: OpenSM did not come up"
wait_status live pushed=1 || flunk "live: no pushed=1 in ibrouting.status"
log_has live "ibrouting: read options file .*live.conf: root auto, root_fallback next, port_choice balanced, verify_before_push yes, verify_method certificate" "the file read at start (INFO)"
status_is live runs=1 pushed=1 fallbacks=0 verifier_refusals=0 not_ours=0 last_engine=pira last_outcome=pushed dumps=current
inode1=$(stat -c %i "$dir/dumps/opensm-lfts.dump")

printf 'dump_dir %s/dumps\nverify_method full   # changed under the daemon\nhybrid_final_delay 5\ntransition double_scheme\n' "$dir" > "$conf"
hup live pushed=2
log_has live "ibrouting: read options file .*live.conf again \\(it changed\\): .*verify_method full" "the changed file read again"
log_has live "ibrouting: option verify_method: certificate -> full" "the changed key, old -> new"
log_has live "ibrouting: option hybrid_final_delay: 0 -> 5" "the added key, old -> new"
log_has live "WRN IB34: .*live.conf: transition double_scheme takes effect when OpenSM restarts; safe_steps until then" "transition waits for a restart (its SL-to-VL callbacks are given at start)"
log_has live "build_lid_matrices: pira: .*acyclic \\(full check\\)" "the next run uses the new value"
status_is live runs=2 pushed=2 fallbacks=0 options_reads=2 last_outcome=pushed dumps=current
inode2=$(stat -c %i "$dir/dumps/opensm-lfts.dump")
if [ "$inode1" != "$inode2" ] && "$IBROUTING" verify "$dir/dumps" > "$dir/verify.out" 2>&1; then
	pass "live: opensm-lfts.dump replaced by rename (inode $inode1 -> $inode2) and $(grep '^verify' "$dir/verify.out")"
else
	flunk "live: opensm-lfts.dump not replaced by rename (inode $inode1 -> $inode2) or does not verify"
	sed 's/^/# /' "$dir/verify.out"
fi
no_temporary_files live

# Unchanged file, another sweep: not read again.
hup live pushed=3
if [ "$(grep -c 'read options file' "$dir/osm.log")" = 2 ]; then
	pass "live: an unchanged file is not read again"
else
	flunk "live: the unchanged file was read again: $(grep -c 'read options file' "$dir/osm.log") reads"
fi

# A root not in the fabric under root_fallback refuse: pira refuses,
# OpenSM falls back to minhop; the dumps of pira's last run no longer
# describe the switches.
printf 'dump_dir %s/dumps\nroot 0xdeadbeef\nroot_fallback refuse\n' "$dir" > "$conf"
hup live fallbacks=1
log_has live "ibrouting: option root: auto -> 0x00000000deadbeef" "the new root logged"
log_has live "ERR IB12: pira cannot route: root GUID 0x00000000deadbeef of .*live.conf is not in the fabric \\(root_fallback refuse\\)" "pira refuses"
log_has live "minhop tables configured on all switches" "OpenSM falls back to minhop"
wait_status live not_ours=1 || true
status_is live runs=4 pushed=3 fallbacks=1 verifier_refusals=0 not_ours=1 last_engine=minhop last_outcome=refused dumps=removed
if ls "$dir/dumps" | grep -q '^opensm'; then
	flunk "live: stale dumps left after the fallback: $(ls "$dir/dumps" | tr '\n' ' ')"
else
	pass "live: the stale dumps are removed after the fallback ($(ls "$dir/dumps" | tr '\n' ' '))"
fi

# Back to a good file: pira routes, the dumps are back.
printf 'dump_dir %s/dumps\n' "$dir" > "$conf"
hup live pushed=4
status_is live runs=5 pushed=4 fallbacks=1 last_engine=pira last_outcome=pushed dumps=current
[ -f "$dir/dumps/opensm-lfts.dump" ] && pass "live: dumps written again" || flunk "live: no dumps after the good run"
opensm_stop

# A routing run with no heavy sweep before it (a hybrid's final pass is
# a re-route): the file changed in between is read again before the run.
dir=$TMP/hybrid conf=$TMP/hybrid.conf
mkdir -p "$dir/dumps"
printf 'dump_dir %s/dumps\nhybrid_final_delay 3000\n' "$dir" > "$conf"
IBROUTING_CONF=$conf opensm_daemon "$dir" pira+fera || flunk "hybrid: OpenSM did not come up"
osm_wait 300 grep -q "final pass in 3000 ms" "$dir/osm.log" ||
	flunk "hybrid: no final pass scheduled"
printf 'dump_dir %s/dumps\nhybrid_final_delay 3000\nverify_method full\n' "$dir" > "$conf"
wait_status hybrid pushed=2 || flunk "hybrid: no pushed=2 in ibrouting.status"
log_has hybrid "ibrouting: option verify_method: certificate -> full" "the change seen before the final pass"
if awk '/asking OpenSM for a re-route/ { asked = 1 } asked && /option verify_method: certificate -> full/ { read = 1 }
	read && /build_lid_matrices: pira\+fera: final pass \(fera\)/ { ok = 1 } END { exit !ok }' "$dir/osm.log"; then
	pass "hybrid: read again within the re-route (no heavy sweep), before the final pass"
else
	flunk "hybrid: the re-route's run did not read the changed file first"
	grep -E "re-route|option|build_lid_matrices" "$dir/osm.log" | sed 's/^/# /'
fi
status_is hybrid runs=2 pushed=2 fallbacks=0 last_engine=pira+fera dumps=current
opensm_stop

# OpenSM's unicast cache serves a sweep without calling any engine.
dir=$TMP/cache conf=$TMP/cache.conf
mkdir -p "$dir/dumps"
printf 'dump_dir %s/dumps\n' "$dir" > "$conf"
IBROUTING_CONF=$conf opensm_daemon "$dir" pira "use_ucast_cache TRUE" || flunk "cache: OpenSM did not come up"
wait_status cache pushed=1 || flunk "cache: no pushed=1 in ibrouting.status"
hup cache not_ours=1
log_has cache "Configuring switch tables using cached routing" "OpenSM serves the sweep from its cache"
status_is cache runs=1 pushed=1 not_ours=1 last_engine=unicast-cache last_outcome=not-ours dumps=removed
opensm_stop
finish
