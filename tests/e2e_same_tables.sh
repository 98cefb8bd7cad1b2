#!/bin/sh
# e2e_same_tables.sh - one fabric, one set of tables: served by
# ibsim and routed by stock OpenSM with every engine of the registry, a
# fabric gives the switches the tables `ibrouting route` computes from
# each description of it, byte-identical dumps from all of them:
#   the topology file ibsim serves, its records shuffled;
#   OpenSM's own dumps of the run (opensm-subnet.lst in OpenSM's order,
#   then its lines shuffled);
#   ibnetdiscover's output on the simulated fabric, its records shuffled.
# Same SM (the one OpenSM ran on), same LMC as OpenSM's, the LIDs OpenSM
# gave.  Fabrics: a random 32/256 at LMC 3 on a file with LIDs
# for LMC 0 (OpenSM moves them), and a k-ary tree with links cut, a Clos
# with 2-port CAs and a Dragonfly+ at LMC 0 and 2 whose switch GUIDs
# differ in two bytes, so that OpenSM's order (the GUID in network byte
# order), numeric GUID order and file order are three different orders.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

# two_byte_guids < FILE: switch 0x200000+x (x < 4096) becomes
# 0x0002c9030000YYZZ with YY = x % 16, ZZ = 255 - x / 16: numeric order
# sorts by YY first, OpenSM's byte-swapped order by ZZ (the file's blocks
# of 16 reversed), the file by x.
two_byte_guids() {
	awk '/^switchguid=0x/ {
		x = 0; s = tolower(substr($0, 14))
		for (i = 1; i <= length(s); i++) x = x * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		x -= 2097152
		printf "switchguid=0x0002c9030000%02x%02x\n", x % 16, 255 - int(x / 16); next }
		{ print }'
}

# same_tables NAME NET LMC: every engine under OpenSM (lmc LMC) over ibsim
# serving NET, and `ibrouting route` on every description (opensm_run
# sets name and dir: ours are fab and rundir).
same_tables() {
	fab=$1 net=$2 lmc=$3 base=$TMP/$1
	mkdir -p "$base"
	shuffle_records 1 < "$net" > "$base/shuffled.net"
	ibsim_start "$net"
	for engine in $("$IBROUTING" engines --names); do
		run=$fab-$engine rundir=$TMP/$fab-$engine
		opensm_run "$run" "$engine" "lmc $lmc"
		if ! grep -q "$engine tables configured on all switches" "$rundir/osm.log" ||
		   grep -q "building routing with 'minhop'" "$rundir/osm.log"; then
			flunk "$run: OpenSM did not route with $engine"
			grep -E "ERR|routing|tables configured" "$rundir/osm.log" | head -5 | sed 's/^/# /'
			continue
		fi
		switch_lfts > "$rundir/switches.lft"
		sm=$(sm_node_guid "$rundir/dump/opensm-subnet.lst")
		# ibnetdiscover once OpenSM has given the LIDs (later runs keep them)
		[ -s "$base/ibnetdiscover.out" ] ||
			LD_PRELOAD=$UMAD2SIM ibnetdiscover > "$base/ibnetdiscover.out" 2>/dev/null || true
		shuffle_records 2 < "$base/ibnetdiscover.out" > "$base/ibnetdiscover-shuffled.out"
		cp -r "$rundir/dump" "$rundir/dump-shuffled"
		shuffle_lines 3 < "$rundir/dump/opensm-subnet.lst" > "$rundir/dump-shuffled/opensm-subnet.lst"
		ref= same=0 differ=
		for src in "$net" "$base/shuffled.net" "$rundir/dump" "$rundir/dump-shuffled" \
			   "$base/ibnetdiscover.out" "$base/ibnetdiscover-shuffled.out"; do
			what=$(basename "$src")
			out=$rundir/offline-$what
			if ! "$IBROUTING" route -e "$engine" --lmc "$lmc" --sm "$sm" --print-lfts \
				--dump-dir "$out" "$src" > "$out.out" 2>&1; then
				differ="$differ $what: route failed: $(tail -n 1 "$out.out");"
				continue
			fi
			grep '^0x' "$out.out" | sort > "$out.lft"
			if cmp -s "$rundir/switches.lft" "$out.lft"; then
				same=$((same + 1))
			else
				differ="$differ $what: $(diff "$rundir/switches.lft" "$out.lft" | grep -c '^[<>]' || true) differing lines against the switches';"
			fi
			if [ -z "$ref" ]; then
				ref=$out
				continue
			fi
			for f in opensm-lfts.dump opensm.fdbs ibrouting-dlids.dump; do
				if cmp -s "$ref/$f" "$out/$f"; then
					same=$((same + 1))
				else
					differ="$differ $what: $f differs from the file's;"
				fi
			done
		done
		if [ -z "$differ" ] && [ -s "$rundir/switches.lft" ]; then
			pass "$run: the switches' $(wc -l < "$rundir/switches.lft") entries equal 'ibrouting route' on the file, OpenSM's dumps and ibnetdiscover's output, each also shuffled; $same comparisons"
		else
			flunk "$run:$differ"
		fi
	done
	ibsim_stop
}

"$IBROUTING" generate -o "$TMP/random.net" random:sw=32,ca=256,seed=3
same_tables random-lmc3 "$TMP/random.net" 3
for spec in kary:k=4,n=3,cut=2,seed=2 clos:leaf=8,spine=4,ca=64,caports=2,seed=2 \
	    dfplus:groups=4,leaves=4,spines=4,seed=1; do
	for lmc in 0 2; do
		name=${spec%%:*}-lmc$lmc
		"$IBROUTING" generate --lmc "$lmc" "$spec" | two_byte_guids > "$TMP/$name.net"
		same_tables "$name" "$TMP/$name.net" "$lmc"
	done
done
finish
