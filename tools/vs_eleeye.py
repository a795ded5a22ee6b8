#!/usr/bin/env python3
"""Interleaved speed comparison with ElephantEye, a classic C engine.

Each round runs `xqengine bench` (its last line gives nps), then ElephantEye
searching a middlegame to a fixed depth over UCCI (its last `info time T
nodes N` line gives nps, counting full-width and quiescence nodes as ours
does). Alternating the two spreads this shared machine's drift over both.

ElephantEye is not part of this project: build it from its public source
(xqbase/eleeye, `g++ -DNDEBUG -O3 ...` as in its eleeye/makefile.sh).

    python3 tools/vs_eleeye.py --eleeye PATH [--engine target/release/xqengine]
                               [--rounds 12] [--depth 12]
"""

import argparse
import re
import statistics
import subprocess

MIDDLEGAME = "2bakab2/9/2n1c1n2/p1p1p3p/6p2/2P6/P3P1P1P/2N1C1N2/9/2BAKAB2 w - - 0 1"


def our_nps(engine):
    out = subprocess.run([engine, "bench"], capture_output=True, text=True, check=True).stdout
    return int(out.strip().splitlines()[-1].split()[2])


def eleeye_nps(eleeye, depth):
    p = subprocess.Popen([eleeye], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write(f"ucci\nposition fen {MIDDLEGAME}\ngo depth {depth}\n")
    p.stdin.flush()
    last = None
    for line in p.stdout:
        m = re.match(r"info time (\d+) nodes (\d+)", line)
        if m:
            last = (int(m.group(1)), int(m.group(2)))
        if line.startswith(("bestmove", "nobestmove")):
            break
    p.stdin.write("quit\n")
    p.stdin.close()
    p.wait(timeout=10)
    ms, nodes = last
    return nodes * 1000 // max(ms, 1), nodes, ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eleeye", required=True)
    ap.add_argument("--engine", default="target/release/xqengine")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--depth", type=int, default=12)
    args = ap.parse_args()
    ours, theirs = [], []
    for r in range(args.rounds):
        a = our_nps(args.engine)
        b, nodes, ms = eleeye_nps(args.eleeye, args.depth)
        ours.append(a)
        theirs.append(b)
        print(f"round {r + 1}: ours {a} nps, ElephantEye {b} nps ({nodes} nodes, {ms} ms), "
              f"ratio {a / b:.3f}", flush=True)
    mo, mt = statistics.median(ours), statistics.median(theirs)
    print(f"ours median {mo:.0f} ({min(ours)}..{max(ours)}), ElephantEye median {mt:.0f} "
          f"({min(theirs)}..{max(theirs)}), ratio of medians {mo / mt:.3f}")


if __name__ == "__main__":
    main()
