#!/usr/bin/env bash
# teppich analyze gives the same answer with 1, 2 and 4 worker threads
# (--threads): the matcher's workers each score their own hypotheses and
# the choices are made in one thread, in a fixed order (docs/analyze.md);
# the outline ranking and the accepted cards' types are shared out too
# (2 and 4 workers share the items out differently).
# The JSON is compared byte for byte, without the timing block
# (profile_ms). The table mapping comes from one calibration file, so
# only the analysis itself is compared, not OpenCV's marker detection.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
D=$TEPPICH_SOURCE_DIR/tests/vision

# the JSON without its timing block (spec section 4's profile_ms)
untimed() { sed '/"profile_ms":/,/}/d' "$1"; }

for scene in carpet-on-carpet; do
  expect_exit 0 "$TEPPICH" render "$D/scenes/$scene.json" --size 1280x720 --out "$T/$scene.jpg"
  expect_exit 0 "$TEPPICH" calibrate "$T/$scene.jpg" --out "$T/$scene.cal.json"
  for n in 1 2 4; do
    expect_exit 0 "$TEPPICH" analyze "$T/$scene.jpg" --calib "$T/$scene.cal.json" --json --threads "$n"
    untimed "$T/out" >"$T/$scene.$n.json"
  done
  grep -q '"type":' "$T/$scene.1.json" || fail "$scene: no card found, nothing compared"
  for n in 2 4; do
    cmp -s "$T/$scene.1.json" "$T/$scene.$n.json" ||
      fail "$scene: --threads 1 and $n differ: $(diff "$T/$scene.1.json" "$T/$scene.$n.json" | head -3)"
  done
done

# the option's own errors: exit 2, one line
expect_exit 2 "$TEPPICH" analyze "$T/carpet-on-carpet.jpg" --threads 0
expect_err "--threads wants 1..16"
expect_one_line_err
finish
