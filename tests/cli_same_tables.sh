#!/bin/sh
# cli_same_tables.sh - one fabric, one set of tables: every
# engine `ibrouting engines` lists, on a random fabric, a k-ary tree with
# links cut, a Clos with 2-port CAs and a Dragonfly+, at LMC 0 and 2,
# writes byte-identical dumps (opensm-lfts.dump, opensm.fdbs,
# opensm-subnet.lst, ibrouting-dlids.dump) from the topology file, from
# the file with its records in two seeded random orders, and from the
# dumps of the first run with the subnet list's lines in a seeded random
# order: switch indexes are node GUID order, never file order.  Same LIDs
# (the files carry them) and the same SM (--sm) for every description.
# e2e_same_tables.sh adds ibnetdiscover's output and OpenSM's own dumps.
set -eu
. "$(dirname "$0")/lib.sh"

engines=$("$IBROUTING" engines --names)
[ -n "$engines" ] || { flunk "ibrouting engines lists no engine"; finish; exit 1; }

for spec in random:sw=32,ca=256,seed=3 kary:k=4,n=3,cut=2,seed=2 \
	    clos:leaf=8,spine=4,ca=64,caports=2,seed=2 dfplus:groups=4,leaves=4,spines=4,seed=1; do
	for lmc in 0 2; do
		name=$(echo "${spec%%:*}" | tr -d ' ')-lmc$lmc
		dir=$TMP/$name
		mkdir -p "$dir"
		"$IBROUTING" generate --lmc "$lmc" -o "$dir/fabric.net" "$spec"
		shuffle_records 1 < "$dir/fabric.net" > "$dir/shuffled1.net"
		shuffle_records 2 < "$dir/fabric.net" > "$dir/shuffled2.net"
		if cmp -s "$dir/fabric.net" "$dir/shuffled1.net" ||
		   cmp -s "$dir/shuffled1.net" "$dir/shuffled2.net"; then
			flunk "$name: the shuffles changed no order"
		fi
		sm=$(sed -n 's/^caguid=//p' "$dir/fabric.net" | head -n 1)
		for engine in $engines; do
			ref=$dir/$engine-file
			if ! "$IBROUTING" route -e "$engine" --lmc "$lmc" --sm "$sm" \
				--dump-dir "$ref" "$dir/fabric.net" > "$ref.out" 2>&1; then
				flunk "$name $engine: route on the file failed: $(tail -n 3 "$ref.out")"
				continue
			fi
			# OpenSM's dumps of the same fabric, lines in another order
			cp -r "$ref" "$dir/$engine-dumpdir"
			shuffle_lines 3 < "$ref/opensm-subnet.lst" > "$dir/$engine-dumpdir/opensm-subnet.lst"
			same=0 differ=
			for src in "$dir/shuffled1.net" "$dir/shuffled2.net" "$dir/$engine-dumpdir"; do
				out=$dir/$engine-$(basename "$src")-out
				if ! "$IBROUTING" route -e "$engine" --lmc "$lmc" --sm "$sm" \
					--dump-dir "$out" "$src" > "$out.out" 2>&1; then
					differ="$differ $(basename "$src"): route failed: $(tail -n 1 "$out.out");"
					continue
				fi
				for f in opensm-lfts.dump opensm.fdbs opensm-subnet.lst ibrouting-dlids.dump; do
					if cmp -s "$ref/$f" "$out/$f"; then
						same=$((same + 1))
					else
						differ="$differ $(basename "$src"): $f ($(diff "$ref/$f" "$out/$f" | grep -c '^[<>]' || true) differing lines);"
					fi
				done
			done
			if [ -z "$differ" ]; then
				pass "$name $engine: $same dumps byte-identical from the file, its records shuffled twice, and its dumps shuffled ($(grep -c '^0x' "$ref/opensm-lfts.dump") entries)"
			else
				flunk "$name $engine: dumps differ from the file's:$differ"
			fi
		done
	done
done
finish
