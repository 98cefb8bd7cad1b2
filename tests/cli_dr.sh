#!/bin/sh
# cli_dr.sh - destination renaming through the tool, as an administrator
# would use it offline:
#   - `route -e dr` on the Fig. 5 fabric of the PIRa paper (dr-fig5.net,
#     LMC 1 in the file) verifies, renames one LID of h1 and gives h2 and
#     h3 DLID 21; --dump-dir writes ibrouting-dlids.dump with exactly those
#     two lines, and `ibrouting verify` on the dump walks both designated
#     DLIDs (6 pairs delivered);
#   - `verify --certificate` on the dump certifies the tables legal under
#     the orientation from the dump's root, and refuses them under another
#     root (--root), naming a down-up turn;
#   - a designated DLID whose walk is not delivered (n2's entry for LID 21
#     removed from the dump) makes verify fail, naming it, and so does the
#     certificate (no route at n2); --root without --certificate is bad
#     usage;
#   - ibdmchk finds no credit loop in the dump (base LIDs: see
#     ibdmchk_dump.sh for why it judges LMC 0 only);
#   - at LMC 0, dr warns that it needs lmc >= 1, says how many CA LIDs it
#     would need, and its tables are FERa's, entry for entry; at LMC 2 on a
#     generated fabric it verifies with every designated pair delivered;
#   - route and verify of the same tables say the same: for dr
#     and colorl at LMC 2, `verify` of the dump prints route's fabric,
#     load, paths and verify lines (LIDs, DLIDs, walks), and the `lids`
#     line says what became of the pairs the LMC had no LID for;
#   - the summaries agree: dr-fig5.net's own lmc 1 is the LMC
#     routed and printed; at lmc 2 on a 4-ary 3-tree the engine's, the
#     verifier's and the certificate's lines, in route and on its dump,
#     count the same entries (switches x LIDs, base and above), the same
#     entries owed no route and LIDs owned by none, and list the same
#     roots as route's roots line and ibrouting-dlids.dump.
set -eu
. "$(dirname "$0")/lib.sh"

net=$FABRICS_DIR/dr-fig5.net
dir=$TMP/dump

# the paper's Fig. 7: its root (the lowest LID) and its tie rule
if "$IBROUTING" route -v -e dr --root-strategy sm --port-choice lowest --dump-dir "$dir" "$net" > "$TMP/out"; then
	pass "dr on dr-fig5.net: $(grep '^verify' "$TMP/out")"
else
	flunk "dr on dr-fig5.net: $(cat "$TMP/out")"
fi
grep -q "^engine    dr: .*1 renamed LID, 2 renamed pairs, 0 fallback pairs" "$TMP/out" &&
	pass "one renamed LID carries 2 pairs" || flunk "engine line: $(grep '^engine' "$TMP/out")"
# the file's own LMC (lid N lmc 1) is the one in use, and said
grep -q '^fabric    .*: 10 switches, 3 CA ports, 13 inter-switch links; lmc 1$' "$TMP/out" &&
   grep -q '^fabric    16 LIDs: 6 of the CA ports (2 each), 10 of the switches; max LID 29, 13 owned by none$' "$TMP/out" &&
   grep -q '^lids      .* (lmc 1: 2 for each of 3 CA ports)' "$TMP/out" &&
	pass "the file's lmc 1 is the LMC routed and printed: $(grep -m1 '^fabric' "$TMP/out" | sed 's/.*; //')" ||
	flunk "the file's lmc 1: $(grep -E '^(fabric|lids)' "$TMP/out")"
lines=$(grep -v '^#' "$dir/ibrouting-dlids.dump" | sort)
want="0x0000000000100201 24 0x0000000000100101 20 21
0x0000000000100301 28 0x0000000000100101 20 21"
[ "$lines" = "$want" ] && pass "ibrouting-dlids.dump: h2 and h3 send to h1 on DLID 21" ||
	flunk "ibrouting-dlids.dump: $lines"

if "$IBROUTING" verify "$dir" > "$TMP/verify" &&
   grep -q "6 designated pairs delivered" "$TMP/verify"; then
	pass "verify reads the dump and its designated DLIDs: $(grep '^verify' "$TMP/verify")"
else
	flunk "verify on the dump: $(cat "$TMP/verify")"
fi

if "$IBROUTING" verify --certificate "$dir" > "$TMP/cert" &&
   grep -q "^certify   OK: 160 entries: 10 switches x 16 LIDs (13 base + 3 above)" "$TMP/cert" &&
   grep -q "^certify   160 legal up/down; 13 LIDs owned by none left unset$" "$TMP/cert" &&
   grep -q "^certify   under root 0x0000000000210001$" "$TMP/cert"; then
	pass "verify --certificate on the dump: $(grep -m1 '^certify' "$TMP/cert")"
else
	flunk "verify --certificate on the dump: $(cat "$TMP/cert")"
fi
set +e
"$IBROUTING" verify --certificate --root 0x210004 "$dir" > "$TMP/cert"
status=$?
set -e
if [ $status = 1 ] && grep -q "switch 0x0000000000210001, entered going down from switch 0x00000000002100.., routes LID [0-9]* up" "$TMP/cert"; then
	pass "under another root the certificate fails: $(grep '^certify' "$TMP/cert" | cut -c1-90)"
else
	flunk "certificate under another root: exit $status: $(cat "$TMP/cert")"
fi
expect_error "--root without --certificate" 2 "add --certificate" \
	"$IBROUTING" verify --root 0x210004 "$dir"

# n2 loses its entry for LID 21: h2's designated DLID to h1 no longer
# arrives (h3's still does, through the root); every LID of a range is
# owed a route from every switch, so the verifier's first finding is the
# hole itself (the certificate names the designated DLID)
cp -r "$dir" "$TMP/bad"
awk '/^Unicast lids/ { n2 = /guid 0x0000000000210004/ }
     !(n2 && /^0x0015 /)' "$dir/opensm-lfts.dump" > "$TMP/bad/opensm-lfts.dump"
set +e
"$IBROUTING" verify "$TMP/bad" > "$TMP/verify"
status=$?
set -e
if [ $status = 1 ] && grep -q "switch 0x0000000000210004 has no route to LID 21 (above its range's base)" "$TMP/verify"; then
	pass "an undelivered designated DLID is a finding: $(grep 'LID 21' "$TMP/verify")"
else
	flunk "undelivered designated DLID: exit $status: $(cat "$TMP/verify")"
fi
set +e
"$IBROUTING" verify --certificate "$TMP/bad" > "$TMP/cert"
status=$?
set -e
if [ $status = 1 ] && grep -q "designated DLID 21 of end port .* has no route at switch 0x0000000000210004" "$TMP/cert"; then
	pass "the certificate finds it too: $(grep 'designated DLID 21' "$TMP/cert")"
else
	flunk "certificate, undelivered designated DLID: exit $status: $(cat "$TMP/cert")"
fi

if command -v ibdmchk >/dev/null 2>&1; then
	# ibdmchk 1.5.7 dies (SIGSEGV) after its report: the subshell says so
	(cd "$TMP" && { ibdmchk -s "$dir/opensm-subnet.lst" -f "$dir/opensm.fdbs" \
		-m /dev/null || echo "(ibdmchk exit status $?)"; }) > "$TMP/ibdmchk" 2>&1
	if grep -q "no credit loops found" "$TMP/ibdmchk"; then
		pass "ibdmchk: no credit loop in dr's dump"
	else
		flunk "ibdmchk: $(grep -iE 'credit|-E-' "$TMP/ibdmchk" | head -3)"
	fi
else
	skip "ibdmchk is not installed (Debian ibutils)"
fi

spec=gen:random:sw=32,ca=256,seed=3
"$IBROUTING" route -e dr --lmc 0 --print-lfts "$spec" > "$TMP/dr0" 2> "$TMP/dr0.err"
"$IBROUTING" route -e fera --lmc 0 --print-lfts "$spec" > "$TMP/fera0"
if grep -q "^ibrouting route: WRN: dr needs lmc >= 1 .* it would need [0-9]* CA LIDs" "$TMP/dr0.err" &&
   ! grep -q "needs lmc" "$TMP/dr0"; then
	pass "lmc 0, on standard error: $(cat "$TMP/dr0.err")"
else
	flunk "lmc 0: no warning: $(head -5 "$TMP/dr0")"
fi
if [ -n "$(grep '^0x' "$TMP/dr0")" ] &&
   [ "$(grep '^0x' "$TMP/dr0")" = "$(grep '^0x' "$TMP/fera0")" ]; then
	pass "lmc 0: dr's tables are fera's ($(grep -c '^0x' "$TMP/dr0") entries)"
else
	flunk "lmc 0: dr's tables differ from fera's"
fi
if "$IBROUTING" route -v -e dr --lmc 2 "$spec" > "$TMP/dr2" 2> "$TMP/dr2.err" &&
   grep -q "65280 designated pairs delivered" "$TMP/dr2" && ! grep -q 'WRN' "$TMP/dr2.err"; then
	pass "lmc 2: $(grep -m1 '^engine' "$TMP/dr2" | cut -c11-)"
else
	flunk "lmc 2: $(cat "$TMP/dr2")"
fi
# route and verify of the same tables: the same counts
spec=gen:random:sw=32,ca=256,seed=1
for e in dr colorl; do
	rm -rf "$TMP/same-$e"
	"$IBROUTING" route -e $e --lmc 2 --dump-dir "$TMP/same-$e" "$spec" > "$TMP/route-$e"
	"$IBROUTING" verify "$TMP/same-$e" > "$TMP/verify-$e"
	strip() { grep -E '^(fabric|load|paths|verify) ' "$1" | sed -E 's/^fabric +.*: ([0-9]+ switch)/fabric \1/; s/ \([0-9.]+ ms\)$//'; }
	if [ -n "$(strip "$TMP/route-$e")" ] &&
	   [ "$(strip "$TMP/route-$e")" = "$(strip "$TMP/verify-$e")" ]; then
		pass "$e: route and verify of its dump agree: $(grep '^fabric' "$TMP/verify-$e" | cut -d: -f2-)"
	else
		flunk "$e: route and verify differ:"
		diff "$TMP/route-$e" "$TMP/verify-$e" | sed 's/^/# /'
	fi
	# the walks are the engine's entries: every LID at every switch
	entries=$(sed -n 's/^engine    [a-z]*: \([0-9]*\) entries: \([0-9]*\) switches x \([0-9]*\) LIDs.*/\1 \2 \3/p' "$TMP/route-$e")
	walks=$(sed -n 's/^verify    OK: \([0-9]*\) entries: .*/\1/p' "$TMP/route-$e")
	set -- $entries
	[ "${1:-x}" = "$walks" ] && [ "$1" = $(($2 * $3)) ] &&
		pass "$e: $walks walks = the engine's entries = $2 switches x $3 LIDs" ||
		flunk "$e: entries '$entries', walks '$walks'"
done

# one count, one root set, the LMC in use: at lmc 2 on a 4-ary
# 3-tree, route's engine, verify and certify lines, and verify and verify
# --certificate of its dump, count the same entries of the same LIDs (the
# 51 LIDs alignment left unowned apart, empty) and list the same roots
spec=gen:kary:k=4,n=3
rm -rf "$TMP/kary"
"$IBROUTING" route -e dr --lmc 2 --dump-dir "$TMP/kary" "$spec" > "$TMP/kary.route"
"$IBROUTING" verify "$TMP/kary" > "$TMP/kary.verify"
"$IBROUTING" verify --certificate "$TMP/kary" > "$TMP/kary.cert"
kary="$TMP/kary.route $TMP/kary.verify $TMP/kary.cert"
want="14592 entries: 48 switches x 304 LIDs (112 base + 192 above)"
counts=$(sed -n -e 's/^engine    dr: \([0-9]* entries: .*\)$/\1/p' \
	-e 's/^verify    OK: \(.*\) ([0-9.]* ms)$/\1/p' \
	-e 's/^certify   OK: \(.*\) ([0-9.]* ms)$/\1/p' $kary | sort | uniq -c | sed 's/^ *//')
[ "$counts" = "5 $want" ] &&
	pass "lmc 2, 4-ary 3-tree: engine, verify and certify (route, dump) all count $want" ||
	flunk "lmc 2, 4-ary 3-tree: the counts differ: $counts"
owed=$(sed -n -e 's/^verify    [0-9]* delivered (\([0-9]*\) on management routes); \([0-9]*\) LIDs owned by none left unset; no loop$/\1 \2/p' \
	-e 's/^certify   [0-9]* legal up\/down, \([0-9]*\) management routes; \([0-9]*\) LIDs owned by none left unset$/\1 \2/p' \
	-e 's/^manage    \([0-9]*\) of [0-9]* entries route switches. management traffic only, outside up\*\/down\*: expected$/\1 51/p' $kary | sort | uniq -c | sed 's/^ *//')
[ "$owed" = "6 816 51" ] &&
	pass "lmc 2, 4-ary 3-tree: 816 entries on management routes and 51 LIDs owned by none, in every line" ||
	flunk "lmc 2, 4-ary 3-tree: management and unowned differ: $owed"
roots=$(sed -n -e 's/^roots     \([0-9]* roots: .*\)/\1/p' -e 's/^\(verify\|certify\)   *under \(.*\)/\2/p' $kary | sort | uniq -c | sed 's/^ *//')
first=$(grep '^# roots ' "$TMP/kary/ibrouting-dlids.dump" | tr ' ' '\n' | grep '^0x' | tr -d : | sort | head -n 3 | tr '\n' ' ')
[ "$(echo "$roots" | wc -l)" = 1 ] && [ "${roots%% *}" = 5 ] &&
   echo "$roots" | grep -q "16 roots: $(echo "$first" | sed 's/ $//; s/ /, /g') and 13 more$" &&
	pass "lmc 2, 4-ary 3-tree: route, verify and certify list the same roots: ${roots#* }" ||
	flunk "lmc 2, 4-ary 3-tree: the roots differ ($first): $roots"
grep -q '^fabric    .*; lmc 2$' "$TMP/kary.verify" &&
	pass "lmc 2, 4-ary 3-tree: verify of the dump says lmc 2" ||
	flunk "lmc 2, 4-ary 3-tree: $(grep '^fabric' "$TMP/kary.verify")"

if grep -qE '^lids      [0-9]+ needed without the LMC.s limit, 1024 CA LIDs assigned \(lmc 2: 4 for each of 256 CA ports\); ([0-9]+ pairs found no LID of their destination.s range and took a LID whose tree already reaches their source switch|every pair found a LID)' "$TMP/route-colorl"; then
	pass "colorl: $(grep '^lids' "$TMP/route-colorl")"
else
	flunk "colorl's lids line: $(grep -E '^(lids|engine)' "$TMP/route-colorl")"
fi
finish
