#!/bin/sh
# cli_inputs.sh - inputs that must never pass as something else, and the
# tool's conventions: unbounded inputs stop at the documented
# limits, messages read "ibrouting COMMAND: FILE:LINE: ...", GUID 0 and
# routers are treated as on the command line and in the plugin, `-` is
# standard input, --version and COMMAND --help, disconnected files are
# routed as OpenSM would (one part, the rest reported), verify reads
# the LFTs dump_fts prints (tests/fabrics/fig1-live, made over ibsim), and
# --lmc on a file whose LIDs are for another LMC (every ibnetdiscover file
# says `lid N lmc 0`) gives the LIDs OpenSM gives it, while
# without --lmc a file's own LMC is the one routed and printed, for route
# and verify --lfts alike; files saved from a terminal and
# ports captured with lid 65535 are read, with one WRN line each.
set -eu
. "$(dirname "$0")/lib.sh"

net() { printf '%s\n' "$@" > "$TMP/$name.net"; echo "$TMP/$name.net"; }
FIG1=$FABRICS_DIR/fig1.net
LIVE=$FABRICS_DIR/fig1-live

# expect_output NAME STATUS PATTERN CMD...: CMD exits with STATUS and
# prints PATTERN (grep -E) on stdout.
expect_output() {
	name=$1 want=$2 pattern=$3
	shift 3
	set +e
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	set -e
	if [ "$got" != "$want" ]; then
		flunk "$name: exit $got, expected $want; stderr: $(cat "$TMP/err")"
	elif ! grep -qE -- "$pattern" "$TMP/out"; then
		flunk "$name: stdout lacks /$pattern/: $(head -n 3 "$TMP/out")"
	else
		pass "$name"
	fi
}

# ---- unbounded and binary inputs ------------------------------------
expect_error "/dev/zero is no text" 2 \
	"^ibrouting route: /dev/zero:1: expected text, found a NUL byte at column 1$" \
	"$IBROUTING" route -e fera /dev/zero
head -c 70000 /dev/zero | tr '\0' 'x' > "$TMP/long.net"
expect_error "a line beyond 64 KiB stops at the limit" 2 \
	"^ibrouting route: $TMP/long.net:1: line longer than 65536 bytes" \
	"$IBROUTING" route -e fera "$TMP/long.net"
# line numbers survive lines of any length
{ printf '# %s\n' "$(head -c 60000 /dev/zero | tr '\0' 'c')"; echo '#'; echo 'Switch x "S1"'; } > "$TMP/numbered.net"
expect_error "line numbers after a 60 KB line" 2 "numbered.net:3: expected the number of ports" \
	"$IBROUTING" route -e fera "$TMP/numbered.net"
expect_error "an endless line on standard input" 2 \
	"^ibrouting route: <stdin>:1: line longer than 65536 bytes" \
	sh -c "yes | tr -d '\n' | \"\$IBROUTING\" route -e fera -"

awk 'BEGIN { for (i = 0; i < 9000; i++) printf "Switch 254 \"s%d\"\n\n", i }' > "$TMP/ports.net"
expect_error "ports beyond the readers' limit" 2 "ports.net:16449: more than 2097152 ports" \
	"$IBROUTING" route -e fera "$TMP/ports.net"
awk 'BEGIN { for (i = 0; i < 140000; i++) printf "Ca 1 \"h%d\"\n\n", i }' > "$TMP/nodes.net"
expect_error "nodes beyond the readers' limit" 2 "nodes.net:262145: more than 131072 nodes" \
	"$IBROUTING" route -e fera "$TMP/nodes.net"

# ---- standard input -------------------------------------------------
expect_output "route - reads standard input" 0 "verify    OK" \
	sh -c "\"\$IBROUTING\" route -e fera - < \"$FIG1\""
expect_output "lids - reads standard input" 0 "." \
	sh -c "\"\$IBROUTING\" lids --heuristics greedy - < \"$FIG1\""
expect_output "transition - reads standard input" 0 "^change " \
	sh -c "\"\$IBROUTING\" transition -e pira+fera - < \"$FIG1\""
expect_output "verify --lfts - reads standard input" 0 "verify    OK" \
	sh -c "\"\$IBROUTING\" verify --lfts - \"$LIVE/ibnetdiscover.out\" < \"$LIVE/dump_fts-fera.out\""
expect_output "generate -o - | route -" 0 "verify    OK" \
	sh -c "\"\$IBROUTING\" generate -o - random:sw=4,ca=8 | \"\$IBROUTING\" route -e pira -"
expect_error "stdin's messages name <stdin>" 2 "^ibrouting route: <stdin>:2: " \
	sh -c "printf 'Switch 2 \"S\"\n[9] \"T\"[1]\n' | \"\$IBROUTING\" route -e fera -"

# ---- messages name the file and the line -----------------------------
name=nosw
f=$(net '# nothing')
expect_error "no switch names the file" 2 "^ibrouting route: $f: the fabric has no switch$" \
	"$IBROUTING" route -e fera "$f"
name=twice
f=$(net 'Switch 2 "S1" # "s1" lid 1' '[1] "S2"[1]' '' 'Switch 2 "S2" # "s2" lid 1' '[1] "S1"[1]')
expect_error "a LID given twice names file:line" 2 \
	"^ibrouting route: $f:4: LID 1 is given twice" "$IBROUTING" route -e fera "$f"
name=unaligned
f=$(net 'Switch 2 "S1"' '[1] "H1"[1]' '' 'Ca 1 "H1"' '[1] "S1"[1] # lid 3 lmc 2 "S1" lid 1 4xQDR')
expect_error "an unaligned base LID names file:line" 2 \
	"^ibrouting route: $f:4: .*base LID 3 is not aligned to its LMC 2" \
	"$IBROUTING" route -e fera "$f"

# ---- files as administrators capture them ------------------------------
# fig1.net saved from a terminal: the banner and the command before it,
# CR LF and blanks at the ends of lines, the next prompt after it
{ printf 'ibnetdiscover output from node01, Tue Mar 4\r\n[root@node01 ~]# ibnetdiscover\r\n'
  sed 's/$/ \t\r/' "$FIG1"; printf '[root@node01 ~]# '; } > "$TMP/captured.net"
last=$(($(wc -l < "$FIG1") + 3))
expect_error "a terminal's capture: routed, the text around it named in one WRN line" 0 \
	"^ibrouting route: WRN: $TMP/captured.net: skipped 3 lines that are no topology record: 1-2, $last$" \
	"$IBROUTING" route -e fera "$TMP/captured.net"
[ "$(wc -l < "$TMP/err")" = 1 ] && pass "a terminal's capture: one line on stderr" ||
	flunk "a terminal's capture: stderr: $(cat "$TMP/err")"
"$IBROUTING" route -e fera --print-lfts "$FIG1" | grep '^0x' > "$TMP/clean.lfts"
"$IBROUTING" route -e fera --print-lfts "$TMP/captured.net" 2>/dev/null | grep '^0x' > "$TMP/captured.lfts"
[ -s "$TMP/clean.lfts" ] && cmp -s "$TMP/clean.lfts" "$TMP/captured.lfts" &&
	pass "a terminal's capture: the tables of the file itself" ||
	flunk "a terminal's capture: tables differ from fig1.net's"
sed '40a\
this line is no record' "$TMP/captured.net" > "$TMP/inside.net"
expect_error "text between the records: refused at its line" 2 \
	"^ibrouting route: $TMP/inside.net:41: expected a port line" \
	"$IBROUTING" route -e fera "$TMP/inside.net"
# captured before OpenSM gave the hosts LIDs: ibnetdiscover says lid 65535
sed 's/# lid [0-9]* lmc 0/# lid 65535 lmc 0/' "$FIG1" > "$TMP/nolids.net"
expect_error "lid 65535: routed, the ports given LIDs, one WRN line" 0 \
	"^ibrouting route: WRN: $TMP/nolids.net:[0-9]+: 7 ports with lid 65535 \(no LID assigned when captured\): given LIDs as OpenSM would$" \
	"$IBROUTING" route -e fera "$TMP/nolids.net"
grep -q "^verify    OK" "$TMP/out" && pass "lid 65535: verified" ||
	flunk "lid 65535: $(grep -E '^verify|^fabric' "$TMP/out")"
name=lid50000
f=$(net 'Switch 2 "S1" # "s1" lid 50000')
expect_error "lid 50000 stays refused" 2 "^ibrouting route: $f:1: LID 50000 out of range 1\.\.49151" \
	"$IBROUTING" route -e fera "$f"

# ---- GUID 0, routers ------------------------------------------------
name=guid0
f=$(net 'switchguid=0' 'Switch 2 "S1"')
expect_error "switchguid=0 is refused" 2 "$f:1: GUID 0 is no GUID" "$IBROUTING" route -e fera "$f"
name=portguid0
f=$(net 'Switch 2 "S1"' '[1] "H1"[1]' '' 'Ca 1 "H1"' '[1](0) "S1"[1]')
expect_error "a port GUID (0) is refused" 2 "$f:5: port GUID \(0\) is no GUID" \
	"$IBROUTING" route -e fera "$f"
expect_error "--root 0 is refused as in files" 2 "--root 0: expected a non-zero GUID" \
	"$IBROUTING" route -e fera --root 0 "$FIG1"
name=router
f=$(net 'switchguid=0x10' 'Switch 2 "S1"' '[1] "H1"[1]' '[2] "R1"[1]' '' 'Ca 1 "H1"' '[1] "S1"[1]' '' \
	'rtguid=0x30' 'Rt 1 "R1"' '[1] "S1"[2]')
expect_output "a router is routed as an end port" 0 "1 switch, 2 CA ports" \
	"$IBROUTING" route -e fera "$f"
name=router0
f=$(net 'Switch 2 "S1"' '[1] "R1"[1]' '' 'Rt 1 "R1"' '[1] "S1"[1]')
expect_error "a router without rtguid= gets ibsim's GUID 0" 2 "$f:4: .*GUID 0.*rtguid=" \
	"$IBROUTING" route -e fera "$f"

# The plugin routed router.net under OpenSM over ibsim (router-live): its
# router's ports are end ports there as here, with the same entries.
RT=$FABRICS_DIR/router-live
"$IBROUTING" route -e fera --print-lfts "$RT/router.net" | grep '^0x' | sort > "$TMP/rt.ours"
awk '/^Unicast lids/ { for (i = 1; i <= NF; i++) if ($i == "guid") guid = $(i + 1) }
	/^0x[0-9a-fA-F]+ [0-9]+ :/ { print guid, $1, $2 + 0 }' "$RT/dump_fts-fera.out" |
	while read -r g l p; do printf '%s %d %d\n' "$g" "$l" "$p"; done | sort > "$TMP/rt.live"
if [ -s "$TMP/rt.ours" ] && cmp -s "$TMP/rt.ours" "$TMP/rt.live"; then
	pass "a router: the tool's tables are those the plugin pushed under OpenSM"
else
	flunk "a router: tables differ: $(diff "$TMP/rt.ours" "$TMP/rt.live" | head -n 4)"
fi
expect_output "a router: the live tables verified on the net file" 0 "verify    OK: 12 entries: 2 switches x 6 LIDs" \
	"$IBROUTING" verify --lfts "$RT/dump_fts-fera.out" "$RT/router.net"

# ---- conventions ------------------------------------------------------
expect_output "--version" 0 "^ibrouting [0-9]+\.[0-9]+" "$IBROUTING" --version
# --help: every command, every option a line.  The options come from
# the tables in src/cli/*.c that getopt_long's are built from (NAME_options[]
# with { "long-name", ... } lines), so an option added there and left out of
# the help fails here; every option the help names must be one the parser
# takes (not "unknown option").
SRC=$FABRICS_DIR/../..
awk '/^static const struct cli_option [a-z_]+_options\[\] = \{/ { cmd = $5; sub(/_options\[\]/, "", cmd); next }
     cmd && /^};/ { cmd = ""; next }
     cmd && match($0, /^\t\{ "[a-z-]+"/) { print cmd, substr($0, RSTART + 4, RLENGTH - 5) }
     cmd && /CLI_HELP_OPTION/ { print cmd, "help" }' "$SRC"/src/cli/*.c > "$TMP/options"
commands=$("$IBROUTING" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ "$(echo $commands)" = "$(cut -d' ' -f1 "$TMP/options" | uniq | tr '\n' ' ' | sed 's/ $//')" ] &&
	pass "ibrouting --help lists the commands that have option tables: $(echo $commands)" ||
	flunk "commands in --help: $(echo $commands); with option tables: $(cut -d' ' -f1 "$TMP/options" | uniq | tr '\n' ' ')"
for c in $commands; do
	expect_output "$c --help" 0 "^Usage: ibrouting $c " "$IBROUTING" $c --help
	cp "$TMP/out" "$TMP/help-$c"
	missing=
	for o in $(awk -v c="$c" '$1 == c { print $2 }' "$TMP/options"); do
		grep -qE "^  (-[a-zA-Z], |    )--$o( [^ ]+)?  +[^ ]" "$TMP/help-$c" || missing="$missing --$o"
	done
	[ -z "$missing" ] && pass "$c --help: each of its $(awk -v c="$c" '$1 == c' "$TMP/options" | wc -l) options in a line with its description" ||
		flunk "$c --help lacks$missing"
	unknown=
	for o in $(sed -n 's/^  \(-[a-zA-Z], \|    \)--\([a-z-]*\).*/\2/p' "$TMP/help-$c"); do
		[ "$o" = help ] && continue
		"$IBROUTING" $c --$o x y >/dev/null 2>"$TMP/err" || true
		! grep -q "unknown option\|ambiguous option" "$TMP/err" || unknown="$unknown --$o"
	done
	[ -z "$unknown" ] && pass "$c: the parser takes every option its help names" ||
		flunk "$c: the help names options the parser refuses:$unknown"
done
grep -q "^SPEC: " "$TMP/help-generate" && grep -q "^  kary: " "$TMP/help-generate" &&
	grep -q "^    oversub=R " "$TMP/help-generate" &&
	pass "generate --help gives the SPEC grammar: $(grep -c '^  [a-z]*: ' "$TMP/help-generate") kinds, $(grep -c '^    [a-z]*=' "$TMP/help-generate") keys" ||
	flunk "generate --help: no SPEC grammar"
# every key the generator's parser accepts (spec.c's key names) is in it
keys=$(sed -n '/key_name\[K_COUNT\] = {/,/};/p' "$SRC/src/core/io/generate/spec.c" | grep -o '"[a-z]*"' | tr -d '"')
missing=
for k in $keys; do grep -q "^    $k=" "$TMP/help-generate" || missing="$missing $k"; done
[ -n "$keys" ] && [ -z "$missing" ] && pass "generate --help names every key: $(echo $keys)" ||
	flunk "generate --help lacks keys:$missing"
expect_error "an unknown option, in our words" 2 \
	'^ibrouting route: unknown option "--bogus" \(ibrouting route --help lists the options\)$' \
	"$IBROUTING" route --bogus "$FIG1"
expect_error "a missing value, in our words" 2 \
	'^ibrouting route: option --lmc needs a value: --lmc N \(ibrouting route --help\)$' \
	"$IBROUTING" route -e fera --lmc
expect_error "an ambiguous abbreviation" 2 \
	'^ibrouting route: ambiguous option "--ro": --root, --root-strategy, --root-fallback$' \
	"$IBROUTING" route -e fera --ro 1 "$FIG1"
expect_error "lids: an unknown option" 2 '^ibrouting lids: unknown option -x ' \
	"$IBROUTING" lids -x "$FIG1"
expect_error "an unknown command" 2 '^ibrouting: unknown command "rout"' "$IBROUTING" rout
# every line on stderr, error or warning, starts "ibrouting COMMAND: "
bad=
for args in "route" "route -e nope $FIG1" "route -e fera --lmc 9 $FIG1" "route --root 0xabcdef -e pira $FIG1" \
	    "route -e fera --lmc 2 $FIG1" "route -e fera $FABRICS_DIR/fig1-loopback.net" "verify --root 1 $FIG1" \
	    "verify --roots 0 $FIG1" "generate" "generate nope:x=1" "engines x" "lids" "lids --pairs x $FIG1" \
	    "transition -e nope $FIG1" "transition -e pira+fera --lmc 2 $FIG1" "route -e fera -"; do
	c=${args%% *}
	"$IBROUTING" $args < /dev/null > /dev/null 2> "$TMP/err" || true
	if [ ! -s "$TMP/err" ] || grep -qv "^ibrouting $c: " "$TMP/err"; then
		bad="$bad [$args: $(head -c 120 "$TMP/err")]"
	fi
done
[ -z "$bad" ] && pass "every stderr line starts \"ibrouting COMMAND: \" (16 cases)" ||
	flunk "stderr lines without the prefix:$bad"
# the engines, their options' ranges and defaults, the hybrids
"$IBROUTING" engines > "$TMP/engines"
if grep -q -- "-o k=N .*(1\.\.16; default 16)" "$TMP/engines" &&
   grep -q -- "-o paths=WORD .*(path-selection or shortest-widest; default path-selection)" "$TMP/engines" &&
   grep -q "^  pira+colorl " "$TMP/engines" && grep -q "^  pira+fera " "$TMP/engines"; then
	pass "engines lists the options' ranges and defaults, and the hybrids"
else
	flunk "engines: $(cat "$TMP/engines")"
fi
[ "$("$IBROUTING" engines --names | tr '\n' ' ')" = "pira fera dr colorl " ] &&
	pass "engines --names: the names alone" || flunk "engines --names: $("$IBROUTING" engines --names)"
expect_error "--root with --root-strategy" 2 \
	"^ibrouting route: --root and --root-strategy both choose the root" \
	"$IBROUTING" route -e fera --root 0x200001 --root-strategy center "$FIG1"
expect_error "transition: --root with --root-strategy" 2 \
	"^ibrouting transition: --root and --root-strategy" \
	"$IBROUTING" transition -e pira+fera --root 0x200001 --root-strategy center "$FIG1"
expect_error "verify --roots: a file that does not open is named, with why" 2 \
	"^ibrouting verify: --roots $TMP/no-such/roots.guid: cannot open: No such file or directory" \
	"$IBROUTING" verify --roots "$TMP/no-such/roots.guid" "$FIG1"
expect_error "--repeat 0 and its range agree" 2 "^ibrouting route: --repeat 0: expected a number 1\.\.100000$" \
	"$IBROUTING" route -e fera --repeat 0 "$FIG1"
expect_output "--repeat 100000 is in the range" 0 "best of 3 runs" \
	"$IBROUTING" route -e fera --repeat 3 "$FIG1"
expect_output "--sm takes a switch's node GUID" 0 "root      switch 0x0000000000200003" \
	"$IBROUTING" route -e fera --root-strategy sm --sm 0x200003 "$FIG1"
expect_error "file errors read 'ibrouting COMMAND: FILE:LINE:'" 2 \
	"^ibrouting transition: $TMP/numbered.net:3: " \
	"$IBROUTING" transition -e pira+fera "$TMP/numbered.net"

# ---- disconnected topologies: OpenSM's part ------------------------------
name=split
f=$(net 'Switch 4 "S1"' '[1] "H1"[1]' '' 'Switch 4 "S2"' '[1] "H2"[1]' '' \
	'Hca 1 "H1"' '[1] "S1"[1]' '' 'Hca 1 "H2"' '[1] "S2"[1]')
expect_error "a disconnected file: the first switch's part, the rest reported" 0 \
	"$f: disconnected fabric: routing the part of node 0x0000000000200000; left out 1 switch and 1 CA \(0x0000000000200001, 0x0000000000100002\)" \
	"$IBROUTING" route -e fera "$f"
expect_output "... and routes it" 0 "1 switch, 1 CA port," "$IBROUTING" route -e fera "$f"
expect_error "--sm picks the SM's part" 0 "routing the part of node 0x0000000000200001" \
	"$IBROUTING" route -e fera --sm 0x100002 "$f"
expect_error "--component picks any node's part" 0 "routing the part of node 0x0000000000200001" \
	"$IBROUTING" route -e fera --component 0x100003 "$f"
name=dualport
f=$(net 'Switch 2 "S1"' '[1] "H1"[1]' '' 'Switch 2 "S2"' '[1] "H1"[2]' '' 'Ca 2 "H1"' '[1] "S1"[1]' '[2] "S2"[1]')
expect_error "the SM's port, not its node, picks the part" 0 \
	"routing the part of node 0x0000000000200001; left out 1 switch and 0 CAs \(0x0000000000200000\)" \
	"$IBROUTING" route -e fera --sm 0x100002 "$f"
expect_error "--component on an OpenSM dump" 2 "is an OpenSM dump: the part OpenSM discovered" \
	"$IBROUTING" route -e fera --component 0x200000 "$FABRICS_DIR/opensm-dump-2sw"
expect_error "--component of no node" 2 "0x0000000000000abc: no such node or port GUID" \
	"$IBROUTING" route -e fera --component 0xabc "$f"

# ---- a file's LIDs at another LMC ------------------------------------------
# fig1.net gives LIDs 1..15 at lmc 0.  At lmc 2 OpenSM 3.3.23 over ibsim
# (fresh cache) kept the switches' LIDs and the hosts' at 4 and 12 (aligned
# to 4), moved switch 5 and 6 (inside host 4's 4-7, and served after it)
# and the other hosts (not aligned) to free aligned ranges: these LIDs,
# port GUID by port GUID (seen with e2e_lids.sh's OpenSM run).
fig1_lmc2="0x0000000000100401 4
0x0000000000100701 16
0x0000000000101101 20
0x0000000000101201 12
0x0000000000101301 24
0x0000000000101401 28
0x0000000000101501 32
0x0000000000200001 1
0x0000000000200002 2
0x0000000000200003 3
0x0000000000200005 11
0x0000000000200006 36
0x0000000000200008 8
0x0000000000200009 9
0x000000000020000a 10"
port_lids() {
	grep -oE 'PortGUID:[0-9A-Fa-f]+ VenID:[0-9A-Fa-f]+ DevID:[0-9A-Fa-f]+ Rev:[0-9A-Fa-f]+ \{[^}]*\} LID:[0-9A-Fa-f]+' "$1/opensm-subnet.lst" |
		sed -E 's/PortGUID:([0-9A-Fa-f]+) .* LID:([0-9A-Fa-f]+)$/\1 \2/' | sort -u |
		while read -r g l; do printf '0x%s %d\n' "$g" "0x$l"; done | tr 'A-F' 'a-f'
}
for e in dr colorl; do
	rm -rf "$TMP/lmc2-$e"
	expect_error "$e --lmc 2 on fig1.net (lid N lmc 0): one WRN line, exit 0" 0 \
		"^ibrouting route: WRN: .*fig1.net: its LIDs are for another LMC than 2; assigned as OpenSM assigns them with lmc 2 \(CA ports: aligned ranges of 4 LIDs\): 8 ports kept the file's LID, 7 got a new one$" \
		"$IBROUTING" route -e $e --lmc 2 --dump-dir "$TMP/lmc2-$e" "$FIG1"
	[ "$(wc -l < "$TMP/err")" = 1 ] && pass "$e: exactly one line on stderr" ||
		flunk "$e: stderr: $(cat "$TMP/err")"
	got=$(port_lids "$TMP/lmc2-$e")
	[ "$got" = "$fig1_lmc2" ] && pass "$e: the LIDs OpenSM gives fig1.net at lmc 2" ||
		flunk "$e: LIDs: $(echo "$got" | tr '\n' ' ')"
	grep -q '^verify    OK: 288 entries: 8 switches x 36 LIDs (15 base + 21 above)' "$TMP/out" &&
		pass "$e: verified over every LID of every range: $(grep -m1 '^verify' "$TMP/out" | cut -c11-80)" ||
		flunk "$e: $(grep -E '^verify|^fabric' "$TMP/out")"
	expect_output "$e: its dump verifies" 0 "^verify    OK: 288 entries: 8 switches x 36 LIDs" \
		"$IBROUTING" verify "$TMP/lmc2-$e"
done
# every CA range aligned, each port's range its own
if port_lids "$TMP/lmc2-dr" | awk '$1 ~ /^0x00000000001/ && $2 % 4 { bad = 1 } END { exit bad }'; then
	pass "every CA port's base LID is a multiple of 4"
else
	flunk "a CA base LID is not aligned"
fi
expect_error "transition --lmc 2 on fig1.net: the same WRN line" 0 \
	"^ibrouting transition: WRN: .*: 8 ports kept the file's LID, 7 got a new one$" \
	"$IBROUTING" transition -e pira+colorl --lmc 2 "$FIG1"
# the README's workflow: generate a file (LIDs at lmc 0), route it at lmc 2
"$IBROUTING" generate -o "$TMP/gen.net" random:sw=32,ca=256,seed=1
for e in dr colorl; do
	expect_output "generate, then route -e $e --lmc 2 on the file" 0 "^verify    OK: 33792 entries: 32 switches x 1056 LIDs" \
		"$IBROUTING" route -e $e --lmc 2 "$TMP/gen.net"
done
expect_output "generate --lmc 2, then route --lmc 2: nothing moves" 0 "^verify    OK" \
	sh -c "\"\$IBROUTING\" generate --lmc 2 random:sw=8,ca=16 | \"\$IBROUTING\" route -e dr --lmc 2 - 2>&1"
grep -q WRN "$TMP/out" && flunk "a WRN line for LIDs that fit: $(grep WRN "$TMP/out")" ||
	pass "no WRN line when the file's LIDs fit the LMC"
# a file's LMC is the fabric's: without --lmc the LMC its CA
# ports were given with is routed and printed; --lmc overrides it
"$IBROUTING" generate --lmc 1 -o "$TMP/lmc1.net" random:sw=8,ca=16
expect_output "a file with lmc 1, no --lmc: lmc 1 routed and printed" 0 \
	"^fabric    .*; lmc 1$" "$IBROUTING" route -e dr "$TMP/lmc1.net"
grep -q '^fabric    40 LIDs: 32 of the CA ports (2 each), 8 of the switches;' "$TMP/out" &&
   grep -q '^lids      at lmc 1: every LID of every range' "$TMP/out" &&
   grep -q '^verify    OK: 320 entries: 8 switches x 40 LIDs (24 base + 16 above)' "$TMP/out" &&
   [ ! -s "$TMP/err" ] &&
	pass "a file with lmc 1: 2 LIDs per CA port, every one routed, no WRN line" ||
	flunk "a file with lmc 1: $(grep -E '^(fabric|lids|verify)' "$TMP/out") $(cat "$TMP/err")"
expect_output "a file with lmc 1, --lmc 0: lmc 0" 0 "^fabric    .*; lmc 0$" \
	"$IBROUTING" route -e dr --lmc 0 "$TMP/lmc1.net"
grep -q "WRN: .*lmc1.net: its LIDs are for another LMC than 0" "$TMP/err" &&
	pass "a file with lmc 1, --lmc 0: its LIDs moved, one WRN line" ||
	flunk "a file with lmc 1, --lmc 0: stderr: $(cat "$TMP/err")"
# its tables as dump_fts prints them, judged on the file: at its LMC
"$IBROUTING" route -e fera --print-lfts "$TMP/lmc1.net" |
	awk '/^0x/ { if ($1 != sw) { if (sw) print n " valid lids dumped"
			printf "Unicast lids [0x0-0xff] of switch DR path slid 0; dlid 0; 0 guid %s (x):\n", sw = $1; n = 0 }
		printf "0x%04x %03d : (x)\n", $2, $3; n++ }
		END { print n " valid lids dumped" }' > "$TMP/lmc1.fts"
expect_output "a file with lmc 1: verify --lfts takes its LMC" 0 \
	"^verify    OK: 320 entries: 8 switches x 40 LIDs \\(24 base \\+ 16 above\\)" \
	"$IBROUTING" verify --lfts "$TMP/lmc1.fts" "$TMP/lmc1.net"

# ---- verify --lfts: dump_fts's form ---------------------------------------
expect_output "dump_fts of our fera: verified" 0 "verify    OK: 120 entries: 8 switches x 15 LIDs" \
	"$IBROUTING" verify --lfts "$LIVE/dump_fts-fera.out" "$LIVE/ibnetdiscover.out"
expect_output "dump_fts of our fera: certified" 0 "certify   OK" \
	"$IBROUTING" verify --certificate --lfts "$LIVE/dump_fts-fera.out" "$LIVE/ibnetdiscover.out"
expect_output "dump_fts of OpenSM's updn: its credit loop found" 1 "credit loop" \
	"$IBROUTING" verify --lfts "$LIVE/dump_fts-updn.out" "$LIVE/ibnetdiscover.out"
expect_output "dump_fts -a: LID 0 and port 255 lines" 0 "verify    OK: 120 entries: 8 switches x 15 LIDs" \
	"$IBROUTING" verify --lfts "$LIVE/dump_fts-a-fera.out" "$LIVE/ibnetdiscover.out"
cat "$LIVE/dump_fts-M-fera.out" "$LIVE/dump_fts-fera.out" > "$TMP/both.fts"
expect_output "dump_fts -M sections are skipped" 0 "verify    OK: 120 entries: 8 switches x 15 LIDs" \
	"$IBROUTING" verify --lfts "$TMP/both.fts" "$LIVE/ibnetdiscover.out"
expect_error "dump_fts -M alone has no unicast table" 2 "dump_fts-M-fera.out: switch 0x[0-9a-f]+ .* has no section" \
	"$IBROUTING" verify --lfts "$LIVE/dump_fts-M-fera.out" "$LIVE/ibnetdiscover.out"
head -n 12 "$LIVE/dump_fts-fera.out" > "$TMP/cut.fts"
expect_error "a truncated dump_fts" 2 "cut.fts:12: truncated: the section of switch" \
	"$IBROUTING" verify --lfts "$TMP/cut.fts" "$LIVE/ibnetdiscover.out"
sed 's/portguid 0x0000000000100401/portguid 0x0000000000100701/' "$LIVE/dump_fts-fera.out" > "$TMP/lids.fts"
expect_error "LIDs that are not the fabric's" 2 \
	"lids.fts:7: LID 4 belongs to port 0x0000000000100701 here but to port 0x0000000000100401" \
	"$IBROUTING" verify --lfts "$TMP/lids.fts" "$LIVE/ibnetdiscover.out"
expect_error "a topology that is not dump_fts's fabric" 2 "is not a switch of the fabric" \
	"$IBROUTING" verify --lfts "$LIVE/dump_fts-fera.out" "$FABRICS_DIR/two-switch.net"
expect_error "a directory without --lfts" 2 "opensm-subnet.lst: cannot open" \
	"$IBROUTING" verify "$TMP"

finish
