#!/usr/bin/env bash
# Tests a search or evaluation change the way docs/strength.md asks: the
# engine NEW against the engine OLD, both without book, from the first 10
# plies of the 3,000 master games of data/games (shuffled by SEED, each
# opening with both colours), at TC (default 2 s + 0.02 s), two games at
# once (CONCURRENCY on a machine with more cores), until the pentanomial
# SPRT of H0 "Elo = ELO0" against H1 "Elo = ELO1" decides (default 0,5)
# or GAMES (default 6000) are played.
#
# NEW_NET and OLD_NET name net files the engines evaluate with instead of
# their built-in net (`evalfile`): a new net is tested as one binary with
# NEW_NET against itself.
#
# Both binaries and the nets are copied beside the PGN (PGN.d/) the first
# time, so rebuilding or retraining during the test changes nothing; run
# the same command again with the same PGN to go on where it stopped
# (xqmatch --resume).
#
# NEW_OPTIONS and OLD_OPTIONS are options each engine is given, as
# `NAME=VALUE` words: tuned search parameters are tested as the `tune`
# build (target/tune/release/xqengine) against itself with NEW_OPTIONS
# (`scripts/spsa.sh --values` prints a run's). Each engine must announce
# each option it is given.
#
# A test whose PGN was lost (with its machine's disk) goes on from the pair
# counts docs/strength.md recorded for it: EARLIER_PAIRS=LL/LD/DD/WD/WW
# counts them in the LLR (xqmatch --sprt-earlier). Give a new PGN and
# another SEED, so that the openings are new.
#
# usage: scripts/sprt.sh NEW OLD PGN [ELO0,ELO1] [GAMES]
# environment: TC (2+0.02), SEED (1), NEW_NET, OLD_NET, CONCURRENCY (2),
#   EARLIER_PAIRS, NEW_OPTIONS, OLD_OPTIONS
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ $# -lt 3 ]; then
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2
  exit 2
fi
new=$1 old=$2 pgn=$3 bounds=${4:-0,5} games=${5:-6000}

snap=$pgn.d
if [ ! -d "$snap" ]; then
  mkdir -p "$snap.part"
  cp "$new" "$snap.part/new"
  cp "$old" "$snap.part/old"
  if [ -n "${NEW_NET:-}" ]; then cp "$NEW_NET" "$snap.part/new.xqnn"; fi
  if [ -n "${OLD_NET:-}" ]; then cp "$OLD_NET" "$snap.part/old.xqnn"; fi
  echo "${NEW_OPTIONS:-}" > "$snap.part/new.options"
  echo "${OLD_OPTIONS:-}" > "$snap.part/old.options"
  mv "$snap.part" "$snap"
fi
snap=$(cd "$snap" && pwd)
nets=()
[ -f "$snap/new.xqnn" ] && nets+=(--option1 "evalfile=$snap/new.xqnn")
[ -f "$snap/old.xqnn" ] && nets+=(--option2 "evalfile=$snap/old.xqnn")

# The options of the test's first run hold for all of it; each must be
# one its engine announces, or the test would measure nothing.
options=()
for side in new old; do
  flag=--option1
  [ "$side" = old ] && flag=--option2
  saved=""
  [ -f "$snap/$side.options" ] && saved=$(cat "$snap/$side.options")
  given=NEW_OPTIONS
  [ "$side" = old ] && given=OLD_OPTIONS
  if [ -n "${!given+set}" ] && [ "${!given}" != "$saved" ]; then
    echo "sprt.sh: $given differs from the test's first run ($snap/$side.options: '$saved')" >&2
    exit 2
  fi
  [ -z "$saved" ] && continue
  announced=$(printf 'ucci\nquit\n' | "$snap/$side" 2>/dev/null | awk '$1 == "option" { print $2 }')
  for word in $saved; do
    if ! grep -qx "${word%%=*}" <<< "$announced"; then
      echo "sprt.sh: $side engine announces no option ${word%%=*} (a tune build?)" >&2
      exit 2
    fi
    options+=("$flag" "$word")
  done
done

resume=()
[ -s "$pgn" ] && resume=(--resume)
earlier=()
[ -n "${EARLIER_PAIRS:-}" ] && earlier=(--sprt-earlier "$EARLIER_PAIRS")
exec "$repo/target/release/xqmatch" \
  --engine1 "$snap/new" --option1 usebook=false \
  --engine2 "$snap/old" --option2 usebook=false "${nets[@]}" "${options[@]}" \
  --openings "$repo/data/games/ccpd-sample-3000.iccs.pgn" --openings-plies 10 \
  --openings-order random --seed "${SEED:-1}" \
  --games "$games" --concurrency "${CONCURRENCY:-2}" --tc "${TC:-2+0.02}" --sprt "$bounds" \
  --resign movecount=3,score=600 --draw movenumber=30,movecount=8,score=10 \
  --pgn "$pgn" "${resume[@]}" "${earlier[@]}"
