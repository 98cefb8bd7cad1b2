#!/bin/sh
# e2e_fabrics.sh - the bundled example fabrics and generated ones (random
# irregular up to 128 switches / 1024 CAs, 2-level Clos, 3D torus with
# broken links) served by ibsim and routed by stock OpenSM with every
# engine of the registry (`ibrouting engines`): every common end-to-end
# check of e2e_lib.sh holds for each.  fig1-loopback.net has two loopback
# cables, which OpenSM discovers: the plugin names each in a WRN IB28 line
# and routes as the tool does, never through them.  On the 128-switch
# random fabric the VERBOSE phases line carries colorl's and dr's own
# phases.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

fabrics="$FABRICS_DIR/two-switch.net $FABRICS_DIR/ring6.net $FABRICS_DIR/fig1-loopback.net"
for spec in random:sw=32,ca=256,seed=1 random:sw=128,ca=1024,seed=2 \
	    clos:leaf=16,spine=8,ca=256,seed=3 torus:dims=4x4x4,ca=1,broken=6,seed=6; do
	f=$TMP/$(echo "$spec" | tr ':=,' '_-_').net
	"$IBROUTING" generate -o "$f" "$spec"
	fabrics="$fabrics $f"
done

for net in $fabrics; do
	ibsim_start "$net"
	for engine in $("$IBROUTING" engines --names); do
		name=$(basename "$net" .net)-$engine
		opensm_run "$name" "$engine"
		check_run "$name" "$engine" "$net"
		# the engine's own phases in the VERBOSE phases line
		case $net:$engine in
		*random_sw_128_*:colorl) log_has "$name" "$engine: phases: fabric model .*, routing [0-9.]* ms \\(FERa's base tree and its load(, beside the paths)? [0-9.]* ms; path search [0-9.]* ms; path selection [0-9.]* ms; LID assignment [0-9.]* ms; load of the chosen tables [0-9.]* ms\\), verification" "colorl's phases in the log" ;;
		*random_sw_128_*:dr) log_has "$name" "$engine: phases: fabric model .*, routing [0-9.]* ms \\(FERa's base tree [0-9.]* ms; renaming [0-9.]* ms\\), verification" "dr's phases in the log" ;;
		esac
		case $net in *loopback*)
			log_has "$name" "WRN IB28: $engine: switch 0x0000000000200005 .*port 4 is cabled to its own port 4 \\(a loopback\\); left out of routing" "loopback of switch 5 named"
			log_has "$name" "WRN IB28: $engine: switch 0x0000000000200008 .*port 3 is cabled to its own port 4 \\(a loopback\\)" "loopback of switch 8 named"
		esac
	done
	ibsim_stop
done
finish
