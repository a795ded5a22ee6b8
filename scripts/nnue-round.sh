#!/usr/bin/env bash
# One round of the net's training, as docs/nnue.md describes it: a new net
# trained from the committed checkpoint on a session's self-play games and
# the committed reservoir, then tested against the shipped net by SPRT.
#
#   1. xqtrain nnue GAMES... nnue/train/reservoir.xqres, starting from
#      nnue/train/checkpoint.xqck, EPOCHS epochs (default 3) at learning
#      rate LR (default 0.0003): WORK/round.xqck and WORK/round.xqnn.
#   2. scripts/sprt.sh: this build's engine with WORK/round.xqnn against
#      itself with the built-in net, ELO0,ELO1 (default 0,5), into
#      WORK/sprt.pgn.
#
# Both steps resume where they stopped when run again with the same WORK.
# The games do not join the reservoir here: offer them once, after the
# round (`xqtrain reservoir nnue/train/reservoir.xqres --add GAMES`). When
# the SPRT accepts the round's net, the round's net and checkpoint replace
# the shipped ones (the script prints the commands).
#
# usage: scripts/nnue-round.sh WORK GAMES...
# environment: EPOCHS (3), LR (0.0003), BOUNDS (0,5), GAMES (6000: the SPRT's
# cap), and sprt.sh's TC, SEED
# Build first: cargo build --release.
{
# Braces: bash reads the whole script before running it, so editing it
# during a run of hours cannot change what that run does.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ $# -lt 2 ]; then
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2
  exit 2
fi
work=$1
shift
mkdir -p "$work"
bin=$repo/target/release

"$bin/xqtrain" nnue "$@" "$repo/nnue/train/reservoir.xqres" \
  --init-from "$repo/nnue/train/checkpoint.xqck" \
  --checkpoint "$work/round.xqck" --out "$work/round.xqnn" \
  --epochs "${EPOCHS:-3}" --learning-rate "${LR:-0.0003}"

status=0
NEW_NET=$work/round.xqnn "$repo/scripts/sprt.sh" "$bin/xqengine" "$bin/xqengine" \
  "$work/sprt.pgn" "${BOUNDS:-0,5}" "${GAMES:-6000}" || status=$?
if [ "$status" -ne 0 ]; then
  exit "$status"
fi
cat <<EOF
If the SPRT above accepted H1, the round's net replaces the shipped one:
  cp $work/round.xqnn $repo/nnue/nets/default.xqnn
  cp $work/round.xqck $repo/nnue/train/checkpoint.xqck
then rebuild (the net is built into the engine) and record the round in docs/nnue.md.
EOF
exit
}
