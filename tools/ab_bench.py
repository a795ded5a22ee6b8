#!/usr/bin/env python3
"""Compares the `bench` speed of two xqengine binaries on a noisy machine.

The machine's speed drifts by half from minute to minute, so single runs
say little. This runs the two binaries alternately, pairs each run of B
with the run of A just before it, and reports the median nps of each and
the median and spread of the paired ratios B/A.

    python3 tools/ab_bench.py OLD_BINARY NEW_BINARY [--rounds 15] [--depth D]
"""

import argparse
import statistics
import subprocess


def bench(binary, depth):
    cmd = [binary, "bench"] + (["--depth", str(depth)] if depth else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    nodes, _, nps, _ = out.strip().splitlines()[-1].split()
    return int(nodes), int(nps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="baseline binary")
    ap.add_argument("b", help="candidate binary")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--depth", type=int, default=None)
    args = ap.parse_args()
    a_nps, b_nps, ratios = [], [], []
    for i in range(args.rounds):
        # Alternate which goes first, so a drift favours neither.
        first, second = (args.a, args.b) if i % 2 == 0 else (args.b, args.a)
        r1, r2 = bench(first, args.depth), bench(second, args.depth)
        a, b = (r1, r2) if i % 2 == 0 else (r2, r1)
        a_nps.append(a[1])
        b_nps.append(b[1])
        ratios.append(b[1] / a[1])
        print(f"round {i + 1}: A {a[0]} nodes {a[1]} nps, B {b[0]} nodes {b[1]} nps, B/A {ratios[-1]:.3f}",
              flush=True)
    ratios.sort()
    q = len(ratios) // 4
    print(f"A median {statistics.median(a_nps):.0f} nps, B median {statistics.median(b_nps):.0f} nps")
    print(f"B/A median {statistics.median(ratios):.3f} (middle half {ratios[q]:.3f}..{ratios[-q - 1]:.3f})")


if __name__ == "__main__":
    main()
