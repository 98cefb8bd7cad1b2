#!/bin/sh
# cli_transition.sh - `ibrouting transition`, a hybrid's way from PIRa's
# tables to the final engine's, offline:
#   - on a random 64-switch fabric, pira+fera: the union of the two sets
#     can loop (named), so the tool goes in steps; every step's union with
#     the tables before it and every step's tables verify; the entries of
#     the steps add up to the entries that change; exit 0;
#   - pira+colorl at LMC 2 on the same fabric the same way;
#   - on a 16-switch fabric whose union is clean: one push, no step;
#   - --before: the way on a 6x6 torus first, then one link cut: the
#     provisional pass keeps LIDs of the prior tables (as OpenSM's),
#     and one push or the steps reach the final tables; --before the
#     fabric itself: no provisional pass, nothing changes, exit 0;
#   - --double-scheme, pira+colorl at LMC 2 on a 4-ary 3-tree: the halves
#     line (2 LIDs per port per half), both halves delivered and acyclic,
#     the check line, the six steps of the paper's 3.1 in order with the
#     drain bound (5 switches x 1.074 s), exit 0; at LMC 0 a usage error;
#   - a way the safe steps cannot finish (e2e_ds_rescue.sh inside OpenSM):
#     the 2 x 68 ladder rooted at its corner, pira+fera at LMC 2: 64
#     steps, then "blocked after 64 steps (too many steps): N entries
#     left", exit 1; the same by the Double Scheme: the six steps,
#     exit 0; rooted at the centre (root auto) the steps reach the final
#     tables;
#   - --dump-dir writes those final tables (pira on half 0, colorl on
#     half 1, switch LIDs colorl's); `verify --half H` accepts each half,
#     and catches a half whose column has a bad entry while the other half
#     still verifies; --half at LMC 0, --half 2 and --half with
#     --certificate are usage errors;
#   - -e without a '+', or with an unknown engine, is a usage error naming
#     the engines;
#   - a root warning (a cut 4-ary 2-tree) is said once, not per pass.
set -eu
. "$(dirname "$0")/lib.sh"

check_way() {
	name=$1
	shift
	if "$IBROUTING" transition "$@" > "$TMP/$name.out"; then
		change=$(sed -n 's/^change    \([0-9]*\) of .*/\1/p' "$TMP/$name.out")
		summed=$(awk '/^step / { n += $3 } END { print n + 0 }' "$TMP/$name.out")
		steps=$(grep -c '^step ' "$TMP/$name.out" || true)
		bad=$(grep '^step ' "$TMP/$name.out" | grep -vc 'union verified, tables verified' || true)
		if grep -q '^union .* LIDs can loop' "$TMP/$name.out" && [ "$steps" -ge 2 ] &&
		   [ "$bad" = 0 ] && [ "$summed" = "$change" ] &&
		   grep -q "^steps     $steps to the final tables: $change entries" "$TMP/$name.out"; then
			pass "$name: $(grep '^union' "$TMP/$name.out" | cut -c11-70)...; $(grep '^steps' "$TMP/$name.out" | cut -c11-)"
		else
			flunk "$name: unexpected way"
			sed 's/^/# /' "$TMP/$name.out"
		fi
	else
		flunk "$name: exit $?"
		sed 's/^/# /' "$TMP/$name.out"
	fi
}

# transition_case NAME ARGS... <<EOF PATTERNS: `ibrouting transition ARGS`
# exits 0 and its output (stdout and stderr, in $TMP/caseN.out, N the
# check's number) has, for each line PATTERN of stdin (grep's), a line
# that matches it; none for a line !PATTERN.  Then ok "NAME: " with the
# line matching the first PATTERN, after its 10-column label.
transition_case() {
	tc_name=$1 tc_out=$TMP/case$((checks + 1)).out
	shift
	cat > "$tc_out.patterns"
	tc_ok=true
	if "$IBROUTING" transition "$@" > "$tc_out" 2>&1 < /dev/null; then
		while IFS= read -r tc_p; do
			case $tc_p in
			!*) ! grep -q -- "${tc_p#!}" "$tc_out" || tc_ok=false ;;
			*) grep -q -- "$tc_p" "$tc_out" || tc_ok=false ;;
			esac
		done < "$tc_out.patterns"
	else
		tc_ok=false
	fi
	if $tc_ok; then
		pass "$tc_name: $(grep -m1 -- "$(head -n1 "$tc_out.patterns")" "$tc_out" | cut -c11-)"
	else
		flunk "$tc_name: $(cat "$tc_out")"
	fi
}

check_way pira+fera -e pira+fera gen:random:sw=64,ca=256,seed=5
check_way pira+colorl -e pira+colorl --lmc 2 gen:random:sw=64,ca=256,seed=5

transition_case "a clean union" -e pira+fera --root-strategy center gen:random:sw=16,ca=64,seed=1 <<'EOF'
^union .*no loop, acyclic: one push
!^step[ ]
EOF

transition_case "--before, a link cut" -e pira+fera --before gen:torus:dims=6x6,ca=2,seed=1 \
	gen:torus:dims=6x6,ca=2,broken=1,seed=1 <<'EOF'
^kept      [1-9][0-9]* LIDs kept from the prior tables
^before .* ends final
^\(steps     [0-9]* to the final tables\|union .*: one push\)
EOF

# the fabric before is this one: the final tables stay, nothing to send
"$IBROUTING" generate -o "$TMP/torus.net" torus:dims=6x6,ca=2,seed=1
transition_case "--before the fabric itself" -e pira+fera --before "$TMP/torus.net" "$TMP/torus.net" <<'EOF'
^change    0 of[ ]
^passes    no provisional pass
!^step[ ]
EOF

expect_error "an unknown single engine" 2 "unknown engine .nope." "$IBROUTING" transition -e nope gen:random:sw=16,ca=64,seed=1
# a single engine is a hybrid of one: after a change its own tables go
# the machine's way from the prior tables; on the 4-ary 3-tree with 2
# links cut some management routes of the prior and new tables would loop
# when mixed, so those LIDs are emptied first and the rest goes at once
transition_case "fera alone after 2 cuts" -e fera --before gen:kary:k=4,n=3,seed=1 gen:kary:k=4,n=3,cut=2,seed=1 <<'EOF'
^union     prior and new mixed: [1-9][0-9]* LIDs can loop
^passes    fera .* from the prior tables
^step 1    [1-9][0-9]* entries emptied first
^steps     2 to the final tables
EOF
# and where the union is clean, one push (this random fabric's cut)
transition_case "fera alone after a cut, a clean union" -e fera --before gen:random:sw=32,ca=128,seed=2 gen:random:sw=32,ca=128,cut=1,seed=2 <<'EOF'
^union     prior and new mixed: no loop, acyclic: one push
!^step[ ]
EOF
# a credit loop in the union (no LID loops alone): everything that
# differs is emptied first
transition_case "fera alone after a cut, a credit loop in the union" -e fera --before gen:random:sw=32,ca=128,seed=3 gen:random:sw=32,ca=128,cut=1,seed=3 <<'EOF'
^step 1    [1-9][0-9]* entries emptied first
^union     prior and new mixed: 0 LIDs can loop, 1 dependency cycle
^steps     2 to the final tables
EOF
expect_error "an unknown engine" 2 "unknown engine in .pira.nope." "$IBROUTING" transition -e pira+nope gen:random:sw=16,ca=64,seed=1

if "$IBROUTING" transition --double-scheme -e pira+colorl --lmc 2 gen:kary:k=4,n=3 > "$TMP/ds.out" &&
   grep -q '^double    LMC 2: .* 2 LIDs per port per half (of 4)' "$TMP/ds.out" &&
   [ "$(grep -c '^half [01]    .* delivered, [0-9]* channel dependencies, acyclic, longest chain 4 channels' "$TMP/ds.out")" = 2 ] &&
   grep -q '^check     per VL set: A acyclic, B acyclic' "$TMP/ds.out" &&
   [ "$(sed -n 's/^ds \([1-6]\) .*/\1/p' "$TMP/ds.out" | tr -d '\n')" = 123456 ] &&
   grep -q '^ds 1      restrict SL-to-VL: the SLs of half 0 -> VL set A only' "$TMP/ds.out" &&
   grep -q '^ds 2      push colorl on half 1: [1-9][0-9]* entries .*(half 0: 0, half 1: [1-9][0-9]*, switch LIDs: 0)' "$TMP/ds.out" &&
   grep -q '^ds 3      wait until VL set B .*bound 5 switches x 1.074 s = 5.369 s' "$TMP/ds.out" &&
   grep -q '^ds 4      switch the SA to half 1' "$TMP/ds.out" &&
   grep -q '^ds 5      wait until VL set A' "$TMP/ds.out" &&
   grep -q '^ds 6      restore SL-to-VL: the SLs of half 1 -> every data VL; final' "$TMP/ds.out"; then
	pass "--double-scheme: $(sed -n 's/^check *//p' "$TMP/ds.out" | cut -c1-40)...; 6 steps"
else
	flunk "--double-scheme: $(cat "$TMP/ds.out")"
fi
ladder=$FABRICS_DIR/ladder2x68.net
if "$IBROUTING" transition -e pira+fera --lmc 2 --root 0x200000 "$ladder" > "$TMP/deep.out"; then
	flunk "a corner root on the ladder: exit 0, expected 1"
	sed 's/^/# /' "$TMP/deep.out"
elif [ "$(grep -c '^step ' "$TMP/deep.out")" = 64 ] && grep -q '^steps     blocked after 64 steps (too many steps): [1-9][0-9]* entries left' "$TMP/deep.out"; then
	pass "safe steps from the ladder's corner: $(sed -n 's/^step 64 *//p' "$TMP/deep.out" | cut -c1-60)...; $(sed -n 's/^steps *//p' "$TMP/deep.out")"
else
	flunk "safe steps from the ladder's corner: $(grep '^steps\|^step 6' "$TMP/deep.out")"
fi
if "$IBROUTING" transition --double-scheme --packet-life 8 -e pira+fera --lmc 2 --root 0x200000 "$ladder" > "$TMP/deepds.out" &&
   [ "$(sed -n 's/^ds \([1-6]\) .*/\1/p' "$TMP/deepds.out" | tr -d '\n')" = 123456 ] &&
   grep -q '^ds 6      restore SL-to-VL: .*; final' "$TMP/deepds.out"; then
	pass "the Double Scheme from the ladder's corner: $(sed -n 's/^half 1 *//p' "$TMP/deepds.out" | cut -c1-70)...; 6 steps"
else
	flunk "the Double Scheme from the ladder's corner: $(cat "$TMP/deepds.out")"
fi
transition_case "safe steps from the ladder's centre (root auto)" -e pira+fera --lmc 2 "$ladder" <<'EOF'
^steps     [0-9]* to the final tables
EOF
# the Double Scheme's final tables, offline, judged half by half
if "$IBROUTING" transition --double-scheme -e pira+colorl --lmc 2 --dump-dir "$TMP/dsdump" \
	gen:kary:k=4,n=2 > "$TMP/dsdump.out" &&
   grep -q "^dumps     $TMP/dsdump/opensm-subnet.lst" "$TMP/dsdump.out"; then
	pass "--dump-dir: the Double Scheme's final tables written"
else
	flunk "--dump-dir: $(cat "$TMP/dsdump.out")"
fi
for h in 0 1; do
	if "$IBROUTING" verify --half $h "$TMP/dsdump" > "$TMP/half$h.out" &&
	   grep -q "^half      $h of LMC 2: base+$((2 * h))..$((2 * h + 1)) of every CA port" "$TMP/half$h.out" &&
	   grep -q '^verify    OK: 256 entries: 8 switches x 32 LIDs (16 base + 16 above)' "$TMP/half$h.out" &&
	   grep -q '^verify    256 delivered; no loop$' "$TMP/half$h.out"; then
		pass "verify --half $h: $(grep -m1 '^verify    ' "$TMP/half$h.out" | cut -c11-100)"
	else
		flunk "verify --half $h: $(cat "$TMP/half$h.out")"
	fi
done
# a bad column in half 1: LID base+2 of the first CA port, at the second
# switch's section, sent to port 0 (the switch itself, not the owner)
cp -r "$TMP/dsdump" "$TMP/broken"
lid=$(awk '/Channel Adapter/ { print $1; exit }' "$TMP/dsdump/opensm-lfts.dump")
lid=$(printf '0x%04x' $((lid + 2)))
awk -v lid="$lid" '/^Unicast lids/ { sw++ } sw == 2 && $1 == lid && !done { $2 = "000"; done = 1 } { print }' \
	"$TMP/dsdump/opensm-lfts.dump" > "$TMP/broken/opensm-lfts.dump"
set +e
"$IBROUTING" verify --half 1 "$TMP/broken" > "$TMP/broken1.out"; rc1=$?
"$IBROUTING" verify --half 0 "$TMP/broken" > "$TMP/broken0.out"; rc0=$?
set -e
if [ "$rc1" = 1 ] && grep -q '^verify    FAILED: 1 finding (1 bad ports' "$TMP/broken1.out" &&
   [ "$rc0" = 0 ] && grep -q '^verify    OK' "$TMP/broken0.out"; then
	pass "a broken column of half 1 ($lid) caught by --half 1: $(grep '^  ' "$TMP/broken1.out" | head -1 | cut -c3-); half 0 still OK"
else
	flunk "broken column: --half 1 exit $rc1, --half 0 exit $rc0: $(cat "$TMP/broken1.out" "$TMP/broken0.out")"
fi
"$IBROUTING" route -e pira --dump-dir "$TMP/lmc0" gen:kary:k=4,n=2 > /dev/null
expect_error "verify --half at LMC 0" 2 "--half 0: .* has LMC 0, no LID halves" "$IBROUTING" verify --half 0 "$TMP/lmc0"
expect_error "verify --half 2" 2 "--half 2: expected a number 0..1" "$IBROUTING" verify --half 2 "$TMP/dsdump"
expect_error "verify --half with --certificate" 2 "--half walks one LID half" "$IBROUTING" verify --half 1 --certificate "$TMP/dsdump"
expect_error "--double-scheme at LMC 0" 2 "needs LMC >= 1" "$IBROUTING" transition --double-scheme -e pira+fera gen:kary:k=4,n=3
# a root set that leaves a root unable to reach a host's switch (a 4-ary
# 2-tree with a link cut): said once, by the provisional pass; the final
# pass routes from the same roots
"$IBROUTING" transition -e pira+fera gen:kary:k=4,n=2,cut=1,seed=1 > "$TMP/cut.out" 2> "$TMP/cut.err" || true
if [ "$(grep -c '^ibrouting transition: WRN: 1 root cannot reach 1 (root, host switch) pair' "$TMP/cut.err")" = 1 ] &&
   [ "$(wc -l < "$TMP/cut.err")" = 1 ]; then
	pass "root warning said once for both passes"
else
	flunk "root warnings: $(cat "$TMP/cut.err")"
fi
finish
