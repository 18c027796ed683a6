#!/usr/bin/env bash
# teppich watch --web: a replayed game serves its state over HTTP, the
# state follows the game, answers posted from a "phone" are taken (a wrong
# one is refused with the reason), the game ends with the true scores and
# the page stays until SIGTERM (exit 0).
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
T=$TEPPICH_TMP
P=anna=red+yellow,ben=blue+green

expect_exit 0 "$TEPPICH" watch --simulate 11 --players $P --write "$T/g"
n_answers=$(grep -c . "$T/g/answers.txt")
[ "$n_answers" -ge 4 ] || { fail "the simulated game has only $n_answers answers"; finish; }
# the file answers the genie deal only: everything else comes over HTTP
head -1 "$T/g/answers.txt" >"$T/first.answers"

expect_exit 2 "$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P --web nowhere:1
expect_err "web"
expect_one_line_err

"$TEPPICH" watch --observations "$T/g/obs.jsonl" --players $P --fast --quiet \
  --answers "$T/first.answers" --transcript "$T/web.t" --web 127.0.0.1:0 \
  </dev/null >"$T/watch.out" 2>"$T/watch.err" &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
port=$(url_port "$(wait_url "$T/watch.out" $pid)")
[ -n "$port" ] || { fail "no URL printed: $(cat "$T/watch.out" "$T/watch.err")"; finish; }

state() { http GET /state.json | tail -n 1; }
field() { grep -Eo "\"$1\":[0-9]+" | head -1 | cut -d: -f2; } # first number
# waits until the state asks a question (the replay is --fast)
await_question() {
  for _ in $(seq 400); do
    s=$(state)
    case $s in *'"ask":'*) echo "$s"; return 0 ;; esac
    sleep 0.05
  done
  return 1
}

# every answer after the genie deal is posted from the "phone"; the state
# must have moved on since the last answer
last_state=""
refused=0
tail -n +2 "$T/g/answers.txt" | grep . >"$T/rest.answers"
while IFS= read -r line; do
  s=$(await_question) || { fail "no question asked over HTTP before '$line'"; break; }
  frame=$(echo "$s" | field frame)
  [ "$s" != "$last_state" ] || fail "the state did not change after an answer (frame $frame)"
  last_state=$s
  kind=${line%% *}
  echo "$s" | grep -q "\"ask\":{\"kind\":\"$kind\"" || fail "asked $(echo "$s" | grep -Eo '"ask":\{"kind":"[a-z]+"'), expected $kind"
  if [ "$kind" = reveal ] && [ "$refused" = 0 ]; then
    # a genie nobody holds: 422 with the controller's reason, state kept
    r=$(http POST /answer "${line%=*}=99")
    echo "$r" | head -1 | grep -q ' 422 ' || fail "a wrong reveal was not refused: $(echo "$r" | head -1)"
    echo "$r" | grep -q 'genie' || fail "422 without the reason: $(echo "$r" | tail -1)"
    [ "$(state)" = "$s" ] || fail "a refused answer changed the state"
    refused=1
  fi
  r=$(http POST /answer "$line")
  echo "$r" | head -1 | grep -q ' 200 ' || fail "'$line' not taken: $(echo "$r" | tail -1)"
done <"$T/rest.answers"
[ "$refused" = 1 ] || echo "note: the game had no contest; no wrong reveal tried"

# the end: the final table in the state, the page stays until SIGTERM
for _ in $(seq 200); do
  s=$(state)
  case $s in *'"stage":"over"'*) break ;; esac
  sleep 0.05
done
echo "$s" | grep -q '"stage":"over"' || fail "the game did not end: $(echo "$s" | head -c 300)"
echo "$s" | grep -q '"final":{"totals"' || fail "no final totals in the state"
kill -0 $pid 2>/dev/null || fail "watch --web ended before SIGTERM"
"$TEPPICH" score "$T/web.t" | tail -n +2 >"$T/web.score" || fail "score of the transcript"
"$TEPPICH" score "$T/g/truth.transcript" | tail -n +2 >"$T/truth.score"
cmp -s "$T/web.score" "$T/truth.score" || fail "final scores differ from the truth"
for name in anna ben; do # the TOTAL column of the truth, in the state's final
  want=$(awk -v n=$name '$1 == n && NF >= 7 {print $7}' "$T/truth.score")
  echo "$s" | grep -Eq "\"totals\":\{[^}]*\"$name\":$want[,}]" ||
    fail "the state's final total of $name is not $want"
done
http GET /frame.jpg | head -1 | grep -q ' 404 ' || fail "a frame without a camera?"

kill -TERM $pid
wait $pid
rc=$?
trap - EXIT
[ "$rc" = 0 ] || fail "SIGTERM after the game: exit $rc, expected 0 ($(cat "$T/watch.err"))"
finish
