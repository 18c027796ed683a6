#!/usr/bin/env bash
# The accuracy target list: runs every scene of tests/vision/todo/ (scenes
# that analyze gets wrong today) and every check script there (todo/*.sh,
# e2e scripts in the style of tests/e2e/lib.sh), and prints one line each,
# PASS or FAIL and why (eval's first difference from the truth, or the
# script's first FAIL). A scene that passes belongs in tests/vision/scenes/
# (git mv it, with its .deck sidecar); a script in tests/vision/ as test_*.sh.
#
# usage: tests/vision/run-todo.sh [BUILD_DIR] [SCENE.json|CHECK.sh ...]
#   BUILD_DIR defaults to build/ of this checkout; without arguments, all
#   of todo/. Also runs scenes/ or regress/ files when given by name.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
if [ $# -gt 0 ] && [ -d "$1" ]; then build=$(cd "$1" && pwd); shift; fi
TEPPICH=$build/teppich
make_deck=$build/tests/vision/vt_make_deck
[ -x "$TEPPICH" ] || { echo "run-todo: $TEPPICH missing: build first (./setup --no-install)" >&2; exit 2; }
# scenes with a .deck sidecar need make_deck (a build of tests/vision)
[ -x "$make_deck" ] || make_deck=$root/build/tests/vision/vt_make_deck
export TEPPICH
. "$here/scene_lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teppich-todo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 0 ]; then set -- "$here"/todo/*.json "$here"/todo/*.sh; fi
pass=0 failed=0
for scene in "$@"; do
  [ -f "$scene" ] || continue
  name=$(basename "${scene%.*}")
  if [ "${scene%.sh}" != "$scene" ]; then
    out=$(TEPPICH_SOURCE_DIR=$root TEPPICH_TMP=$tmp/$name bash "$scene" 2>&1)
    rc=$?
    out=$(printf '%s\n' "$out" | grep -m1 '^FAIL: ' | sed 's/^FAIL: //')
  else
    out=$(scene_eval "$scene" "$make_deck" "$tmp")
    rc=$?
  fi
  if [ $rc = 0 ]; then
    pass=$((pass + 1)); echo "PASS $name"
  else
    failed=$((failed + 1))
    why=$(printf '%s\n' "$out" | tail -1 | sed "s|^teppich: ||; s|^eval: ||; s|^$scene: ||")
    echo "FAIL $name: $why"
  fi
done
echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
