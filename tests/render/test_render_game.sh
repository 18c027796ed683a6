#!/usr/bin/env bash
# teppich render --game: a whole filmed game whose transcript the rules
# core replays, an answers file in the format of spec section 6, and the
# same bytes again for the same seed.
. "$(dirname "$0")/../e2e/lib.sh"
T=$TEPPICH_TMP

expect_exit 0 "$TEPPICH" render --game 5 --players 2 --size 160x90 "$T/g"
expect_out 'frames, 4 rounds'
n=$(ls "$T/g"/frame-*.jpg | wc -l)
[ "$n" -gt 100 ] || fail "only $n frames"
[ "$(wc -l <"$T/g/frames.txt")" = "$n" ] || fail "frames.txt does not list every frame"
[ -s "$T/g/frame-00001.jpg" ] || fail "frame-00001.jpg missing"
grep -q 'flying' "$T/g/frames.txt" || fail "no carpet in flight"
grep -q 'layout card' "$T/g/frames.txt" || fail "no layout frames"

# the transcript replays through the rules core to the end
expect_exit 0 "$TEPPICH" score "$T/g/transcript.txt"
expect_out 'Final score'
head -1 "$T/g/answers.txt" | grep -Eq '^genies anna=[0-9,]+ ben=[0-9,]+$' || fail "answers: no genies line first"
[ "$(grep -c '^lamps ' "$T/g/answers.txt")" = 4 ] || fail "answers: expected 4 lamps lines (4 rounds)"
[ "$(grep -c '^reveal ' "$T/g/answers.txt")" = "$(grep -c '^reveal ' "$T/g/transcript.txt")" ] ||
  fail "answers and transcript disagree on the contests"
grep -Eq '^reveal [a-z]+=[0-9]+( [a-z]+=[0-9]+)+ # card [a-z-]+@-?[0-9.]+,-?[0-9.]+$' "$T/g/answers.txt" ||
  fail "answers: no well-formed reveal line (naming its card)"

# deterministic
expect_exit 0 "$TEPPICH" render --game 5 --players 2 --size 160x90 "$T/h"
for f in transcript.txt answers.txt frames.txt frame-00050.jpg; do
  cmp -s "$T/g/$f" "$T/h/$f" || fail "same seed, different $f"
done

# --rules: the game played and its truth read by other rules (a carpet
# must reach 10 mm into a card to lie on it: fewer claims); the
# transcript still replays. A bad rules file is an error naming it.
printf 'contact_depth_tenths_mm = 100\n' >"$T/deep.rules"
expect_exit 0 "$TEPPICH" render --game 5 --players 2 --truth-only --rules "$T/deep.rules" "$T/deep"
cmp -s "$T/g/transcript.txt" "$T/deep/transcript.txt" && fail "--rules changed nothing"
expect_exit 0 "$TEPPICH" score --rules "$T/deep.rules" "$T/deep/transcript.txt"
expect_out 'Final score'
expect_exit 2 "$TEPPICH" render --game 5 --players 2 --truth-only --rules "$T/nope.rules" "$T/y"
expect_err 'nope.rules'
expect_one_line_err
expect_exit 2 "$TEPPICH" render --random 5 --rules "$T/deep.rules" --out "$T/z.jpg"
expect_err 'needs --game'

expect_exit 2 "$TEPPICH" render --game 5 --players 5 "$T/x"
expect_err 'players'
expect_one_line_err
expect_exit 2 "$TEPPICH" render --game 5
expect_err 'output folder'
finish
