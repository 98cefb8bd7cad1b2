#!/usr/bin/env bash
# bench_scale.sh - the LMC engines offline at the sizes of large clusters:
# compute time (the engine's own, `ibrouting route`'s `time`
# line) and peak RSS of the whole process (GNU time's %M: fabric model,
# engine and the checks after it) of pira, fera at its default port
# choice (balanced) and at `lowest`, dr and colorl, on the same random
# fabrics (16 CAs a switch, seed 1) in one run, so every ratio is taken
# between runs of one build on one machine minutes apart.  Never a timed
# test: it measures and reports.
#
#   bench/bench_scale.sh [--sizes "256 512 1024"] [--lmc N] [--out FILE]
#                        [--threads "1 2"]  (worker threads, -j: each
#                        engine once per count; without it no -j is
#                        given, so builds without -j can be measured)
#                        [--repeat N]  (each route N times, the best
#                        compute time: this machine is shared and noisy)
#                        [--ibrouting PATH --label TEXT]  (another build's,
#                        to compare; TEXT names it in the table's line)
#                        [--engines "pira fera fera-lowest dr colorl"]
#                        (those measured, in that order; fera and fera
#                        lowest are always run, for the ratios)
#                        [--specs "fattree:ports=24,levels=3 ..."]
#                        (these generated fabrics instead of the random
#                        sizes: fat trees, Clos networks, degraded ones)
#
# Prints a Markdown table (and writes it to FILE, default
# bench/results/scale.md): per size, thread count and engine, compute ms,
# the ratio to fera (balanced) and to fera (lowest) at that count, the
# speedup over the engine's run with the first count, peak RSS in MB, and
# the cores the machine has; then, with two sizes or more, each engine's
# growth exponent per thread count (the least-squares slope of log
# compute time, and of log peak RSS, on log switches).  Also FILE's
# figures as CSV (FILE with .csv for .md) and, with gnuplot and two
# sizes or more, FILE with .png: compute time and peak RSS against
# switches, log-log.
set -euo pipefail
export IBROUTING_WIDTH=0   # ibrouting's lines whole (ibrouting(1), ENVIRONMENT): parsed below
top=$(cd "$(dirname "$0")/.." && pwd)
ibr=$top/build/ibrouting
sizes="256 512 1024"
lmc=1
threads=1
threads_given=
repeat=1
engines="pira fera fera-lowest dr colorl"
specs=
out=$top/bench/results/scale.md
label="commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
while [ $# -gt 0 ]; do
	case $1 in
	--sizes) sizes=$2; shift ;;
	--lmc) lmc=$2; shift ;;
	--out) out=$2; shift ;;
	--ibrouting) ibr=$2; shift ;;
	--label) label=$2; shift ;;
	--threads) threads=$2; threads_given=1; shift ;;
	--repeat) repeat=$2; shift ;;
	--engines) engines=$2; shift ;;
	--specs) specs=$2; shift ;;
	*) echo "usage: bench/bench_scale.sh [--sizes \"S ...\"] [--lmc N] [--out FILE] [--threads \"N ...\"] [--repeat N] [--ibrouting PATH --label TEXT] [--engines \"E ...\"] [--specs \"SPEC ...\"]" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$ibr" ] || { echo "bench_scale: build first ($ibr missing)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench_scale: needs GNU time (/usr/bin/time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# run NAME ARGS...: "ms KB switches CAs" of one route
run() {
	/usr/bin/time -f '%M' -o "$tmp/rss" "$ibr" route --repeat "$repeat" "$@" > "$tmp/out" 2>&1 ||
		{ echo "bench_scale: ibrouting route $* failed:" >&2; cat "$tmp/out" >&2; exit 1; }
	printf '%s %s %s\n' "$(sed -n 's/^time *\([0-9.]*\) ms compute.*/\1/p' "$tmp/out")" "$(tail -n 1 "$tmp/rss")" \
		"$(sed -n 's/^fabric .*: \([0-9]*\) switches, \([0-9]*\) CA ports.*/\1 \2/p' "$tmp/out")"
}

no_j=" (no -j given: the build's default)"
[ -z "$threads_given" ] || no_j=
{
	echo "Offline, \`ibrouting route --lmc $lmc${threads_given:+ --threads T} --repeat $repeat\` on ${specs:+gen:}${specs:-gen:random:sw=S,ca=16*S,seed=1}, $label, $(date -u +%Y-%m-%d), $(nproc) cores; compute ms (the engine's time line, the best of $repeat), peak RSS of the process (MB); speedup: over the same engine's run with $(echo "$threads" | cut -d' ' -f1) thread(s)$no_j."
	echo
	echo "| ${specs:+fabric: }switches / CAs | threads | engine | compute ms | / fera | / fera lowest | speedup | peak RSS MB |"
	echo "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
} > "$tmp/table"
csv=${out%.md}.csv
echo "switches,cas,lmc,threads,engine,compute_ms,peak_rss_kb" > "$tmp/csv"
declare -A first_ms
if [ -n "$specs" ]; then
	fabrics=$specs
else
	fabrics=$(for s in $sizes; do echo "random:sw=$s,ca=$((16 * s)),seed=1"; done)
fi
for spec in $fabrics; do
	fabric=gen:$spec
	name=${specs:+$spec: }
	for t in $threads; do
		j=${threads_given:+-j $t}
		# shellcheck disable=SC2086
		read -r fb fb_kb sw cas < <(run -e fera --lmc "$lmc" $j "$fabric")
		# shellcheck disable=SC2086
		read -r fl fl_kb _ _ < <(run -e fera --port-choice lowest --lmc "$lmc" $j "$fabric")
		for e in $engines; do
			# shellcheck disable=SC2086
			case $e in
			fera) ms=$fb kb=$fb_kb ;;
			fera-lowest) ms=$fl kb=$fl_kb ;;
			*) read -r ms kb _ _ < <(run -e "$e" --lmc "$lmc" $j "$fabric") ;;
			esac
			[ -n "${first_ms[$spec$e]:-}" ] || first_ms[$spec$e]=$ms
			awk -v name="$name" -v s="$sw" -v c="$cas" -v t="$t" -v e="$e" -v ms="$ms" -v kb="$kb" -v fb="$fb" -v fl="$fl" \
				-v one="${first_ms[$spec$e]}" 'BEGIN {
				printf "| %s%d / %d | %d | %s | %.1f | %.2f | %.2f | %.2f | %.0f |\n", name, s, c, t, e, ms, ms / fb, ms / fl, one / ms, kb / 1024 }' >> "$tmp/table"
			echo "$sw,$cas,$lmc,$t,$e,$ms,$kb" >> "$tmp/csv"
		done
	done
done

# growth: per engine and thread count, the least-squares slope of
# log(compute ms) and of log(peak RSS) on log(switches)
if [ -z "$specs" ] && [ "$(echo "$sizes" | wc -w)" -ge 2 ]; then
	{
		echo
		echo "Growth exponents over ${sizes// /, } switches (the least-squares slope of log compute time, and of log peak RSS, on log switches; 2: quadratic):"
		echo
		echo "| engine | threads | compute time | peak RSS |"
		echo "| --- | ---: | ---: | ---: |"
		awk -F, 'NR > 1 { k = $5 SUBSEP $4; if (!(k in n)) order[++m] = k
			x = log($1); n[k]++; sx[k] += x; sxx[k] += x * x
			y = log($6); sy[k] += y; sxy[k] += x * y
			z = log($7); sz[k] += z; sxz[k] += x * z }
			END { for (i = 1; i <= m; i++) { k = order[i]; split(k, p, SUBSEP)
				d = n[k] * sxx[k] - sx[k] * sx[k]
				printf "| %s | %s | %.2f | %.2f |\n", p[1], p[2],
					(n[k] * sxy[k] - sx[k] * sy[k]) / d, (n[k] * sxz[k] - sx[k] * sz[k]) / d } }' "$tmp/csv"
	} >> "$tmp/table"
fi
mkdir -p "$(dirname "$out")"
cp "$tmp/table" "$out"
cp "$tmp/csv" "$csv"
if [ -z "$specs" ] && command -v gnuplot >/dev/null && [ "$(echo "$sizes" | wc -w)" -ge 2 ]; then
	t1=$(echo "$threads" | cut -d' ' -f1)
	for e in $engines; do
		awk -F, -v e="$e" -v t="$t1" 'NR > 1 && $5 == e && $4 == t { print $1, $6, $7 / 1024 }' "$tmp/csv" > "$tmp/$e.dat"
	done
	gnuplot <<GP
set terminal pngcairo size 1100,480 noenhanced
set output '${out%.md}.png'
set multiplot layout 1,2 title 'offline, random fabrics, 16 CAs a switch, lmc $lmc, $t1 thread(s), $(nproc) cores'
set logscale xy; set grid; set key top left; set xlabel 'switches'
set ylabel 'compute ms'
plot for [e in "$engines"] '$tmp/'.e.'.dat' using 1:2 with linespoints title e
set ylabel 'peak RSS MB'
plot for [e in "$engines"] '$tmp/'.e.'.dat' using 1:3 with linespoints title e
unset multiplot
GP
fi
cat "$out"
