#!/usr/bin/env bash
# teppich analyze on rendered scenes, compared with their truth: a scene of
# tests/vision/scenes and every regression scene must come out exactly
# right; an empty table gives an honest empty result; a table without
# markers is exit 1 with advice.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
D=$TEPPICH_SOURCE_DIR/tests/vision

for scene in "$D"/scenes/*.json "$D"/regress/*.json; do
  [ -f "$scene" ] || continue
  expect_exit 0 "$TEPPICH" eval --scene "$scene"
  expect_out "exactly right"
done

# the same scene through the command line, with JSON, players and a picture
expect_exit 0 "$TEPPICH" render "$D/scenes/easy-18.json" --out "$T/s.jpg"
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg" --json --annotate "$T/a.png"
expect_out '"markers_seen":'
expect_out '"claims":'
[ -s "$T/a.png" ] || fail "no annotated picture"
ls "$T" | grep -q '\.tmp' && fail "a temporary file was left behind"
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg" --players anna=red+yellow,ben=blue+green
expect_out "(anna|ben) takes"
expect_exit 2 "$TEPPICH" analyze "$T/s.jpg" --players "anna="
expect_one_line_err

# an empty table: nothing, and says so
echo '{}' >"$T/empty.json"
expect_exit 0 "$TEPPICH" render "$T/empty.json" --out "$T/empty.jpg"
expect_exit 0 "$TEPPICH" analyze "$T/empty.jpg" --json
expect_out '"cards":[[:space:]]*\[\]'

# no markers in view: exit 1 and what to do
echo '{"markers": []}' >"$T/nomk.json"
expect_exit 0 "$TEPPICH" render "$T/nomk.json" --out "$T/nomk.jpg"
expect_exit 1 "$TEPPICH" analyze "$T/nomk.jpg"
expect_err "markers"
expect_one_line_err
finish
