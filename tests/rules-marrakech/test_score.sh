#!/usr/bin/env bash
# `teppich marrakech score` and `play` through the real binary: the shipped
# example games, boards on request, bad transcripts (exit 2, one line with
# file and line), and play -> score round trips.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
EX=$TEPPICH_SOURCE_DIR/examples

expect_exit 0 "$TEPPICH" marrakech score "$EX/marrakech-game.txt"
expect_out '^turn 2: ben pays anna 2$'
expect_out '^game over after 48 turns$'
expect_out '^dirk 35 9 44$'
expect_out '^anna 31 10 41$'
expect_out '^winner dirk$'
expect_out '^board after turn 24:$'      # the transcript's own request
grep -q '^board after turn 1 ' "$T/out" && fail "board printed without --board"
expect_exit 0 "$TEPPICH" marrakech score "$EX/marrakech-game.txt" --board
expect_out '^board after turn 1 \(Assam 3 0 N\):$'
expect_out '^\.  +red:1 +red:1 +\. '
[ "$(grep -c '^board after turn' "$T/out")" = 49 ] || fail "boards: not 48 + 1"

expect_exit 0 "$TEPPICH" marrakech score "$EX/marrakech-2p.txt"
expect_out '^turn 37: anna pays ben 3 of 7 and is out$'
expect_out '^winner ben$'

# a die without 4s makes the example illegal where a 4 was rolled
printf 'die_faces = 1, 2, 3\n' >"$T/d3.rules"
expect_exit 2 "$TEPPICH" marrakech score --rules "$T/d3.rules" "$EX/marrakech-game.txt"
expect_err "marrakech-game.txt: line [0-9]+: roll '4' is not a face of the die"
expect_one_line_err

# bad transcripts: exit 2, one line naming file and line, no report
bad() { # NAME TEXT PATTERN
  printf '%b' "$2" >"$T/$1.txt"
  expect_exit 2 "$TEPPICH" marrakech score "$T/$1.txt"
  expect_err "$1.txt: $3"
  expect_one_line_err
  [ -s "$T/out" ] && fail "$1: half a report on stdout"
}
P='player anna red\nplayer ben blue\nplayer cleo green\n'
bad wrongturn "${P}turn ben rotate N roll 1 place blue 3 1 3 0\n" "line 4: it is anna's turn"
bad illegal "${P}turn anna rotate N roll 1 place red 5 5 5 6\n" "line 4: rug red 5 5 5 6: not-next-to-assam"
bad back "${P}turn anna rotate N roll 1 place red 3 1 3 0\nturn ben rotate S roll 2 place blue 2 3 2 4\n" "line 5: .*180"
bad garbage "${P}# fine\n\nhello world\n" "line 6: 'hello' is not a transcript line"
bad binary "player anna red\n\x01\x02\x03\n" "line 2: "
head -c 3000 /dev/urandom >"$T/random.txt"
expect_exit 2 "$TEPPICH" marrakech score "$T/random.txt"
expect_one_line_err
expect_exit 2 "$TEPPICH" marrakech score "$T/missing.txt"
expect_err 'missing.txt'
expect_one_line_err
expect_exit 2 "$TEPPICH" marrakech score
expect_one_line_err

# an unfinished game still gets its scores
printf '%b' "${P}turn anna rotate N roll 1 place red 3 1 3 0\n" >"$T/short.txt"
expect_exit 0 "$TEPPICH" marrakech score "$T/short.txt"
expect_out '^game not finished after 1 turns$'
expect_out '^anna 30 2 32$'
expect_out '^winner anna$'

# play -> score: random legal games replay, for every player count
# (the unit tests replay hundreds more in-process)
for spec in anna=red+yellow,ben=blue+green anna=red,ben=blue,cleo=green,dirk=yellow; do
  for seed in 11; do
    expect_exit 0 "$TEPPICH" marrakech play --players "$spec" --seed "$seed" --out "$T/game.txt"
    expect_exit 0 "$TEPPICH" marrakech score "$T/game.txt"
    expect_out '^game over after [0-9]+ turns$'
    expect_out '^winner [a-z]'
  done
done
"$TEPPICH" marrakech play --seed 7 >"$T/a.txt"
"$TEPPICH" marrakech play --seed 7 >"$T/b.txt"
cmp -s "$T/a.txt" "$T/b.txt" || fail "the same seed gave two games"
expect_exit 2 "$TEPPICH" marrakech play --players anna=red,ben=blue
expect_err 'with 2 players each has 2'
finish
