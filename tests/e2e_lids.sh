#!/bin/sh
# e2e_lids.sh - the LIDs ibrouting assigns to a file without LIDs are the
# ones stock OpenSM gives the same file served by ibsim (fresh cache), per
# port GUID, and so `ibrouting route` on the bare file computes the tables
# the switches hold.  Fabrics: the bundled ones with their `lid N lmc M`
# comments stripped, generated ones (random, Clos, torus) stripped the same
# way, one whose first node is a CA (ibsim then runs the SM on that CA),
# and LMC 2 (given to OpenSM as `lmc 2` and to ibrouting as --lmc 2) and
# LMC 1 with lmc_esp0 (ibsim's switches have no enhanced port 0, so they
# keep one LID).  And a file that keeps its `lid N lmc 0` comments (what
# ibnetdiscover and `ibrouting generate` write), served as it is to an
# OpenSM with lmc 2 and routed with --lmc 2: OpenSM moves the LIDs that do
# not fit, and ibrouting moves the same ones to the same LIDs (lids.h,
# ibr_lids_for_lmc).  Every common end-to-end check of e2e_lib.sh holds
# too.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

strip_lids() {
	sed -E 's/ lid [0-9]+//g; s/ lmc [0-9]+//g' "$1"
}

# "PORTGUID LID" for every port of a subnet list (both ends of each line).
subnet_lids() {
	grep -oE 'PortGUID:[0-9A-Fa-f]+ VenID:[0-9A-Fa-f]+ DevID:[0-9A-Fa-f]+ Rev:[0-9A-Fa-f]+ \{[^}]*\} LID:[0-9A-Fa-f]+' "$1" |
		sed -E 's/PortGUID:([0-9A-Fa-f]+) .* LID:([0-9A-Fa-f]+)$/\1 \2/' |
		tr 'a-f' 'A-F' | sort -u
}

fabrics=
for f in "$FABRICS_DIR"/*.net; do
	strip_lids "$f" > "$TMP/$(basename "$f" .net)-nolids.net"
	fabrics="$fabrics $TMP/$(basename "$f" .net)-nolids.net"
done
for gen in random=random:sw=16,ca=40,seed=3 clos=clos:leaf=8,spine=4,ca=64,seed=2 \
	   torus=torus:dims=3x3x3,ca=1,broken=2,seed=5; do
	"$IBROUTING" generate "${gen#*=}" > "$TMP/gen.net"
	strip_lids "$TMP/gen.net" > "$TMP/${gen%%=*}.net"
	fabrics="$fabrics $TMP/${gen%%=*}.net"
done
# The random one again with its first CA record moved to the top.
awk 'BEGIN { RS = ""; ORS = "\n\n" }
     !moved && /\nCa\t/ { print; moved = 1; next }
     { rest[++n] = $0 }
     END { for (i = 1; i <= n; i++) print rest[i] }' \
	"$TMP/random.net" > "$TMP/ca-first.net"
fabrics="$fabrics $TMP/ca-first.net"

# run NETFILE NAME LMC [CONF-LINES]: OpenSM with pira over ibsim, then the
# checks.
run() {
	net=$1 name=$2 lmc=$3 conf=${4:-}
	if [ -z "${KEEP_LIDS:-}" ] && grep -q ' lid [0-9]' "$net"; then
		flunk "$name: $(basename "$net") still has LIDs"
		return
	fi
	opensm_run "$name" pira "lmc $lmc${conf:+
$conf}"
	dir=$TMP/$name
	check_run "$name" pira "$net" "$lmc"

	# The LIDs, port by port: OpenSM's subnet list against ibrouting's.
	rm -rf "$dir/ours"
	"$IBROUTING" route -e fera --lmc "$lmc" --dump-dir "$dir/ours" "$net" \
		> "$dir/ours.out" 2>&1 || true
	subnet_lids "$dir/dump/opensm-subnet.lst" > "$dir/osm.lids"
	subnet_lids "$dir/ours/opensm-subnet.lst" > "$dir/our.lids" 2>/dev/null || true
	if [ -s "$dir/osm.lids" ] && cmp -s "$dir/osm.lids" "$dir/our.lids"; then
		pass "$name: ibrouting gives the $(wc -l < "$dir/osm.lids") ports of $(basename "$net") OpenSM's LIDs (LMC $lmc${conf:+, $conf})"
	else
		flunk "$name: ibrouting's LIDs differ from OpenSM's for $(basename "$net") (LMC $lmc)"
		diff "$dir/osm.lids" "$dir/our.lids" | head -6 | sed 's/^/# /'
	fi

	# Without --sm: the default SM (ibsim's) gives the same tables when
	# the file starts with a switch.
	if awk '/^(Switch|Ca|Hca)[ \t]/ { exit $1 != "Switch" }' "$net"; then
		"$IBROUTING" route -e pira --lmc "$lmc" --print-lfts "$net" |
			grep '^0x' | sort > "$dir/bare.lft"
		if [ -s "$dir/bare.lft" ] && cmp -s "$dir/switches.lft" "$dir/bare.lft"; then
			pass "$name: 'ibrouting route -e pira --print-lfts $(basename "$net")' equals the switches' tables"
		else
			flunk "$name: 'ibrouting route' on $(basename "$net") without --sm differs from the switches"
			diff "$dir/switches.lft" "$dir/bare.lft" | head -6 | sed 's/^/# /'
		fi
	fi
}

# A fresh ibsim for every OpenSM: ibsim's ports keep the LIDs an SM gave
# them, and OpenSM keeps the LIDs it finds.
for net in $fabrics; do
	ibsim_start "$net"
	run "$net" "$(basename "$net" .net)" 0
	ibsim_stop
	case $(basename "$net") in
	random.net) ibsim_start "$net"; run "$net" random-lmc2 2; ibsim_stop ;;
	clos.net) ibsim_start "$net"; run "$net" clos-lmc1-esp0 1 "lmc_esp0 TRUE"; ibsim_stop ;;
	esac
done
"$IBROUTING" generate random:sw=16,ca=40,seed=3 > "$TMP/lids-lmc0.net"
ibsim_start "$TMP/lids-lmc0.net"
KEEP_LIDS=1 run "$TMP/lids-lmc0.net" lids-lmc0-at-lmc2 2
ibsim_stop
finish
