#!/bin/sh
# cli_threads.sh - the engines' worker threads: the
# tables and the designated DLIDs do not depend on the thread count.
#   - every engine, at LMC 2 on a random fabric and on a fat tree with a
#     switch down, routed with --threads 1, 2 and 5: OpenSM's LFT dump and
#     ibrouting-dlids.dump byte for byte the same, and each run verifies;
#   - colorl with CA pairs and with k=4 (the candidate lists doubled
#     for some destinations), and its path selection in parts (parts=3,
#     and 2 with CA pairs), the same;
#   - --threads 0 and 257 are bad usage, naming the option and the range.
# More threads than this machine has CPUs still run them all: the
# scheduling differs from run to run, the tables must not.
set -eu
. "$(dirname "$0")/lib.sh"

# same NAME FABRIC ROUTE-ARGS...: the dumps of -j 1, 2 and 5 equal
same() {
	name=$1 fabric=$2
	shift 2
	for j in 1 2 5; do
		d=$TMP/j$j
		rm -rf "$d"
		if ! "$IBROUTING" route "$@" --threads "$j" --dump-dir "$d" "$fabric" \
			> "$TMP/out$j" 2>&1; then
			flunk "$name: --threads $j: $(grep -m1 'verify\|rror' "$TMP/out$j")"
			return
		fi
	done
	for j in 2 5; do
		for f in opensm-lfts.dump ibrouting-dlids.dump; do
			if [ -e "$TMP/j1/$f" ] && ! cmp -s "$TMP/j1/$f" "$TMP/j$j/$f"; then
				flunk "$name: $f differs between --threads 1 and $j"
				return
			fi
		done
	done
	pass "$name: --threads 1, 2, 5: the same tables ($(grep -c '^0x' "$TMP/j1/opensm-lfts.dump") entry lines) and designated DLIDs; $(grep -m1 '^verify    ' "$TMP/out1" | cut -c11-70)"
}

random=gen:random:sw=40,ca=160,seed=11
tree=gen:kary:k=4,n=3,down=1,cut=2,seed=2
for e in $("$IBROUTING" engines --names); do
	same "$e on $random" "$random" -e "$e" --lmc 2
	same "$e on $tree" "$tree" -e "$e" --lmc 2
done
same "colorl pairs=ca" gen:random:sw=16,ca=48,seed=3 -e colorl --lmc 2 -o pairs=ca
same "colorl k=4" gen:random:sw=24,ca=48,seed=4 -e colorl --lmc 1 -o k=4
same "colorl parts=3" "$random" -e colorl --lmc 2 -o parts=3
same "colorl parts=2 pairs=ca" gen:random:sw=16,ca=48,seed=3 -e colorl --lmc 2 -o parts=2 -o pairs=ca

expect_error "--threads 0" 2 "--threads 0: expected a number 1\.\.256" \
	"$IBROUTING" route -e colorl --threads 0 "$random"
expect_error "-j 257" 2 "--threads 257: expected a number 1\.\.256" \
	"$IBROUTING" route -e colorl -j 257 "$random"
finish
