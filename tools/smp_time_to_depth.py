#!/usr/bin/env python3
"""Time to reach a fixed depth with 1 and 2 threads over the bench positions (Lazy SMP check).

Usage: python3 tools/smp_time_to_depth.py [depth] [path/to/xqengine]
"""
import re
import subprocess
import sys
import time

depth = int(sys.argv[1]) if len(sys.argv) > 1 else 10
exe = sys.argv[2] if len(sys.argv) > 2 else "target/release/xqengine"
src = open("engine/src/bench.rs", encoding="utf-8").read()
fens = re.findall(r'^\s+"([^"]+ [wb])",$', src, re.M)


def run(threads):
    p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def until(prefix):
        while True:
            line = p.stdout.readline()
            if line.startswith(prefix):
                return line

    send("ucci")
    until("ucciok")
    send(f"setoption threads {threads}")
    total = 0.0
    for fen in fens:
        send("setoption clearhash")
        send(f"position fen {fen}")
        start = time.perf_counter()
        send(f"go depth {depth}")
        until("bestmove")
        total += time.perf_counter() - start
    send("quit")
    return total


t1, t2 = run(1), run(2)
print(f"depth {depth} over {len(fens)} positions: 1 thread {t1:.2f} s, 2 threads {t2:.2f} s, speed-up {t1 / t2:.2f}x")
