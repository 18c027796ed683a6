#!/usr/bin/env bash
# teppich web on the command line: options, errors, and a demo server
# that serves, takes an answer and stops cleanly on SIGTERM.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"

expect_exit 0 "$TEPPICH" web --help
expect_out "--demo"
expect_exit 2 "$TEPPICH" web
expect_one_line_err
expect_exit 2 "$TEPPICH" web --demo --port 70000
expect_err "--port"
expect_exit 2 "$TEPPICH" web --demo --listen nowhere:80
expect_err "listen address 'nowhere:80'"
expect_one_line_err
expect_exit 2 "$TEPPICH" web --state "$TEPPICH_TMP/missing.json"
expect_one_line_err

"$TEPPICH" web --demo --listen 127.0.0.1:0 >"$TEPPICH_TMP/server.out" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
url=$(wait_url "$TEPPICH_TMP/server.out" $server)
[ -n "$url" ] || { fail "no URL printed"; finish; }
port=$(url_port "$url")

# the same port twice: exit 1, one line
expect_exit 1 "$TEPPICH" web --demo --listen "127.0.0.1:$port"
expect_err "cannot listen on 127.0.0.1:$port"
expect_one_line_err

http GET /state.json >"$TEPPICH_TMP/state"
grep -q '^HTTP/1.1 200' "$TEPPICH_TMP/state" || fail "GET /state.json not 200"
grep -q '"kind":"reveal"' "$TEPPICH_TMP/state" || fail "the demo state asks no reveal"
http POST /answer "reveal anna=2 ben=8" >"$TEPPICH_TMP/answer"
grep -q '^HTTP/1.1 422' "$TEPPICH_TMP/answer" || fail "a genie ben does not hold: $(head -1 "$TEPPICH_TMP/answer")"
grep -q 'ben holds genies 7 and 1, not 8' "$TEPPICH_TMP/answer" || fail "422 without the reason"
http POST /answer "reveal anna=2 ben=1" >"$TEPPICH_TMP/answer"
grep -q '^HTTP/1.1 200' "$TEPPICH_TMP/answer" || fail "the reveal was not taken: $(tail -1 "$TEPPICH_TMP/answer")"
http GET /state.json | grep -q '"winner":"anna"' || fail "anna (genie 2 over 1) did not win"
grep -q '^answer: reveal anna=2 ben=1: ok$' "$TEPPICH_TMP/server.out" || fail "the answer was not printed"

kill -TERM $server
wait $server
rc=$?
trap - EXIT
[ "$rc" = 0 ] || fail "SIGTERM: exit $rc, expected 0"
finish
