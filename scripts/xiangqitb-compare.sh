#!/usr/bin/env bash
# Builds one set of endgame tables with our egtbgen and with chessdb's
# generator xiangqitb, alternating, and prints each run's wall time, peak
# memory and the bytes of each metric's files, then the medians' ratios.
# Nothing else should run meanwhile (pause background work first).
#
# usage: scripts/xiangqitb-compare.sh GENEGTB WORKDIR OURS THEIRS [PAIRS] [METRICS]
#   GENEGTB  xiangqitb's program, built outside this repository from
#            github.com/noobpwnftw/xiangqitb with its `build` line
#   WORKDIR  where both builds go (emptied before each run)
#   OURS     our name of the table (KRKNAABB)
#   THEIRS   xiangqitb's name of it (KRKAABBN: each side K A B R N C P)
#   PAIRS    runs of each (default 3)
#   METRICS  wdl,dtm (default) or wdl,dtc or wdl,dtm,dtc
# environment: EGTBGEN (default target/release/egtbgen), THREADS (2)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 4 ]; then
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2
  exit 2
fi
genegtb=$(realpath "$1") work=$2 ours=$3 theirs=$4 pairs=${5:-3} metrics=${6:-wdl,dtm}
egtbgen=$(realpath "${EGTBGEN:-$repo/target/release/egtbgen}")
threads=${THREADS:-2}
save() { case ",$metrics," in *",$1,"*) echo 1 ;; *) echo 0 ;; esac; }
mkdir -p "$work"
work=$(realpath "$work")

# Wall seconds and peak RSS in MB of a `/usr/bin/time -v` report.
measure() {
  awk -F': ' '/Elapsed/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
              /Maximum resident/ { m = $2 / 1024 }
              END { printf "%.1f %.0f", s, m }' "$1"
}
# Bytes of the files in $1 whose names end in $2.
bytes() { find "$1" -name "*$2" -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

declare -a ours_s theirs_s
for i in $(seq 1 "$pairs"); do
  rm -rf "$work/ours"
  /usr/bin/time -v "$egtbgen" gen -q -o "$work/ours" --threads "$threads" \
    --metric "$metrics" "$ours" > "$work/ours.log" 2> "$work/ours.time"
  read -r s m <<< "$(measure "$work/ours.time")"
  ours_s+=("$s")
  echo "ours   $i: $s s, $m MB; wdl $(bytes "$work/ours" .xqwdl) dtm $(bytes "$work/ours" .xqtb) dtc $(bytes "$work/ours" .xqdtc) bytes"

  rm -rf "$work/theirs"
  mkdir -p "$work/theirs/tmp"
  cat > "$work/theirs/option.ini" <<EOF
MaxMem = 6000
Threads = $threads
MaxPieces = 9
GenerateRunList = 0
GenerateTablebases = 1
SaveWDL = $(save wdl)
SaveDTC = $(save dtc)
SaveDTM = $(save dtm)
tmpdir = ./tmp/
EOF
  echo "$theirs" > "$work/theirs/autoList.txt"
  (cd "$work/theirs" && /usr/bin/time -v "$genegtb" > ../theirs.log 2> ../theirs.time)
  read -r s m <<< "$(measure "$work/theirs.time")"
  theirs_s+=("$s")
  echo "theirs $i: $s s, $m MB; wdl $(bytes "$work/theirs" .lzw) dtm $(bytes "$work/theirs" .lzdtm) dtc $(bytes "$work/theirs" .lzdtc) bytes"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
o=$(median "${ours_s[@]}") t=$(median "${theirs_s[@]}")
echo "medians: ours $o s, theirs $t s: ours $(awk -v o="$o" -v t="$t" 'BEGIN { printf "%.2f", t / o }')x as fast"
