#!/usr/bin/env bash
# The page in a real browser: Debian's chromium, driven by playwright-core
# (tests/web/node_modules, from `npm ci` in tests/web), against
# `teppich web --demo` on a free loopback port. Exit 77 = skipped (only
# with TEPPICH_SKIP_BROWSER=1, set by scripts/test-trixie); a missing
# chromium or node fails with what to install.
. "$TEPPICH_SOURCE_DIR/tests/e2e/lib.sh"
here="$TEPPICH_SOURCE_DIR/tests/web"
if [ "${TEPPICH_SKIP_BROWSER:-0}" = 1 ]; then
  echo "skipped: TEPPICH_SKIP_BROWSER=1"; exit 77
fi
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "FAIL: no $chromium: apt-get install chromium chromium-driver (scripts/packages-debian.txt)" >&2; exit 1; }
command -v node >/dev/null || { echo "FAIL: no node: apt-get install nodejs npm" >&2; exit 1; }
[ -d "$here/node_modules/playwright-core" ] ||
  { echo "FAIL: no playwright-core: run 'npm ci' in tests/web (./setup does when npm is there)" >&2; exit 1; }

"$TEPPICH" web --demo --listen 127.0.0.1:0 >"$TEPPICH_TMP/server.out" 2>"$TEPPICH_TMP/server.err" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT
url=$(wait_url "$TEPPICH_TMP/server.out" $server)
[ -n "$url" ] || { fail "teppich web --demo did not start: $(cat "$TEPPICH_TMP/server.err")"; finish; }
echo "page at $url"

shots=${TEPPICH_SCREENSHOTS:-$TEPPICH_TMP}
mkdir -p "$shots"
node "$here/browser.mjs" "$url" "$shots" || fail "the browser checks failed"
for f in phone.png desktop.png phone-after.png; do
  [ -s "$shots/$f" ] || fail "no screenshot $f"
done
# the server received both answers, the wrong one refused, the right one taken
grep -q '^answer: reveal anna=3 ben=7: .*holds genies' "$TEPPICH_TMP/server.out" ||
  fail "the server did not refuse 'reveal anna=3 ben=7'"
grep -q '^answer: reveal anna=8 ben=7: ok$' "$TEPPICH_TMP/server.out" ||
  fail "the server did not take 'reveal anna=8 ben=7'"
kill $server; wait $server; rc=$?
trap - EXIT
[ "$rc" = 0 ] || fail "teppich web exited $rc on SIGTERM (expected 0)"
finish
