# Helpers for end-to-end tests of the real teppich binary. Source it.
# Environment from ctest: TEPPICH (binary), TEPPICH_SOURCE_DIR, TEPPICH_TMP.
set -u
: "${TEPPICH:?run through ctest}"
rm -rf "$TEPPICH_TMP" && mkdir -p "$TEPPICH_TMP"
e2e_failures=0

fail() { echo "FAIL: $*" >&2; e2e_failures=$((e2e_failures + 1)); }

# expect_exit CODE CMD...: runs CMD, keeps stdout/stderr in $TEPPICH_TMP/out
# and err, checks the exit status.
expect_exit() {
  local want=$1; shift
  "$@" >"$TEPPICH_TMP/out" 2>"$TEPPICH_TMP/err" </dev/null
  local got=$?
  if [ "$got" != "$want" ]; then
    fail "exit $got, expected $want: $*"
    sed 's/^/  stderr: /' "$TEPPICH_TMP/err" | head -5 >&2
  fi
}

# expect_out PATTERN / expect_err PATTERN: grep -E in the last output.
expect_out() { grep -Eq -- "$1" "$TEPPICH_TMP/out" || fail "stdout lacks /$1/"; }
expect_err() { grep -Eq -- "$1" "$TEPPICH_TMP/err" || fail "stderr lacks /$1/"; }
# expect_one_line_err: errors are one line (spec section 5).
expect_one_line_err() {
  local n; n=$(wc -l <"$TEPPICH_TMP/err")
  [ "$n" = 1 ] || fail "stderr has $n lines, expected 1"
}

# wait_url FILE PID: the first http://127.0.0.1:PORT/ that the server
# started in the background as PID prints into FILE (within 20 s), on
# stdout; nothing when it stops or prints none.
wait_url() {
  local url=""
  for _ in $(seq 200); do
    url=$(grep -Eo 'http://127\.0\.0\.1:[0-9]+/' "$1" | head -n1)
    [ -n "$url" ] && break
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  echo "$url"
}
# url_port URL: its port.
url_port() { echo "$1" | grep -Eo '[0-9]+/$' | tr -d /; }

# http METHOD PATH [BODY]: a small HTTP client in bash (/dev/tcp) to
# 127.0.0.1:$port; the whole response (status line, headers, body) on
# stdout.
http() {
  local body=${3-}
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf '%s %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s' \
    "$1" "$2" "${#body}" "$body" >&3
  cat <&3
  exec 3<&-
}

# analyze_game_frame SEED PLAYERS LEVEL FRAME: renders that frame of the
# rendered game (960x540) into $TEPPICH_TMP/game and runs analyze --json
# on it from scratch, as watch does without a reference; the JSON is in
# $TEPPICH_TMP/out.
analyze_game_frame() {
  local frame; frame=$(printf '%05d' "$4")
  expect_exit 0 "$TEPPICH" render --game "$1" --players "$2" --difficulty "$3" \
    --size 960x540 --frames "$4" "$TEPPICH_TMP/game"
  expect_exit 0 "$TEPPICH" analyze "$TEPPICH_TMP/game/frame-$frame.jpg" --json
}

# json_objects cards|carpets FILE: from analyze's JSON in FILE, one line
# per card ("type x y") or carpet ("colour x y"), centre in table mm.
json_objects() {
  awk -v want="\"$1\":" '
    /^\t"[a-z_]+":/ { c = index($0, want) > 0 } # a top-level key starts a section
    c && (/"type":/ || /"colour":/) { gsub(/[",]/, ""); k = $2 }
    c && /"center_mm":/ { gsub(/[^0-9.,-]/, ""); split($0, v, ","); print k, v[1], v[2] }' "$2"
}

finish() {
  if [ "$e2e_failures" -ne 0 ]; then echo "$e2e_failures check(s) failed"; exit 1; fi
  echo "all checks passed"
}
