#!/usr/bin/env bash
# report.sh DIR - the plots (gnuplot PNG) of a bench.sh run from the CSVs
# it wrote into DIR: route_time.png, link_load.png, credit_loops.png and
# offline.png.  The tables are bench/publish.sh's, in BENCHMARKS.md.
set -euo pipefail
dir=$1
csv=$dir/opensm.csv off=$dir/offline.csv
# the plots' data, beside nothing of DIR's
dat=$(mktemp -d)
trap 'rm -rf "$dat"' EXIT

# Plot data: random fabrics, mean window per engine and size.
awk -F, 'NR > 1 && $1 ~ /^random/ && $6 != "?" && $4 != "zero-cost" { key = ($2 + $3) " " $4; t[key] += $6; n[key]++; l[key] += $9 }
	END { for (k in t) print k, t[k] / n[k], l[k] / n[k] }' "$csv" | sort -k2,2 -k1,1n > "$dat/random.dat"
engines=$(awk '{ print $2 }' "$dat/random.dat" | sort -u)
plot_lines() { # column
	first=1
	for e in $engines; do
		[ $first = 1 ] || printf ', '
		printf "'< grep \" %s \" %s' using 1:%s with linespoints title '%s'" "$e" "$dat/random.dat" "$1" "$e"
		first=0
	done
}
if command -v gnuplot >/dev/null && [ -s "$dat/random.dat" ]; then
	gnuplot <<GP
set terminal pngcairo size 900,560 noenhanced
set output '$dir/route_time.png'
set title 'OpenSM routing window, random irregular fabrics (mean over seeds)'
set xlabel 'nodes (switches + CAs)'; set ylabel 'ms'; set logscale xy; set key outside right top; set grid
plot $(plot_lines 3)
set output '$dir/link_load.png'
set title 'max link load under uniform all-to-all CA traffic (flows on the busiest channel)'
set ylabel 'flows'
plot $(plot_lines 4)
GP
	awk -F, 'NR > 1 && $4 != "zero-cost" { n[$4]++; c[$4] += ($8 != "0" && $8 != "?") } END { for (e in n) print e, c[e], n[e] }' "$csv" |
		sort > "$dat/loops.dat"
	gnuplot <<GP
set terminal pngcairo size 900,460 noenhanced
set output '$dir/credit_loops.png'
set title 'fabrics where ibdmchk finds credit loops, per engine (of all fabrics routed)'
set style data histograms; set style fill solid 0.6; set boxwidth 0.8; set yrange [0:*]; set grid y
set key outside right top
plot '$dat/loops.dat' using 2:xtic(1) title 'with credit loops', '' using 3 title 'fabrics'
GP
	if [ -s "$off" ]; then
		awk -F, 'NR > 1 { print $1, $4, $5, $7, $8 }' "$off" > "$dat/offline.dat"
		gnuplot <<GP
set terminal pngcairo size 900,560 noenhanced
set output '$dir/offline.png'
set title 'offline compute time vs size (random, 16 CAs per switch) and the memset lower bound'
set xlabel 'switches'; set ylabel 'ms'; set logscale xy; set key left top; set grid
plot '< grep " pira " $dat/offline.dat' using 1:3 with linespoints title 'pira', \
     '< grep " fera " $dat/offline.dat' using 1:3 with linespoints title 'fera', \
     '< grep " pira " $dat/offline.dat' using 1:4 with linespoints title 'memset of all LFT bytes (warm)', \
     '< grep " pira " $dat/offline.dat' using 1:5 with linespoints title 'memset into fresh pages'
GP
	fi
fi

echo "report: the plots of $dir"
