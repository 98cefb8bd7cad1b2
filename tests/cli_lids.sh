#!/bin/sh
# cli_lids.sh - `ibrouting lids` (the LID paper's study) and colorl's
# options through the tool:
#   - on a generated fabric, both path schemes and every heuristic and
#     the ILP report their LIDs; the ILP never needs more LIDs than any
#     heuristic, and says how many destinations it proved;
#   - colorl routes and verifies with every heuristic and both path
#     schemes at LMC 2; its INFO figures are there;
#   - --parts 1 gives the default's selection on a small fabric, 3 parts
#     one of their own; so do --batches 1 and 3, and colorl in 3 batches
#     verifies, says so, and dumps the same tables on 1 and 2 threads;
#   - bad options: an unknown scheme or heuristic, k, parts or batches out
#     of range, no fabric, an option colorl does not have or a value it
#     refuses: exit 2 with a message naming the option and the value.
set -eu
. "$(dirname "$0")/lib.sh"

spec=gen:random:sw=16,ca=64,seed=2
if "$IBROUTING" lids "$spec" > "$TMP/lids.out"; then
	pass "lids on $spec: $(grep -c '^lids' "$TMP/lids.out") schemes"
else
	flunk "lids on $spec: $(cat "$TMP/lids.out")"
fi
for scheme in shortest-widest path-selection; do
	line=$(grep "^lids      $scheme:" "$TMP/lids.out" || true)
	# "greedy N, split-merge/S N, ..., ilp N (exact D of E destinations)"
	verdict=$(echo "$line" | sed 's/^lids *[^:]*: //' | tr ',' '\n' | awk '
		{ name = $1; v = $2 + 0; n++; if (name == "ilp") ilp = v; else if (!min || v < min) min = v }
		END { if (n != 6) print "missing"; else if (ilp > min) print "worse"; else print "ok" }')
	if [ "$verdict" = ok ] && echo "$line" | grep -q "exact [0-9]* of 64 destinations"; then
		pass "$scheme: ILP at most every heuristic: ${line#lids      }"
	else
		flunk "$scheme: $verdict: $line"
	fi
done

for heuristic in greedy split-merge/S split-merge/L color/S color/L ilp; do
	for paths in path-selection shortest-widest; do
		if "$IBROUTING" route -v -e colorl -o heuristic=$heuristic -o paths=$paths \
			-o ilp_seconds=1 --lmc 2 "$spec" > "$TMP/route.out" &&
		   grep -q "^verify    OK" "$TMP/route.out" &&
		   grep -q "CA LIDs needed.*pairs moved" "$TMP/route.out"; then
			pass "colorl $paths $heuristic: $(grep '^load' "$TMP/route.out" | cut -c11-)"
		else
			flunk "colorl $paths $heuristic: $(cat "$TMP/route.out")"
		fi
	done
done

expect_error "lids: unknown scheme" 2 "lids: --paths foo: expected shortest-widest, path-selection or both" \
	"$IBROUTING" lids --paths foo "$spec"
expect_error "lids: unknown heuristic" 2 "lids: --heuristics greedy,color/X: expected all or a list of" \
	"$IBROUTING" lids --heuristics greedy,color/X "$spec"
expect_error "lids: k out of range" 2 "^ibrouting lids: --k 17: expected a number 1..16$" \
	"$IBROUTING" lids --k 17 "$spec"
expect_error "lids: k zero" 2 "^ibrouting lids: --k 0: expected a number 1..16$" \
	"$IBROUTING" lids --k 0 "$spec"
# --parts: 1 is the default's one sequence on this small fabric; 3 parts
# report a load and LIDs of their own
"$IBROUTING" lids --paths path-selection --heuristics color/L "$spec" > "$TMP/p0.out"
"$IBROUTING" lids --paths path-selection --heuristics color/L --parts 1 "$spec" > "$TMP/p1.out"
"$IBROUTING" lids --paths path-selection --heuristics color/L --parts 3 "$spec" > "$TMP/p3.out"
if [ "$(grep '^lids\|^paths' "$TMP/p0.out" | sed 's/, [0-9.]* ms$//')" = \
     "$(grep '^lids\|^paths' "$TMP/p1.out" | sed 's/, [0-9.]* ms$//')" ] &&
   grep -q '^lids      path-selection: color/L [0-9]' "$TMP/p3.out"; then
	pass "lids --parts 1 as the default here; --parts 3: $(grep '^lids' "$TMP/p3.out" | cut -c11-)"
else
	flunk "lids --parts: $(cat "$TMP/p0.out" "$TMP/p1.out" "$TMP/p3.out")"
fi
expect_error "lids: parts out of range" 2 "^ibrouting lids: --parts 9: expected a number 0..8$" \
	"$IBROUTING" lids --parts 9 "$spec"
expect_error "colorl: parts out of range" 2 "option parts=9: expected a number 0..8" \
	"$IBROUTING" route -e colorl -o parts=9 "$spec"
# --batches: 1 is the default's one batch on this small fabric; 3
# batches report a load and LIDs of their own, and colorl in 3 batches
# routes and verifies, the same tables on 1 and 2 threads
"$IBROUTING" lids --paths path-selection --heuristics color/L --batches 1 "$spec" > "$TMP/b1.out"
"$IBROUTING" lids --paths path-selection --heuristics color/L --batches 3 "$spec" > "$TMP/b3.out"
if [ "$(grep '^lids\|^paths' "$TMP/p0.out" | sed 's/, [0-9.]* ms$//')" = \
     "$(grep '^lids\|^paths' "$TMP/b1.out" | sed 's/, [0-9.]* ms$//')" ] &&
   grep -q '^lids      path-selection: color/L [0-9]' "$TMP/b3.out"; then
	pass "lids --batches 1 as the default here; --batches 3: $(grep '^lids' "$TMP/b3.out" | cut -c11-)"
else
	flunk "lids --batches: $(cat "$TMP/p0.out" "$TMP/b1.out" "$TMP/b3.out")"
fi
for j in 1 2; do
	"$IBROUTING" route -v -e colorl --lmc 2 -j $j -o batches=3 --dump-dir "$TMP/b3-j$j" "$spec" > "$TMP/b3-j$j.out" 2>&1 || true
done
if grep -q '^verify    OK' "$TMP/b3-j1.out" && [ -s "$TMP/b3-j1/opensm-lfts.dump" ] &&
   grep -q '^engine    colorl: .*, 3 selection batches' "$TMP/b3-j1.out" &&
   diff -r "$TMP/b3-j1" "$TMP/b3-j2" > /dev/null; then
	pass "colorl batches=3: verified, says its 3 batches, the same dumps on 1 and 2 threads"
else
	flunk "colorl batches=3: $(cat "$TMP/b3-j1.out" "$TMP/b3-j2.out")"
fi
expect_error "lids: batches out of range" 2 "^ibrouting lids: --batches 65: expected a number 0..64$" \
	"$IBROUTING" lids --batches 65 "$spec"
expect_error "colorl: batches out of range" 2 "option batches=65: expected a number 0..64" \
	"$IBROUTING" route -e colorl -o batches=65 "$spec"
expect_error "lids: no fabric" 2 "lids: expected one or more FABRIC" \
	"$IBROUTING" lids --paths both
expect_error "colorl: bad heuristic" 2 "option heuristic=best: expected one of color/L, color/S, greedy" \
	"$IBROUTING" route -e colorl -o heuristic=best "$spec"
expect_error "colorl: k out of range" 2 "option k=0: expected a number 1..16" \
	"$IBROUTING" route -e colorl -o k=0 "$spec"
expect_error "colorl: unknown option" 2 "engine colorl has no option \"depth\"" \
	"$IBROUTING" route -e colorl -o depth=3 "$spec"
finish
