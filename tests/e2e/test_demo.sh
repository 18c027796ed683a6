#!/usr/bin/env bash
# The README's main command: `teppich demo` plays the built-in game to its
# final table. The rendered game (the default, minutes of CPU) is checked
# by tests/watch/test_watch_demo.sh; here the simulated one (seconds) runs
# the same command's plumbing: commentary, events, final table.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$TEPPICH" demo --help
expect_out '^usage: teppich demo'
expect_exit 0 "$TEPPICH" demo --simulated --fast --events "$TEPPICH_TMP/events.jsonl"
expect_out 'Final scores'
expect_out '^Winners?: '
grep -q '"event": *"final"' "$TEPPICH_TMP/events.jsonl" ||
  fail "no final event in the demo's events"
expect_exit 2 "$TEPPICH" demo --no-such-option
expect_one_line_err
finish
