#!/usr/bin/env python3
"""Time to reach a fixed depth with 1 and 2 threads over the bench positions (Lazy SMP check).

Usage: python3 tools/smp_time_to_depth.py [depth] [path/to/xqengine]   (run from the repository root)
"""
import re
import sys
import time

from ucci_driver import Engine

depth = int(sys.argv[1]) if len(sys.argv) > 1 else 10
exe = sys.argv[2] if len(sys.argv) > 2 else "target/release/xqengine"
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


t1, t2 = run(1), run(2)
print(f"depth {depth} over {len(fens)} positions: 1 thread {t1:.2f} s, 2 threads {t2:.2f} s, speed-up {t1 / t2:.2f}x")
