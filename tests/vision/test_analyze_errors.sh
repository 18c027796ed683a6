#!/usr/bin/env bash
# teppich analyze: bad usage and bad input give one clear line and the exit
# status of spec section 5, never a crash.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP

expect_exit 0 "$TEPPICH" analyze --help
expect_out "usage: teppich analyze IMAGE"
expect_exit 2 "$TEPPICH" analyze
expect_one_line_err
expect_exit 2 "$TEPPICH" analyze --bogus x.png
expect_err "unknown or incomplete option"
expect_exit 2 "$TEPPICH" analyze "$T/missing.png" --deck "$T"
expect_one_line_err

# a truncated image
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x02' >"$T/cut.png"
mkdir -p "$T/deck"
expect_exit 2 "$TEPPICH" analyze "$T/cut.png" --deck "$T/deck"
expect_one_line_err

# a deck folder with an unknown file name
cp "$T/cut.png" "$T/deck/castle.png"
expect_exit 2 "$TEPPICH" analyze "$T/cut.png" --deck "$T/deck"
expect_err "castle.png"
expect_one_line_err
finish
