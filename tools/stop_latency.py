#!/usr/bin/env python3
"""Measures the time from `stop` to `bestmove` during `go infinite`, 20 times.

Usage: python3 tools/stop_latency.py [path/to/xqengine]   (default: target/release/xqengine)
"""
import statistics
import sys
import time

from ucci_driver import Engine

engine = Engine(sys.argv[1] if len(sys.argv) > 1 else "target/release/xqengine")
latencies = []
for i in range(20):
    engine.send("position startpos")
    engine.send("go infinite")
    time.sleep(0.3 + 0.05 * i)
    start = time.perf_counter()
    engine.send("stop")
    engine.until("bestmove")
    latencies.append((time.perf_counter() - start) * 1000)
engine.quit()
print("stop -> bestmove: median %.2f ms, max %.2f ms over %d searches"
      % (statistics.median(latencies), max(latencies), len(latencies)))
