#!/usr/bin/env bash
# publish.sh [DIR] - BENCHMARKS.md at the top of the tree from the results
# of a full bench.sh run in DIR (default bench/results): machine, date,
# versions, commands, the headline ratios, then the report's tables and
# the plots.  Every figure comes from DIR's CSVs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/bench/results}
csv=$dir/opensm.csv off=$dir/offline.csv
rel=${dir#"$top"/}

# mean over the 256-switch / 4096-CA random fabrics of one engine's window
mean_ms() { awk -F, -v e="$1" '$1 ~ /^random:sw=256;ca=4096/ && $4 == e && $6 != "?" { t += $6; n++ }
	END { if (n) printf "%.1f", t / n; else print "?" }' "$csv"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b; else print "?" }'; }
updn=$(mean_ms updn) pira=$(mean_ms pira) fera=$(mean_ms fera) zero=$(mean_ms zero-cost)
pira_nv=$(mean_ms pira-noverify) fera_nv=$(mean_ms fera-noverify)
off1024() { awk -F, -v e="$1" -v c="$2" '$1 == 1024 && $4 == e { print $c }' "$off"; }
ours_bad=$(awk -F, 'NR > 1 && ($4 ~ /^(pira|fera)/) && ($7 != "0" || $8 != "0" || $5 != $4) { n++ } END { print n + 0 }' "$csv")
ours_runs=$(awk -F, 'NR > 1 && ($4 ~ /^(pira|fera)/) { n++ } END { print n + 0 }' "$csv")
fabrics=$(awk -F, 'NR > 1 { print $1 }' "$csv" | sort -u | wc -l)

# The window split into our part and OpenSM's LFT push (bench/window.sh,
# its output kept in window.md by hand): a paragraph, or nothing.
window_split() {
	[ -f "$dir/window.md" ] || return 0
	cat <<END
Where the window goes: every window holds OpenSM's own LFT push (all
blocks of every switch: a fresh OpenSM sends them all), which zero-cost
measures alone; "ours" is the plugin's part, from "building routing
with" to its tables handed to OpenSM.  pira's window is OpenSM's share
plus ours, so its ratio to updn cannot fall below zero-cost's: the
target 0.10 holds only where OpenSM's share is under about 0.065x updn.
From $(sed -n 1p "$dir/window.md")

$(sed 1,2d "$dir/window.md")

END
}

# Multi-LID engines (bench/bench_lmc.sh): the targets, from lmc.csv.
lmc_section() {
	local c=$dir/lmc.csv
	[ -f "$c" ] || return 0
	# ratio ENGINE: "below in N of M runs (ENGINE / fera: lo to hi, mean m)"
	vs_fera() {
		awk -F, -v e="$1" '{ k = $1 SUBSEP $2 } $3 == "fera" { f[k] = $8 + 0 } $3 == e && $2 > 0 { d[k] = $8 + 0 }
			END { lo = 9; hi = 0; for (k in d) if (f[k] > 0 && d[k] > 0) {
				r = d[k] / f[k]; n++; s += r; b += (r < 1); t += (r <= 0.9)
				if (r < lo) lo = r; if (r > hi) hi = r }
			printf "below fera in %d of %d runs, 10%% below in %d (%s / fera: %.2f to %.2f, mean %.2f)", b, n, t, e, lo, hi, n ? s / n : 0 }' "$c"
	}
	loops() { awk -F, -v e="$1" '$3 == e && $7 != "?" { n++; if ($7 != "0") l++ } END { printf "%d of %d", l, n }' "$c"; }
	window() { awk -F, -v f="$1" -v l="$2" -v e="$3" '$1 ~ f && $2 == l && $3 == e { print $5; exit }' "$c"; }
	local order dr_win updn0 colorl_win
	order=$(awk -F, '{ k = $1 SUBSEP $2 } $3 == "fera" { f[k] = $8 + 0 } $3 == "dr" { d[k] = $8 + 0 } $3 == "colorl" { c[k] = $8 + 0 }
		END { for (k in c) if (c[k] > 0 && d[k] > 0 && f[k] > 0) { n++; o += (c[k] < d[k] && d[k] < f[k]) } printf "%d of %d", o, n }' "$c")
	dr_win=$(window '^random:sw=256;ca=4096' 2 dr)
	updn0=$(window '^random:sw=256;ca=4096' 0 updn)
	colorl_win=$(window '^random:sw=256;ca=4096' 3 colorl)
	cat <<END

## Multi-LID engines (dr, colorl) against fera, updn, minhop and dfsssp

Measured with \`bench/bench_lmc.sh\` at commit $(cat "$dir/lmc.commit" 2>/dev/null || echo "?"):
OpenSM over ibsim with \`lmc N\`, one run per fabric, LMC and engine (the
plugin writing no dumps of its own in the timed run), random 64 switches /
512 CAs (3 seeds) at LMC 1, 2, 3 and 256 / 4096 (1 seed) at LMC 2 and 3,
updn also at LMC 0.  Loads are measured by \`ibrouting verify\` on
OpenSM's dumps along the DLIDs hosts use: for dr and colorl their
designated DLIDs (the plugin's ibrouting-dlids.dump, what the SA hands
out), for the others base LIDs.

- dr's max link load: $(vs_fera dr).
- colorl's max link load: $(vs_fera colorl).
- colorl < dr < fera in max link load: $order fabric/LMC runs.
- dr's pairs off their shortest legal path (fallback pairs): runs with any
  $(awk -F, '$3 == "dr" && $2 > 0 && $13 != "0"' "$c" | wc -l) of $(awk -F, '$3 == "dr" && $2 > 0' "$c" | wc -l).
- The 256/4096 rows inside OpenSM are timed without dumps (loads "?":
  the dumps there run to hundreds of MB); the loads there are our
  engines' offline on the same file.  ibsim is started afresh for every
  run on that fabric (after a few runs at LMC 3 it once served a handful
  of nodes to the next); its LMC 3 rows come from a second session of the
  script (RUNS=...@3 APPEND=1), the LMC 2 and LMC 0 rows from the first.  The
  64/512 rows, measured before the script packed LIDs for updn at LMC 0,
  have updn at LMC 0 on LIDs aligned to 8 (the column "/ updn LMC 0").
- Routing window at 256 switches / 4096 CAs: dr at LMC 2 $dr_win ms,
  updn at LMC 0 $updn0 ms (ratio $(ratio "$dr_win" "$updn0"); target below 1:
  $(awk -v r="$(ratio "$dr_win" "$updn0")" 'BEGIN { print (r != "?" && r < 1) ? "met" : "not met" }')); colorl at LMC 3
  $colorl_win ms (target under 10 s: $(awk -v w="$colorl_win" 'BEGIN { print (w != "" && w != "?" && w < 10000) ? "met" : "not met" }')).
- Runs with an ibdmchk credit loop (one VL): dr $(loops dr), colorl
  $(loops colorl), fera $(loops fera), updn $(loops updn), minhop
  $(loops minhop), dfsssp $(loops dfsssp); loads of routes with credit
  loops are not those of deadlock-free routes (dfsssp is deadlock-free
  over several VLs, which ibdmchk's one-VL check does not see).

END
	cat "$dir/lmc.md"
	cat <<END

![multi-LID engines: max link load against fera](${rel}/lmc_load.png)
![multi-LID engines: routing window against updn at LMC 0](${rel}/lmc_window.png)
END
	[ ! -f "$dir/lids.md" ] || { echo; cat "$dir/lids.md"; }
}

# Balanced routing (bench/bench_balance.sh), from balance.csv/.md, and
# the random fabrics' seeds (balance-seeds.md) and the routing window
# split (balance-window.md, bench/window.sh's output
# kept by hand) when there is one.
balance_section() {
	local c=$dir/balance.csv
	[ -f "$c" ] || return 0
	# the normalised load of ENGINE on FABRIC (CSV fabric spelling: ; for ,)
	nl() { awk -F, -v f="$1" -v e="$2" '$1 == f && $4 == e { v = ($10 != "" && $10 != "?") ? $10 : $8; print v; exit }' "$c"; }
	bad=$(awk -F, 'NR > 1 && ($4 ~ /^(pira|fera|dr|colorl|pira\+fera)$/) && ($5 != $4 || $11 != "0" || $12 != "0") { n++ } END { print n + 0 }' "$c")
	runs=$(awk -F, 'NR > 1 && ($4 ~ /^(pira|fera|dr|colorl|pira\+fera)$/) { n++ } END { print n + 0 }' "$c")
	cat <<END

## Balanced routing: fat trees, Clos, degraded trees

Every engine, ours and OpenSM's, on the same fabric in one run, inside
OpenSM over ibsim, with our plugin's default options (\`root auto\`,
\`port_choice balanced\`); the load is read back from the switches.
Targets of the balanced-routing issue, on this run:

| target | measured | |
| --- | --- | --- |
| intact 8-ary 3-tree: fera <= 1.10x ftree | fera $(nl "kary:k=8;n=3" fera), ftree $(nl "kary:k=8;n=3" ftree) | $(ratio "$(nl "kary:k=8;n=3" fera)" "$(nl "kary:k=8;n=3" ftree)")x |
| intact 4-ary 3-tree: fera <= 1.10x ftree | fera $(nl "kary:k=4;n=3" fera), ftree $(nl "kary:k=4;n=3" ftree) | $(ratio "$(nl "kary:k=4;n=3" fera)" "$(nl "kary:k=4;n=3" ftree)")x |
| intact 8-ary 3-tree: pira <= 1.25x updn | pira $(nl "kary:k=8;n=3" pira), updn $(nl "kary:k=8;n=3" updn) | $(ratio "$(nl "kary:k=8;n=3" pira)" "$(nl "kary:k=8;n=3" updn)")x |
| intact 4-ary 3-tree: pira <= 1.25x updn | pira $(nl "kary:k=4;n=3" pira), updn $(nl "kary:k=4;n=3" updn) | $(ratio "$(nl "kary:k=4;n=3" pira)" "$(nl "kary:k=4;n=3" updn)")x |
| intact 8-ary 3-tree: dr, colorl (lmc 2, designated) <= 1.05x ftree | dr $(nl "kary:k=8;n=3" dr), colorl $(nl "kary:k=8;n=3" colorl) | $(ratio "$(nl "kary:k=8;n=3" colorl)" "$(nl "kary:k=8;n=3" ftree)")x |
| intact 4-ary 3-tree: dr, colorl (lmc 2, designated) <= 1.05x ftree | dr $(nl "kary:k=4;n=3" dr), colorl $(nl "kary:k=4;n=3" colorl) | $(ratio "$(nl "kary:k=4;n=3" dr)" "$(nl "kary:k=4;n=3" ftree)")x, $(ratio "$(nl "kary:k=4;n=3" colorl)" "$(nl "kary:k=4;n=3" ftree)")x |
| 8-ary 3-tree, 3% of links cut: fera <= 2.0 | fera $(nl "kary:k=8;n=3;cut=31;seed=1" fera), ftree: $(awk -F, '$1 == "kary:k=8;n=3;cut=31;seed=1" && $4 == "ftree" { print "used " $5 }' "$c") | |
| trees with links cut: fera <= 0.5x updn (updn~: over the CA pairs it delivers; "below the bound": 0.5x updn is under the load no routing goes below) | $(awk -F, 'NR > 1 && $1 ~ /^kary.*(cut|down)=/ && ($4 == "fera" || $4 == "updn") { v[$1, $4] = ($8 == "?" && $14 != "") ? $14 "~" : $8; b[$1] = $17; if (!($1 in s)) { s[$1] = 1; o[++n] = $1 } } END { for (i = 1; i <= n; i++) { f = o[i]; g = f; gsub(/;/, ",", g); u = v[f, "updn"]; sub(/~$/, "", u); r = (u + 0 > 0) ? sprintf("%.2fx", v[f, "fera"] / u) : "?"; if (u + 0 > 0 && u / 2 < b[f]) r = r ", 0.5x updn below the bound"; printf "%s: fera %s, updn %s, bound %s (%s); ", g, v[f, "fera"], v[f, "updn"], b[f], r } }' "$c") | |
| Clos 1:1 and 2:1: fera <= 1.10x updn | $(for o in 1 2; do f="clos:leaf=16;spine=8;uplinks=1;oversub=$o"; printf "%s:1 fera %s, updn %s (%sx); " "$o" "$(nl "$f" fera)" "$(nl "$f" updn)" "$(ratio "$(nl "$f" fera)" "$(nl "$f" updn)")"; done) | |
| random 64/512: fera <= 0.90x updn, root file naming fera's root | fera $(nl "random:sw=64;ca=512;seed=1" fera), updn $(nl "random:sw=64;ca=512;seed=1" updn-rootfile) | $(ratio "$(nl "random:sw=64;ca=512;seed=1" fera)" "$(nl "random:sw=64;ca=512;seed=1" updn-rootfile)")x |

Our engines: $runs runs; with a fallback, a verifier finding on the tables
read back or an ibdmchk credit loop: $bad.

END
	cat "$dir/balance.md"
	cat <<END

![balanced routing: normalised max link load per fabric and engine](${rel}/balance_load.png)
END
	[ ! -f "$dir/balance-seeds.md" ] || { echo; cat "$dir/balance-seeds.md"; }
	[ ! -f "$dir/balance-window.md" ] || { echo; cat "$dir/balance-window.md"; }
}

# The LMC engines at scale (bench/bench_scale.sh): scale.md (LMC 1) and
# scale-lmc0.md (LMC 0, up to the largest fabric the LID space holds),
# each with its .png; scale-step6.md, scale-step5.md and scale-step4.md
# (what the last steps found, written by hand); scale-step3.md and scale-2048-step3.md against
# scale-before.md and scale-2048-before.md (the third step of issue 20
# against the build before it, one run); scale-window.md (inside
# OpenSM); scale-profile.md (where the time and memory go, written by
# hand from perf).
scale_section() {
	[ -f "$dir/scale.md" ] || return 0
	cat <<END

## The LMC engines at scale (offline)

\`bench/bench_scale.sh\`: \`ibrouting route\` on random fabrics with 16
CAs a switch; pira, fera at its default port choice (balanced) and at
\`lowest\`, dr and colorl, with 1 and 2 worker threads (\`-j\`), minutes
apart on this shared machine; at LMC 1 up to 1024 switches / 16384 CAs
(LMC 1 at 2048 switches needs more LIDs than there are), at LMC 0 up to
2880 switches / 46080 CAs, the largest fabric of 16 CAs a switch whose
LIDs fit the 49151 unicast LIDs (4096 switches / 65536 CAs need 69632
LIDs: no InfiniBand subnet holds it).  The tables are byte-identical
across the thread counts (\`--dump-dir\`; tests/cli_threads.sh and
test_paths check it in CI).

END
	cat "$dir/scale.md"
	[ ! -f "$dir/scale.png" ] || { echo; echo "![compute time and peak RSS against switches, LMC 1](${rel}/scale.png)"; }
	[ ! -f "$dir/scale-lmc0.md" ] || { echo; cat "$dir/scale-lmc0.md"; }
	[ ! -f "$dir/scale-lmc0.png" ] || { echo; echo "![compute time and peak RSS against switches, LMC 0](${rel}/scale-lmc0.png)"; }
	[ ! -f "$dir/scale-step6.md" ] || { echo; cat "$dir/scale-step6.md"; }
	[ ! -f "$dir/scale-step5.md" ] || { echo; cat "$dir/scale-step5.md"; }
	[ ! -f "$dir/scale-step4.md" ] || { echo; cat "$dir/scale-step4.md"; }
	[ ! -f "$dir/scale-window.md" ] || { echo; cat "$dir/scale-window.md"; }
	if [ -f "$dir/scale-step3.md" ]; then
		echo
		echo "### Issue 20, third step, against the build before it (one run)"
		echo
		cat "$dir/scale-step3.md"
		[ ! -f "$dir/scale-before.md" ] || { echo; echo "Before:"; echo; cat "$dir/scale-before.md"; }
		[ ! -f "$dir/scale-2048-step3.md" ] || { echo; cat "$dir/scale-2048-step3.md"; }
		[ ! -f "$dir/scale-2048-before.md" ] || { echo; echo "Before:"; echo; cat "$dir/scale-2048-before.md"; }
	fi
	[ ! -f "$dir/scale-profile.md" ] || { echo; cat "$dir/scale-profile.md"; }
}

# The cost of one change offline (bench/bench_incremental.sh).
incremental_section() {
	[ -f "$dir/incremental.md" ] || return 0
	cat <<END

## One change, offline: from the prior tables or afresh

\`bench/bench_incremental.sh\`: the tables of a fabric, then one link cut
(the generator's \`cut=1\`, every other port, GUID and LID kept) and one
switch down with its CAs; fera, colorl and dr route from the tables in
place (\`ibrouting route --prior\`, what the plugin does after a change)
and afresh (\`-o incremental=0\`), on the same fabrics in one run.  Entries changed: on the switches there before, against the tables
before the change; "had to change": those whose port leads to the link
or switch gone.

END
	cat "$dir/incremental.md"
}

# Change assimilation (bench/bench_assim.sh), from assim.csv.
assim_section() {
	local c=$dir/assim.csv
	[ -f "$c" ] || return 0
	# per fabric and change: every engine's first (then final) tables, in
	# ms after the change and after its routing run began, and the blocks
	# OpenSM sent
	timeline_lines() {
		awk -F, 'function d(a, b) { return (a == "?" || b == "?") ? "?" : a - b }
			NR > 1 { k = $2 "/" $3 ", " (($6 == "link") ? "link cut" : "switch down")
			if (!(k in line)) order[++n] = k
			t = ($12 == $13) ? $12 " (" d($12, $11) ")" : $12 " then " $13 " (" d($12, $11) " then " d($13, $11) ")"
			line[k] = line[k] (line[k] == "" ? "" : ", ") $5 " " t
			b = $26; if ($27 != "") b = b " (" $27 " in the final pass)"
			blocks[k] = blocks[k] (blocks[k] == "" ? "" : ", ") $5 " " b }
			END { for (i = 1; i <= n; i++)
				printf "- %s, ms after the change (after the routing run began): %s.  LFT blocks sent: %s.\n",
					order[i], line[order[i]], blocks[order[i]] }' "$c"
	}
	# ENGINES-REGEX CHANGE: "lo% to hi%" of entries changed
	changed() { awk -F, -v e="$1" -v k="$2" 'NR > 1 && $5 ~ e && $6 == k && $24 != "?" { v = $24 + 0; n++
		if (n == 1 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
		END { if (n) printf "%.2f%% to %.2f%%", lo, hi; else printf "?" }' "$c"; }
	# span ENGINE WHAT: "lo to hi" over the rows of ENGINE of WHAT: push
	# (routing run to first tables), final (routing run to final
	# tables), sent (blocks sent), steps (re-routes), discovery (change
	# to routing run)
	span() { awk -F, -v e="$1" -v w="$2" 'NR > 1 && $5 == e {
		v = (w == "push") ? $12 - $11 : (w == "final") ? $13 - $11 : (w == "sent") ? $26 : (w == "steps") ? $34 : $11
		n++; if (n == 1 || v < lo) lo = v; if (n == 1 || v > hi) hi = v }
		END { if (n) printf "%d to %d", lo, hi; else printf "?" }' "$c"; }
	local hybrids
	hybrids=$(awk -F, 'NR > 1 && $5 ~ /\+/ { print $5 }' "$c" | sort -u | paste -sd, | sed 's/,/, /g')
	cat <<END

## Change assimilation: a link cut, a switch down

Measured with \`bench/bench_assim.sh\` at commit $(cat "$dir/assim.commit" 2>/dev/null || echo "?"):
one OpenSM daemon per fabric and engine over ibsim (our plugin,
sweep_interval 1, log_flags 0x07, force_log_flush), random fabrics
$(awk -F, 'NR > 1 { print $2 " switches / " $3 " CAs" }' "$c" | sort -un | paste -sd, | sed 's/,/ and /g');
8 CAs a switch, generated by \`ibrouting generate random:sw=S,ca=C,seed=1\`
(ibsim's node, switch and port tables sized to the fabric, -N/-S/-P, as
the end-to-end tests do); engines at LMC 0 on the fabric with packed
LIDs, colorl, dr, pira+colorl and pira+dr at LMC 2 on the same fabric
with LIDs aligned to 4.  The script notes the time, writes the
change to ibsim's console (\`Unlink "S-..."[p]\`: one inter-switch link;
\`Unlink "S-..."\`: every link of one switch, which takes its CAs with
it) and reads OpenSM's log: times are ms after that moment, from the
log's timestamps, the median round of $(awk -F, 'NR > 1 { print $31; exit }' "$c") (each change undone with
\`ReLink\` between rounds; ibsim started afresh for every engine).  The
link (inter-switch, away from the SM's switch) and the switch (not the
SM's, its removal leaving the switches connected) are picked from the
fabric file, the same for every engine.  First tables: the first
"SWITCHES CONFIGURED FOR UNICAST" box after the change (every LFT block
sent and acknowledged).  Final tables: for a hybrid the "REROUTE
COMPLETE" of the re-route whose INFO line says the final pass is done
(after its safe steps, if any); for the other engines the first tables.
A round ends when OpenSM has gone two light sweeps (the last a second
after the tables) without a new sweep or routing run.  After the first
round the switches' tables are read back (dump_fts over ibsim), written
as an opensm-lfts.dump beside OpenSM's subnet list of the changed fabric
and judged by \`ibrouting verify\` ("verified": every LID delivered from
every switch, no loop, an acyclic channel dependency graph; rows of updn
and minhop with a dependency cycle, their known credit loops:
$(awk -F, 'NR > 1 && $5 ~ /^(updn|minhop)$/ { n++; c += ($19 + 0 > 0) } END { printf "%d of %d", c, n }' "$c")).  A hybrid's
provisional tables are read back in a round of their own: OpenSM is
stopped (SIGSTOP) as soon as the provisional "SWITCHES CONFIGURED FOR
UNICAST" box is in its log, before its re-route pass, the switches are
read, OpenSM continues, and the tables are judged on the subnet list of
that sweep.  Entries changed: the tables read back after the change
against those read back before it, on the switches still there
(removed/added: entries that became or stopped being IBR_NO_PATH).
Blocks sent: the "Writing FT block" lines of OpenSM's set_lft_block in
another round of the same change with the log at DEBUG (not timed);
blocks changed: 64-LID blocks that differ between the read-backs.  More
blocks are sent than differ: set_lft_block compares each block with its
own copy of what it last sent the switch and sends a switch's whole
table when it has marked it need_update.  Rows whose change, undone,
gave back exactly the tables read back before it: $(awk -F, 'NR > 1 { n++; y += ($28 == "yes") } END { printf "%d of %d", y, n }' "$c");
kept where they went, verified (fera, colorl, dr and their hybrids
route from the prior tables, so the pairs a change moved stay moved
when it is undone): $(awk -F, 'NR > 1 { y += ($28 == "kept") } END { printf "%d", y }' "$c").

$(timeline_lines)
- Entries changed by a link cut: updn and minhop $(changed '^(updn|minhop)$' link),
  fera $(changed '^fera$' link), colorl $(changed '^colorl$' link), dr $(changed '^dr$' link) (from the prior tables: only the
  routes the change broke move); by a switch down (its own LIDs and those
  of its CAs removed): updn and minhop $(changed '^(updn|minhop)$' switch), fera $(changed '^fera$' switch), colorl $(changed '^colorl$' switch), dr $(changed '^dr$' switch).
  The SM evaluation paper (§4, Fig. 8b) reports under 2% after the change of one switch.
- Hybrid engines measured: ${hybrids:-none: the plugin at this commit registers no hybrid engine, so there are no pira+fera / pira+colorl rows}.
- Discovery (the change to the routing run, OpenSM's and the same work
  for every engine) took $(span fera discovery) ms in fera's rounds and varies
  from round to round as much as between engines; the engines' own share
  is the routing run to the tables.  From the routing run to the first
  tables: fera $(span fera push) ms, pira+fera $(span pira+fera push) (provisional); colorl
  $(span colorl push), pira+colorl $(span pira+colorl push) (provisional).  To the final
  tables: pira+fera $(span pira+fera final) ms, pira+colorl $(span pira+colorl final).
- Blocks: OpenSM sends only the blocks that differ from what it last sent
  a switch.  fera alone sends $(span fera sent) blocks after these changes,
  colorl $(span colorl sent), dr $(span dr sent).  The provisional pass mends the tables
  in place with PIRa's walks where they no longer hold (repair.h) and the
  final pass routes from the final tables in place (prior.h), so the
  hybrids send $(span pira+fera sent) (pira+fera), $(span pira+colorl sent) (pira+colorl) and $(span pira+dr sent) (pira+dr) blocks:
  $(awk -F, 'NR > 1 { k = $2 "/" $6; s[$5 "@" k] = $26; ks[k] = 1 }
	END { for (k in ks) for (h in s) if (h ~ /\+/ && index(h, "@" k)) {
		split(h, a, "@"); fin = substr(a[1], index(a[1], "+") + 1)
		if ((fin "@" k) in s && s[fin "@" k] > 0) { r = s[h] / s[fin "@" k]
			n++; if (n == 1 || r > hi) hi = r; if (n == 1 || r < lo) lo = r
			if (r > 2) over = over " " a[1] " (" k ")" } }
		printf "%.2fx to %.2fx the blocks of their final engine alone%s", lo, hi,
			over ? "; above 2x:" over : "" }' "$c").  pira+fera's final pass took
  up to $(span pira+fera steps | sed 's/.* //') re-routes (safe steps).  Inside OpenSM the hybrid buys first
  tables sooner than the final engine alone only where that engine is
  slow (colorl afresh); against fera it costs time and blocks.

END
	cat "$dir/assim.md"
	cat <<END

![change assimilation timelines](${rel}/assim_timeline.png)
END
}

{
	cat <<END
# Benchmarks

Measured $(date -u +%Y-%m-%d) on $(lscpu | sed -n 's/^Model name: *//p' | head -n 1),
$(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB, a shared machine; $(opensm --version 2>/dev/null | grep -m1 OpenSM),
ibsim-utils $(dpkg-query -W -f '${Version}' ibsim-utils 2>/dev/null), ibrouting at commit $(cat "$dir/commit" 2>/dev/null || git -C "$top" rev-parse --short HEAD).

Commands: \`bench/bench.sh\` (the whole suite: results in \`$rel/\`), then
\`bench/publish.sh\` (this page). CI runs \`bench/bench.sh --smoke\`.
Routing windows are OpenSM's own log timestamps from "building routing
with" to "tables configured" (median of 3 runs); every ratio is against
updn measured in the same run on the same fabric, with a root_guid_file
naming the switch our engines root at (the SM's switch).  \`zero-cost\` is a
benchmark-only engine that computes nothing, in a plugin of its own
(bench/zero_cost.c): OpenSM's own share of the window.  \`-noverify\` rows are our engines with
verify_before_push off; otherwise the plugin checks its tables before the
push with the certificate (verify_method certificate, the default: legal
up\\*/down\\* routes under the run's orientation), and every run here is
judged again afterwards by the full verifier and ibdmchk on OpenSM's
dumps.  The switch hop tables OpenSM's multicast manager and dumps read
are written by the plugin after the window, once OpenSM has configured
every LFT (libibrouting(8)); \`bench/window.sh\` times that part and the
rest of the sweep to SUBNET UP.

## Headline

On the random irregular 256-switch / 4096-CA fabrics (mean of 2 seeds):

| engine | routing window ms | / updn | target |
| --- | ---: | ---: | --- |
| updn (root file) | $updn | 1 | |
| zero-cost (OpenSM's share) | $zero | $(ratio "$zero" "$updn") | |
| pira | $pira | $(ratio "$pira" "$updn") | <= 0.1: $(awk -v r="$(ratio "$pira" "$updn")" 'BEGIN { print (r != "?" && r <= 0.1) ? "met" : "not met" }') |
| pira, verify_before_push no | $pira_nv | $(ratio "$pira_nv" "$updn") | |
| fera | $fera | $(ratio "$fera" "$updn") | <= 0.2: $(awk -v r="$(ratio "$fera" "$updn")" 'BEGIN { print (r != "?" && r <= 0.2) ? "met" : "not met" }') |
| fera, verify_before_push no | $fera_nv | $(ratio "$fera_nv" "$updn") | |

$(window_split)
Offline at 1024 switches / 16384 CAs: pira $(off1024 pira 5) ms, fera
$(off1024 fera 5) ms; writing every LFT byte once takes $(off1024 pira 7) ms
into warm memory (the tables fit this machine's 32 MiB L3) and $(off1024 pira 8) ms
into fresh pages: pira is $(ratio "$(off1024 pira 5)" "$(off1024 pira 8)")x the fresh-page bound
and $(ratio "$(off1024 pira 5)" "$(off1024 pira 7)")x the warm one (target: within 5x of the fresh-page
bound: $(awk -v r="$(ratio "$(off1024 pira 5)" "$(off1024 pira 8)")" 'BEGIN { print (r != "?" && r <= 5) ? "met" : "not met" }')).

Our engines: $ours_runs runs on $fabrics fabrics; runs with a fallback, a
verifier finding or an ibdmchk credit loop: $ours_bad.

![routing window](${rel}/route_time.png)
![max link load](${rel}/link_load.png)
![credit loops](${rel}/credit_loops.png)
![offline](${rel}/offline.png)

Notes on reading the tables:
- Our verifier and ibdmchk both check one VL.  lash, dfsssp and nue spread
  their routes over several VLs (SL-to-VL tables), so a cycle in the
  one-VL channel dependency graph is expected there and is not a deadlock
  for them; for minhop, updn and dnup it is a real credit loop.
- "unreachable" counts switch/LID pairs with no route: OpenSM's engines
  may leave switch-to-switch LIDs unrouted (ftree, dnup on Clos).
- A fallback shows as a different "used by OpenSM" engine.

END
	cat "$dir/report.md"
	balance_section
	lmc_section
	scale_section
	incremental_section
	assim_section
} > "$top/BENCHMARKS.md"
echo "wrote $top/BENCHMARKS.md"
