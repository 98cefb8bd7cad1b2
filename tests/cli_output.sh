#!/bin/sh
# cli_output.sh - output for a person (issue 48, point 4):
#   - no line on stdout wider than 100 columns: --help of the tool and of
#     every command, `engines`, `route` (fera; dr at lmc 1 and at lmc 0)
#     on a fat tree and on a random fabric, `verify` of a route's dumps;
#   - the load line says what its flows are of, the manage line of a
#     healthy fat tree that it is expected, the phases and the engine's
#     own counters only with -v;
#   - `route -e A+B` (a hybrid) exits 2 naming `ibrouting transition`;
#   - dr's lmc-0 warning goes to stderr, "ibrouting route: WRN: ...",
#     and not to stdout.
set -eu
. "$(dirname "$0")/lib.sh"
# lib.sh turns the folding off for the other tests
unset IBROUTING_WIDTH

# narrow NAME CMD...: CMD exits 0 or 1 and no line of its stdout is
# wider than 100 columns; its stdout is left in $TMP/out.
narrow() {
	name=$1
	shift
	set +e
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	set -e
	widest=$(awk '{ if (length > w) { w = length; l = $0 } } END { print w + 0 "\t" l }' "$TMP/out")
	if [ "$got" -gt 1 ]; then
		flunk "$name: exit $got: $(cat "$TMP/err")"
	elif [ "${widest%%	*}" -gt 100 ]; then
		flunk "$name: a line of ${widest%%	*} columns: ${widest#*	}"
	else
		pass "$name: $(wc -l < "$TMP/out") lines, the widest ${widest%%	*} columns"
	fi
}

narrow "ibrouting --help" "$IBROUTING" --help
for c in $("$IBROUTING" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p'); do
	narrow "$c --help" "$IBROUTING" "$c" --help
done
narrow "engines" "$IBROUTING" engines

tree=gen:kary:k=4,n=3 random=gen:random:sw=16,ca=64,seed=1
for fabric in "$tree" "$random"; do
	narrow "route -e fera $fabric" "$IBROUTING" route -e fera --dump-dir "$TMP/dump" "$fabric"
	narrow "verify of its dumps" "$IBROUTING" verify "$TMP/dump"
	narrow "route -e dr --lmc 1 $fabric" "$IBROUTING" route -e dr --lmc 1 "$fabric"
	narrow "route -v -e dr --lmc 1 $fabric" "$IBROUTING" route -v -e dr --lmc 1 "$fabric"
	narrow "route -e dr (lmc 0) $fabric" "$IBROUTING" route -e dr "$fabric"
done

# what the load's flows are of: all-to-all, 64 CA ports
"$IBROUTING" route -e fera "$random" > "$TMP/out"
if grep -q '^load      max link load [0-9]* flows (of 4032 CA-to-CA flows, one per ordered pair)$' "$TMP/out" &&
   grep -q '^paths     path lengths of the 4032 flows (links: flows): ' "$TMP/out"; then
	pass "load and paths say what they count: $(grep '^load' "$TMP/out" | head -n 1 | cut -c11-)"
else
	flunk "load or paths line: $(grep '^load\|^paths' "$TMP/out")"
fi
# internal figures only with -v
if ! grep -q '^phases\|routing pass' "$TMP/out" &&
   "$IBROUTING" route -v -e fera "$random" > "$TMP/v" &&
   grep -q '^phases    ' "$TMP/v" && grep -q '^engine    fera: .*routing pass' "$TMP/v"; then
	pass "phases and the engine's counters with -v only"
else
	flunk "-v: without: $(grep '^engine\|^phases' "$TMP/out"); with: $(grep '^engine\|^phases' "$TMP/v")"
fi
# a healthy fat tree's management entries: expected, counted of all
"$IBROUTING" route -e fera "$tree" > "$TMP/out"
if grep -q '^manage    816 of 5376 entries route switches. management traffic only, outside up\*/down\*: expected$' "$TMP/out"; then
	pass "fat tree: $(grep '^manage' "$TMP/out" | cut -c11-)"
else
	flunk "fat tree, manage line: $(grep '^manage' "$TMP/out")"
fi

expect_error "route -e pira+fera: a hybrid" 2 \
	'^ibrouting route: pira\+fera is a hybrid: try `ibrouting transition -e pira\+fera`$' \
	"$IBROUTING" route -e pira+fera "$tree"

# dr at lmc 0: the warning on stderr alone
"$IBROUTING" route -e dr "$tree" > "$TMP/out" 2> "$TMP/err"
if grep -q '^ibrouting route: WRN: dr needs lmc >= 1 ' "$TMP/err" &&
   ! grep -q 'needs lmc' "$TMP/out"; then
	pass "dr at lmc 0: $(cat "$TMP/err")"
else
	flunk "dr at lmc 0: stderr: $(cat "$TMP/err"); stdout: $(grep 'lmc' "$TMP/out")"
fi
finish
