#!/usr/bin/env bash
# Plays the analysed book's matches of docs/book-analysis.md: our engine with
# data/'s analysed book (bookmargin 15) against
#
#   plain     the same engine with the same book by weight alone (no analysis)
#   nobook    the same engine without a book (usebook false)
#   pikafish  Pikafish-HCE (built by ../shared/anchors/build.sh into
#             $ANCHORS, default /tmp/anchors, when missing)
#
# from the start position only (the books decide the opening), 10 s + 0.1 s,
# both of ours at selectivity small, adjudicated by scores (resign at 600 cp
# for 3 moves, draw within 10 cp for 8 moves after move 30), two games at
# once. The games go to PGN; run it again with the same PGN to go on where it
# stopped (xqmatch --resume). The engine and the books are copied beside the
# PGN (PGN.d/) the first time, so a rebuild or a new analysis does not change
# a match half played.
#
# usage: scripts/book-match.sh plain|nobook|pikafish PGN [GAMES (400)]
# Build first: cargo build --release.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

case "${1:-}" in
plain | nobook | pikafish) opponent=$1 ;;
*)
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2
  exit 2
  ;;
esac
pgn=${2:?usage: scripts/book-match.sh plain|nobook|pikafish PGN [GAMES]}
games=${3:-400}
snap=$pgn.d

if [ ! -d "$snap" ]; then
  mkdir -p "$snap.part/plain"
  cp "$repo/target/release/xqengine" "$repo/data/book.xqb" "$repo/data/book.xqa" "$snap.part/"
  cp "$repo/data/book.xqb" "$snap.part/plain/"
  echo "fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w" >"$snap.part/start.txt"
  mv "$snap.part" "$snap"
fi
snap=$(cd "$snap" && pwd)

ours=(--engine1 "$snap/xqengine" --option1 "bookfiles=$snap/book.xqb" --option1 bookmargin=15
  --option1 selectivity=small)
case $opponent in
plain) theirs=(--engine2 "$snap/xqengine" --option2 "bookfiles=$snap/plain/book.xqb"
  --option2 selectivity=small) ;;
nobook) theirs=(--engine2 "$snap/xqengine" --option2 usebook=false --option2 selectivity=small) ;;
pikafish)
  anchors=${ANCHORS:-/tmp/anchors}
  [ -x "$anchors/pikafish-hce" ] || bash "$repo/../shared/anchors/build.sh" "$anchors"
  theirs=(--engine2 "$anchors/pikafish-hce" --proto2 uci)
  ;;
esac

resume=()
[ -s "$pgn" ] && resume=(--resume)
exec "$repo/target/release/xqmatch" "${ours[@]}" "${theirs[@]}" \
  --openings "$snap/start.txt" --games "$games" --concurrency 2 --tc 10+0.1 \
  --resign movecount=3,score=600 --draw movenumber=30,movecount=8,score=10 \
  --report-every 20 --pgn "$pgn" "${resume[@]}"
