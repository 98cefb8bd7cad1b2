#!/usr/bin/env bash
# Quick start, second command: set up and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
exec ./scripts/run-tests.sh
