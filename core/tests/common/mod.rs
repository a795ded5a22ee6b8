//! Helpers shared by the integration tests.

#![allow(dead_code)]

use xqcore::Position;

/// One line of data/perft.txt.
pub struct PerftCase {
    pub fen: String,
    pub counts: Vec<(u32, u64)>,
}

/// Reads data/perft.txt.
pub fn perft_cases() -> Vec<PerftCase> {
    let text = include_str!("../../../data/perft.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let counts = parts
                .map(|p| {
                    let p = p.trim().strip_prefix('D').expect("D<depth>");
                    let (d, n) = p.split_once(' ').expect("depth and count");
                    (d.parse().unwrap(), n.trim().parse().unwrap())
                })
                .collect();
            PerftCase { fen, counts }
        })
        .collect()
}

/// A small deterministic generator (xorshift64*), so failures replay exactly.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Plays up to `plies` random legal moves from `pos`, calling `check` before each move.
pub fn random_playout(
    pos: &mut Position,
    rng: &mut Rng,
    plies: usize,
    mut check: impl FnMut(&Position),
) {
    for _ in 0..plies {
        check(pos);
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return;
        }
        pos.make_move(moves[rng.below(moves.len())]);
    }
    check(pos);
}
