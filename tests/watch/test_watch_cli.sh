#!/usr/bin/env bash
# teppich watch end to end: a simulated game replayed from observations
# must end with the true scores; kill -9 in the middle and --resume must
# give the same result as a run without interruption; answers errors name
# the line; bad usage is exit 2.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
P=anna=red,ben=blue,cleo=green

expect_exit 0 "$TEPPICH" watch --simulate 7 --players $P --write "$T/g"
expect_out "frames"
[ -s "$T/g/obs.jsonl" ] && [ -s "$T/g/answers.txt" ] || fail "no simulated game"

# 1. uninterrupted, piped: no colour codes
expect_exit 0 "$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P \
  --answers "$T/g/answers.txt" --transcript "$T/full.t" --events "$T/full.ev" --fast
expect_out "Round 1, flight 1:"
expect_out "Winner"
grep -q $'\033' "$T/out" && fail "colour codes in piped output"
"$TEPPICH" score "$T/full.t" | tail -n +2 >"$T/full.score" || fail "score of the watch transcript"
"$TEPPICH" score "$T/g/truth.transcript" | tail -n +2 >"$T/truth.score"
cmp -s "$T/full.score" "$T/truth.score" || fail "final scores differ from the truth"
grep -q '"event":"layout"' "$T/full.ev" || fail "no layout event"
grep -q '"event":"final"' "$T/full.ev" || fail "no final event"
n_flights=$(grep -c '^flight' "$T/g/truth.transcript")
[ "$(grep -c '"event":"flight"' "$T/full.ev")" = "$n_flights" ] || fail "flight events != $n_flights"

# 2. kill -9 in the middle of the game (once the transcript has a few
# flights), resume, the same end
"$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P --fps 200 \
  --answers "$T/g/answers.txt" --transcript "$T/killed.t" --quiet </dev/null &
pid=$!
for _ in $(seq 200); do
  [ "$(grep -c '^flight' "$T/killed.t" 2>/dev/null)" -ge 3 ] && break
  sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
lines_before=$(wc -l <"$T/killed.t")
grep -q '^lamps' "$T/killed.t" && tail -1 "$T/killed.t" | grep -q 'lamps' &&
  echo "note: the game was nearly over when killed"
expect_exit 0 "$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --resume "$T/killed.t"
"$TEPPICH" score "$T/killed.t" | tail -n +2 >"$T/killed.score" || fail "score of the resumed transcript"
cmp -s "$T/killed.score" "$T/full.score" || fail "resumed game ended differently"
grep -v '^#' "$T/killed.t" | grep -v '^round' >"$T/a"; grep -v '^#' "$T/full.t" | grep -v '^round' >"$T/b"
cmp -s "$T/a" "$T/b" || fail "resumed transcript differs (had $lines_before lines when killed)"

# 3. a cut-off last line (power cut while writing) is dropped on resume
head -c $(( $(wc -c <"$T/full.t") / 2 )) "$T/full.t" >"$T/cut.t"
expect_exit 0 "$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --resume "$T/cut.t" --quiet
"$TEPPICH" score "$T/cut.t" | tail -n +2 >"$T/cut.score"
cmp -s "$T/cut.score" "$T/full.score" || fail "game resumed after a cut differs"

# 4. a wrong answer line is named, the state kept, the next line used
{ head -1 "$T/g/answers.txt"; echo "reveal zoe=3"; tail -n +2 "$T/g/answers.txt"; } >"$T/bad.answers"
expect_exit 0 "$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P --fast \
  --answers "$T/bad.answers" --quiet
expect_err "bad.answers: line [0-9]+: 'reveal zoe=3'"
# recorded answers that no longer fit (a reveal asked where the file has
# the lamps: the eyes saw a contest the players did not have): an assumed
# answer, said as a warning, and the game goes on to its end
grep -v '^reveal' "$T/g/answers.txt" >"$T/noreveal.answers"
expect_exit 0 "$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P --fast \
  --answers "$T/noreveal.answers" --transcript "$T/noreveal.t"
expect_out "No recorded answer fits this question; assumed: reveal "
expect_out "Winner"
[ "$(grep -c '^lamps' "$T/noreveal.t")" = "$(grep -c '^lamps' "$T/g/truth.transcript")" ] ||
  fail "the lamps answers were not kept for the lamps"
# a recorded reveal naming one more player than the contest has (the eyes
# missed a carpet): what fits of it is used, the game ends as the truth
awk '/^reveal/ && !done { n = split("anna ben cleo", all, " ");
       for (i = 1; i <= n; i++) if (index($0, all[i] "=") == 0) { $0 = $0 " " all[i] "=1"; break }
       done = 1 } { print }' "$T/g/answers.txt" >"$T/extra.answers"
expect_exit 0 "$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P --fast \
  --answers "$T/extra.answers" --transcript "$T/extra.t"
expect_out "No recorded answer fits this question; assumed: reveal "
"$TEPPICH" score "$T/extra.t" | tail -n +2 >"$T/extra.score"
cmp -s "$T/extra.score" "$T/truth.score" || fail "the fitting part of the reveal was not used"
# answers run out, nobody at the terminal: exit 1, transcript resumable
head -2 "$T/g/answers.txt" >"$T/short.answers"
expect_exit 1 "$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P --fast \
  --answers "$T/short.answers" --transcript "$T/short.t" --quiet
expect_one_line_err
expect_err "no answer for"

# 5. usage errors
expect_exit 2 "$TEPPICH" watch --players $P
expect_one_line_err
expect_exit 2 "$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P --first-layer zoe
expect_exit 2 "$TEPPICH" watch --observations "$T/nope.jsonl" --players $P
echo '{"cards": 5}' >"$T/bad.jsonl"
expect_exit 2 "$TEPPICH" watch --observations "$T/bad.jsonl" --players $P --answers "$T/g/answers.txt" --fast
expect_err "bad.jsonl: line 1"
expect_exit 2 "$TEPPICH" watch --resume "$T/g/answers.txt" --observations "$T/g/obs.jsonl" --players $P
# a camera that is not there, or a deck folder that is not, is said
# before the game starts: no genie question, no transcript begun
expect_exit 1 "$TEPPICH" watch --source v4l2:/dev/video63 --players $P --transcript "$T/nocam.t"
expect_one_line_err
expect_err "no camera at /dev/video63"
grep -qi "genies" "$T/out" && fail "asked for the genies before opening the camera"
[ -e "$T/nocam.t" ] && fail "a transcript was begun without a camera"
expect_exit 2 "$TEPPICH" watch --source v4l2:/dev/video63 --deck "$T/no-such-deck" --players $P
expect_one_line_err
expect_err "no-such-deck"
grep -qi "genies" "$T/out" && fail "asked for the genies before reading the deck"

# 6. the simulated demo ends with the true final table (the rendered one,
# the default, is test_watch_demo)
expect_exit 0 "$TEPPICH" watch --demo --simulated --fast
expect_out "Final scores"
expect_out "Winner"
expect_exit 2 "$TEPPICH" watch --simulated --fast
expect_err "--simulated goes with --demo"
expect_one_line_err
expect_exit 2 "$TEPPICH" watch --demo --rendered --simulated
expect_one_line_err

# 7. announce at once, confirm after: the first still frame of flight 2
# shows its last carpet on no card (a glimpse the eyes got wrong); the
# next two still frames of the scene show it right: the flight is
# announced, then corrected out loud, and the game ends as the truth
cat >"$T/glimpse.awk" <<'AWK'
{
  line = $0
  n = gsub(/"colour"/, "&", line)
  moving = index($0, "\"moving\":true") > 0
  if (!moving && n == want && prev < want && ++flights >= target && !done) {
    s = $0; pos = 0
    while ((i = index(substr(s, pos + 1), "\"on_cards\":[")) > 0) pos += i
    rest = substr(s, pos + 12)
    if (pos > 0 && substr(rest, 1, 1) != "]") {
      $0 = substr(s, 1, pos + 11) substr(rest, index(rest, "]"))
      done = NR
    }
  }
  if (!moving) prev = n
  print
}
END { print done + 0 > glimpse_line }
AWK
awk -v want=3 -v target=2 -v glimpse_line="$T/glimpse.line" -f "$T/glimpse.awk" \
  "$T/g/obs.jsonl" >"$T/glimpse.jsonl"
gl=$(cat "$T/glimpse.line")
[ "$gl" -gt 0 ] || fail "no flight frame to spoil"
expect_exit 0 "$TEPPICH" watch --observations "$T/glimpse.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --transcript "$T/glimpse.t" --events "$T/glimpse.ev"
expect_out "Correction: on a second look, round 1, flight 2 goes differently"
grep -q '^# watch corrected round=1 flight=2 ' "$T/glimpse.t" || fail "no correction in the transcript"
grep -q '"action": "recheck"' "$T/glimpse.ev" || fail "no correction event"
grep '^flight\|^reveal\|^lamps' "$T/glimpse.t" >"$T/a"
grep '^flight\|^reveal\|^lamps' "$T/g/truth.transcript" >"$T/b"
cmp -s "$T/a" "$T/b" || fail "the corrected game is not the truth"
# deciding on the 3rd still frame never sees the glimpse: nothing to correct
expect_exit 0 "$TEPPICH" watch --observations "$T/glimpse.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --transcript "$T/glimpse3.t" --still 3
grep -q 'Correction' "$T/out" && fail "a correction with --still 3"
grep '^flight\|^reveal\|^lamps' "$T/glimpse3.t" >"$T/a"
cmp -s "$T/a" "$T/b" || fail "--still 3 is not the truth"
expect_exit 2 "$TEPPICH" watch --observations "$T/glimpse.jsonl" --players $P --still 0
expect_one_line_err

# stopped between the announcement and its second look (the recording
# ends at the glimpse: the transcript ends with the wrong flight), then
# resumed with the whole recording: corrected as without the stop
head -n "$gl" "$T/glimpse.jsonl" >"$T/upto.jsonl"
expect_exit 0 "$TEPPICH" watch --observations "$T/upto.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --transcript "$T/stopped.t" --quiet
grep -v '^#' "$T/stopped.t" | tail -1 | grep -q '^flight' ||
  fail "the stopped transcript does not end with the announced flight"
expect_exit 0 "$TEPPICH" watch --observations "$T/glimpse.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --resume "$T/stopped.t"
expect_out "Correction: on a second look, round 1, flight 2"
grep '^flight\|^reveal\|^lamps' "$T/stopped.t" >"$T/a"
cmp -s "$T/a" "$T/b" || fail "resumed before the second look: not the truth"

# kill -9 once the correction is in the transcript, resume: the same end
"$TEPPICH" watch --observations "$T/glimpse.jsonl" --players $P --fps 200 \
  --answers "$T/g/answers.txt" --transcript "$T/gkilled.t" --quiet </dev/null &
pid=$!
for _ in $(seq 200); do
  grep -q '^# watch corrected' "$T/gkilled.t" 2>/dev/null && break
  sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
grep -q '^# watch corrected' "$T/gkilled.t" || fail "killed before the correction"
expect_exit 0 "$TEPPICH" watch --observations "$T/glimpse.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --resume "$T/gkilled.t" --quiet
grep -v '^#' "$T/gkilled.t" | grep -v '^round' >"$T/a"
grep -v '^#' "$T/glimpse.t" | grep -v '^round' >"$T/c"
cmp -s "$T/a" "$T/c" || fail "resumed after a correction: the transcript differs"
# 8. a carpet the eyes barely see reaching into a card (the analysis marks
# it uncertain: "it barely touches ...", uncertain_on in observations):
# every frame of flight 1 has red (truth: on card 3) also on card 10,
# unsure. The flight is announced with it; the players leave card 10 on
# the table when they take the carpets, so red did not lie on it: the
# flight is resolved again without it and the game ends as the truth.
# Sure of it, the eyes' claim stands (the players are told to take it).
first=$(grep -n '"colour"' "$T/g/obs.jsonl" | head -1 | cut -d: -f1)
last=$(awk -v f="$first" 'NR > f && !/"colour"/ { print NR - 1; exit }' "$T/g/obs.jsonl")
grep -q '^flight blue=7 green=6 red=3$' "$T/g/truth.transcript" || fail "simulated game 7 changed: pick another card"
for kind in unsure sure; do
  extra=',"uncertain_on":[10]'
  [ $kind = sure ] && extra=
  sed -E "${first},${last}s/(\"colour\":\"red\"[^}]*\"on_cards\":\[3)\]/\1,10]$extra/" \
    "$T/g/obs.jsonl" >"$T/$kind.jsonl"
  cmp -s "$T/g/obs.jsonl" "$T/$kind.jsonl" && fail "nothing spoilt"
  expect_exit 0 "$TEPPICH" watch --observations "$T/$kind.jsonl" --players $P --fast \
    --answers "$T/g/answers.txt" --transcript "$T/$kind.t" --events "$T/$kind.ev"
  expect_out "^Round 1, flight 1: anna takes the camel bazaar and the palace;"
done
expect_out 'palace \(card 10\) went to anna but is still on the table' # the sure run
grep '^flight\|^reveal\|^lamps' "$T/g/truth.transcript" >"$T/b"
grep '^flight\|^reveal\|^lamps' "$T/sure.t" >"$T/a"
cmp -s "$T/a" "$T/b" && fail "a card the eyes were sure of was dropped"
grep -q '"kind": *"card_left_by_players"' "$T/unsure.ev" || fail "no card_left_by_players warning"
grep -q '"action": "left"' "$T/unsure.ev" || fail "no correction event for the card left"
grep '^flight\|^reveal\|^lamps' "$T/unsure.t" >"$T/a"
cmp -s "$T/a" "$T/b" || fail "the card left on the table still counts for red"
# 9. a carpet the eyes saw surely on a card loses it once a later carpet
# lies over that card (the later one covers where they meet; tuning game
# 4:653 round 3 flight 3): flight 3 has green (thrown second) on card 0,
# and red (thrown last) lands on card 0 too; every frame with red drops
# card 0 from green. Green still lies where it lay: it keeps card 0, the
# contest stays, and the game ends as the truth. Moved 5 mm since (bumped),
# the frames with red stand.
grep -q '^flight blue=- green=0 red=0$' "$T/g/truth.transcript" || fail "simulated game 7 changed: pick another flight"
cat >"$T/cover.awk" <<'AWK'
# green's card 0 dropped (and green moved dx mm) in the frames where red lies on card 0
/"colour":"red"[^}]*"on_cards":\[0\]/ && match($0, /\{"colour":"green","center_mm":\[[0-9.]+[^}]*"on_cards":\[0\]\}/) {
  at = RSTART; len = RLENGTH
  green = substr($0, at, len)
  match(green, /\[[0-9.]+/)
  x = substr(green, RSTART + 1, RLENGTH - 1) + dx
  sub(/"center_mm":\[[0-9.]+/, "\"center_mm\":[" x, green)
  sub(/"on_cards":\[0\]/, "\"on_cards\":[]", green)
  $0 = substr($0, 1, at - 1) green substr($0, at + len)
  spoilt++
}
{ print }
END { if (!spoilt) exit 1 }
AWK
grep '^flight\|^reveal\|^lamps' "$T/g/truth.transcript" >"$T/b"
for dx in 0 5; do
  awk -v dx=$dx -f "$T/cover.awk" "$T/g/obs.jsonl" >"$T/cover$dx.jsonl" || fail "nothing spoilt"
  expect_exit 0 "$TEPPICH" watch --observations "$T/cover$dx.jsonl" --players $P --fast \
    --answers "$T/g/answers.txt" --transcript "$T/cover$dx.t"
  grep '^flight\|^reveal\|^lamps' "$T/cover$dx.t" >"$T/a"
  if [ $dx = 0 ]; then
    cmp -s "$T/a" "$T/b" || fail "green lost card 0 under red"
  else
    grep -q '^flight blue=- green=- red=0$' "$T/a" || fail "a moved carpet kept the card"
  fi
done
# 10. the same at a round's last flight (round 2 flight 4): red (truth: on
# card 23) also unsure on card 19, the one card nobody wins. The lamps wait
# until the carpets are taken; the players leave card 19, so red did not
# lie on it: the flight is resolved again without it (and 19 is the round's
# leftover), and the game ends as the truth.
grep -q '^flight green=17,18 red=23 blue=18$' "$T/g/truth.transcript" || fail "simulated game 7 changed: pick another flight"
# (on_cards are indices into the frame's cards: 3 is card 23, 2 card 19;
# green on 0,1 marks the frames of this flight)
sed -E '/"colour":"green"[^}]*"on_cards":\[0,1\]/ s/("colour":"red"[^}]*"on_cards":\[3)\]/\1,2],"uncertain_on":[2]/' \
  "$T/g/obs.jsonl" >"$T/last.jsonl"
cmp -s "$T/g/obs.jsonl" "$T/last.jsonl" && fail "nothing spoilt"
expect_exit 0 "$TEPPICH" watch --observations "$T/last.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --transcript "$T/last.t" --events "$T/last.ev"
grep -q '"kind": *"card_left_by_players"' "$T/last.ev" || fail "no card_left_by_players at the round's end"
grep '^flight\|^reveal\|^lamps' "$T/last.t" >"$T/a"
cmp -s "$T/a" "$T/b" || fail "the card left after the round's last flight still counts for red"
# 11. a recording that ends right after the game's last flight, its carpets
# still down (no frame shows the taking): the flight stands as decided, the
# lamps are asked, and the replay ends with the final table (until session
# 13 it stopped before the lamps: "The recording ended before the game did")
last=$(grep -n '"colour"' "$T/g/obs.jsonl" | tail -1 | cut -d: -f1)
head -n "$last" "$T/g/obs.jsonl" >"$T/ended.jsonl"
expect_exit 0 "$TEPPICH" watch --observations "$T/ended.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --transcript "$T/ended.t"
expect_out "End of round 3"
expect_out "Winner"
grep -q "ended before the game did" "$T/out" && fail "a replay ending after the last flight stopped before the lamps"
"$TEPPICH" score "$T/ended.t" | tail -n +2 >"$T/ended.score" || fail "score of the ended replay"
cmp -s "$T/ended.score" "$T/truth.score" || fail "the replay ending after the last flight: final table differs"
# 12. the throw order takes a carpet off a card only where another carpet
# hides the place, not where the carpet barely reaches into the card (DEV
# game 3:671 round 1 flight 3): every frame of flight 1 has red (thrown
# last; truth: on card 3) under blue (thrown first) and unsure on card 3.
# Barely reaching in (barely_on), red keeps card 3 at once; hidden
# (uncertain_on only), the throw order takes it off, and only the players'
# taking gives it back (card_taken_under_carpet).
for kind in barely_on uncertain_on; do
  # (watch writes a card it barely reaches into as uncertain_on too)
  extra='"uncertain_on":[3],"barely_on":[3]'
  [ $kind = uncertain_on ] && extra='"uncertain_on":[3]'
  sed -E "${first},${last}s/(\"colour\":\"red\"[^}]*\"on_cards\":\[3\])\}/\1,$extra,\"under\":[0]}/" \
    "$T/g/obs.jsonl" >"$T/$kind.jsonl"
  cmp -s "$T/g/obs.jsonl" "$T/$kind.jsonl" && fail "nothing spoilt"
  expect_exit 0 "$TEPPICH" watch --observations "$T/$kind.jsonl" --players $P --fast \
    --answers "$T/g/answers.txt" --transcript "$T/$kind.t" --events "$T/$kind.ev"
  grep '^flight\|^reveal\|^lamps' "$T/$kind.t" >"$T/a"
  cmp -s "$T/a" "$T/b" || fail "$kind: the game differs from the truth"
done
grep -q '"kind": *"card_taken_under_carpet"' "$T/barely_on.ev" && fail "a card red barely reaches into was taken off by the throw order"
grep -q '"kind": *"card_taken_under_carpet"' "$T/uncertain_on.ev" || fail "a hidden place: the throw order did not decide"
# 13. a carpet that slid under cards of the layout and reaches into another
# by a sliver (DEV games 4:682 round 1 flight 1, 2:661 round 3 flight 1):
# in round 1 flight 3 blue (truth: on no card) lies over card 9's place, the
# eyes seeing card 9 on top, and they say it lies on card 10, which it does
# not reach. Nobody won card 10, so the players leave it: blue did not lie
# on it, the flight is resolved again without it, and the game ends as the
# truth (card 10 goes in flight 4).
grep -q '^flight blue=- green=0 red=0$' "$T/g/truth.transcript" || fail "simulated game 7 changed: pick another flight"
cat >"$T/sliver.awk" <<'AWK'
/"colour":"blue"[^}]*"on_cards":\[\]/ && match($0, /"id":[0-9]+,"type":"[a-z-]+","center_mm":\[290,350\]/) {
  at = substr($0, RSTART + 5) + 0  # card 10 (at 290,350): its index in this frame
  spoilt += sub(/"colour":"blue","center_mm":\[[^]]*\],"angle_deg":[-0-9.e+]+,"on_cards":\[\]/,
                "\"colour\":\"blue\",\"center_mm\":[190,350],\"angle_deg\":90,\"on_cards\":[" at "]")
}
{ print }
END { if (!spoilt) exit 1 }
AWK
awk -f "$T/sliver.awk" "$T/g/obs.jsonl" >"$T/sliver.jsonl" || fail "nothing spoilt"
expect_exit 0 "$TEPPICH" watch --observations "$T/sliver.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --transcript "$T/sliver.t" --events "$T/sliver.ev"
expect_out "^Round 1, flight 3: ben takes the palace"
grep -q '"kind": *"card_left_by_players"' "$T/sliver.ev" || fail "a card blue reaches by a sliver from under the layout stayed claimed"
grep '^flight\|^reveal\|^lamps' "$T/sliver.t" >"$T/a"
cmp -s "$T/a" "$T/b" || fail "a sliver under the layout: the game differs from the truth"
# 14. the second look: frames sure of a contact outweigh frames at the
# edge of the pose error (DEV game 4:697 round 4 flight 2: yellow "0.0 mm
# into the palace" in the announced and the last frame, 0.64 mm in the
# middle one; truth: on). In round 1 flight 4 red (truth: on cards 9 and
# 10, indices 2 and 3 of these frames) barely misses card 10 in the
# announced frame and the third (barely_off), and lies surely on it in the
# second: the flight is corrected, and the contest for card 10 is asked.
grep -q '^flight blue=10 green=4,5 red=9,10$' "$T/g/truth.transcript" || fail "simulated game 7 changed: pick another flight"
cat >"$T/barely.awk" <<'AWK'
/"colour":"red"[^}]*"on_cards":\[2,3\]\}/ && !/"moving":true/ && ++still % 2 == 1 && still <= 3 {
  spoilt += sub(/"on_cards":\[2,3\]\}\]/, "\"on_cards\":[2],\"barely_off\":[3]}]")
}
{ print }
END { if (spoilt != 2) exit 1 }
AWK
awk -f "$T/barely.awk" "$T/g/obs.jsonl" >"$T/barely.jsonl" || fail "nothing spoilt"
expect_exit 0 "$TEPPICH" watch --observations "$T/barely.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --transcript "$T/barely.t"
expect_out "^Correction: on a second look, round 1, flight 4 goes differently"
grep '^flight\|^reveal\|^lamps' "$T/barely.t" >"$T/a"
cmp -s "$T/a" "$T/b" || fail "a frame sure of red on card 10 was outvoted by two at the edge of the pose error"
# 15. a carpet seen under a landed one at nearly its place is a twin of it,
# not a landing (DEV game 4:699 round 4 flight 2: a "green", then a
# "yellow" under red, 6-8 mm from it, resolved the flight before yellow
# came). In round 1 flight 4, until red lands, the frames show a twin of
# blue under it (6 mm off, 0.2 degrees): "green", then "red" once green
# has landed. The flight waits for the real red, and the game ends as the
# truth (main's binary resolved it with red on no card).
cat >"$T/twin.awk" <<'AWK'
/^\{"frame":[0-9]+,"cards":.*"carpets":\[\{"colour":"blue","center_mm":\[329\.3/ && !/"colour":"red"/ {
  twin = "{\"colour\":\"" (/"colour":"green"/ ? "red" : "green") "\",\"center_mm\":[335,345],\"angle_deg\":180.1,\"on_cards\":[],\"under\":[0]}"
  if (!sub(/\}\],"moving":true\}$/, "}," twin "],\"moving\":true}")) sub(/\}\]\}$/, "}," twin "]}")
  spoilt++
}
{ print }
END { if (!spoilt) exit 1 }
AWK
awk -f "$T/twin.awk" "$T/g/obs.jsonl" >"$T/twin.jsonl" || fail "nothing spoilt"
expect_exit 0 "$TEPPICH" watch --observations "$T/twin.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --transcript "$T/twin.t"
grep '^flight\|^reveal\|^lamps' "$T/twin.t" >"$T/a"
cmp -s "$T/a" "$T/b" || fail "a twin of blue under it was taken for a landing"

# 16. a replay's reveals come in the true game's order of its contests,
# which is not the watch's where the eyes gave the cards ids in another
# order (a card seen late gets a late id). Simulated game 16 (3 players) has a flight
# with two contests, anna-cleo then anna-ben; with their recorded reveals
# swapped each contest still gets its own (by its players), and a resume
# between the two finds the line the first one used (main answered each
# with the other's line: assumed answers and another final table).
expect_exit 0 "$TEPPICH" watch --simulate 16 --players $P --write "$T/g16"
awk '/^reveal anna=[0-9]+ cleo=[0-9]+$/ && !held { held = $0; next }
     held && /^reveal anna=[0-9]+ ben=[0-9]+$/ {
       print; print held; sub(/^reveal /, "", held); print held >"/dev/stderr"
       held = ""; swapped++; next }
     held { print held; held = "" }
     { print }
     END { if (held) print held; if (swapped != 1) exit 1 }' \
  "$T/g16/answers.txt" >"$T/swapped.answers" 2>"$T/first.reveal" || fail "no two contests to swap"
"$TEPPICH" score "$T/g16/truth.transcript" | tail -n +2 >"$T/truth16.score"
expect_exit 0 "$TEPPICH" watch --observations "$T/g16/obs.jsonl" --players $P --fast \
  --answers "$T/swapped.answers" --transcript "$T/swapped.t"
grep -q "assumed" "$T/out" && fail "an answer was assumed for swapped reveals"
"$TEPPICH" score "$T/swapped.t" | tail -n +2 >"$T/swapped.score"
cmp -s "$T/swapped.score" "$T/truth16.score" || fail "swapped reveals: not the true final table"
# resumed right after the first of the two reveals
awk -v first="$(cat "$T/first.reveal")" '{ print }
  /^reveal [0-9]+ / && substr($0, length($0) - length(first) + 1) == first { getline; print; exit }' \
  "$T/swapped.t" >"$T/between.t"
grep -q '^# watch frame=' <(tail -1 "$T/between.t") || fail "no mark after the reveal"
expect_exit 0 "$TEPPICH" watch --observations "$T/g16/obs.jsonl" --players $P --fast \
  --answers "$T/swapped.answers" --resume "$T/between.t"
grep -q "assumed" "$T/out" && fail "an answer was assumed after the resume"
"$TEPPICH" score "$T/between.t" | tail -n +2 >"$T/between.score"
cmp -s "$T/between.score" "$T/truth16.score" || fail "resumed between swapped reveals: not the true final table"
# 15. one frame of a taking misses a card at a carpet's edge (watch game
# 3:882 at 960x540: a palace beside blue, missed in the one still frame
# that decided the taking, was given to blue). Game 7's round 1 flight 1
# with red moved 32 mm toward card 2 (still on card 3 only, its edge a few
# mm from card 2), and card 2 missed in the first still frame of that
# flight's taking only: the taking waits for the next still frame, which
# shows card 2, and gives it to nobody (one look gave it to red).
awk '/"colour":"red","center_mm":\[397\.12058938703558,96\.669000760919431\]/ {
       moved += sub(/"colour":"red","center_mm":\[397\.12058938703558,/, "\"colour\":\"red\",\"center_mm\":[365,")
       flight = 1 }
     flight && !done && /"carpets":\[\]/ && !/"moving":true/ {
       done = sub(/\{"id":2,"type":"adventure-c","center_mm":\[290,90\],"angle_deg":90\},/, "") }
     { print }
     END { if (moved != 8 || !done) exit 1 }' "$T/g/obs.jsonl" >"$T/missed.jsonl" ||
  fail "simulated game 7 changed: pick another flight"
expect_exit 0 "$TEPPICH" watch --observations "$T/missed.jsonl" --players $P --fast \
  --answers "$T/g/answers.txt" --transcript "$T/missed.t" --events "$T/missed.ev"
grep -q '"kind": *"card_taken_under_carpet"' "$T/missed.ev" && fail "a card missed in one frame of the taking was given to red"
grep '^flight\|^reveal\|^lamps' "$T/missed.t" >"$T/a"
grep '^flight\|^reveal\|^lamps' "$T/g/truth.transcript" >"$T/b"
cmp -s "$T/a" "$T/b" || fail "a card missed in one frame of the taking: the game differs from the truth"
finish
