#!/bin/sh
# cli_phases.sh - where an engine's time went: the summary's `phases`
# line (result.h, ibr_phase_add), which OpenSM's log carries too.
#   - colorl names its phases in the order they ran: FERa's base tree and
#     its load (beside the paths with several threads), the path search,
#     the path selection, the LID assignment, the load of the chosen
#     tables; the phases one after the other fit in the compute time,
#     and the base beside the paths counts once;
#   - shortest-widest paths are one phase; where FERa's tree is at the
#     load bound (an intact fat tree) no path is computed, and the base is
#     the only phase;
#   - dr: FERa's base tree, then the renaming; fera (balanced): its first
#     pass and the re-route passes, as many as its "routing passes" says
#     (one on an intact fat tree: no re-route phase); fera `lowest` and
#     pira name none;
#   - from the prior tables (--before): the base LIDs, the LIDs above
#     the base, the pairs placed (fera: the base LIDs alone), and FERa's
#     tables first where a new switch and its CAs need them, none after a
#     link cut;
#   - dr and colorl (every multi-LID run, afresh or from the prior tables): the LIDs
#     of the ranges completed last (ranges.h), in the compute time too;
#   - under a root set (a fat tree's top level), the management routes
#     last (management.h), in the compute time too;
#   - with --repeat the line says it is the last run's.
set -eu
. "$(dirname "$0")/lib.sh"

random=gen:random:sw=48,ca=192,seed=5
tree=gen:fattree:ports=8,levels=3

# phases ROUTE-ARGS...: routes; $TMP/phases gets "NAME<TAB>MS" lines in
# order, $TMP/compute the compute ms
phases() {
	"$IBROUTING" route -v "$@" > "$TMP/out" 2>&1 || { cat "$TMP/out"; return 1; }
	sed -n 's/^time *\([0-9.]*\) ms compute.*/\1/p' "$TMP/out" > "$TMP/compute"
	sed -n 's/^phases    \(the last run.s: \)\{0,1\}//p' "$TMP/out" |
		awk -v RS='; ' '{ sub(/\n$/, ""); ms = $(NF - 1); name = $0
			sub(/ [0-9.]+ ms$/, "", name); printf "%s\t%s\n", name, ms }' > "$TMP/phases"
}

# names: the phase names in order, joined by " | "
names() { cut -f1 "$TMP/phases" | paste -sd'|' - | sed 's/|/ | /g'; }

# fits EXPR: EXPR over the phases' ms (p[1], p[2], ...) is at most the
# compute time (to the 0.1 ms the line rounds to, per phase)
fits() {
	awk -F'\t' -v c="$(cat "$TMP/compute")" -v e="$1" '
		{ p[NR] = $2; n = NR }
		END { split(e, t, "+"); s = 0
			for (i in t) s += p[t[i]]
			exit !(s <= c + 0.05 * n) }' "$TMP/phases"
}

# expect NAME WANT SUM...: the phase names are WANT, and each SUM (phase
# numbers joined by +) fits in the compute time
expect() {
	name=$1 want=$2
	shift 2
	got=$(names)
	if [ "$got" != "$want" ]; then
		flunk "$name: phases \"$got\", expected \"$want\""
		return
	fi
	for sum in "$@"; do
		if ! fits "$sum"; then
			flunk "$name: phases $sum take more than the compute time $(cat "$TMP/compute") ms: $(tr '\t\n' ' ;' < "$TMP/phases")"
			return
		fi
	done
	pass "$name: $(sed -n 's/^phases    //p' "$TMP/out") of $(cat "$TMP/compute") ms"
}

phases -e colorl --lmc 1 -j 2 "$random"
expect "colorl, 2 threads" \
	"FERa's base tree and its load, beside the paths | path search | path selection | LID assignment | load of the chosen tables | ranges completed" \
	2+3+4+5+6 1+4+5+6
phases -e colorl --lmc 1 -j 1 "$random"
expect "colorl, 1 thread" \
	"FERa's base tree and its load | path search | path selection | LID assignment | load of the chosen tables | ranges completed" \
	1+2+3+4+5+6
phases -e colorl --lmc 1 -j 1 -o paths=shortest-widest "$random"
expect "colorl, shortest-widest" \
	"FERa's base tree and its load | shortest-widest paths | LID assignment | load of the chosen tables | ranges completed" \
	1+2+3+4+5
phases -e colorl --lmc 1 -j 2 "$tree"
if grep -q "1 selection skipped at the load bound" "$TMP/out"; then
	expect "colorl, intact fat tree (at the load bound)" "FERa's base tree and its load | ranges completed | management routes" 1+2+3
else
	flunk "colorl on $tree: the selection was not skipped at the load bound: $(grep '^engine' "$TMP/out")"
fi
phases -e dr --lmc 1 -j 2 "$random"
expect "dr" "FERa's base tree | renaming | ranges completed" 1+2+3
phases -e fera -j 2 "$random"
if grep -q "2 routing passes" "$TMP/out"; then
	expect "fera, two passes" "first pass | re-route passes" 1+2
else
	flunk "fera on $random: not 2 routing passes: $(grep '^engine' "$TMP/out")"
fi
phases -e fera -j 2 "$tree"
if grep -q "1 routing pass\b" "$TMP/out"; then
	expect "fera, intact fat tree (one pass)" "first pass | management routes" 1+2
else
	flunk "fera on $tree: not 1 routing pass: $(grep '^engine' "$TMP/out")"
fi
for args in "-e fera --port-choice lowest" "-e pira"; do
	# shellcheck disable=SC2086
	phases $args "$random"
	if [ -s "$TMP/phases" ] || grep -q '^phases' "$TMP/out"; then
		flunk "$args: names phases: $(grep '^phases' "$TMP/out")"
	else
		pass "$args: no phases line (one step)"
	fi
done
# from the prior tables: a link cut needs no FERa tables; a switch
# back up (its LID and its CAs' new to the prior tables) does
"$IBROUTING" generate --lmc 1 -o "$TMP/whole.net" random:sw=48,ca=192,seed=5 > /dev/null
"$IBROUTING" generate --lmc 1 -o "$TMP/cut.net" random:sw=48,ca=192,seed=5,cut=1 > /dev/null
awk -v guid=0000000000200007 -f "$(dirname "$0")/switch_down.awk" "$TMP/whole.net" > "$TMP/down.net"
for e in dr colorl; do
	phases -e "$e" --lmc 1 --before "$TMP/whole.net" "$TMP/cut.net"
	expect "$e from the prior tables, a link cut" \
		"base LIDs kept | LIDs above the base kept | pairs placed | ranges completed" 1+2+3+4
	phases -e "$e" --lmc 1 -o incremental=100 --before "$TMP/down.net" "$TMP/whole.net"
	expect "$e from the prior tables, a switch back up" \
		"FERa's tables, where needed | base LIDs kept | LIDs above the base kept | pairs placed | ranges completed" 1+2+3+4+5
done
phases -e fera --before "$TMP/whole.net" "$TMP/cut.net"
expect "fera from the prior tables, a link cut" "base LIDs kept" 1
phases -e dr --lmc 1 --repeat 2 "$random"
if grep -q "^phases    the last run's: FERa's base tree [0-9.]* ms; renaming [0-9.]* ms; ranges completed [0-9.]* ms$" "$TMP/out"; then
	pass "--repeat 2: $(grep '^phases' "$TMP/out")"
else
	flunk "--repeat 2: $(grep '^phases' "$TMP/out" || echo no phases line)"
fi
finish
