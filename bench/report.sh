#!/usr/bin/env bash
# report.sh DIR - tables (markdown) and plots (gnuplot PNG) from the CSVs
# that bench.sh wrote into DIR; writes DIR/report.md.  All ratios are
# against updn measured in the same run, on the same fabric.
set -euo pipefail
dir=$1
csv=$dir/opensm.csv off=$dir/offline.csv md=$dir/report.md

# Per-fabric table with the ratio to updn of the same fabric.
fabric_table() {
	echo "| fabric | engine | used by OpenSM | routing window ms | / updn | verifier findings (unreachable, CDG cycle) | ibdmchk credit loops | max link load | mean path | DLIDs | explicit entries | default ports |"
	echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk -F, 'NR > 1 { row[NR] = $0; if ($4 == "updn") updn[$1] = $6 }
		END { for (i = 2; i <= NR; i++) { split(row[i], f, ",")
			ratio = (f[1] in updn && updn[f[1]] > 0 && f[6] != "?") ? sprintf("%.3f", f[6] / updn[f[1]]) : "-"
			printf "| %s | %s | %s | %s | %s | %s (%s, %s) | %s | %s | %s | %s | %s | %s |\n",
				f[1], f[4], f[5], f[6], ratio, f[7], f[14], f[15], f[8], f[9], f[10], f[11], f[12], f[13] } }' "$csv"
}

# Random fabrics grouped by size: mean over seeds of time, ratio, load.
size_table() {
	echo "| random fabric (switches/CAs) | engine | fabrics | mean routing window ms | mean ratio to updn | mean max link load | fabrics with credit loops | fabrics with verifier findings | fallbacks |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk -F, 'NR > 1 && $1 ~ /^random/ { if ($4 == "updn") updn[$1] = $6; row[NR] = $0 }
		END { for (i in row) { split(row[i], f, ","); key = f[2] "/" f[3] SUBSEP f[4]
			n[key]++; t[key] += f[6]; if (f[1] in updn && updn[f[1]] > 0) { r[key] += f[6] / updn[f[1]]; rn[key]++ }
			l[key] += f[9]; cl[key] += (f[8] != "0"); fi[key] += (f[7] != "0"); fb[key] += (f[5] != f[4]) }
		  for (key in n) { split(key, k, SUBSEP)
			printf "| %s | %s | %d | %.1f | %s | %.0f | %d | %d | %d |\n", k[1], k[2], n[key], t[key] / n[key],
				rn[key] ? sprintf("%.3f", r[key] / rn[key]) : "-", l[key] / n[key], cl[key], fi[key], fb[key] } }' "$csv" |
		sort -t'|' -k2,2V -k3,3
}

offline_table() {
	echo "| switches | CAs | LIDs | engine | compute ms | memset ms (warm) | / memset warm | memset ms (fresh pages) | / memset fresh | peak RSS MB |"
	echo "| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %.1f | %s | %.1f | %.0f |\n", $1, $2, $3, $4, $5, $7,
		($7 > 0 ? $5 / $7 : 0), $8, ($8 > 0 ? $5 / $8 : 0), $6 / 1024 }' "$off"
}

# Least-squares slope of log(time) over log(switches), per engine.
exponents() {
	awk -F, 'NR > 1 && $5 > 0 { e = $4; x = log($1); y = log($5); n[e]++; sx[e] += x; sy[e] += y; sxx[e] += x * x; sxy[e] += x * y }
		END { for (e in n) if (n[e] > 1) printf "%s %.2f\n", e, (n[e] * sxy[e] - sx[e] * sy[e]) / (n[e] * sxx[e] - sx[e] * sx[e]) }' "$off" | sort
}

# Plot data: random fabrics, mean window per engine and size.
awk -F, 'NR > 1 && $1 ~ /^random/ && $6 != "?" && $4 != "zero-cost" { key = ($2 + $3) " " $4; t[key] += $6; n[key]++; l[key] += $9 }
	END { for (k in t) print k, t[k] / n[k], l[k] / n[k] }' "$csv" | sort -k2,2 -k1,1n > "$dir/random.dat"
engines=$(awk '{ print $2 }' "$dir/random.dat" | sort -u)
plot_lines() { # column
	first=1
	for e in $engines; do
		[ $first = 1 ] || printf ', '
		printf "'< grep \" %s \" %s' using 1:%s with linespoints title '%s'" "$e" "$dir/random.dat" "$1" "$e"
		first=0
	done
}
if command -v gnuplot >/dev/null && [ -s "$dir/random.dat" ]; then
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
		sort > "$dir/loops.dat"
	gnuplot <<GP
set terminal pngcairo size 900,460 noenhanced
set output '$dir/credit_loops.png'
set title 'fabrics where ibdmchk finds credit loops, per engine (of all fabrics routed)'
set style data histograms; set style fill solid 0.6; set boxwidth 0.8; set yrange [0:*]; set grid y
set key outside right top
plot '$dir/loops.dat' using 2:xtic(1) title 'with credit loops', '' using 3 title 'fabrics'
GP
	if [ -s "$off" ]; then
		awk -F, 'NR > 1 { print $1, $4, $5, $7, $8 }' "$off" > "$dir/offline.dat"
		gnuplot <<GP
set terminal pngcairo size 900,560 noenhanced
set output '$dir/offline.png'
set title 'offline compute time vs size (random, 16 CAs per switch) and the memset lower bound'
set xlabel 'switches'; set ylabel 'ms'; set logscale xy; set key left top; set grid
plot '< grep " pira " $dir/offline.dat' using 1:3 with linespoints title 'pira', \
     '< grep " fera " $dir/offline.dat' using 1:3 with linespoints title 'fera', \
     '< grep " pira " $dir/offline.dat' using 1:4 with linespoints title 'memset of all LFT bytes (warm)', \
     '< grep " pira " $dir/offline.dat' using 1:5 with linespoints title 'memset into fresh pages'
GP
	fi
fi

{
	echo "## Inside OpenSM over ibsim: random irregular fabrics by size"
	echo
	size_table
	echo
	echo "## Inside OpenSM over ibsim: every fabric"
	echo
	fabric_table
	echo
	if [ -s "$off" ]; then
		echo "## Offline (ibrouting route), random fabrics, 16 CAs per switch"
		echo
		offline_table
		echo
		echo "Growth exponent of compute time in the number of switches (least squares over the sizes above):"
		echo
		exponents | awk '{ printf "- %s: %s\n", $1, $2 }'
		echo
	fi
} > "$md"
echo "report: $md"
