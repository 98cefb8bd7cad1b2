#!/bin/sh
# cli_errors.sh - bad input gets a clear message and exit status 2, never
# a crash: malformed and truncated files (file:line), ports out of range,
# unknown nodes, unknown engine, LMC > 7, no switch, a --component of no
# node, more LIDs than the LID space, an unusable root with --root-fallback
# refuse, a port of a loopback cabled twice (more in cli_inputs.sh).
set -eu
. "$(dirname "$0")/lib.sh"

net() { printf '%s\n' "$@" > "$TMP/$name.net"; echo "$TMP/$name.net"; }

name=truncated
f=$(net 'Switch 4 "S1"' '[1] "H1"[1]' '[2] "S2"[' )
expect_error "truncated port line" 2 "$name.net:3:" "$IBROUTING" route -e pira "$f"

name=malformed
f=$(net 'Switch 4 "S1"' '[1] "H1"[1]' '' 'Hca 1 "H1"' 'this is not a port [1]' )
expect_error "malformed record" 2 "$name.net:[0-9]+:" "$IBROUTING" route -e pira "$f"

name=badheader
f=$(net 'Switch four "S1"' '[1] "H1"[1]')
expect_error "bad port count" 2 "$name.net:1:" "$IBROUTING" route -e fera "$f"

name=portrange
f=$(net 'Switch 4 "S1"' '[9] "H1"[1]' '' 'Hca 1 "H1"' '[1] "S1"[9]')
expect_error "port out of range" 2 "$name.net:2:.*port 9" "$IBROUTING" route -e pira "$f"

name=unknown
f=$(net 'Switch 4 "S1"' '[1] "H1"[1]' '[2] "Nowhere"[1]' '' 'Hca 1 "H1"' '[1] "S1"[1]')
expect_error "link to unknown node" 2 "$name.net:3:.*Nowhere" "$IBROUTING" route -e pira "$f"

name=noswitch
f=$(net 'Hca 1 "H1"' '[1] "H2"[1]' '' 'Hca 1 "H2"' '[1] "H1"[1]')
expect_error "no switch" 2 "(no switch|CA.*CA)" "$IBROUTING" route -e pira "$f"

name=empty
f=$(net '# nothing here')
expect_error "empty fabric" 2 "no switch" "$IBROUTING" route -e pira "$f"

name=disconnected
f=$(net 'Switch 4 "S1"' '[1] "H1"[1]' '' 'Switch 4 "S2"' '[1] "H2"[1]' '' \
	'Hca 1 "H1"' '[1] "S1"[1]' '' 'Hca 1 "H2"' '[1] "S2"[1]')
expect_error "component --component of a missing GUID" 2 \
	"--component|no such node" "$IBROUTING" route -e fera --component 0xabc "$f"

expect_error "missing file" 2 "nosuchfile" "$IBROUTING" route -e pira "$TMP/nosuchfile"
expect_error "unknown engine" 2 'unknown engine "ospf"' \
	"$IBROUTING" route -e ospf "$FABRICS_DIR/fig1.net"
expect_error "no engine" 2 "choose an engine" "$IBROUTING" route "$FABRICS_DIR/fig1.net"
expect_error "LMC 8" 2 "--lmc 8: expected a number 0..7" \
	"$IBROUTING" route -e pira --lmc 8 "$FABRICS_DIR/fig1.net"
expect_error "LMC not a number" 2 "--lmc x" \
	"$IBROUTING" route -e pira --lmc x "$FABRICS_DIR/fig1.net"
expect_error "bad root GUID" 2 "--root zz" \
	"$IBROUTING" route -e pira --root zz "$FABRICS_DIR/fig1.net"
# an unusable --root is refused only on request (tests/cli_warnings.sh:
# by default the next link of the root chain)
expect_error "root GUID not in fabric, --root-fallback refuse" 2 \
	"root GUID 0x0000000000abcdef of --root is not in the fabric \\(root_fallback refuse\\)" \
	"$IBROUTING" route -e pira --root 0xabcdef --root-fallback refuse "$FABRICS_DIR/fig1.net"
expect_error "root GUID of a CA, --root-fallback refuse" 2 "is a CA, not a switch" \
	"$IBROUTING" route -e pira --root 0x100400 --root-fallback refuse "$FABRICS_DIR/fig1.net"
expect_error "transition, root GUID not in fabric, --root-fallback refuse" 2 \
	"root GUID 0x0000000000abcdef of --root is not in the fabric" \
	"$IBROUTING" transition -e pira+fera --root 0xabcdef --root-fallback refuse "$FABRICS_DIR/fig1.net"
expect_error "bad --root-fallback" 2 "--root-fallback minhop: expected next or refuse" \
	"$IBROUTING" route -e pira --root-fallback minhop "$FABRICS_DIR/fig1.net"
name=loopback-twice
f=$(net 'Switch 6 "S1"' '[1] "H1"[1]' '[3] "S1"[5]' '[5] "S1"[4]' '' 'Hca 1 "H1"' '[1] "S1"[1]')
expect_error "a loopback port cabled twice" 2 "$name.net:4: switch \"S1\" port 5 is linked twice" \
	"$IBROUTING" route -e pira "$f"
expect_error "bad root strategy" 2 "--root-strategy middle" \
	"$IBROUTING" route -e pira --root-strategy middle "$FABRICS_DIR/fig1.net"
expect_error "more LIDs than the LID space" 2 "more LIDs than the LID space" \
	"$IBROUTING" route -e pira --lmc 7 gen:random:sw=16,ca=400,seed=1
expect_error "bad generator spec" 2 "generate" \
	"$IBROUTING" route -e pira gen:random:sw=16,bogus=1
expect_error "verify of a missing directory" 2 "opensm-subnet.lst" \
	"$IBROUTING" verify "$TMP/nodir"
# An OpenSM dump carries OpenSM's LIDs, those its tables refer to, but no
# LMC: --lmc tells it, and is refused where the LIDs contradict it (a
# file's LIDs for another LMC move as OpenSM would move them:
# cli_inputs.sh).
expect_error "--lmc 2 on an OpenSM dump made at lmc 1" 2 \
	"opensm-dump-2sw: LMC 2 does not fit OpenSM's LIDs in it: port 0x0000000000100004 has base LID 6, not a multiple of 4" \
	"$IBROUTING" route -e fera --lmc 2 "$FABRICS_DIR/opensm-dump-2sw"
expect_error "--lmc 0 on an OpenSM dump made at lmc 1" 2 \
	"opensm-dump-2sw: LMC 0 does not fit OpenSM's LIDs in it: port 0x0000000000100001 has base LID 4 and LIDs named up to \\+1" \
	"$IBROUTING" verify --lmc 0 "$FABRICS_DIR/opensm-dump-2sw"
expect_error "verify --lmc with --lfts" 2 "--lmc is for OpenSM's dumps" \
	"$IBROUTING" verify --lmc 1 --lfts "$FABRICS_DIR/fig1-live/dump_fts-fera.out" "$FABRICS_DIR/fig1.net"
expect_error "unknown engine option" 2 'engine fera has no option "k" \(known: passes, reroute_all, incremental\)' \
	"$IBROUTING" route -e fera -o k=3 "$FABRICS_DIR/fig1.net"

# Fuzz a little: truncations of a good file give a fabric or an error
# with file:line, never a crash (status >= 128).
lines=$(wc -l < "$FABRICS_DIR/fig1.net")
crashed=0
i=1
while [ $i -le "$lines" ]; do
	head -n $i "$FABRICS_DIR/fig1.net" | head -c -3 > "$TMP/cut.net"
	set +e
	"$IBROUTING" route -e pira "$TMP/cut.net" >/dev/null 2>&1
	st=$?
	set -e
	[ $st -lt 128 ] || { crashed=$((crashed + 1)); echo "# crash on $i lines"; }
	i=$((i + 1))
done
[ $crashed = 0 ] && pass "no crash on $lines truncations of fig1.net" ||
	flunk "$crashed truncations crashed"

finish
