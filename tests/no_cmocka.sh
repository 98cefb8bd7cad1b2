#!/bin/sh
# no_cmocka.sh - stands in for the unit tests when configure found no
# cmocka (Debian libcmocka-dev): they were not built, and the log says so.
. "$(dirname "$0")/lib.sh"
skip "cmocka (Debian libcmocka-dev) was not found by configure: the unit tests were not built"
