#!/usr/bin/env bash
# The layout's cards get their ids in the order they were laid (the rules
# settle a flight's genie contests in it): rendered hard game 4:843 lays
# round 3 out in no reading order, one card a frame with the layer's hand
# on it and no still frame until all twelve are down. watch follows those
# frames (rendered alone, at the Pi camera's 1920x1080) and must number
# the cards as the truth does. Before the watch read the order from the
# motion it numbered them in reading order (adventure C at 270,70 first).
# About 25 s of CPU (render ~17 s); skipped (77) under ASan+UBSan, where
# the render alone takes minutes (the motion's unit test runs there).
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
if [ "${TEPPICH_SANITIZED:-OFF}" = ON ] && [ "${TEPPICH_SLOW_TESTS:-}" != 1 ]; then
  echo "skipped: sanitizer build (TEPPICH_SLOW_TESTS=1 forces it)"
  exit 77
fi
frames=$(seq -s, 230 249) # round 2 over, round 3 laid out, still
expect_exit 0 "$TEPPICH" render --game 843 --players 4 --difficulty hard \
  --size 1920x1080 --frames "$frames" "$T/g"
# once with each frame mapped by its own markers (the default), once with
# the first frame's mapping held while the markers stay put (--hold-map)
for hold in "" --hold-map; do
  rm -f "$T/watch.txt"
  expect_exit 0 "$TEPPICH" watch --source "dir:$T/g" --fast --quiet \
    --players anna=red,ben=blue,cleo=green,dirk=yellow --answers "$T/g/answers.txt" \
    --transcript "$T/watch.txt" ${hold:+"$hold"}
  grep -q '^layout ' "$T/watch.txt" || fail "watch ${hold:-}: took no layout"
  # the truth's round 3 layout and the watch's (its first), card by card in
  # id order: the same type within 10 mm
  sed -n 's/^layout //p' "$T/g/transcript.txt" | sed -n 3p >"$T/truth.layout"
  sed -n 's/^layout //p' "$T/watch.txt" | head -1 >"$T/watch.layout"
  paste -d'\n' "$T/truth.layout" "$T/watch.layout" | awk '
    { n[NR] = NF; for (i = 1; i <= NF; i++) { split($i, a, /[=@,]/); t[NR, i] = a[2]; x[NR, i] = a[3]; y[NR, i] = a[4] } }
    END {
      if (n[1] != 12 || n[2] != 12) { print "cards: " n[1] " and " n[2]; exit 1 }
      for (i = 1; i <= 12; i++)
        if (t[1, i] != t[2, i] || (x[1, i] - x[2, i]) ^ 2 + (y[1, i] - y[2, i]) ^ 2 > 100) {
          print "card " i ": laid " t[1, i] " at " x[1, i] "," y[1, i] ", numbered " t[2, i] " at " x[2, i] "," y[2, i]
          exit 1
        }
    }' >"$T/diff" || fail "watch ${hold:-}: the layout is not numbered in the order it was laid: $(cat "$T/diff")"
done
finish
