#!/usr/bin/env python3
"""Generate an independent xiangqi legal-move fixture using pyffish (Fairy-Stockfish).

Usage:
    pip install pyffish
    python3 tools/pyffish_fixture.py [--seed 1] [--out data/movegen-pyffish.tsv]

Output: one line per distinct position (board + side to move):
    FEN<TAB>m1 m2 m3 ...
FEN is "<board> <w|b>" (w = Red to move, upper case = Red, first rank string =
Black's back rank). Moves are ICCS (files a-i, ranks 0-9 from Red's side), sorted
alphabetically; an empty list (checkmate or stalemate) leaves nothing after the tab.

Legal moves are always obtained with pyffish.legal_moves("xiangqi", fen, []) i.e.
with an EMPTY move history, so no repetition / perpetual-check / chase rules apply:
pure rule legality (including the flying-general rule).
"""
import argparse
import importlib.metadata
import random
import re
import sys

import pyffish as sf

VARIANT = "xiangqi"

START_FENS = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w - - 0 1",
    "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
    "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w - - 0 1",
]

MOVE_RE = re.compile(r"^([a-i])(10|[1-9])([a-i])(10|[1-9])$")


def to_iccs(m):
    """pyffish 'h3e3' / 'a10a9' (ranks 1-10) -> ICCS 'h2e2' / 'a9a8' (ranks 0-9)."""
    g = MOVE_RE.match(m)
    if not g:
        raise ValueError("unexpected pyffish move notation: %r" % m)
    f1, r1, f2, r2 = g.groups()
    return "%s%d%s%d" % (f1, int(r1) - 1, f2, int(r2) - 1)


def norm_fen(fen):
    """Keep only board + side; pyffish emits '<board> <w|b> - - <halfmove> <fullmove>'."""
    parts = fen.split()
    assert parts[1] in ("w", "b"), fen
    return parts[0] + " " + parts[1]


def legal(fen):
    return sorted(sf.legal_moves(VARIANT, fen, []))


def self_test():
    start = START_FENS[0]
    ms = legal(start)
    assert len(ms) == 44, len(ms)
    assert "h3e3" in ms and to_iccs("h3e3") == "h2e2"
    assert to_iccs("a10a9") == "a9a8"
    assert to_iccs("b3b10") == "b2b9"
    # first rank string is Black's back rank: Red cannon h3e3 (pyffish) lands on
    # the 8th rank string from the top (ICCS rank 2).
    after = sf.get_fen(VARIANT, start, ["h3e3"]).split()[0].split("/")
    assert after[7] == "1C2C4", after
    # flying general: red rook between the kings is pinned to the file.
    fg = legal("4k4/9/9/9/9/9/9/4R4/9/4K4 w - - 0 1")
    assert all(m.startswith("e3e") or m.startswith("e1") for m in fg), fg
    assert "e3d3" not in fg
    # king may not step onto a file facing the enemy king.
    assert "e1d1" not in legal("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="data/movegen-pyffish.tsv")
    ap.add_argument("--target", type=int, default=1500, help="distinct positions to record")
    ap.add_argument("--max-plies", type=int, default=150)
    ap.add_argument("--record-prob", type=float, default=0.3,
                    help="probability of recording an ordinary ply (checks/terminal always recorded)")
    ap.add_argument("--capture-bias", type=float, default=0.5,
                    help="fraction of playouts that prefer captures / checks / mates")
    args = ap.parse_args()

    self_test()
    rng = random.Random(args.seed)
    seen = {}  # normalised fen -> sorted iccs moves
    order = []
    n_check = n_none = 0
    playouts = 0

    def record(fen, moves):
        nonlocal n_check, n_none
        key = norm_fen(fen)
        if key in seen:
            return
        iccs = sorted(to_iccs(m) for m in moves)
        seen[key] = iccs
        order.append(key)
        if sf.gives_check(VARIANT, fen, []):  # True iff side to move is in check
            n_check += 1
        if not moves:
            n_none += 1

    while len(order) < args.target:
        start = START_FENS[playouts % len(START_FENS)]
        biased = rng.random() < args.capture_bias
        playouts += 1
        fen = start
        for ply in range(args.max_plies + 1):
            moves = legal(fen)
            in_check = sf.gives_check(VARIANT, fen, [])
            if ply == 0 or not moves or in_check or rng.random() < args.record_prob:
                record(fen, moves)
            if not moves or ply == args.max_plies or len(order) >= args.target:
                break
            move = None
            if biased:
                # prefer an immediately mating (no-reply) move, then captures, then checks
                if rng.random() < 0.9:
                    for m in moves:
                        if not sf.legal_moves(VARIANT, fen, [m]):
                            move = m
                            break
                if move is None and rng.random() < 0.7:
                    caps = [m for m in moves if sf.is_capture(VARIANT, fen, [], m)]
                    if caps:
                        move = rng.choice(caps)
                if move is None and rng.random() < 0.3:
                    chk = [m for m in moves if sf.gives_check(VARIANT, fen, [m])]
                    if chk:
                        move = rng.choice(chk)
            if move is None:
                move = rng.choice(moves)
            fen = sf.get_fen(VARIANT, fen, [move])

    version = importlib.metadata.version("pyffish")
    cmd = "python3 tools/pyffish_fixture.py " + " ".join(sys.argv[1:])
    with open(args.out, "w") as f:
        f.write("# xiangqi legal-move fixture generated by `%s` (pyffish %s, Fairy-Stockfish, "
                "seed %d, %d playouts, max %d plies). Columns: FEN (board + side, w=Red to move, "
                "upper case=Red, first rank string=Black back rank) <TAB> legal moves in ICCS "
                "(ranks 0-9 from Red side), sorted, space-separated; empty = no legal moves "
                "(mate/stalemate). Legality from pyffish.legal_moves with empty history. "
                "%d positions, %d in check, %d with no legal moves.\n"
                % (cmd.strip(), version, args.seed, playouts, args.max_plies,
                   len(order), n_check, n_none))
        for key in order:
            f.write(key + "\t" + " ".join(seen[key]) + "\n")
    print("positions=%d in_check=%d no_moves=%d playouts=%d" % (len(order), n_check, n_none, playouts),
          file=sys.stderr)


if __name__ == "__main__":
    main()
