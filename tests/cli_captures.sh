#!/bin/sh
# cli_captures.sh - the captures of real clusters in tests/fabrics/real
# (SOURCES.md), routed with default options as an administrator would
# first try them:
#   - the class auto recognises and the roots it takes (the top level of
#     each fat tree: 2 spines of the 2014 FDR cluster, 32 cores of Selene's
#     storage fabric, 9 spines of the NDR SuperPOD fragment, Selene's cores
#     less those the root repair leaves out), each tolerance noted
#     (aggregation nodes, storage on a spine, leaves without hosts,
#     management switches);
#   - fera verifies with every pair of hosts delivered, and its max link
#     load is at most 1.10x the tool's bound;
#   - dr at lmc 2 verifies, its designated load within 1.15x the bound;
#   - the links' widths and speeds (HDR, EDR, FDR10, QDR) are those of
#     route's dump and of the dump routed again;
#   - the director capture, a PuTTY log that lost its tabs, is read as
#     ibsim reads it (400 switches, 2328 CA ports, 6395 inter-switch
#     links), its banner and prompt skipped and its 631 ports with lid
#     65535 given LIDs, each with one WRN line; fera and dr load no link
#     above the bound (2327 flows, a host's; fera.c: spreading entries).
set -eu
. "$(dirname "$0")/lib.sh"

real=$FABRICS_DIR/real

# capture FILE: the capture as a plain file in $TMP, its path on stdout
capture() {
	case $1 in
	*.gz) gzip -dc "$real/$1" > "$TMP/${1%.gz}"; echo "$TMP/${1%.gz}" ;;
	*) echo "$real/$1" ;;
	esac
}

# field LINE-PREFIX PATTERN FILE: the first number after PATTERN on the
# line starting with LINE-PREFIX
field() {
	sed -n "s/^$1 .*$2 \([0-9][0-9]*\).*/\1/p" "$3" | head -n 1
}

# slack: the max link load allowed, percent of the bound: fera's; dr's
# is 5 more
slack=110

# route NAME FILE CLASS ROOTS NOTE...: fera with default options, its
# stderr kept in $TMP/fera.err
route() {
	name=$1 file=$2 class=$3 roots=$4
	shift 4
	if ! "$IBROUTING" route -e fera "$file" > "$TMP/out" 2> "$TMP/fera.err"; then
		flunk "$name: route failed: $(cat "$TMP/out" "$TMP/fera.err" | tail -n 5)"
		return
	fi
	grep -q "^topology  $class" "$TMP/out" &&
		pass "$name: $(grep -m1 '^topology' "$TMP/out")" ||
		flunk "$name: not /$class/: $(grep '^topology' "$TMP/out")"
	grep -qE "^roots     $roots switches \(auto" "$TMP/out" &&
		pass "$name: $roots roots" ||
		flunk "$name: roots: $(grep -E '^roots?  ' "$TMP/out")"
	for note in "$@"; do
		grep -q "^topology  .*$note" "$TMP/out" &&
			pass "$name: noted: $note" ||
			flunk "$name: no note /$note/: $(grep '^topology' "$TMP/out")"
	done
	grep -q '^verify    OK' "$TMP/out" &&
		pass "$name: $(grep -m1 '^verify' "$TMP/out" | cut -c1-90)" ||
		flunk "$name: $(grep -A3 '^verify' "$TMP/out")"
	load=$(field load "max link load" "$TMP/out")
	bound=$(field bound "a link under" "$TMP/out")
	if [ -n "$load" ] && [ -n "$bound" ] && [ $((load * 100)) -le $((bound * slack)) ]; then
		pass "$name: fera's max link load $load flows, the bound $bound"
	else
		flunk "$name: fera's max link load '$load' against the bound '$bound' (at most $slack%)"
	fi
	if "$IBROUTING" route -e dr --lmc 2 "$file" > "$TMP/dr" 2> "$TMP/err" &&
	   grep -q '^verify    OK' "$TMP/dr"; then
		dr=$(field load "max link load" "$TMP/dr")
		[ -n "$dr" ] && [ $((dr * 100)) -le $((bound * (slack + 5))) ] &&
			pass "$name: dr at lmc 2 verifies, designated load $dr (fera $load, the bound $bound)" ||
			flunk "$name: dr at lmc 2 loads '$dr', the bound $bound (at most $((slack + 5))%)"
	else
		flunk "$name: dr --lmc 2: $(tail -n 3 "$TMP/dr" "$TMP/err")"
	fi
}

route "2014 FDR cluster" "$(capture loginoff-2014-fdr.topo)" \
	"2-level fat tree" 2 "3 host ports on 1 switch above the leaves"
route "Selene storage" "$(capture selene-storage.topo.gz)" \
	"3-level fat tree" 32 "4 switches without hosts linked as leaves are"
route "NDR SuperPOD fragment" "$(capture topograph-dgx-ndr.topo.gz)" \
	"2-level fat tree" 9 "40 CA ports named \"Aggregation Node\""
route "Selene compute" "$(capture selene-compute.topo.gz)" \
	"3-level fat tree" 126 "666 CA ports named \"Aggregation Node\"" \
	"2 switches above the top level" "4 switches with 11 host ports hang off"

# warned NAME PATTERN...: fera's stderr is one WRN line for each PATTERN
warned() {
	name=$1
	shift
	for pattern in "$@"; do
		[ "$(grep -c -- "WRN: .*$pattern" "$TMP/fera.err")" = 1 ] &&
			pass "$name: one WRN: $(grep -- "$pattern" "$TMP/fera.err" | sed 's/.*WRN: //')" ||
			flunk "$name: not one WRN line /$pattern/: $(cat "$TMP/fera.err")"
	done
	[ "$(wc -l < "$TMP/fera.err")" -eq $# ] &&
		pass "$name: $# lines on stderr" ||
		flunk "$name: stderr is not $# WRN lines: $(cat "$TMP/fera.err")"
}

director=$(capture ufm-ndt-director.topo.gz)
route "UFM director" "$director" \
	"3-level fat tree" 80 "6 switches without hosts linked as leaves are"
[ "$load" = "$bound" ] && [ "${dr:-}" = "$bound" ] &&
	pass "UFM director: fera and dr at lmc 2 at the bound $bound" ||
	flunk "UFM director: fera '$load', dr '${dr:-}', not at the bound '$bound'"
warned "UFM director" \
	"ufm-ndt-director.topo: skipped 2 lines that are no topology record: 1, 33821$" \
	"ufm-ndt-director.topo:17587: 631 ports with lid 65535 (no LID assigned when captured)"
grep -q "^fabric    .*: 400 switches, 2328 CA ports, 6395 inter-switch links;" "$TMP/out" &&
	pass "UFM director: as ibsim reads it: $(grep -m1 '^fabric' "$TMP/out" | cut -d: -f2 | cut -d';' -f1)" ||
	flunk "UFM director: not 400 switches, 2328 CA ports, 6395 links: $(grep '^fabric' "$TMP/out")"

# the links' widths and speeds as the captures give them: the
# subnet list of route's dump says each link's as OpenSM says it (4xHDR:
# PHY=4x SPD=50, 4xEDR: 25, 4xFDR10: FDR10, 4xQDR: 10), from both ends,
# and routing that dump again writes the same subnet list
cap_rates() {
	grep -o 'lid [0-9]* [0-9]*x[A-Z0-9]*' "$1" | awk '{ print $3 }' | sort | uniq -c
}
dump_rates() {
	sed -n 's/.* PHY=\([0-9]*x\) LOG=ACT SPD=\(.*\)$/\1 \2/p' "$1/opensm-subnet.lst" |
		awk '{ sub(/^2\.5$/, "SDR", $2); sub(/^5$/, "DDR", $2); sub(/^10$/, "QDR", $2)
			sub(/^14$/, "FDR", $2); sub(/^25$/, "EDR", $2); sub(/^50$/, "HDR", $2)
			sub(/^100$/, "NDR", $2); print $1 $2 }' | sort | uniq -c
}
for file in "$director" "$(capture loginoff-2014-fdr.topo)"; do
	name=$(basename "$file")
	rm -rf "$TMP/rates" "$TMP/rates2"
	if "$IBROUTING" route -e fera --dump-dir "$TMP/rates" "$file" > /dev/null 2>&1 &&
	   [ -n "$(cap_rates "$file")" ] &&
	   [ "$(cap_rates "$file")" = "$(dump_rates "$TMP/rates")" ]; then
		pass "$name: the dump carries its links' widths and speeds:$(dump_rates "$TMP/rates" | tr -s ' \n' ' ')"
	else
		flunk "$name: widths and speeds: capture $(cap_rates "$file" | tr -s ' \n' ' '), dump $(dump_rates "$TMP/rates" | tr -s ' \n' ' ')"
	fi
	"$IBROUTING" route -e fera --dump-dir "$TMP/rates2" "$TMP/rates" > /dev/null 2>&1 &&
	   cmp -s "$TMP/rates/opensm-subnet.lst" "$TMP/rates2/opensm-subnet.lst" &&
		pass "$name: routed from its dump, the same subnet list again" ||
		flunk "$name: the dump's dump differs: $(diff "$TMP/rates/opensm-subnet.lst" "$TMP/rates2/opensm-subnet.lst" | head -n 3)"
done

finish
