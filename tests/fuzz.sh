#!/usr/bin/env bash
# fuzz.sh - builds every libFuzzer target tests/fuzz/fuzz_*.c against the
# core's sources (all of src/core, ASan + UBSan, with clang) and runs each
# for a bounded time; fails on any finding (crash, sanitizer report, leak,
# timeout, out-of-memory).
#
#   tests/fuzz.sh                       every target, FUZZ_SECONDS each
#   FUZZ_SECONDS=600 tests/fuzz.sh      the longer run (before a release)
#   tests/fuzz.sh topo dump             only fuzz_topo.c and fuzz_dump.c
#
# Environment:
#   FUZZ_SECONDS  time per target (default 20: what CI runs)
#   FUZZ_OUT      work directory: objects, binaries, corpora, findings
#                 (default: a fresh temporary directory, removed when clean)
#   FUZZ_JOBS     parallel compile jobs (default: nproc)
#   CC            clang (libFuzzer is clang's)
#   IBROUTING     the built tool, for seeds from its dumps (optional)
#
# Targets are found by glob, so a new fuzz_NAME.c needs no change here;
# its seeds come from seeds_for() below, or from tests/fuzz/NAME.seeds/
# when that directory exists.  Every finding is kept in FUZZ_OUT with the
# input that triggered it (crash-*, leak-*, timeout-*, oom-*); the run
# ends with one line per target: executions, corpus size, verdict.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
CC=${CC:-clang}
seconds=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-$(nproc)}
command -v "$CC" >/dev/null 2>&1 || {
	echo "fuzz.sh: $CC is not installed (Debian clang); libFuzzer needs it" >&2
	exit 77
}
keep=${FUZZ_OUT:+yes}
targets=("$@")
out=${FUZZ_OUT:-$(mktemp -d)}
mkdir -p "$out/obj"
flags=(-Wall -Wextra -Werror -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-std=c11 -D_GNU_SOURCE -Iinclude -Isrc/core -I"$out/obj")

# The core's sources, each compiled once with the fuzzer's
# instrumentation (-fsanitize=fuzzer-no-link: coverage without a main).
# config.h: the core only asks it for HAVE_GLPK, which stays unset here
# (the ILP is no reader's concern).
: > "$out/obj/config.h"
find src/core -name '*.c' | sort > "$out/sources"
obj_of() { echo "$out/obj/$(echo "$1" | tr / _ | sed 's/\.c$/.o/')"; }
start=$(date +%s)
while read -r s; do echo "$s $(obj_of "$s")"; done < "$out/sources" |
	xargs -P "$jobs" -n 2 sh -c '"$0" -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
		-fno-sanitize-recover=undefined -std=c11 -D_GNU_SOURCE -Iinclude \
		-Isrc/core -I"$(dirname "$2")" -c "$1" -o "$2"' "$CC"
objs=$(while read -r s; do obj_of "$s"; done < "$out/sources")

# Seeds: real inputs of each reader.
seeds_for() {
	local name=$1 dir=$out/seeds-$1
	rm -rf "$dir"
	mkdir -p "$dir"
	case $name in
	topo)
		cp tests/fabrics/*.net "$dir/" ;;
	dump)
		# a dump directory as one input: its files separated by "====="
		# lines (fuzz_dump.c); OpenSM's own 2-switch dump, and ours of
		# the test fabrics when the tool is built
		local d i=0
		for d in tests/fabrics/opensm-dump-2sw "$out"/dumps/*; do
			[ -f "$d/opensm-lfts.dump" ] || continue
			{ cat "$d/opensm-subnet.lst"; printf '\n=====\n'
			  cat "$d/opensm-lfts.dump"
			  if [ -f "$d/ibrouting-dlids.dump" ]; then
				printf '\n=====\n'; cat "$d/ibrouting-dlids.dump"
			  fi; } > "$dir/seed$i"
			i=$((i + 1))
		done ;;
	options)
		cp opensm-plugin.conf "$dir/" ;;
	esac
	[ ! -d "tests/fuzz/$name.seeds" ] || cp "tests/fuzz/$name.seeds"/* "$dir/" 2>/dev/null || true
}
ibrouting=${IBROUTING:-$top/build/ibrouting}
if [ -x "$ibrouting" ]; then
	mkdir -p "$out/dumps"
	for spec in "$top/tests/fabrics/fig1.net pira 0" "$top/tests/fabrics/dr-fig5.net dr 1" \
		"gen:random:sw=6,ca=8,seed=2 colorl 2"; do
		set -- $spec
		"$ibrouting" route -e "$2" --lmc "$3" --dump-dir "$out/dumps/$2" "$1" >/dev/null 2>&1 || true
	done
fi

status=0
summary=
[ ${#targets[@]} -gt 0 ] || targets=($(ls tests/fuzz/fuzz_*.c | sed 's|.*/fuzz_||; s|\.c$||'))
for name in "${targets[@]}"; do
	src=tests/fuzz/fuzz_$name.c
	[ -f "$src" ] || { echo "fuzz.sh: no $src" >&2; exit 2; }
	# shellcheck disable=SC2086
	"$CC" "${flags[@]}" "$src" $objs -lm -lpthread -o "$out/fuzz_$name"
	seeds_for "$name"
	# the corpus of an earlier run (FUZZ_OUT) is kept, its findings not
	rm -rf "$out/findings-$name"
	mkdir -p "$out/corpus-$name" "$out/findings-$name"
	echo "== fuzz_$name: $seconds s ($(ls "$out/seeds-$name" | wc -l) seeds)"
	# -timeout: one input may take 10 s at most; -rss_limit_mb: a reader
	# that allocates past 2 GB on some input is a finding (oom-*)
	rc=0
	(cd "$out/findings-$name" && ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=print_stacktrace=1 "$out/fuzz_$name" \
		-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/findings-$name/" \
		"$out/corpus-$name" "$out/seeds-$name") > "$out/fuzz_$name.log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz_$name.log")
	corpus=$(ls "$out/corpus-$name" | wc -l)
	findings=$(ls "$out/findings-$name" | wc -l)
	if [ "$rc" = 0 ] && [ "$findings" = 0 ]; then
		verdict="no finding"
	else
		verdict="FINDING (exit $rc): $(ls "$out/findings-$name" | head -3 | tr '\n' ' ')"
		grep -E "ERROR: |SUMMARY: |runtime error" "$out/fuzz_$name.log" | head -5 | sed 's/^/  /'
		echo "  log: $out/fuzz_$name.log; inputs: $out/findings-$name/"
		keep=yes status=1
	fi
	summary+="fuzz_$name: ${execs:-?} executions in $seconds s, corpus $corpus inputs, $verdict"$'\n'
done
printf '%s' "$summary"
echo "fuzz.sh: ${#targets[@]} targets, $(( $(date +%s) - start )) s with the build"
[ -n "$keep" ] || rm -rf "$out"
exit $status
