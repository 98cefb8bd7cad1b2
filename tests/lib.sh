# lib.sh - helpers for the shell tests (sourced).  Each check prints one
# TAP-like line; the test exits 1 if any failed.
: "${IBROUTING:?IBROUTING must name the built ibrouting tool}"
: "${FABRICS_DIR:?FABRICS_DIR must name tests/fabrics}"
# a fact a line, as scripts read the tool's output: lines not folded at
# 100 columns (cli_output.sh checks the folding)
IBROUTING_WIDTH=0
export IBROUTING_WIDTH
TMP=$(mktemp -d)
# IBR_TEST_KEEP=1 keeps the test's files (logs, read-backs) for a look
drop_tmp() { if [ -n "${IBR_TEST_KEEP:-}" ]; then echo "# kept $TMP" >&2; else rm -rf "$TMP"; fi; }
trap drop_tmp EXIT
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

# skip REASON: the test cannot run here (a tool or a build part is
# missing).  Exit 77, automake's SKIP, with the reason in the log; but
# where every test must run (CI=true, or IBROUTING_REQUIRE_ALL_TESTS=1,
# as .ci/run sets) a skip would hide a missing install step, so it fails.
skip() {
	if [ "${CI:-}" = true ] || [ "${IBROUTING_REQUIRE_ALL_TESTS:-}" = 1 ]; then
		echo "# FAIL: $* (every test must run here: CI / IBROUTING_REQUIRE_ALL_TESTS)" | tee /dev/stderr
		exit 1
	fi
	echo "# SKIP: $*" | tee /dev/stderr
	exit 77
}

# need_tool TOOL...: each on PATH (or in /usr/sbin), else skip naming it
# and its Debian package.
need_tool() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] ||
			skip "$tool is not installed ($(tool_package "$tool"))"
	done
}

tool_package() {
	case $1 in
	ibsim) echo "Debian ibsim-utils" ;;
	opensm) echo "Debian opensm" ;;
	ibdmchk) echo "Debian ibutils" ;;
	valgrind) echo "Debian valgrind" ;;
	*) echo "Debian infiniband-diags" ;;
	esac
}

# wait_until SECONDS CMD...: until CMD succeeds, tried every 0.2 s; 1 once
# SECONDS have passed.  Tests wait on events this way, never a fixed
# time: the bound matters only when the event never comes, so it is
# generous (a loaded machine is slow, not wrong).
wait_until() {
	wu_end=$(( $(date +%s) + $1 ))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$wu_end" ] || return 1
		sleep 0.2
	done
}

# shuffle_records SEED < FILE: the records (blank-line separated, each
# kept whole) in a random order drawn from SEED.
shuffle_records() {
	awk -v seed="$1" 'BEGIN { RS = ""; srand(seed) }
		{ rec[NR] = $0 }
		END {
			for (i = NR; i > 1; i--) {
				j = int(rand() * i) + 1; t = rec[i]; rec[i] = rec[j]; rec[j] = t
			}
			for (i = 1; i <= NR; i++) printf "%s\n\n", rec[i]
		}'
}

# shuffle_lines SEED < FILE: the lines in a random order drawn from SEED.
shuffle_lines() {
	awk -v seed="$1" 'BEGIN { srand(seed) } { printf "%.9f\t%s\n", rand(), $0 }' |
		sort -k1,1 | cut -f2-
}

finish() {
	echo "1..$checks"
	[ "$failures" = 0 ]
}
