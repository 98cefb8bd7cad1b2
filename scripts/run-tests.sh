#!/usr/bin/env bash
# Builds out of tree in build/ and runs every test: `make check` (cmocka
# unit tests, CLI and ibdmchk shell tests), `make distcheck`, and a
# valgrind leak check of repeated routing runs.
# Every stage runs even after another failed (a make check failure must
# not hide a leak or a broken package); the last line counts the tests
# and names every stage that failed or did not run, and the exit status
# is non-zero if any did.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

stages=("make check" quickstart valgrind fuzz bench.sh bench_lmc.sh bench_assim.sh
	bench_targets.sh bench_reroute.sh bench_balance.sh packages distcheck)
ran=() failed_stages=()
passed=0 failed=0 skipped=0

list() { if [ $# = 0 ]; then echo none; else local IFS=';'; echo "$*" | sed 's/;/, /g'; fi; }
# The closing line, also when the build or a signal ends the run early:
# a stage never begun is "not run".
closing() {
	local rc=$? s r seen not_run=()
	for s in "${stages[@]}"; do
		seen=
		for r in "${ran[@]}"; do [ "$r" != "$s" ] || seen=1; done
		[ -n "$seen" ] || not_run+=("$s")
	done
	echo "tests: $passed passed, $failed failed, $skipped skipped;" \
		"stages failed: $(list "${failed_stages[@]}"); not run: $(list "${not_run[@]}")"
	[ ${#failed_stages[@]} = 0 ] && [ ${#not_run[@]} = 0 ] || [ $rc != 0 ] || rc=1
	exit $rc
}
trap closing EXIT
trap 'exit 130' INT TERM
# where every test must run (CI, .ci/run) a skip is a failure
all_must_run() { [ "${CI:-}" = true ] || [ "${IBROUTING_REQUIRE_ALL_TESTS:-}" = 1 ]; }

# stage NAME FUNCTION: FUNCTION in a subshell under set -e (its first
# failing command ends it, not the run); exit 0 passes, 77 skips (fails
# where every test must run), anything else fails stage NAME
stage() {
	local rc
	ran+=("$1")
	set +e
	( set -e; "$2" )
	rc=$?
	set -e
	if [ $rc = 0 ]; then
		passed=$((passed + 1))
	elif [ $rc = 77 ] && ! all_must_run; then
		skipped=$((skipped + 1))
	else
		echo "$1: FAILED (exit $rc)"
		failed=$((failed + 1))
		failed_stages+=("$1")
	fi
}

BUILD_TESTS=1 ./scripts/build.sh ${CONFIGURE_FLAGS:-}
cd build

echo "== make check: unit, CLI and OpenSM-over-ibsim tests (about 10 minutes on 2 cores)"
ran+=("make check")
status=0
make -s -j"$(nproc)" check || status=$?
for log in tests/*.log; do
	case "$log" in test-suite.log) continue ;; esac
	# each line named by its test: cmocka's [  PASSED  ] says no binary
	grep -hE '^\[  (PASSED|FAILED|SKIPPED)  \]|^# (PASS|FAIL|SKIP)|^(PASS|FAIL|SKIP):' "$log" |
		sed "s|^|$(basename "$log" .log): |" || true
done
[ $status = 0 ] || [ ! -f test-suite.log ] || cat test-suite.log
count() { n=$(sed -n "s/^# $1: *//p" test-suite.log 2>/dev/null | head -n 1); echo "${n:-0}"; }
passed=$(count PASS)
failed=$(( $(count FAIL) + $(count ERROR) + $(count XPASS) ))
skipped=$(count SKIP)
# the tests that failed, by name: "make check (e2e_incremental, test_dump)"
why=$(grep -lE '^:test-result: (FAIL|ERROR|XPASS)' tests/*.trs 2>/dev/null |
	sed 's|.*/||; s/\.trs$//; s/\.sh$//' | paste -sd';' - | sed 's/;/, /g' || true)
if [ "$skipped" != 0 ] && all_must_run; then
	echo "tests: $skipped skipped where every test must run (CI): a skip hides a missing install step"
	grep -h "^# SKIP" tests/*.log | sed 's/^/  /' || true
	status=1
	why="${why:+$why, }$skipped skipped"
fi
if [ $status != 0 ]; then
	# no test named: make check itself failed (a test program's build)
	[ -n "$why" ] || { why="make failed"; failed=$((failed + 1)); }
	failed_stages+=("make check ($why)")
fi

valgrind_stage() {
	# helgrind with glibc's cache of thread stacks off: glibc 2.34 and later
	# hand a joined thread's stack to the next pthread_create under a lock
	# helgrind cannot see (valgrind 3.19's own switch for it no longer finds
	# the cache), so a stack reused across threads reads as a race inside
	# get_cached_stack, about one run in two for colorl, whose fera and
	# path workers each start threads
	helgrind() {
		GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0 \
			valgrind --tool=helgrind --error-exitcode=3 -q "$@"
	}
	for e in $(./ibrouting engines --names); do
		valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect \
			-q ./ibrouting route -e "$e" --repeat 3 --dump-dir "$(mktemp -d)" \
			"$top/tests/fabrics/fig1.net" >/dev/null
		valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect \
			-q ./ibrouting route -e "$e" --repeat 2 gen:random:sw=32,ca=128,seed=5 >/dev/null
	done
	# colorl and dr from the prior tables after a link cut (prior.h)
	prior=$(mktemp -d)
	for e in colorl dr; do
		./ibrouting route -e "$e" --lmc 2 --dump-dir "$prior/$e" gen:random:sw=24,ca=96,seed=5 >/dev/null
		valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect \
			-q ./ibrouting route -e "$e" --lmc 2 --repeat 2 --prior "$prior/$e" \
			gen:random:sw=24,ca=96,seed=5,cut=1 >/dev/null
	done
	rm -rf "$prior"
	# the engines' worker threads (3 of them, whatever this machine has):
	# colorl's, and those listing fera's and dr's next destinations beside
	# the routing: no leak, no invalid access from a worker
	for e in colorl fera dr; do
		valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect \
			-q ./ibrouting route -e "$e" --lmc 1 --threads 3 --repeat 2 gen:random:sw=24,ca=96,seed=5 >/dev/null
		# and no data race between them (helgrind)
		helgrind ./ibrouting route -e "$e" --lmc 1 --threads 3 gen:random:sw=16,ca=48,seed=5 >/dev/null
	done
	# fera's re-route pass carrying hosts (several roots), on its workers
	helgrind ./ibrouting route -e fera --threads 3 gen:kary:k=4,n=3,cut=2,seed=1 >/dev/null
	# colorl's path selection told to stop beside a base at the load bound
	helgrind ./ibrouting route -e colorl --lmc 1 --threads 3 gen:kary:k=4,n=3 >/dev/null
	# colorl's path selection in 3 parts on the workers, and in 3 batches of
	# 2 parts: no leak and no race
	valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		-q ./ibrouting route -e colorl -o parts=3 --lmc 1 --threads 3 --repeat 2 gen:random:sw=24,ca=96,seed=5 >/dev/null
	helgrind ./ibrouting route -e colorl -o parts=3 --lmc 1 --threads 3 gen:random:sw=16,ca=48,seed=5 >/dev/null
	valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		-q ./ibrouting route -e colorl -o parts=2 -o batches=3 --lmc 1 --threads 3 --repeat 2 gen:random:sw=24,ca=96,seed=5 >/dev/null
	helgrind ./ibrouting route -e colorl -o parts=2 -o batches=3 --lmc 1 --threads 3 gen:random:sw=16,ca=48,seed=5 >/dev/null
	# every allocation of a routing run failed once: no leak on any error path
	valgrind --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		-q ./tests/test_failures >/dev/null
	echo "valgrind: no leaks, no errors (also from the prior tables, with 3 worker threads, no race between them, and on every forced allocation failure)"
}
# The README's first command as a newcomer types it (its setup finds
# everything installed and built): OpenSM routes the paper's fabric over
# ibsim with each engine, and ibtracert reads the path from the switches.
echo "== the quick start: ./scripts/quickstart.sh (OpenSM with the plugin over ibsim, ibtracert)"
quickstart_stage() {
	local rc=0 n
	"$top/scripts/quickstart.sh" > quickstart.log 2>&1 || rc=$?
	n=$(grep -c -e 'tables configured on all switches' -e '^   To ca ' quickstart.log || true)
	if [ $rc != 0 ] || [ "$n" != 4 ] || ! grep -q '^check     the plugin would push them' quickstart.log; then
		cat quickstart.log
		echo "quickstart: exit $rc, $n of 4 lines (two engines' tables configured, two traces to the host)"
		return 1
	fi
	echo "quickstart: pira and fera configured every switch over ibsim; ibtracert reached the host twice"
}
stage quickstart quickstart_stage
echo "== valgrind: repeated routing runs must not leak"
stage valgrind valgrind_stage

echo "== fuzzing the readers (libFuzzer, ASan + UBSan; ${FUZZ_SECONDS:-20} s per target)"
# once here, not in TESTS: make distcheck would run it a second time
fuzz_stage() {
	local rc=0
	"$top/tests/fuzz.sh" > fuzz.log 2>&1 || rc=$?
	if [ $rc = 77 ] && ! all_must_run; then
		echo "fuzz: skipped: $(tail -n 1 fuzz.log)"
	elif [ $rc = 0 ]; then
		grep '^fuzz' fuzz.log
	else
		cat fuzz.log
	fi
	return $rc
}
stage fuzz fuzz_stage

# smoke NAME LOG ARGS...: bench/NAME ARGS over this build, its output in
# LOG; its last line, or all of it when it fails
smoke() {
	local name=$1 log=$2
	shift 2
	BUILD_DIR=$PWD "$top/bench/$name" "$@" > "$log" 2>&1 || { cat "$log"; return 1; }
	tail -n 1 "$log"
}
bench_stage() { smoke bench.sh bench-smoke.log --smoke; }
bench_lmc_stage() { smoke bench_lmc.sh bench-lmc-smoke.log --smoke; }
bench_assim_stage() { smoke bench_assim.sh bench-assim-smoke.log --smoke; }
bench_targets_stage() { smoke bench_targets.sh bench-targets-smoke.log --smoke; }
bench_reroute_stage() {
	smoke bench_reroute.sh bench-reroute-smoke.log kary:k=4,n=3,cut=5,seed=2 random:sw=16,ca=64,seed=1
}
bench_balance_stage() { smoke bench_balance.sh bench-balance-smoke.log --smoke; }

echo "== benchmark smoke run (our engines and OpenSM's over ibsim; not timed)"
stage bench.sh bench_stage
echo "== multi-LID benchmark smoke run (dr, colorl, fera, updn, minhop, dfsssp at lmc 2 over ibsim; not timed)"
stage bench_lmc.sh bench_lmc_stage
echo "== change assimilation benchmark smoke run (a link cut and a switch down under an OpenSM daemon over ibsim, fera and pira+colorl; not timed)"
stage bench_assim.sh bench_assim_stage
echo "== issue 20's targets benchmark smoke run (fera, dr and colorl offline at 1 and 2 threads, interleaved; not timed)"
stage bench_targets.sh bench_targets_stage
echo "== fera's re-route benchmark smoke run (every end port again and only those on links above the bound, a cut 4-ary 3-tree and a random fabric; not timed)"
stage bench_reroute.sh bench_reroute_stage
echo "== balanced routing benchmark smoke run (every engine, ours and OpenSM's, on a cut 4-ary 3-tree and a 2:1 Clos over ibsim; not timed)"
stage bench_balance.sh bench_balance_stage

# --- packaging (scripts/package-test.sh) ---
echo "== Debian and RPM packages (dpkg-buildpackage in a clean copy, lintian, apt-get install, autopkgtest, man pages, purge; rpmbuild)"
package_stage() {
	local rc=0
	"$top/scripts/package-test.sh" > package-test.log 2>&1 || rc=$?
	if [ $rc = 77 ] && ! all_must_run; then
		echo "package: skipped: $(tail -n 1 package-test.log)"
	elif [ $rc = 0 ]; then
		tail -n 1 package-test.log
	else
		cat package-test.log
	fi
	return $rc
}
stage packages package_stage
# --- end of packaging ---

echo "== make distcheck: the tarball built and tested on its own (as long as make check again)"
distcheck_stage() {
	make distcheck DISTCHECK_CONFIGURE_FLAGS="${CONFIGURE_FLAGS:-}" > distcheck.log 2>&1 ||
		{ tail -n 60 distcheck.log; return 1; }
	echo "distcheck: OK"
}
stage distcheck distcheck_stage
