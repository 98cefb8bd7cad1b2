# lib.sh - helpers for the shell tests (sourced).  Each check prints one
# TAP-like line; the test exits 1 if any failed.
: "${IBROUTING:?IBROUTING must name the built ibrouting tool}"
: "${FABRICS_DIR:?FABRICS_DIR must name tests/fabrics}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0
checks=0

pass() { checks=$((checks + 1)); echo "ok $checks - $1"; }
flunk() { checks=$((checks + 1)); failures=$((failures + 1)); echo "not ok $checks - $1"; }

# expect_error NAME STATUS PATTERN CMD...: CMD must exit with STATUS and
# print PATTERN (grep -E) on stderr, and must not crash.
expect_error() {
	name=$1 want=$2 pattern=$3
	shift 3
	set +e
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	set -e
	if [ "$got" != "$want" ]; then
		flunk "$name: exit $got, expected $want; stderr: $(cat "$TMP/err")"
	elif ! grep -qE -- "$pattern" "$TMP/err"; then
		flunk "$name: stderr lacks /$pattern/: $(cat "$TMP/err")"
	else
		pass "$name: $(head -n1 "$TMP/err")"
	fi
}

finish() {
	echo "1..$checks"
	[ "$failures" = 0 ]
}
