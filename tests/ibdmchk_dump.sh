#!/bin/sh
# shellcheck disable=SC2046 # $(sw 1), $(counts ...): split into fields on purpose
# ibdmchk_dump.sh - ibdmchk (Debian ibutils) judges OpenSM-format dumps.
#
# Checks, each on ibdmchk's printed report (never on its exit status: the
# ibutils 1.5.7 build in Debian dies with SIGSEGV in CrdLoopCleanup() right
# after printing its verdict):
#   1. OpenSM's own dump in $FABRICS_DIR/opensm-dump-2sw parses cleanly
#      (no -W-/-E- lines, 6 nodes, 20 FDB entries on 2 switches, 12 CA to
#      CA paths) and has no credit loop;
#   2. the same fdbs with a routing loop spliced in is rejected;
#   3. a hand-made ring of 3 switches routed clockwise has a credit loop,
#      and ibdmchk says so;
#   4. the dump "ibrouting route -e fera --dump-dir" writes for fig1.net
#      parses cleanly, with as many nodes, switches, FDB entries and CA to
#      CA paths as the files hold, and has no credit loop.
# Only LMC-0 semantics are checked: ibdmchk -l N assumes switches own 2^N
# LIDs too, which OpenSM does not do, so base LIDs are what it can judge.
#
# Environment: IBROUTING (the built tool), FABRICS_DIR (tests/fabrics).
# Exit: 0 pass, 1 fail, 77 skip (no ibdmchk; a failure instead where
# CI=true or IBROUTING_REQUIRE_ALL_TESTS=1).  Leaves nothing behind
# but ibdmchk's own report in /var/cache/ibutils.

: "${FABRICS_DIR:?FABRICS_DIR must name tests/fabrics}"
: "${IBROUTING:=./ibrouting}"

if ! command -v ibdmchk >/dev/null 2>&1; then
	# where every test must run (CI), a skip would hide a missing package
	if [ "${CI:-}" = true ] || [ "${IBROUTING_REQUIRE_ALL_TESTS:-}" = 1 ]; then
		echo "FAIL: ibdmchk (Debian ibutils) is not installed, and every test must run here"
		exit 1
	fi
	echo "SKIP: ibdmchk (Debian ibutils) is not installed"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibdmchk_dump.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' 0
trap 'exit 1' HUP INT TERM
: > "$tmp/empty.mcfdbs"
out=$tmp/ibdmchk.out
what=

fail() {
	echo "FAIL ($what): $*"
	[ -f "$out" ] && sed 's/^/  | /' "$out"
	exit 1
}

# ibdmchk SUBNET_LST FDBS: its report into $out, run inside $tmp.  Its
# exit status only goes into the report (the subshell, not the test,
# reports its crash).
chk() {
	(
		cd "$tmp" || exit 1
		ibdmchk -s "$1" -f "$2" -m "$tmp/empty.mcfdbs"
		echo "(ibdmchk exit status $?)"
	) > "$out" 2>&1
}

expect() {
	grep -qF -e "$1" "$out" || fail "ibdmchk did not print \"$1\""
}

reject() {
	if grep -qF -e "$1" "$out"; then
		fail "ibdmchk printed \"$1\""
	fi
}

# A clean parse and a verdict of no credit loops, with the counts the
# files imply: NODES nodes (each its own system), FDB_ENTRIES entries on
# SWITCHES switches, CA_PORTS*(CA_PORTS-1) CA to CA paths.
expect_clean() {
	expect "-I- Defined $1/$1 systems/nodes"
	expect "-I- Defined $2 fdb entries for:$3 switches"
	expect "-I- Scanned:$(($4 * ($4 - 1))) CA to CA paths"
	expect "-I- no credit loops found"
	reject "-W-"
	reject "-E-"
}

# Counts of a subnet list and fdbs: "NODES SWITCHES CA_PORTS FDB_ENTRIES".
counts() {
	awk -v fdbs="$2" '
	{
		line = $0
		while (match(line, /[{] (SW|CA)[^ ]* Ports:[0-9A-Fa-f]+ SystemGUID:[0-9A-Fa-f]+ NodeGUID:[0-9A-Fa-f]+/)) {
			rec = substr(line, RSTART, RLENGTH)
			guid = rec
			sub(/.*NodeGUID:/, "", guid)
			node[guid] = 1
			if (rec ~ /^[{] SW/)
				sw[guid] = 1
			line = substr(line, RSTART + RLENGTH)
		}
		if ($0 ~ /^[{] CA/)
			ca++
	}
	END {
		while ((getline l < fdbs) > 0)
			if (l ~ /^0x[0-9A-Fa-f]+ : [0-9]/)
				e++
		for (g in node) n++
		for (g in sw) s++
		print n + 0, s + 0, ca + 0, e + 0
	}' "$1"
}

# ---- 1. OpenSM's own dump ----------------------------------------------
what="OpenSM's dump"
osm=$FABRICS_DIR/opensm-dump-2sw
chk "$osm/opensm-subnet.lst" "$osm/opensm.fdbs"
expect_clean 6 20 2 4
set -- $(counts "$osm/opensm-subnet.lst" "$osm/opensm.fdbs")
[ "$*" = "6 2 4 20" ] || fail "counts() says \"$*\", expected \"6 2 4 20\""
echo "ok - ibdmchk: OpenSM's dump of 2sw2path4hca has no credit loop"

# ---- 2. a routing loop -------------------------------------------------
# Switch1 sends Hca1's LID 4 to Switch2, which sends it back.
what="routing loop"
awk '/^dump_ucast_routes: Switch 0x0000000000200000/ { s = 1; print; next }
     /^dump_ucast_routes:/ { s = 0 }
     s && /^0x0004 : 001 / { sub(/: 001 /, ": 003 ") }
     { print }' "$osm/opensm.fdbs" > "$tmp/loop.fdbs"
if cmp -s "$osm/opensm.fdbs" "$tmp/loop.fdbs"; then
	fail "could not splice the loop into opensm.fdbs"
fi
chk "$osm/opensm-subnet.lst" "$tmp/loop.fdbs"
expect "-E- Aborting after 256 hops - loop in LFT?"
expect "-E- Some Point to Point Traversals Failed."
reject "-I- no credit loops found"
echo "ok - ibdmchk: a routing loop is reported"

# ---- 3. a credit loop --------------------------------------------------
# Switches 0x10, 0x20, 0x30 (LIDs 1..3) in a ring: port 2 leads to the
# next switch's port 3.  CA 0x100 * i hangs off port 1 of switch i (LID
# i + 3).  Every switch sends every foreign LID out of port 2: loop-free,
# but the three ring channels wait on each other.
what="credit loop"
rec() { # TYPE NPORTS NODEGUID PORTGUID DESC LID PN VENID
	printf '{ %s Ports:%02X SystemGUID:%016x NodeGUID:%016x PortGUID:%016x VenID:%s DevID:0000 Rev:00000000 {%s} LID:%04X PN:%02X } ' \
		"$1" "$2" "$3" "$3" "$4" "$8" "$5" "$6" "$7"
}
sw() { echo "SW 3 $(($1 * 16)) $(($1 * 16)) ring-sw$1 $1"; }
ca() { echo "CA 1 $(($1 * 256)) $(($1 * 256 + 1)) ring-ca$1 $(($1 + 3)) 1"; }
link() { # 7 fields of one end, 7 of the other
	rec "$1" "$2" "$3" "$4" "$5" "$6" "$7" 000000
	shift 7
	rec "$1" "$2" "$3" "$4" "$5" "$6" "$7" 00000000
	echo "PHY=4x LOG=ACT SPD=10"
}
for i in 1 2 3; do
	next=$((i % 3 + 1))
	prev=$(((i + 1) % 3 + 1))
	link $(sw $i) 1 $(ca $i)
	link $(ca $i) $(sw $i) 1
	link $(sw $i) 2 $(sw $next) 3
	link $(sw $i) 3 $(sw $prev) 2
done > "$tmp/ring.lst"
for i in 1 2 3; do
	printf 'dump_ucast_routes: Switch 0x%016x\nLID    : Port : Hops : Optimal\n' \
		$((i * 16))
	for lid in 1 2 3 4 5 6; do
		if [ $lid = $i ]; then
			port=0
		elif [ $lid = $((i + 3)) ]; then
			port=1
		else
			port=2
		fi
		printf '0x%04X : %03u  : 00   : yes\n' $lid $port
	done
done > "$tmp/ring.fdbs"
chk "$tmp/ring.lst" "$tmp/ring.fdbs"
expect "-I- Defined 6/6 systems/nodes"
expect "-I- Defined 18 fdb entries for:3 switches"
expect "-I- Scanned:6 CA to CA paths"
expect "Found credit loop on:"
expect "-E- credit loops in routing"
reject "-I- no credit loops found"
reject "-W-"
echo "ok - ibdmchk: a credit loop is reported"

# ---- 4. our own dump ---------------------------------------------------
what="ibrouting route -e fera --dump-dir"
dump=$tmp/fig1
mkdir "$dump" || exit 1
if [ -x "$IBROUTING" ]; then
	"$IBROUTING" route -e fera --dump-dir "$dump" "$FABRICS_DIR/fig1.net" \
		> "$tmp/route.out" 2>&1
	rc=$?
else
	echo "$IBROUTING: not built" > "$tmp/route.out"
	rc=127
fi
if [ $rc -ne 0 ] || [ ! -s "$dump/opensm-subnet.lst" ]; then
	out=$tmp/route.out
	fail "exit status $rc, or no opensm-subnet.lst written"
fi
set -- $(counts "$dump/opensm-subnet.lst" "$dump/opensm.fdbs")
if [ "$1" -eq 0 ] || [ "$2" -eq 0 ] || [ "$3" -lt 2 ]; then
	fail "implausible dump: $1 nodes, $2 switches, $3 CA ports"
fi
chk "$dump/opensm-subnet.lst" "$dump/opensm.fdbs"
expect_clean "$1" "$4" "$2" "$3"
echo "ok - ibdmchk: fera on fig1.net: $1 nodes, $2 switches, no credit loop"
exit 0
