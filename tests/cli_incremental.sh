#!/bin/sh
# cli_incremental.sh - fera, colorl and dr after a change route from the
# prior tables (prior.h): `ibrouting route --prior DIR`.
#   - one link cut, one switch down (with its CAs), on a random fabric at
#     LMC 2 (the change-assimilation benchmark's): the tables verify (exit
#     0, no finding), and at most 2% of the entries of the switches there
#     before change (or the least any legal tables change plus 0.5%,
#     where that least is above 2%), where colorl routed afresh (incremental=0) changes
#     more, and so does fera afresh on a k-ary 3-tree with a link cut
#     (fera: at most 2% beyond those that had to change, each of its
#     LIDs a whole tree); on a Clos network with one of its 6 spines down, where a sixth
#     of the leaves' entries led to it and must change, at most 2% beyond
#     those;
#   - colorl and dr after the cut and the switch down: at most 0.3% of
#     the entries above the least any legal tables change (0.5% on the
#     change-assimilation benchmark's 128 / 1024 fabric and switch);
#   - the same fabric again: not one entry changes;
#   - the run is deterministic: the same dumps twice, and with -j 1 and 3;
#   - a pair whose route broke is re-routed (the figure is not 0 after a
#     cut that breaks colorl's routes);
#   - on a k-ary 3-tree and a Clos network with two links cut, and on an
#     8-ary 3-tree with a top switch down, the prior tables of the
#     whole fabric routed first (--before): max link load within 10% of
#     fera's afresh;
#   - the prior root is kept when a switch down moves the centre (dr
#     then changes at most 1% more than any legal tables must), and from
#     a dump without its roots line the root moves and 3x as much changes;
#   - a missing prior is an error naming the directory, and --prior with
#     --before is bad usage.
set -eu
. "$(dirname "$0")/lib.sh"

# switch_down NETFILE GUID: the fabric without switch GUID and its CAs
switch_down() {
	awk -v guid="$2" -f "$(dirname "$0")/switch_down.awk" "$1"
}

# percent ROUTE-OUTPUT: the share of entries changed, from the prior line;
# forced ROUTE-OUTPUT: the share that had to (their port leads nowhere now)
percent() {
	sed -n 's/^prior .* changed (\([0-9.]*\)%).*/\1/p' "$1"
}
forced() {
	sed -n 's/^prior .* had to (\([0-9.]*\)%).*/\1/p' "$1"
}

# least_of ROUTE-OUTPUT: the share any legal tables under the same
# orientation change (the prior line's lower bound)
least_of() {
	sed -n 's/^prior .*; [0-9]* (\([0-9.]*\)%) change in any legal tables.*/\1/p' "$1"
}

# within NAME OUT MAX [beyond]: the run verified and changed at most MAX
# percent of the entries, or the least any legal tables change plus 0.5%
# where that is more (only where the least itself is above MAX: every LID
# of a range is a whole tree since the ranges are completed, so a switch
# down now forces 2.04-2.07% here, where MAX is 2); with `beyond`, MAX
# percent beyond those that had to change
within() {
	p=$(percent "$2") q=0 l=$(least_of "$2")
	[ "${4:-}" = beyond ] && q=$(forced "$2")
	if [ -z "$p" ] || [ -z "$q" ]; then
		flunk "$1: no prior line: $(grep -m1 'rror\|verify' "$2")"
	elif awk -v p="$p" -v q="$q" -v m="$3" -v l="${l:-0}" -v b="${4:-}" \
		'BEGIN { if (b == "" && l > m) m = l + 0.5; exit !(p - q <= m) }'; then
		pass "$1: $(sed -n 's/^prior *//p' "$2" | sed 's/, on the switches there before//' | cut -c1-110); $(grep -o '[0-9]* pairs re-routed' "$2")"
	else
		flunk "$1: $p% of the entries changed ($q% had to), more than $3%${4:+ beyond}"
	fi
}

generate() {
	"$IBROUTING" generate --lmc 2 "$1" > "$2"
}

random=random:sw=64,ca=512,seed=1
generate "$random" "$TMP/whole.net"
generate "$random,cut=1" "$TMP/cut.net"
# a switch whose loss leaves the others connected: the first that does
for g in $(sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*/\1/p' "$TMP/whole.net" | sed -n '5,40p'); do
	switch_down "$TMP/whole.net" "$g" > "$TMP/down.net"
	if "$IBROUTING" route -e fera "$TMP/down.net" > /dev/null 2>&1; then
		break
	fi
done
clos=clos:leaf=12,spine=6,ca=96,seed=2
generate "$clos" "$TMP/clos.net"
spine=$(sed -n 's/^Switch.*"S-\([0-9a-f]*\)".*"spine0".*/\1/p' "$TMP/clos.net")
switch_down "$TMP/clos.net" "$spine" > "$TMP/clos-down.net"

for e in fera colorl dr; do
	for before in whole clos; do
		if ! "$IBROUTING" route -e "$e" --lmc 2 --dump-dir "$TMP/$e-$before" \
			"$TMP/$before.net" > "$TMP/out" 2>&1; then
			flunk "$e on $before: $(cat "$TMP/out")"
			continue
		fi
	done
	for change in cut down clos-down; do
		before=whole
		[ "$change" = clos-down ] && before=clos
		name="$e, $change"
		if "$IBROUTING" route -v -e "$e" --lmc 2 --prior "$TMP/$e-$before" \
			--dump-dir "$TMP/$e-$change" "$TMP/$change.net" \
			> "$TMP/$e-$change.out" 2>&1; then
			if [ "$change" = clos-down ] || [ "$e" = fera ]; then
				# a sixth of the leaves' up entries led to the
				# spine; fera routes every LID of a range on
				# its base's tree, and more of its entries led
				# to what went
				within "$name" "$TMP/$e-$change.out" 2 beyond
			else
				within "$name" "$TMP/$e-$change.out" 2
			fi
		else
			flunk "$name: $(grep -m1 'verify\|rror' "$TMP/$e-$change.out")"
		fi
	done
	# the same fabric: nothing changes
	"$IBROUTING" route -e "$e" --lmc 2 --prior "$TMP/$e-whole" "$TMP/whole.net" \
		> "$TMP/same.out" 2>&1 || true
	if grep -q '^prior     0 of [0-9]* entries changed' "$TMP/same.out"; then
		pass "$e, no change: $(sed -n 's/^prior *//p' "$TMP/same.out" | cut -c1-40)"
	else
		flunk "$e, no change: $(grep -m1 'prior\|rror' "$TMP/same.out")"
	fi
	# deterministic: again, and with other thread counts
	for j in 1 3; do
		rm -rf "$TMP/again"
		"$IBROUTING" route -e "$e" --lmc 2 -j "$j" --prior "$TMP/$e-whole" \
			--dump-dir "$TMP/again" "$TMP/cut.net" > /dev/null 2>&1 || true
		if cmp -s "$TMP/again/opensm-lfts.dump" "$TMP/$e-cut/opensm-lfts.dump" &&
		   { [ "$e" = fera ] ||
		     cmp -s "$TMP/again/ibrouting-dlids.dump" "$TMP/$e-cut/ibrouting-dlids.dump"; }; then
			pass "$e, cut, -j $j: the same tables and designated DLIDs"
		else
			flunk "$e, cut, -j $j: the tables differ from the first run's"
		fi
	done
done

# close to the least any legal tables under the same orientation change
# (the prior line's lower bound): at most 0.3% of all entries more here,
# and 0.5% more with the change-assimilation benchmark's switch down on
# its 128 / 1024 fabric, where colorl changed 2.88% against 2.08% before
# mending kept the entries that hold again unless a lighter hop exists
# (2.48% since; keeping them all, 2.30%, loaded a fat tree's link 1.6x);
# with every LID of a range a whole tree, the LIDs above the bases keep
# every entry that holds again (repair.h): swapped for lighter hops, as
# the bases' are, they took dr and colorl to 3.89% and 4.13% here
# near NAME OUT MARGIN
near() {
	p=$(percent "$2") l=$(least_of "$2")
	if [ -n "$p" ] && [ -n "$l" ] && grep -q '^verify    OK' "$2" &&
	   awk -v p="$p" -v l="$l" -v m="$3" 'BEGIN { exit !(p >= l && p <= l + m) }'; then
		pass "$1: $p% changed, any legal tables $l%"
	else
		flunk "$1: '$p'% changed, more than $3% above the least, '$l'%, or not verified"
	fi
}
generate random:sw=128,ca=1024,seed=1 "$TMP/w128.net"
switch_down "$TMP/w128.net" 0000000000200021 > "$TMP/w128-down.net"
for e in colorl dr; do
	for change in cut down; do
		near "$e, $change" "$TMP/$e-$change.out" 0.3
	done
	"$IBROUTING" route -e "$e" --lmc 2 --before "$TMP/w128.net" "$TMP/w128-down.net" \
		> "$TMP/$e-w128.out" 2>&1 || true
	near "$e, 128 / 1024, switch 0x...21 down" "$TMP/$e-w128.out" 0.5
done

# colorl afresh changes far more: what the prior saves
"$IBROUTING" route -e colorl --lmc 2 -o incremental=0 --prior "$TMP/colorl-whole" \
	"$TMP/cut.net" > "$TMP/fresh.out" 2>&1 || true
p=$(percent "$TMP/fresh.out")
if [ -n "$p" ] && awk -v p="$p" 'BEGIN { exit !(p > 2) }'; then
	pass "colorl afresh (incremental=0) after the cut: $p% of the entries changed"
else
	flunk "colorl afresh after the cut: '$p'% changed: $(grep -m1 'prior\|rror' "$TMP/fresh.out")"
fi
if grep -q ' [1-9][0-9]* pairs re-routed' "$TMP/colorl-cut.out"; then
	pass "colorl after the cut re-routed the pairs whose route broke: $(grep -o '[0-9]* pairs re-routed' "$TMP/colorl-cut.out")"
else
	flunk "colorl after the cut re-routed nothing: $(grep -m1 '^engine' "$TMP/colorl-cut.out")"
fi

# On fat trees the routes mended after a link cut stay balanced: the
# max link load within 10% of fera's afresh (the base every pair rides
# there), where mending onto FERa's own walks loaded one link 1.4-1.7x
# (commit 550fcb7, which made mending balanced)
load_of() { sed -n 's/^load *max link load \([0-9]*\) flows.*/\1/p' "$1"; }
# balanced_after NAME BEFORE AFTER: fera, colorl and dr from the prior
# tables on BEFORE (--before), each within 10% of fera's load afresh on
# AFTER, and verified
balanced_after() {
	"$IBROUTING" route -e fera --lmc 2 "$3" > "$TMP/bal-fera.out" 2>&1 || true
	for e in fera colorl dr; do
		"$IBROUTING" route -e "$e" --lmc 2 --before "$2" "$3" \
			> "$TMP/bal-$e.out" 2>&1 || true
		a=$(load_of "$TMP/bal-$e.out") b=$(load_of "$TMP/bal-fera.out")
		if [ -n "$a" ] && [ -n "$b" ] && [ $((a * 10)) -le $((b * 11)) ] &&
		   grep -q '^verify    OK' "$TMP/bal-$e.out"; then
			pass "$e on $1, from the prior tables (--before): max link load $a, fera afresh $b; $(sed -n 's/^prior *//p' "$TMP/bal-$e.out" | cut -c1-40)"
		else
			flunk "$e on $1: max link load '$a' against fera's '$b', or not verified"
		fi
	done
}
for spec in kary:k=4,n=3 clos:leaf=12,spine=6,ca=96,seed=2; do
	generate "$spec" "$TMP/ft.net"
	generate "$spec,cut=2" "$TMP/ft-cut.net"
	balanced_after "$spec, two links cut" "$TMP/ft.net" "$TMP/ft-cut.net"
done

# A top switch of an 8-ary 3-tree down: the walks mended for the middle
# switches that lost it gather the flows of the leaves that lead into
# them, unless those leaves take a lighter hop of their own; kept as they
# were, one link carried 896 flows where fera afresh loads none over 560
generate kary:k=8,n=3 "$TMP/k8.net"
switch_down "$TMP/k8.net" 0000000000200000 > "$TMP/k8-down.net"
balanced_after "kary:k=8,n=3, a top switch down" "$TMP/k8.net" "$TMP/k8-down.net"

# fera afresh on a fat tree moves many routes after one link cut (its
# balanced choices shift), from the prior tables only those that broke
generate kary:k=4,n=3 "$TMP/ft.net"
generate kary:k=4,n=3,cut=1 "$TMP/ft-cut.net"
for how in 10 0; do
	"$IBROUTING" route -v -e fera --lmc 2 -o incremental=$how --before "$TMP/ft.net" \
		"$TMP/ft-cut.net" > "$TMP/ft-fera-$how.out" 2>&1 || true
done
p=$(percent "$TMP/ft-fera-10.out") q=$(percent "$TMP/ft-fera-0.out")
if [ -n "$p" ] && [ -n "$q" ] && awk -v p="$p" -v q="$q" 'BEGIN { exit !(p <= 2 && p < q) }' &&
   grep -q ' [1-9][0-9]* pairs re-routed' "$TMP/ft-fera-10.out"; then
	pass "fera on kary:k=4,n=3, a link cut: $p% of the entries changed from the prior tables ($(grep -o '[0-9]* pairs re-routed' "$TMP/ft-fera-10.out")), $q% afresh"
else
	flunk "fera on kary:k=4,n=3, a link cut: '$p'% changed from the prior tables, '$q'% afresh"
fi

# The prior root (roots.h): switch 0x...15 down moves the root auto
# takes on this fabric.  From the dump (whose ibrouting-dlids.dump records
# the roots) dr keeps the dump's root and changes little more than any
# legal tables under it must (the prior line's lower bound); from the same
# dump without its roots line the root moves and 3x as many entries
# change.
switch_down "$TMP/whole.net" 0000000000200015 > "$TMP/centre.net"
"$IBROUTING" route -e dr --lmc 2 --prior "$TMP/dr-whole" "$TMP/centre.net" \
	> "$TMP/centre.out" 2>&1 || true
cp -r "$TMP/dr-whole" "$TMP/dr-noroots"
sed -i '/^# roots /d' "$TMP/dr-noroots/ibrouting-dlids.dump"
"$IBROUTING" route -e dr --lmc 2 --prior "$TMP/dr-noroots" "$TMP/centre.net" \
	> "$TMP/moved.out" 2>&1 || true
p=$(percent "$TMP/centre.out") q=$(percent "$TMP/moved.out")
least=$(least_of "$TMP/centre.out")
in_place=$(sed -n 's/^# roots \(0x[0-9a-f]*\):.*/\1/p' "$TMP/dr-whole/ibrouting-dlids.dump")
if [ -n "$in_place" ] && grep -q "^root      switch $in_place .*the prior root" "$TMP/centre.out" &&
   grep -q '^root ' "$TMP/moved.out" && ! grep -q "^root      switch $in_place" "$TMP/moved.out" &&
   grep -q '^verify    OK' "$TMP/centre.out" && [ -n "$p" ] && [ -n "$q" ] &&
   [ -n "$least" ] &&
   awk -v p="$p" -v q="$q" -v l="$least" 'BEGIN { exit !(p >= l && p <= l + 1 && q > 3 * p) }'; then
	pass "dr, the centre's switch down: the prior root, $p% changed (any legal tables: $least%); the root moved: $q%"
else
	flunk "dr, the centre's switch down: '$p'% changed (least '$least'%), '$q'% with the root moved: $(grep -m1 '^root' "$TMP/centre.out")"
fi

expect_error "--prior and --before together" 2 "give one" \
	"$IBROUTING" route -e colorl --prior "$TMP/colorl-whole" --before "$TMP/whole.net" "$TMP/cut.net"
expect_error "--prior of a missing directory" 2 "--prior $TMP/none: cannot read" \
	"$IBROUTING" route -e colorl --prior "$TMP/none" "$TMP/cut.net"
finish
