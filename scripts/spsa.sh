#!/usr/bin/env bash
# Plays the search's SPSA run (docs/strength.md, "Tuning by SPSA"): the
# engine built with `--features tune` (into target/tune), two copies with
# their margins probed up and down by `xqmatch spsa`, NODES nodes a move
# (default 30000), CONCURRENCY pairs at once (default 2), from the first 10
# plies of the 3,000 master games of data/games, without book.
#
# The run's state is STATE (default engine/tuning/spsa.txt, committed after
# each session's share): when it exists the run goes on where it stopped
# (the iterations planned, the learning rate and the seed are in it);
# otherwise a new run starts from the defaults `xqengine params` prints,
# with ITERATIONS (5000) pairs planned, R_END (0.01) and SEED (46). PAIRS
# caps the pairs this call plays (default: to the run's end). Ctrl-C stops
# after the pairs in play, with the state saved.
#
# A state belongs to the search it was tuned on: after a change to the
# search, start a new run (another STATE) rather than go on.
#
# `scripts/spsa.sh --values` prints the state's parameters, rounded, as
# the NAME=VALUE words scripts/sprt.sh takes in NEW_OPTIONS; `--moves`
# prints how far each has moved from the engine's default, in steps of
# its probe, furthest first.
#
# usage: scripts/spsa.sh [PAIRS | --values | --moves]
# environment: STATE, NODES, CONCURRENCY, ITERATIONS, R_END, SEED
{
# Braces: bash reads the whole script before running it, so editing it
# during a run of hours cannot change what that run does.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"
  exit 0
fi
state=${STATE:-engine/tuning/spsa.txt}
if [ "${1:-}" = "--values" ]; then
  # A parameter's line: name, value, min, max, step.
  awk 'NF == 5 && $2 ~ /^[0-9.-]+$/ {
         printf "%s%s=%.0f", sep, $1, $2; sep = " "
       }
       END { print "" }' "$state"
  exit 0
fi
if [ "${1:-}" = "--moves" ]; then
  cargo build --release --locked -q -p xqengine >&2
  # The defaults (name default min max step), then the state's lines.
  target/release/xqengine params | awk '
    NR == FNR { if ($1 !~ /^#/ && NF == 5) default[$1] = $2; next }
    NF == 5 && ($1 in default) {
      steps = ($2 - default[$1]) / $5
      printf "%.3f %s %s -> %.1f (%+.1f steps)\n", steps < 0 ? -steps : steps, $1, default[$1], $2, steps
    }' - "$state" | sort -rn | cut -d' ' -f2-
  exit 0
fi

cargo build --release --locked -p xqengine -p xqmatch >&2
cargo build --release --locked -p xqengine --features tune --target-dir target/tune >&2
engine=target/tune/release/xqengine

params=()
if [ ! -f "$state" ]; then
  mkdir -p "$(dirname "$state")"
  "$engine" params | grep -v '^#' > "$state.params"
  params=(--params "$state.params")
fi
pairs=()
[ -n "${1:-}" ] && pairs=(--pairs "$1")

status=0
target/release/xqmatch spsa --engine "$engine" --option usebook=false \
  --state "$state" "${params[@]}" "${pairs[@]}" \
  --iterations "${ITERATIONS:-5000}" --r-end "${R_END:-0.01}" --seed "${SEED:-46}" \
  --nodes "${NODES:-30000}" --concurrency "${CONCURRENCY:-2}" \
  --openings data/games/ccpd-sample-3000.iccs.pgn --openings-plies 10 \
  --resign movecount=3,score=600 --draw movenumber=30,movecount=8,score=10 || status=$?
rm -f "$state.params"
exit "$status"
}
