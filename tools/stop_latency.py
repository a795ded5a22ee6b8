#!/usr/bin/env python3
"""Measures the time from `stop` to `bestmove` during `go infinite`, 20 times.

Usage: python3 tools/stop_latency.py [path/to/xqengine]   (default: target/release/xqengine)
"""
import statistics
import subprocess
import sys
import time

exe = sys.argv[1] if len(sys.argv) > 1 else "target/release/xqengine"
p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def send(line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def until(prefix):
    while True:
        line = p.stdout.readline()
        if not line:
            raise SystemExit("engine exited")
        if line.startswith(prefix):
            return line


send("ucci")
until("ucciok")
latencies = []
for i in range(20):
    send("position startpos")
    send("go infinite")
    time.sleep(0.3 + 0.05 * i)
    start = time.perf_counter()
    send("stop")
    until("bestmove")
    latencies.append((time.perf_counter() - start) * 1000)
send("quit")
print("stop -> bestmove: median %.2f ms, max %.2f ms over %d searches"
      % (statistics.median(latencies), max(latencies), len(latencies)))
