#!/usr/bin/env bash
# capture end to end through the real binary: every replay source, the
# commands (cameras, snapshot, record), and live sources on a machine
# without cameras (exit 1 with a helpful message, no hang).
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
make_fixtures=$1
fx=$TEPPICH_TMP/fx
"$make_fixtures" "$fx" || { echo "cannot make fixtures"; exit 1; }

# help
expect_exit 0 "$TEPPICH" record --help
expect_out "usage: teppich record"

# snapshot from every replay source
for src in "file:$fx/still.jpg" "$fx/still.png" "dir:$fx/game@5" \
           "video:$fx/clip.avi"; do
  rm -f "$TEPPICH_TMP/snap.jpg"
  expect_exit 0 "$TEPPICH" snapshot --source "$src" --out "$TEPPICH_TMP/snap.jpg"
  expect_out "^wrote .*snap.jpg \(64x48"
  [ -s "$TEPPICH_TMP/snap.jpg" ] || fail "no snapshot from $src"
done

# record a replay, then replay the recording
expect_exit 0 "$TEPPICH" record --source "dir:$fx/game@10" --fast --seconds 0.55 \
  --out "$TEPPICH_TMP/rec"
expect_out "^recorded 6 frames to .*rec \(dropped 0, late 0"
[ "$(ls "$TEPPICH_TMP/rec" | grep -c '^frame-0000[0-9][0-9].jpg$')" = 6 ] ||
  fail "record wrote $(ls "$TEPPICH_TMP/rec" | wc -l) files"
grep -q '"camera": "replay folder"' "$TEPPICH_TMP/rec/capture.json" || fail "no camera in metadata"
grep -q '"t_ms": 500.000' "$TEPPICH_TMP/rec/capture.json" || fail "no timestamps in metadata"
expect_exit 0 "$TEPPICH" record --source "dir:$TEPPICH_TMP/rec" --fast --seconds 100 \
  --gray --out "$TEPPICH_TMP/rec2"
expect_out "^recorded 6 frames"
# a folder with a missing and a corrupt frame: counted, not fatal
expect_exit 0 "$TEPPICH" record --source "dir:$fx/gaps" --fast --seconds 100 \
  --frames 3 --out "$TEPPICH_TMP/rec4"
expect_out "^recorded 3 frames .*dropped 2"

# bad replay input: exit 2, one line naming the problem
expect_exit 2 "$TEPPICH" snapshot --source "file:$fx/corrupt.jpg" --out "$TEPPICH_TMP/x.jpg"
expect_err "corrupt.jpg"
expect_one_line_err
[ -e "$TEPPICH_TMP/x.jpg" ] && fail "partial output after an error"
expect_exit 2 "$TEPPICH" snapshot --source "webcam:0" --out "$TEPPICH_TMP/x.jpg"
expect_err "libcamera\[:INDEX\|:ID\], v4l2:/dev/videoN"
expect_one_line_err
expect_exit 2 "$TEPPICH" record --source "dir:$fx/game" --size 12 --seconds 1 --out "$TEPPICH_TMP/r"
expect_err "bad value '12' for --size"

# calibrate on a replayed source (a rendered table with its markers), with
# the shared capture options passed through
mkdir -p "$TEPPICH_TMP/table"
expect_exit 0 "$TEPPICH" render --random 3 --difficulty easy --out "$TEPPICH_TMP/table/frame-000001.jpg"
expect_exit 0 "$TEPPICH" calibrate --source "dir:$TEPPICH_TMP/table" --frames 1 --fast \
  --out "$TEPPICH_TMP/calib.json"
expect_out "markers seen: 4"
[ -s "$TEPPICH_TMP/calib.json" ] || fail "calibrate --source wrote no calibration"

# the benchmark runs and prints a row per source (numbers are not checked)
expect_exit 0 "$TEPPICH" capture-bench --frames 2 --size 64x48
expect_out "dir: JPEG, gray +[0-9.]+ ms"
expect_out "hand-off: libcamera Y plane as view"

# live sources on this machine: no camera (skipped where one exists)
if ! ls /dev/video* >/dev/null 2>&1; then
  expect_exit 1 "$TEPPICH" snapshot --source v4l2:/dev/video0 --out "$TEPPICH_TMP/x.jpg"
  expect_err "no camera at /dev/video0: is the webcam plugged in"
  expect_one_line_err
  expect_exit 1 "$TEPPICH" calibrate --source v4l2:/dev/video0 --size 640x480 \
    --out "$TEPPICH_TMP/x.json"
  expect_err "no camera at /dev/video0"
  expect_exit 1 "$TEPPICH" snapshot --source libcamera --out "$TEPPICH_TMP/x.jpg"
  expect_err "no libcamera camera found|built without libcamera"
  expect_one_line_err
  expect_exit 1 "$TEPPICH" cameras
  expect_out "no cameras found"
  expect_out "ribbon cable"
  expect_err "no camera found"
  [ -e "$TEPPICH_TMP/x.jpg" ] && fail "output written without a camera"
fi
finish
