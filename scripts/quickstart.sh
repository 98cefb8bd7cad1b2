#!/usr/bin/env bash
# Quick start, first command: install, build, and route the bundled Fig. 1
# fabric of the PIRa paper and a generated 256-switch fabric with PIRa and
# FERa, printing each run's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
[ -x configure ] || autoreconf -fi >/dev/null
mkdir -p build
cd build
[ -f Makefile ] || ../configure >/dev/null
make -j"$(nproc)" >/dev/null
for fabric in ../tests/fabrics/fig1.net gen:random:sw=256,ca=4096,seed=1; do
	for engine in pira fera; do
		echo "== ibrouting route -e $engine $fabric"
		./ibrouting route -e "$engine" "$fabric"
	done
done
