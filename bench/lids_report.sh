#!/usr/bin/env bash
# lids_report.sh DIR - lids.md from the CSVs bench_lids.sh wrote in DIR:
# our means next to the numbers printed in lid-assignment-color-l (Tables
# I, II, III, IV and VI; the paper's are means over 32 instances, with
# lp_solve for the ILP).  Every figure of ours comes from the CSVs.
set -euo pipefail
export IBROUTING_WIDTH=0   # ibrouting's lines whole (ibrouting(1), ENVIRONMENT): parsed below
dir=$1
csv=$dir/lids.csv vi=$dir/lids-vi.csv reg=$dir/lids-regular.csv md=$dir/lids.md

# The paper's numbers: config then greedy s-m/S s-m/L color/S color/L.
paper_I="128/16 478.7 478.9 477.3 479.3 476.4
256/16 1044.3 1045.4 1041.5 1047.7 1039.2
512/16 2218.3 2220.1 2211.8 2220.4 2208.5
128/32 451.5 453.9 452.9 461.3 443.0
256/32 1078.8 1084.7 1079.0 1100.0 1062.4
512/32 2428.7 2440.2 2425.8 2461.0 2392.1
128/64 422.8 427.7 427.0 441.5 407.4
256/64 1015.5 1022.2 1019.3 1044.6 990.6
512/64 2325.8 2338.4 2330.1 2385.1 2274.4"
paper_II="128/16 520.9 524.2 514.0 581.2 466.0
256/16 951.3 952.7 935.0 1062.6 851.2
512/16 1829.2 1852.8 1823.0 2038.7 1653.2
128/32 540.3 546.7 539.3 611.3 466.0
256/32 1006.7 1018.2 1002.2 1130.8 887.2
512/32 1904.0 1920.3 1895.7 2115.8 1688.7
128/64 528.0 541.1 530.5 599.4 460.5
256/64 1054.9 1092.9 1068.1 1197.9 921.4
512/64 2019.9 2075.4 2043.4 2278.6 1786.6"
# config then ILP greedy color/L
paper_III="64/16 210.8 212.1 211.0
128/16 455.2 457.1 455.5
192/16 701.0 704.0 715.5
64/32 177.6 182.7 178.4
128/32 448.3 457.4 449.0
192/32 714.9 727.9 716.0
64/64 159.6 166.5 159.9
128/64 406.2 425.8 407.7
192/64 690.3 711.9 692.8"
paper_IV="64/16 215.1 244.5 219.8
128/16 400.7 451.1 407.0
192/16 575.7 647.1 582.6
64/32 225.2 263.4 231.1
128/32 436.2 510.3 447.3
192/32 617.7 723.7 634.6
64/64 222.2 256.3 226.6
128/64 437.5 509.4 448.1
192/64 646.4 754.8 664.6"
# config then SRD load, LIDs, renaming load, LIDs, separate load, LIDs
paper_VI="128/16 4.34 128 3.84 477.8 3.70 466.0
256/16 8.65 256 7.52 1044.9 7.35 851.2
512/16 17.95 512 15.46 2213.3 14.91 1653.2
128/32 3.29 128 3.01 448.1 2.75 466.0
256/32 6.89 256 6.26 1079.2 5.8 887.2
512/32 14.71 512 13.24 2422.8 12.37 1688.7
128/64 3.29 128 3.01 420.0 2.75 460.5
256/64 6.15 256 5.72 1011.8 5.13 921.4
512/64 11.36 512 10.55 2323.4 9.54 1786.6"

# mean TABLE SCHEME HEURISTIC CONFIG [COLUMN]: mean of a CSV column (6 = LIDs)
mean() {
	awk -F, -v t="$1" -v s="$2" -v h="$3" -v c="$4" -v col="${5:-6}" \
		'$1 == t && $4 == s && $5 == h && $2 == c { sum += $col; n++ }
		END { if (n) printf "%.1f", sum / n; else printf "-" }' "$csv"
}
seeds() { awk -F, -v t="$1" -v c="$2" '$1 == t && $2 == c { print $3 }' "$csv" | sort -u | wc -l; }

table_I_II() { # TABLE-TITLE SCHEME PAPER-ROWS
	local scheme=$2
	echo "### $1"
	echo
	echo "| conf. | seeds | greedy | s-m/S | s-m/L | color/S | color/L | best | worst | paper: greedy | s-m/S | s-m/L | color/S | color/L |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |"
	echo "$3" | while read -r conf g sms sml cs cl; do
		n=$(seeds I-II "$conf")
		[ "$n" -gt 0 ] || continue
		row=""
		for h in greedy split-merge/S split-merge/L color/S color/L; do
			row="$row $(mean I-II "$scheme" "$h" "$conf")"
		done
		# shellcheck disable=SC2086
		set -- $row
		ranked=$(printf '%s greedy\n%s s-m/S\n%s s-m/L\n%s color/S\n%s color/L\n' "$@" | sort -g -k1,1 -s)
		best=$(echo "$ranked" | awk 'NR == 1 { v = $1 } $1 == v { printf "%s%s", (NR > 1 ? ", " : ""), $2 }')
		worst=$(echo "$ranked" | sort -g -r -k1,1 -s | awk 'NR == 1 { v = $1 } $1 == v { printf "%s%s", (NR > 1 ? ", " : ""), $2 }')
		echo "| $conf | $n | $1 | $2 | $3 | $4 | $5 | $best | $worst | $g | $sms | $sml | $cs | $cl |"
	done
	echo
}

table_III_IV() { # TABLE-TITLE SCHEME PAPER-ROWS
	echo "### $1"
	echo
	echo "| conf. | seeds | ILP | greedy | color/L | ILP over greedy | ILP over color/L | destinations proven | paper: ILP | greedy | color/L | ILP over color/L |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	echo "$3" | while read -r conf pi pg pc; do
		n=$(seeds III-IV "$conf")
		[ "$n" -gt 0 ] || continue
		i=$(mean III-IV "$2" ilp "$conf") g=$(mean III-IV "$2" greedy "$conf") c=$(mean III-IV "$2" color/L "$conf")
		ex=$(awk -F, -v s="$2" -v c="$conf" '$1 == "III-IV" && $4 == s && $5 == "ilp" && $2 == c { e += $7; n++ } END { printf "%.0f%%", n ? 100 * e / (n * ('"${conf%/*}"')) : 0 }' "$csv")
		awk -v conf="$conf" -v n="$n" -v i="$i" -v g="$g" -v c="$c" -v ex="$ex" -v pi="$pi" -v pg="$pg" -v pc="$pc" 'BEGIN {
			printf "| %s | %d | %s | %s | %s | %.2f%% | %.2f%% | %s | %s | %s | %s | %.2f%% |\n",
				conf, n, i, g, c, 100 * (g - i) / i, 100 * (c - i) / i, ex, pi, pg, pc, 100 * (pc - pi) / pi }'
	done
	echo
}

{
	echo "## LID assignment: the paper's tables on our fabrics (bench/bench_lids.sh)"
	echo
	echo "Commit $(cat "$dir/lids.commit" 2>/dev/null || echo "?"); random irregular fabrics X machines / Y switches (average switch degree 8, machines spread uniformly, 48-port switches); paths legal under up*/down* from the lowest-LID root, one per machine pair (\`ibrouting lids --pairs ca\`); LIDs counted as the paper counts them, 2^ceil(lg k) per machine, with no base tree. Ours are means over the seeds given; the paper's over 32 instances (lp_solve, 4 h per ILP; ours GLPK, 2 s per destination, destinations that run out keep the best heuristic's answer and are not counted as proven)."
	echo
	table_I_II "Table I: total LIDs, shortest-widest paths" shortest-widest "$paper_I"
	table_I_II "Table II: total LIDs, path selection paths" path-selection "$paper_II"
	table_III_IV "Table III: against the ILP, shortest-widest" shortest-widest "$paper_III"
	table_III_IV "Table IV: against the ILP, path selection" path-selection "$paper_IV"
	echo "### Table VI: max link load (normalised: every machine sends 1 in all) and LIDs"
	echo
	echo "SRD is our fera (one LID per machine), renaming our dr (its LIDs count FERa's base tree as one configuration; LMC 4), separate is path selection + color/L (the rows of Table II)."
	echo
	echo "| conf. | fera load | LIDs | dr load | LIDs | separate load | LIDs | order | paper: SRD load | renaming load | LIDs | separate load | LIDs |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
	echo "$paper_VI" | while read -r conf sl sn rl rn pl pn; do
		[ "$(seeds I-II "$conf")" -gt 0 ] || continue
		fl=$(awk -F, -v c="$conf" '$1 == c && $3 == "fera" { s += $4; n++ } END { printf "%.2f", s / n }' "$vi")
		fn=$(awk -F, -v c="$conf" '$1 == c && $3 == "fera" { s += $5; n++ } END { printf "%.1f", s / n }' "$vi")
		dl=$(awk -F, -v c="$conf" '$1 == c && $3 == "dr" { s += $4; n++ } END { printf "%.2f", s / n }' "$vi")
		dn=$(awk -F, -v c="$conf" '$1 == c && $3 == "dr" { s += $5; n++ } END { printf "%.1f", s / n }' "$vi")
		ql=$(awk -F, -v c="$conf" '$1 == "I-II" && $2 == c && $4 == "path-selection" && $5 == "color/L" { s += $8; n++ } END { printf "%.2f", s / n }' "$csv")
		qn=$(mean I-II path-selection color/L "$conf")
		order=$(printf '%s fera\n%s dr\n%s separate\n' "$fl" "$dl" "$ql" | sort -g | awk '{ printf "%s%s", (NR > 1 ? " < " : ""), $2 }')
		echo "| $conf | $fl | $fn | $dl | $dn | $ql | $qn | $order | $sl | $rl | $rn | $pl | $pn |"
	done
	echo
	if [ -s "$reg" ]; then
		echo "### Regular fabrics (§VI-C) with up*/down* paths: total LIDs"
		echo
		echo "The paper routes tori by dimension order (one LID per machine without broken links); ours are up*/down* paths, so only the heuristics' order compares."
		echo
		echo "| fabric | broken | scheme | greedy | s-m/S | s-m/L | color/S | color/L | ILP |"
		echo "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
		awk -F, 'NR > 1 { k = $1 "|" $2 "|" $3; v[k, $4] = $5; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
			END { for (i = 1; i <= n; i++) { split(order[i], p, "|")
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], p[3],
					v[order[i], "greedy"], v[order[i], "split-merge/S"], v[order[i], "split-merge/L"],
					v[order[i], "color/S"], v[order[i], "color/L"], v[order[i], "ilp"] } }' "$reg"
		echo
	fi
} > "$md"
echo "wrote $md"
