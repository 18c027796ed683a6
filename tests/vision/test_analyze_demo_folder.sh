#!/usr/bin/env bash
# The built-in demo deck and its folder (teppich render deck) are one
# deck: analyze decides the same with either. The analysis's faces come in
# the deck's order and ties between them go to the first, so the built-in
# deck must list its carpets in a folder's order (by name): in normal
# scene 3009 the built-in deck listed red first and missed the green
# carpet that the folder's analysis finds.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP

expect_exit 0 "$TEPPICH" render deck --out "$T/demo"
expect_exit 0 "$TEPPICH" render --random 3009 --out "$T/s.jpg"
# the JSON without its timings
decisions() { sed '/"profile_ms":/,$d' "$T/out"; }
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg" --json
decisions > "$T/built-in.json"
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg" --deck "$T/demo" --json
decisions > "$T/folder.json"
grep -q '"colour":[[:space:]]*"green"' "$T/folder.json" || fail "the folder's analysis lost the green carpet"
diff "$T/built-in.json" "$T/folder.json" > "$T/diff" ||
  fail "the built-in deck and its folder decide differently: $(head -c 600 "$T/diff")"
finish
