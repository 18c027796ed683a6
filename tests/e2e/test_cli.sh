#!/usr/bin/env bash
# The command line itself: help, version, unknown commands.
. "$(dirname "$0")/lib.sh"

expect_exit 0 "$TEPPICH" --version
expect_out '^teppich [0-9]+\.[0-9]+\.[0-9]+$'
expect_exit 0 "$TEPPICH" help
expect_out '^usage: teppich'
# the summaries start in one column, also after the longest command name
cols=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ {
  match($0, /^  [a-z-]+ +/); print RLENGTH }' "$TEPPICH_TMP/out" | sort -u | wc -l)
[ "$cols" = 1 ] || fail "the command summaries start in $cols different columns"
expect_exit 2 "$TEPPICH"
expect_exit 2 "$TEPPICH" no-such-command
expect_err "'no-such-command' is not a teppich command"
expect_one_line_err
finish
