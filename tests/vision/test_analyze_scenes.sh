#!/usr/bin/env bash
# teppich analyze through its command line on rendered scenes (the scenes'
# accuracy is checked one by one by check_scene.sh): JSON, players, the
# annotated picture, an empty table (honest empty result), a table without
# markers (exit 1 with advice), and a calibration file.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
D=$TEPPICH_SOURCE_DIR/tests/vision

# a scene through the command line, with JSON, players and a picture
expect_exit 0 "$TEPPICH" render "$D/scenes/easy-18.json" --out "$T/s.jpg"
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg" --json --annotate "$T/a.png"
expect_out '"markers_seen":'
expect_out '"claims":'
[ -s "$T/a.png" ] || fail "no annotated picture"
ls "$T" | grep -q '\.tmp' && fail "a temporary file was left behind"
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg" --players anna=red+yellow,ben=blue+green
expect_out "(anna|ben) takes"
grep -q "nobody's in --players" "$T/out" && fail "a carpet of the players said to be nobody's"
# a carpet colour --players does not name plays as its colour, and says so
expect_exit 0 "$TEPPICH" analyze "$T/s.jpg" --players anna=red+blue
expect_out "^The (green|yellow) carpet is nobody's in --players: it plays as (green|yellow)\.$"
expect_exit 2 "$TEPPICH" analyze "$T/s.jpg" --players "anna="
expect_one_line_err

# an empty table: nothing, and says so (JSON and summary)
expect_exit 0 "$TEPPICH" render "$D/scenes/empty.json" --size 960x540 --out "$T/empty.png"
expect_exit 0 "$TEPPICH" analyze "$T/empty.png" --json
expect_out '"cards":[[:space:]]*\[\]'
expect_out '"carpets":[[:space:]]*\[\]'
expect_out '"markers_seen":[[:space:]]*\[0, 1, 2, 3\]'

# the same empty table through a calibration file made from it
expect_exit 0 "$TEPPICH" calibrate "$T/empty.png" --out "$T/cal.json"
expect_exit 0 "$TEPPICH" analyze "$T/empty.png" --calib "$T/cal.json"
expect_out "^0 cards and 0 carpets"
# a calibration of another picture size would misplace everything: refused
expect_exit 2 "$TEPPICH" analyze "$T/s.jpg" --calib "$T/cal.json"
expect_err "cal.json: made for 960x540 photos, this one is 1920x1080"
expect_one_line_err

# no markers in view: exit 1 and what to do
echo '{"markers": []}' >"$T/nomk.json"
expect_exit 0 "$TEPPICH" render "$T/nomk.json" --size 960x540 --out "$T/nomk.png"
expect_exit 1 "$TEPPICH" analyze "$T/nomk.png"
expect_err "markers"
expect_one_line_err
finish
