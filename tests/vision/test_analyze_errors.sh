#!/usr/bin/env bash
# teppich analyze: bad usage and bad input give one clear line naming the
# file and the exit status of spec section 5 (2: bad usage or an
# unreadable/invalid file; 1: read, but no table markers), never a crash.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP

# expect_bad CODE PATTERN CMD...: exit CODE, one line on stderr matching
# PATTERN (usually the file's name), nothing on stdout.
expect_bad() {
  local code=$1 pattern=$2; shift 2
  expect_exit "$code" "$@"
  expect_err "$pattern"
  expect_one_line_err
  [ -s "$T/out" ] && fail "stdout not empty: $*"
}

expect_exit 0 "$TEPPICH" analyze --help
expect_out "usage: teppich analyze IMAGE"
expect_exit 2 "$TEPPICH" analyze
expect_one_line_err
expect_bad 2 "unknown or incomplete option" "$TEPPICH" analyze --bogus x.png
expect_bad 2 "more than one IMAGE" "$TEPPICH" analyze a.png b.png
expect_bad 2 "--deck" "$TEPPICH" analyze a.png --deck

# a good deck folder to spoil, and a photo of something else
expect_exit 0 "$TEPPICH" render deck --out "$T/deck"
spoil() { rm -rf "$T/d" && cp -r "$T/deck" "$T/d"; }

# images: missing, empty, a folder, truncated PNG and JPEG, a huge header
expect_bad 2 "missing.png" "$TEPPICH" analyze "$T/missing.png"
: >"$T/zero.jpg"
expect_bad 2 "zero.jpg" "$TEPPICH" analyze "$T/zero.jpg"
mkdir -p "$T/folder.png"
expect_bad 2 "folder.png" "$TEPPICH" analyze "$T/folder.png"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x02' >"$T/cut.png"
expect_bad 2 "cut.png" "$TEPPICH" analyze "$T/cut.png"
echo '{"markers": [], "camera": {"resolution": [320, 240]}}' >"$T/small.json"
expect_exit 0 "$TEPPICH" render "$T/small.json" --out "$T/small.jpg"
head -c "$(($(wc -c <"$T/small.jpg") / 2))" "$T/small.jpg" >"$T/cut.jpg"
expect_bad 2 "cut.jpg" "$TEPPICH" analyze "$T/cut.jpg"
# a valid PNG header of 60000 x 60000 pixels (3.6 gigapixels) in 74 bytes
printf '\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\xea\x60\x00\x00\xea\x60\x08\x02\x00\x00\x00\x0f\xb0\xe2\x15\x00\x00\x00\x11\x49\x44\x41\x54\x78\x9c\x63\x60\x18\x05\xa3\x60\x14\x0c\x77\x00\x00\x03\xe8\x00\x01\xb3\xa6\xd3\x46\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82' >"$T/huge.png"
expect_bad 2 "huge.png: image is 60000x60000" "$TEPPICH" analyze "$T/huge.png"
# a photo of something else (a card face, no markers): read, but no table
expect_bad 1 "palace.png: no .* markers found" "$TEPPICH" analyze "$T/deck/palace.png"
# a table without markers (rendered noise-free blank): the same
expect_bad 1 "small.jpg: no .* markers" "$TEPPICH" analyze "$T/small.jpg"

# deck folders: missing, empty, an unknown name, unreadable or truncated
# images, a bad deck.json, a back without its face
expect_bad 2 "nodeck: cannot open the deck folder" "$TEPPICH" analyze "$T/cut.png" --deck "$T/nodeck"
mkdir -p "$T/emptydeck"
expect_bad 2 "emptydeck: no destination card images" "$TEPPICH" analyze "$T/cut.png" --deck "$T/emptydeck"
spoil; cp "$T/cut.png" "$T/d/castle.png"
expect_bad 2 "castle.png" "$TEPPICH" analyze "$T/cut.png" --deck "$T/d"
spoil; echo "not a picture" >"$T/d/lamp.png"
expect_bad 2 "d/lamp.png: not an image" "$TEPPICH" analyze "$T/small.jpg" --deck "$T/d"
spoil; head -c 3000 "$T/deck/treasure.png" >"$T/d/treasure.png"
expect_bad 2 "d/treasure.png" "$TEPPICH" analyze "$T/small.jpg" --deck "$T/d"
spoil; : >"$T/d/desert.jpg"
expect_bad 2 "d/desert.jpg" "$TEPPICH" analyze "$T/small.jpg" --deck "$T/d"
spoil; echo '{"card_mm": [59' >"$T/d/deck.json"
expect_bad 2 "d/deck.json" "$TEPPICH" analyze "$T/small.jpg" --deck "$T/d"
spoil; echo '{"card_mm": [-5, 91]}' >"$T/d/deck.json"
expect_bad 2 "d/deck.json" "$TEPPICH" analyze "$T/small.jpg" --deck "$T/d"
spoil; rm "$T/d"/carpet-*.png
expect_bad 2 "no carpet images" "$TEPPICH" analyze "$T/small.jpg" --deck "$T/d"
spoil; cp "$T/deck/carpet-red.png" "$T/d/carpet-pink-back.png"
expect_bad 2 "carpet-pink-back without carpet-pink" "$TEPPICH" analyze "$T/small.jpg" --deck "$T/d"
# a deck that omits types not in play is fine: the photo's problem remains
spoil; rm "$T/d/palace.png" "$T/d/desert.png"
expect_bad 1 "small.jpg: no .* markers" "$TEPPICH" analyze "$T/small.jpg" --deck "$T/d"

# calibration files: missing, not JSON, truncated, not a calibration
expect_bad 2 "nocal.json: cannot open" "$TEPPICH" analyze "$T/small.jpg" --calib "$T/nocal.json"
echo garbage >"$T/g.json"
expect_bad 2 "g.json: not valid JSON" "$TEPPICH" analyze "$T/small.jpg" --calib "$T/g.json"
echo '{"format": "teppich-calibration", "version": 1, "table": {"homogr' >"$T/t.json"
expect_bad 2 "t.json" "$TEPPICH" analyze "$T/small.jpg" --calib "$T/t.json"
echo '{}' >"$T/e.json"
expect_bad 2 "e.json: 'format'" "$TEPPICH" analyze "$T/small.jpg" --calib "$T/e.json"
echo '{"format": "teppich-calibration", "version": 1, "image_size": [320, 240],
  "table": {"dictionary": "4X4_50", "marker_mm": 40, "frame_ids": [0, 1, 2, 3],
  "homography_table_to_image": [[1, 0], [0, 1]]}}' >"$T/h.json"
expect_bad 2 "h.json: .*homography" "$TEPPICH" analyze "$T/small.jpg" --calib "$T/h.json"
sed 's/\[\[1, 0\], \[0, 1\]\]/[[0, 0, 0], [0, 0, 0], [0, 0, 1]]/' "$T/h.json" >"$T/z.json"
expect_bad 2 "z.json" "$TEPPICH" analyze "$T/small.jpg" --calib "$T/z.json"

# eval --scene (the harness of the scene tests): bad scene files and usage
expect_bad 2 "noscene.json: cannot open" "$TEPPICH" eval --scene "$T/noscene.json"
echo '{"cards": [{"type": "castle", "center_mm": [0, 0]}]}' >"$T/bad-scene.json"
expect_bad 2 "bad-scene.json" "$TEPPICH" eval --scene "$T/bad-scene.json"
expect_bad 2 "nodeck" "$TEPPICH" eval --count 1 --deck "$T/nodeck"
expect_bad 2 "nodeck" "$TEPPICH" eval --scene "$T/small.json" --deck "$T/nodeck"
ls "$T/d" | grep -q '\.tmp' && fail "a temporary file was left behind"
finish
