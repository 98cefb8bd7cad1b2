#!/bin/sh
# cli_warnings.sh - what the tool routes around, saying so on stderr with
# a "WRN" line, exit status 0 (tests/cli_errors.sh: what it refuses):
#   - a loopback cable (a switch port cabled to another port of the same
#     switch): the WRN line names the file:line, the switch GUID and both
#     ports; the tables verify and no entry names either port;
#   - the root chain: a --root GUID that is not in the fabric, or a CA,
#     is passed over (WRN naming the GUID and why) for the next link,
#     --root-strategy (default: the SM's switch, else the lowest LID), in
#     `route` and `transition` alike.
set -eu
. "$(dirname "$0")/lib.sh"

# expect_warning NAME PATTERN CMD...: CMD exits 0 and prints PATTERN
# (grep -E) on stderr; its stdout is left in $TMP/out.
expect_warning() {
	name=$1 pattern=$2
	shift 2
	set +e
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	set -e
	if [ "$got" != 0 ]; then
		flunk "$name: exit $got, expected 0; stderr: $(cat "$TMP/err")"
	elif ! grep -qE -- "$pattern" "$TMP/err"; then
		flunk "$name: stderr lacks /$pattern/: $(cat "$TMP/err")"
	else
		pass "$name: $(grep -E -- "$pattern" "$TMP/err" | head -n 1)"
	fi
}

# Fig. 1 with two loopbacks: switch 5's port 4 cabled to itself, switch
# 8's ports 3 and 4 cabled to each other, listed from both ends.
fig=$FABRICS_DIR/fig1-loopback.net
line5=$(grep -n '"S-sw5"\[4\]' "$fig" | cut -d: -f1)
line8=$(grep -n '"S-sw8"\[4\]' "$fig" | cut -d: -f1)
for engine in pira fera; do
	expect_warning "$engine, loopback of switch 5" \
		"^ibrouting route: WRN: .*fig1-loopback.net:$line5: switch 0x0000000000200005 .*port 4 is cabled to its own port 4 \(a loopback\); left out of routing" \
		"$IBROUTING" route -e "$engine" --print-lfts "$fig"
	if grep -qE "fig1-loopback.net:$line8: switch 0x0000000000200008 .*port 3 is cabled to its own port 4" "$TMP/err" &&
	   [ "$(grep -c 'a loopback' "$TMP/err")" = 2 ]; then
		pass "$engine, loopback of switch 8: one WRN line for the cable listed from both ends"
	else
		flunk "$engine, loopback of switch 8: $(cat "$TMP/err")"
	fi
	if grep -q '^verify    OK' "$TMP/out" &&
	   ! grep -qE '^0x0000000000200005 [0-9]+ 4$|^0x0000000000200008 [0-9]+ [34]$' "$TMP/out"; then
		pass "$engine: $(grep -c '^0x' "$TMP/out") entries, none by a loopback port; $(grep '^verify' "$TMP/out" | cut -c1-60)"
	else
		flunk "$engine: tables use a loopback port or do not verify"
		grep -E '^verify|^0x0000000000200005 [0-9]+ 4$|^0x0000000000200008 [0-9]+ [34]$' "$TMP/out" | head -5 | sed 's/^/# /'
	fi
	# the tables are those of the fabric without the loopbacks
	"$IBROUTING" route -e "$engine" --print-lfts "$FABRICS_DIR/fig1.net" | grep '^0x' > "$TMP/plain.lft"
	if grep '^0x' "$TMP/out" | cmp -s - "$TMP/plain.lft"; then
		pass "$engine: tables equal those of fig1.net without the loopbacks"
	else
		flunk "$engine: tables differ from those of fig1.net without the loopbacks"
	fi
done

# The root chain.
expect_warning "--root not in the fabric: next link, the SM's switch" \
	"^ibrouting route: WRN: --root 0x0000000000abcdef is not in the fabric; the root is the next of the chain: the SM's switch, else the lowest LID" \
	"$IBROUTING" route -e pira --root 0xabcdef "$FABRICS_DIR/fig1.net"
if grep -q '^root      switch 0x0000000000200001 .*--root 0x0000000000abcdef is not in the fabric' "$TMP/out" &&
   grep -q '^verify    OK' "$TMP/out"; then
	pass "the summary names the root used and why: $(grep '^root' "$TMP/out")"
else
	flunk "summary: $(grep -E '^root|^verify' "$TMP/out")"
fi
expect_warning "--root of a CA: next link, the SM's switch" \
	"^ibrouting route: WRN: --root 0x0000000000100400 is a CA, not a switch; the root is the next of the chain: the SM's switch" \
	"$IBROUTING" route -e fera --root 0x100400 "$FABRICS_DIR/fig1.net"
# (--root with --root-strategy is refused outright: cli_inputs.sh)
expect_warning "transition, --root not in the fabric: next link" \
	"^ibrouting transition: WRN: --root 0x0000000000abcdef is not in the fabric" \
	"$IBROUTING" transition -e pira+fera --root 0xabcdef "$FABRICS_DIR/fig1.net"
finish
