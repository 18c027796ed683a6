#!/usr/bin/env bash
# teppich markers: sheets, boards, detection, and their errors.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP

expect_exit 0 "$TEPPICH" markers sheet --out "$T/sheet.pdf"
head -c 5 "$T/sheet.pdf" | grep -q '%PDF-' || fail "sheet.pdf is not a PDF"
expect_exit 0 "$TEPPICH" markers sheet --out "$T/letter.pdf" --paper letter --ids 0-9 --size-mm 60
expect_exit 0 "$TEPPICH" markers sheet --out "$T/sheet.png" --dpi 72
expect_out 'wrote .*sheet.png: 4 markers of 4X4_50, 40 mm'
expect_exit 0 "$TEPPICH" markers board --out "$T/board.png" --dpi 72

# Bad sheet options: one line, exit 2, no file left behind.
for args in "--size-mm abc" "--dict 4X4_51" "--ids 0,60" "--ids 0-63 --size-mm 100"; do
  # shellcheck disable=SC2086
  expect_exit 2 "$TEPPICH" markers sheet --out "$T/bad.png" --dpi 72 $args
  expect_one_line_err
  [ -e "$T/bad.png" ] && fail "bad.png written for $args"
done
expect_exit 2 "$TEPPICH" markers sheet
expect_err 'required'
expect_exit 2 "$TEPPICH" markers sheet --out "$T/sheet.txt"
expect_err 'pdf or .png'
expect_exit 2 "$TEPPICH" markers nonsense
expect_one_line_err

# Detection of the printed sheet: ids and corners in spec section 3 form.
expect_exit 0 "$TEPPICH" markers detect "$T/sheet.png" --json
expect_out '^\{"markers": \['
n=$(grep -c '"corners_px": \[\[' "$TEPPICH_TMP/out")
[ "$n" = 4 ] || fail "expected 4 markers, got $n"
expect_out '"id": 3, "corners_px": \[\[[0-9.]+, [0-9.]+\], '
expect_exit 0 "$TEPPICH" markers detect "$T/sheet.png"
expect_out '4 markers of 4X4_50'
expect_exit 0 "$TEPPICH" markers detect "$T/board.png" --dict DICT_5X5_100
expect_out '17 markers of 5X5_100'

# Another dictionary finds nothing: exit 1, still valid JSON on stdout.
expect_exit 1 "$TEPPICH" markers detect "$T/sheet.png" --dict 6X6_250 --json
expect_out '^\{"markers": \[\]\}$'
expect_one_line_err
expect_exit 2 "$TEPPICH" markers detect "$T/sheet.png" --dict NOPE
expect_one_line_err

# AprilTag: libapriltag (auto, apriltag) and OpenCV (opencv) report the same
# ids and corners within 1 px, also for 8 mm tags (~16 px) on a 50 dpi sheet.
for size in 40 8; do
  expect_exit 0 "$TEPPICH" markers sheet --out "$T/tags$size.png" --dict APRILTAG_36h11 \
    --ids 0-7 --size-mm "$size" --dpi 50
  for b in opencv apriltag auto; do
    expect_exit 0 "$TEPPICH" markers detect "$T/tags$size.png" --dict APRILTAG_36h11 \
      --backend "$b" --json
    cp "$T/out" "$T/tags$size-$b.json"
  done
  n=$(grep -c '"corners_px"' "$T/tags$size-apriltag.json")
  [ "$n" = 8 ] || fail "libapriltag found $n of 8 tags of $size mm"
  for b in apriltag auto; do
    ids_cv=$(grep -o '"id": [0-9]*' "$T/tags$size-opencv.json" | tr '\n' ' ')
    ids_at=$(grep -o '"id": [0-9]*' "$T/tags$size-$b.json" | tr '\n' ' ')
    [ "$ids_cv" = "$ids_at" ] || fail "$b ids '$ids_at' differ from opencv's '$ids_cv'"
    worst=$(paste <(grep -Eo '[0-9]+\.[0-9]+' "$T/tags$size-opencv.json") \
                  <(grep -Eo '[0-9]+\.[0-9]+' "$T/tags$size-$b.json") |
            awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d } END { print m + 0 }')
    awk -v w="$worst" 'BEGIN { exit !(w < 1) }' || fail "$b corners $worst px from opencv's"
  done
done
expect_exit 2 "$TEPPICH" markers detect "$T/tags40.png" --dict APRILTAG_36h11 --backend quick
expect_err "auto, opencv or apriltag"
expect_one_line_err
expect_exit 2 "$TEPPICH" markers detect "$T/sheet.png" --backend apriltag
expect_err "APRILTAG_"
expect_one_line_err

# Unreadable input: exit 2, one line naming the file.
echo "not an image" >"$T/text.png"
expect_exit 2 "$TEPPICH" markers detect "$T/text.png"
expect_err 'text.png: not an image'
expect_one_line_err
head -c 3000 "$T/sheet.png" >"$T/cut.png"
expect_exit 2 "$TEPPICH" markers detect "$T/cut.png"
expect_err 'truncated'
expect_one_line_err
expect_exit 2 "$TEPPICH" markers detect "$T/missing.png"
expect_err 'missing.png'
expect_one_line_err
finish
