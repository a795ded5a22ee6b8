#!/usr/bin/env python3
"""Time to reach a fixed depth with 1 and 2 threads over the bench positions (Lazy SMP check).

Usage: python3 tools/smp_time_to_depth.py [depth] [path/to/xqengine] [runs]   (run from the repository root)

Lazy SMP changes the tree from run to run (the helper thread's entries reach the
main thread in a different order each time), so one run's time says little: the
two settings alternate for `runs` rounds (default 5) and the medians are compared.
"""
import re
import statistics
import sys
import time

from ucci_driver import Engine

depth = int(sys.argv[1]) if len(sys.argv) > 1 else 10
exe = sys.argv[2] if len(sys.argv) > 2 else "target/release/xqengine"
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
src = open("engine/src/bench.rs", encoding="utf-8").read()
fens = re.findall(r'^\s+"([^"]+ [wb])",$', src, re.M)


def run(threads):
    engine = Engine(exe)
    engine.send(f"setoption threads {threads}")
    total = 0.0
    for fen in fens:
        engine.send("setoption clearhash")
        engine.send(f"position fen {fen}")
        start = time.perf_counter()
        engine.send(f"go depth {depth}")
        engine.until("bestmove")
        total += time.perf_counter() - start
    engine.quit()
    return total


ones, twos = [], []
for r in range(runs):
    ones.append(run(1))
    twos.append(run(2))
    print(f"run {r + 1}: 1 thread {ones[-1]:.2f} s, 2 threads {twos[-1]:.2f} s", flush=True)
t1, t2 = statistics.median(ones), statistics.median(twos)
print(f"depth {depth} over {len(fens)} positions, medians of {runs} runs: 1 thread {t1:.2f} s, "
      f"2 threads {t2:.2f} s, speed-up {t1 / t2:.2f}x")
