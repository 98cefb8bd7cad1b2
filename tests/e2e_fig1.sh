#!/bin/sh
# e2e_fig1.sh - the Fig. 1 subnet of the PIRa paper served by ibsim and
# routed by stock OpenSM with our plugin: the LFTs read back from the
# simulated switches are Fig. 6 (fera) and the PIRa table of Fig. 8
# (tests/fabrics/fig1-*.lft), and every common end-to-end check holds.
# The paper's figures come from its root (the SM's switch, LID 1) and its
# tie rule (the lowest port): `root sm` and `port_choice lowest`.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/e2e_lib.sh"
e2e_requirements

net=$FABRICS_DIR/fig1.net
printf 'root sm\nport_choice lowest\n' > "$TMP/paper.conf"
export IBROUTING_CONF=$TMP/paper.conf
export CHECK_ROUTE_ARGS="--root-strategy sm --port-choice lowest"
ibsim_start "$net"
for engine in fera pira; do
	opensm_run "fig1-$engine" "$engine"
	check_run "fig1-$engine" "$engine" "$net"
	expected=$FABRICS_DIR/fig1-$engine.lft
	grep -v '^#' "$expected" | sed 's/ *#.*//' | sort > "$TMP/expected"
	if cmp -s "$TMP/fig1-$engine/switches.lft" "$TMP/expected"; then
		pass "fig1-$engine: the switches hold exactly $(basename "$expected") ($(wc -l < "$TMP/expected") entries)"
	else
		flunk "fig1-$engine: the switches' tables differ from $(basename "$expected")"
		diff "$TMP/fig1-$engine/switches.lft" "$TMP/expected" | head | sed 's/^/# /'
	fi
done
finish
