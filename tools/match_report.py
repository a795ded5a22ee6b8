#!/usr/bin/env python3
"""Describe one engine's games in an xqmatch PGN: its score by colour and
by pairs of games (Round 1 and 2, 3 and 4, ...: the pentanomial counts),
the time each side spent a move by move number, and its score by the
first plies of the game (the opening lines that the books chose).

usage: tools/match_report.py PGN [--engine NAME] [--plies N] [--top K]

NAME is a part of the engine's name in the Red and Black tags (default:
xqengine). Times come from the move comments ({score/depth seconds s});
book moves carry no comment and count as not timed. It gives the
figures docs/strength.md reports for the time-odds matches.
"""

import argparse
import re
import sys
from collections import defaultdict

TAG = re.compile(r'^\[(\w+) "(.*)"\]$')
SECONDS = re.compile(r"([0-9.]+)s\b")
MOVE = re.compile(r"^[a-i][0-9][a-i][0-9]$")
POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


def games(path):
    """Yields (tags, movetext) for each game of the PGN."""
    tags, text = {}, []
    with open(path, encoding="utf-8") as pgn:
        for line in pgn:
            line = line.strip()
            tag = TAG.match(line)
            if tag:
                if text:
                    yield tags, " ".join(text)
                    tags, text = {}, []
                tags[tag.group(1)] = tag.group(2)
            elif line:
                text.append(line)
    if tags:
        yield tags, " ".join(text)


def moves_with_times(movetext):
    """The game's moves, each with its seconds (None for a book move)."""
    out = []
    for token in re.split(r"(\{[^}]*\})|\s+", movetext):
        if not token:
            continue
        if token.startswith("{"):
            seconds = SECONDS.search(token)
            if out and seconds:
                out[-1] = (out[-1][0], float(seconds.group(1)))
        elif MOVE.match(token):
            out.append((token, None))
    return out


def bucket(move_number):
    low = (move_number - 1) // 10 * 10 + 1
    return f"{low:3}-{low + 9:<3}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn")
    parser.add_argument("--engine", default="xqengine")
    parser.add_argument("--plies", type=int, default=8)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()

    by_colour = defaultdict(lambda: [0, 0.0])
    by_round = {}
    by_line = defaultdict(lambda: [0, 0.0])
    seconds = defaultdict(lambda: [[0.0, 0], [0.0, 0]])  # bucket -> ours, theirs
    skipped = 0
    for tags, movetext in games(args.pgn):
        result = tags.get("Result")
        red, black = tags.get("Red", ""), tags.get("Black", "")
        if result not in POINTS or (args.engine in red) == (args.engine in black):
            skipped += 1
            continue
        ours_red = args.engine in red
        points = POINTS[result][0 if ours_red else 1]
        colour = "Red" if ours_red else "Black"
        by_colour[colour][0] += 1
        by_colour[colour][1] += points
        if tags.get("Round", "").isdigit():
            by_round[int(tags["Round"])] = points
        moves = moves_with_times(movetext)
        line = " ".join(m for m, _ in moves[: args.plies])
        by_line[(colour, line)][0] += 1
        by_line[(colour, line)][1] += points
        for ply, (_, secs) in enumerate(moves):
            ours = (ply % 2 == 0) == ours_red
            cell = seconds[bucket(ply // 2 + 1)][0 if ours else 1]
            cell[0] += secs or 0.0
            cell[1] += 1

    total = sum(n for n, _ in by_colour.values())
    if total == 0:
        sys.exit(f"{args.pgn}: no finished game of '{args.engine}'")
    print(f"{total} games of '{args.engine}' ({skipped} skipped)")
    for colour, (n, pts) in sorted(by_colour.items(), reverse=True):
        print(f"  as {colour:5}: {n:4} games, {pts:6.1f} points, {100 * pts / n:5.1f} %")
    pairs = [0] * 5
    for first in range(1, max(by_round, default=0) + 1, 2):
        if first in by_round and first + 1 in by_round:
            pairs[int(2 * (by_round[first] + by_round[first + 1]))] += 1
    print("  pairs (0, 0.5, 1, 1.5, 2 points): " + "/".join(map(str, pairs)))
    print("mean seconds a move by move number (book moves count as 0): ours, theirs")
    for key in sorted(seconds):
        (ours_s, ours_n), (theirs_s, theirs_n) = seconds[key]
        if ours_n and theirs_n:
            print(f"  {key}: {ours_s / ours_n:6.3f} {theirs_s / theirs_n:6.3f}  ({ours_n} moves)")
    print(f"score by the first {args.plies} plies (the {args.top} most played)")
    lines = sorted(by_line.items(), key=lambda item: -item[1][0])[: args.top]
    for (colour, line), (n, pts) in lines:
        print(f"  {colour:5} {n:4} {100 * pts / n:5.1f} %  {line}")


if __name__ == "__main__":
    main()
