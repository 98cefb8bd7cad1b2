#!/usr/bin/env bash
# Builds out of tree in build/ and runs every test: `make check` (cmocka
# unit tests, CLI and ibdmchk shell tests), `make distcheck`, and a
# valgrind leak check of repeated routing runs.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

BUILD_TESTS=1 ./scripts/build.sh ${CONFIGURE_FLAGS:-}
cd build
status=0
echo "== make check: unit, CLI and OpenSM-over-ibsim tests (about 10 minutes on 2 cores)"
make -s -j"$(nproc)" check || status=$?
for log in tests/*.log; do
	case "$log" in test-suite.log) continue ;; esac
	# each line named by its test: cmocka's [  PASSED  ] says no binary
	grep -hE '^\[  (PASSED|FAILED|SKIPPED)  \]|^# (PASS|FAIL|SKIP)|^(PASS|FAIL|SKIP):' "$log" |
		sed "s|^|$(basename "$log" .log): |" || true
done
[ $status = 0 ] || { cat test-suite.log; }
count() { sed -n "s/^# $1: *//p" test-suite.log; }
passed=$(count PASS)
failed=$(( $(count FAIL) + $(count ERROR) + $(count XPASS) ))
skipped=$(count SKIP)
if [ "${skipped:-0}" != 0 ] &&
   { [ "${CI:-}" = true ] || [ "${IBROUTING_REQUIRE_ALL_TESTS:-}" = 1 ]; }; then
	echo "tests: $skipped skipped where every test must run (CI): a skip hides a missing install step"
	grep -h "^# SKIP" tests/*.log | sed 's/^/  /'
	status=1
fi
if [ $status != 0 ]; then
	echo "tests: $passed passed, $failed failed, $skipped skipped"
	exit $status
fi

echo "== valgrind: repeated routing runs must not leak"
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
# colorl and dr from the tables in place after a link cut (prior.h)
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
echo "valgrind: no leaks, no errors (also from the tables in place, with 3 worker threads, no race between them, and on every forced allocation failure)"
passed=$((passed + 1))

echo "== fuzzing the readers (libFuzzer, ASan + UBSan; ${FUZZ_SECONDS:-20} s per target)"
# once here, not in TESTS: make distcheck would run it a second time
fuzz_status=0
"$top/tests/fuzz.sh" > fuzz.log 2>&1 || fuzz_status=$?
if [ $fuzz_status = 77 ] &&
   ! { [ "${CI:-}" = true ] || [ "${IBROUTING_REQUIRE_ALL_TESTS:-}" = 1 ]; }; then
	echo "fuzz: skipped: $(tail -n 1 fuzz.log)"
	skipped=$((${skipped:-0} + 1))
elif [ $fuzz_status = 0 ]; then
	grep '^fuzz' fuzz.log
	passed=$((passed + 1))
else
	cat fuzz.log
	exit 1
fi

echo "== benchmark smoke run (our engines and OpenSM's over ibsim; not timed)"
BUILD_DIR=$PWD "$top/bench/bench.sh" --smoke > bench-smoke.log 2>&1 || { cat bench-smoke.log; exit 1; }
tail -n 1 bench-smoke.log
passed=$((passed + 1))

echo "== multi-LID benchmark smoke run (dr, colorl, fera, updn, minhop, dfsssp at lmc 2 over ibsim; not timed)"
BUILD_DIR=$PWD "$top/bench/bench_lmc.sh" --smoke > bench-lmc-smoke.log 2>&1 || { cat bench-lmc-smoke.log; exit 1; }
tail -n 1 bench-lmc-smoke.log
passed=$((passed + 1))

echo "== change assimilation benchmark smoke run (a link cut and a switch down under an OpenSM daemon over ibsim, fera and pira+colorl; not timed)"
BUILD_DIR=$PWD "$top/bench/bench_assim.sh" --smoke > bench-assim-smoke.log 2>&1 || { cat bench-assim-smoke.log; exit 1; }
tail -n 1 bench-assim-smoke.log
passed=$((passed + 1))

echo "== issue 20's targets benchmark smoke run (fera, dr and colorl offline at 1 and 2 threads, interleaved; not timed)"
BUILD_DIR=$PWD "$top/bench/bench_targets.sh" --smoke > bench-targets-smoke.log 2>&1 || { cat bench-targets-smoke.log; exit 1; }
tail -n 1 bench-targets-smoke.log
passed=$((passed + 1))

echo "== fera's re-route benchmark smoke run (every end port again and only those on links above the bound, a cut 4-ary 3-tree and a random fabric; not timed)"
BUILD_DIR=$PWD "$top/bench/bench_reroute.sh" kary:k=4,n=3,cut=5,seed=2 random:sw=16,ca=64,seed=1 > bench-reroute-smoke.log 2>&1 || { cat bench-reroute-smoke.log; exit 1; }
tail -n 1 bench-reroute-smoke.log
passed=$((passed + 1))

echo "== balanced routing benchmark smoke run (every engine, ours and OpenSM's, on a cut 4-ary 3-tree and a 2:1 Clos over ibsim; not timed)"
BUILD_DIR=$PWD "$top/bench/bench_balance.sh" --smoke > bench-balance-smoke.log 2>&1 || { cat bench-balance-smoke.log; exit 1; }
tail -n 1 bench-balance-smoke.log
passed=$((passed + 1))

# --- packaging (scripts/package-test.sh) ---
echo "== Debian and RPM packages (dpkg-buildpackage in a clean copy, lintian, apt-get install, autopkgtest, man pages, purge; rpmbuild)"
pkg_status=0
"$top/scripts/package-test.sh" > package-test.log 2>&1 || pkg_status=$?
if [ $pkg_status = 77 ] &&
   ! { [ "${CI:-}" = true ] || [ "${IBROUTING_REQUIRE_ALL_TESTS:-}" = 1 ]; }; then
	echo "package: skipped: $(tail -n 1 package-test.log)"
	skipped=$((${skipped:-0} + 1))
elif [ $pkg_status = 0 ]; then
	tail -n 1 package-test.log
	passed=$((passed + 1))
else
	cat package-test.log
	exit 1
fi
# --- end of packaging ---

echo "== make distcheck: the tarball built and tested on its own (as long as make check again)"
make distcheck DISTCHECK_CONFIGURE_FLAGS="${CONFIGURE_FLAGS:-}" > distcheck.log 2>&1 || { tail -n 60 distcheck.log; exit 1; }
echo "distcheck: OK"
passed=$((passed + 1))
echo "tests: $passed passed, $failed failed, $skipped skipped"
