#!/usr/bin/env bash
# Plays the tournaments of docs/strength.md with xqmatch's `--engine` words:
#
#   round-robin  our engine, our engine with the hand-crafted evaluation,
#                Pikafish-HCE and ElephantEye, each against each, from the
#                60 opening lines of data/openings.txt (each with both
#                colours), GAMES games an encounter (default 40)
#   odds N       our engine against Pikafish-HCE with N times our time,
#                from the start position (our book decides the opening, at
#                bookvariety small so that the games differ; no evaluation
#                noise), GAMES games (default 200)
#
# Ours play TC (default 10+0.1: 10 s + 0.1 s a move; TC=3+0.03 for a
# ladder at 3 s + 0.03 s) with the default book; two games at once; resign
# at 600 cp for 3 moves and draw within 10 cp for 8 moves after move 30,
# when both engines agree. `odds 1` has the settings of `book-match.sh pikafish`
# but for the noise (that script gives ours `selectivity small`: 10 cp).
# The games go to PGN; run the same command again to go on where it stopped
# (xqmatch --resume). Our engine and book are copied beside the PGN (PGN.d/)
# the first time, so a rebuild does not change a tournament half played.
# Pikafish-HCE and ElephantEye are built by ../shared/anchors/build.sh into
# $ANCHORS (default /tmp/anchors) when missing.
#
# usage: [TC=B+I] scripts/strength-match.sh round-robin PGN [GAMES]
#        [TC=B+I] scripts/strength-match.sh odds N PGN [GAMES]
# Build first: cargo build --release.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

usage() {
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2
  exit 2
}

mode=${1:-}
case $mode in
round-robin) shift ;;
odds)
  factor=${2:-}
  [[ $factor =~ ^[0-9]+$ && $factor -ge 1 ]] || usage
  shift 2
  ;;
*) usage ;;
esac
pgn=${1:-}
[ -n "$pgn" ] || usage
tc=${TC:-10+0.1}
[[ $tc =~ ^[0-9.]+\+[0-9.]+$ ]] || usage

snap=$pgn.d
if [ ! -d "$snap" ]; then
  mkdir -p "$snap.part"
  cp "$repo/target/release/xqengine" "$repo/data/book.xqb" "$repo/data/book.xqa" "$snap.part/"
  cp "$repo/data/openings.txt" "$snap.part/openings.txt"
  echo "fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w" >"$snap.part/start.txt"
  mv "$snap.part" "$snap"
fi
snap=$(cd "$snap" && pwd)

anchors=${ANCHORS:-/tmp/anchors}
if [ ! -x "$anchors/pikafish-hce" ] || [ ! -x "$anchors/eleeye" ]; then
  bash "$repo/../shared/anchors/build.sh" "$anchors"
fi

ours=(cmd="$snap/xqengine" proto=ucci option.bookfiles="$snap/book.xqb")
pikafish=(cmd="$anchors/pikafish-hce" name=Pikafish-HCE proto=uci)
case $mode in
round-robin)
  games=${2:-40}
  engines=(
    --engine "${ours[@]}" name=xqengine
    --engine "${ours[@]}" name=xqengine-hce option.evaluation=hce
    --engine "${pikafish[@]}"
    --engine cmd="$anchors/eleeye" name=ElephantEye proto=ucci
  )
  rest=(--format round-robin --openings "$snap/openings.txt")
  ;;
odds)
  games=${2:-200}
  # N times ours, written as xqmatch reads a time control.
  their_tc=$(awk -v n="$factor" -v tc="$tc" \
    'BEGIN { split(tc, t, "+"); printf "%g+%g", t[1] * n, t[2] * n }')
  engines=(
    --engine "${ours[@]}" name=xqengine option.bookvariety=small
    --engine "${pikafish[@]}" tc="$their_tc"
  )
  rest=(--openings "$snap/start.txt")
  ;;
esac

resume=()
[ -s "$pgn" ] && resume=(--resume)
exec "$repo/target/release/xqmatch" "${engines[@]}" "${rest[@]}" \
  --games "$games" --concurrency 2 --tc "$tc" \
  --resign movecount=3,score=600 --draw movenumber=30,movecount=8,score=10 \
  --report-every 20 --pgn "$pgn" "${resume[@]}"
