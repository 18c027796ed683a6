#!/usr/bin/env bash
# teppich calibrate: table frame from a photo, the file, and bad input.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP

# A flat sheet photographed straight on: marker 0 at the origin, 1 on +x.
"$TEPPICH" markers sheet --out "$T/sheet.png" --dpi 72 >/dev/null || fail "sheet"
expect_exit 0 "$TEPPICH" calibrate "$T/sheet.png" --out "$T/calib.json" --annotate "$T/ann.png"
expect_out '^markers seen: 4 \(0 1 2 3\) in 1 image of 596x842'
expect_out 'estimated accuracy: [0-9.]+ mm'
expect_out 'wrote .*calib.json'
grep -Eq '"format":[[:space:]]*"teppich-calibration"' "$T/calib.json" || fail "calib.json format"
grep -q '"homography_table_to_image"' "$T/calib.json" || fail "calib.json homography"
head -c 4 "$T/ann.png" | grep -q 'PNG' || fail "annotated image is not a PNG"
expect_exit 0 "$TEPPICH" calibrate "$T/sheet.png" --out "$T/c2.json" --json --marker-mm 40.0
expect_out '"version":[[:space:]]*1'

# A folder of photos.
mkdir -p "$T/folder" && cp "$T/sheet.png" "$T/folder/a.png" && cp "$T/sheet.png" "$T/folder/b.png"
expect_exit 0 "$TEPPICH" calibrate "$T/folder" --out "$T/c3.json"
expect_out 'in 2 images'

# A rendered table photo.
if "$TEPPICH" render --random 5 --out "$T/render.jpg" >/dev/null 2>&1; then
  expect_exit 0 "$TEPPICH" calibrate "$T/render.jpg" --out "$T/c4.json"
  expect_out 'markers seen: 4'
fi

# Only one marker, the wrong ones, another dictionary, nothing at all.
"$TEPPICH" markers sheet --out "$T/one.png" --dpi 72 --ids 0 >/dev/null
expect_exit 1 "$TEPPICH" calibrate "$T/one.png" --out "$T/x.json"
expect_err 'marker 1 \(the top-right corner\) not seen'
expect_one_line_err
"$TEPPICH" markers sheet --out "$T/other.png" --dpi 72 --ids 10-13 >/dev/null
expect_exit 1 "$TEPPICH" calibrate "$T/other.png" --out "$T/x.json"
expect_err 'markers 10 11 12 13 but none of the frame markers 0 1 2 3'
expect_one_line_err
expect_exit 0 "$TEPPICH" calibrate "$T/other.png" --out "$T/x.json" --ids 10,11,12,13
"$TEPPICH" markers sheet --out "$T/six.png" --dpi 72 --dict 6X6_250 >/dev/null
expect_exit 1 "$TEPPICH" calibrate "$T/six.png" --out "$T/x.json"
expect_err 'use --dict 6X6_'
expect_one_line_err
[ -e "$T/x.json" ] && rm "$T/x.json"

# Bad options: exit 2.
for args in "--marker-mm 0" "--marker-mm big" "--ids 0,1,1,2" "--ids 0,1,2,99"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$TEPPICH" calibrate "$T/sheet.png" --out "$T/x.json" $args
  expect_one_line_err
done
[ -e "$T/x.json" ] && fail "x.json written despite errors"
expect_exit 2 "$TEPPICH" calibrate
expect_exit 2 "$TEPPICH" calibrate "$T/sheet.png" --bogus

# Unreadable input.
echo "hello" >"$T/text.jpg"
expect_exit 2 "$TEPPICH" calibrate "$T/text.jpg" --out "$T/x.json"
expect_err 'not an image'
expect_one_line_err
mkdir -p "$T/empty"
expect_exit 2 "$TEPPICH" calibrate "$T/empty" --out "$T/x.json"
expect_err 'no .png/.jpg images'
expect_exit 2 "$TEPPICH" calibrate "$T/nothere.png" --out "$T/x.json"
expect_one_line_err

# A corrupt calibration file given as --lens.
printf '{"format": "teppich-calibration", "version": 1, "image_size": [1, 2], "lens": {"model": 3}}' >"$T/bad.json"
expect_exit 2 "$TEPPICH" calibrate "$T/sheet.png" --out "$T/x.json" --lens "$T/bad.json"
expect_err 'bad.json'
expect_one_line_err
head -c 100 "$T/calib.json" >"$T/cut.json"
expect_exit 2 "$TEPPICH" calibrate "$T/sheet.png" --out "$T/x.json" --lens "$T/cut.json"
expect_err 'not valid JSON'

# Lens calibration needs board photos: one is not enough.
"$TEPPICH" markers board --out "$T/board.png" --dpi 72 >/dev/null
expect_exit 1 "$TEPPICH" calibrate lens "$T/board.png" --out "$T/lens.json"
expect_err 'at least 3'
expect_one_line_err
expect_exit 2 "$TEPPICH" calibrate lens --out "$T/lens.json"
finish
