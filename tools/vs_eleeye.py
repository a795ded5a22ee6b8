#!/usr/bin/env python3
"""Interleaved speed comparison with ElephantEye, a classic C engine.

Each round runs `xqengine bench` (its last line gives nps), then ElephantEye
searching a middlegame to a fixed depth over UCCI (its last `info time T
nodes N` line gives nps, counting full-width and quiescence nodes as ours
does), then our engine over UCCI on the same middlegame with `pruning small`:
null move as its only pruning, the way ElephantEye searches, so that both
count the same kind of tree. Alternating spreads this shared machine's drift
over all three.

The bench runs our default search, whose futility, late-move and exchange
pruning decide against most moves near the leaves before they are played:
that work counts no node. The third figure measures what a node costs when
the tree has ElephantEye's shape.

ElephantEye is not part of this project: build it from its public source
(xqbase/eleeye, `g++ -DNDEBUG -O3 ...` as in its eleeye/makefile.sh).

    python3 tools/vs_eleeye.py --eleeye PATH [--engine target/release/xqengine]
                               [--rounds 12] [--depth 12] [--our-depth 12]
"""

import argparse
import re
import statistics
import subprocess

MIDDLEGAME = "2bakab2/9/2n1c1n2/p1p1p3p/6p2/2P6/P3P1P1P/2N1C1N2/9/2BAKAB2 w - - 0 1"


def our_nps(engine):
    """The bench's nps and node count: the count is the search's signature,
    printed so that a stale or experimental binary shows itself."""
    out = subprocess.run([engine, "bench"], capture_output=True, text=True, check=True).stdout
    words = out.strip().splitlines()[-1].split()
    return int(words[2]), int(words[0])


def ucci_search(command, setup, pattern):
    """Sends `setup` to the UCCI engine `command`, reads until `bestmove`, and
    gives (nps, nodes, ms) from the last line matching `pattern` (groups:
    milliseconds, nodes)."""
    p = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    p.stdin.write(setup)
    p.stdin.flush()
    last = None
    for line in p.stdout:
        m = re.match(pattern, line)
        if m:
            last = (int(m.group(1)), int(m.group(2)))
        if line.startswith(("bestmove", "nobestmove")):
            break
    p.stdin.write("quit\n")
    p.stdin.close()
    p.wait(timeout=10)
    ms, nodes = last
    return nodes * 1000 // max(ms, 1), nodes, ms


def eleeye_nps(eleeye, depth):
    setup = f"ucci\nposition fen {MIDDLEGAME}\ngo depth {depth}\n"
    return ucci_search(eleeye, setup, r"info time (\d+) nodes (\d+)")


def our_nps_like_eleeye(engine, depth):
    setup = ("ucci\nsetoption threads 1\nsetoption hashsize 16\nsetoption usebook false\n"
             f"setoption pruning small\nposition fen {MIDDLEGAME}\ngo depth {depth}\n")
    return ucci_search(engine, setup, r"info depth \d+ .*time (\d+) nodes (\d+)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eleeye", required=True)
    ap.add_argument("--engine", default="target/release/xqengine")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--depth", type=int, default=12)
    ap.add_argument("--our-depth", type=int, default=12,
                    help="depth of our `pruning small` search of the middlegame")
    args = ap.parse_args()
    ours, theirs, alike = [], [], []
    for r in range(args.rounds):
        a, signature = our_nps(args.engine)
        b, nodes, ms = eleeye_nps(args.eleeye, args.depth)
        c, our_nodes, our_ms = our_nps_like_eleeye(args.engine, args.our_depth)
        ours.append(a)
        theirs.append(b)
        alike.append(c)
        print(f"round {r + 1}: bench {a} nps ({signature} nodes), ElephantEye {b} nps ({nodes} nodes, {ms} ms), "
              f"ours with pruning small {c} nps ({our_nodes} nodes, {our_ms} ms)", flush=True)
    mo, mt, ma = statistics.median(ours), statistics.median(theirs), statistics.median(alike)
    print(f"bench median {mo:.0f} ({min(ours)}..{max(ours)}); ElephantEye median {mt:.0f} "
          f"({min(theirs)}..{max(theirs)}); ours with pruning small median {ma:.0f} "
          f"({min(alike)}..{max(alike)})")
    print(f"ratios of medians to ElephantEye: bench {mo / mt:.3f}, pruning small {ma / mt:.3f}")


if __name__ == "__main__":
    main()
