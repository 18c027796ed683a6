# scene_eval SCENE.json MAKE_DECK TMPDIR: renders the scene, analyses it with
# the real binary ($TEPPICH) and compares with its truth (teppich eval
# --scene); stdout+stderr of eval go to stdout, the exit status is eval's.
# A scene NAME.json with a sidecar NAME.deck is rendered and analysed with a
# deck folder made by MAKE_DECK (tests/vision/make_deck.c) from the options
# in the sidecar (e.g. "--carpet 50 75 --backs"), not with the demo deck.
scene_eval() {
  local scene=$1 make_deck=$2 tmp=$3 deck_opts=()
  local sidecar=${scene%.json}.deck
  if [ -f "$sidecar" ]; then
    local deck; deck=$tmp/deck-$(basename "${scene%.json}")
    rm -rf "$deck"
    # shellcheck disable=SC2046 # the sidecar holds words of options
    "$make_deck" "$deck" $(grep -v '^#' "$sidecar") 2>&1 || return 2
    deck_opts=(--deck "$deck")
  fi
  "$TEPPICH" eval --scene "$scene" "${deck_opts[@]}" 2>&1 </dev/null
}
