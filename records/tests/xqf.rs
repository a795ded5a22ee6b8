//! XQF files: the sample of the format's own description (version 10),
//! and files of the encrypted versions written by a test-side writer.

use xqcore::{GameResult, Position};
use xqrecords::notation::parse_and_resolve;
use xqrecords::pgn::SkipReason;
use xqrecords::xqf::read_xqf;
use xqrecords::{read_file, read_records, sniff, ReadOptions, RecordFormat};

/// The sample file printed in XQStudio's "XQF 1.0" format description
/// (2001): 柳大华 vs 吕钦, 1997, Black wins, 8 moves each. Rebuilt from
/// the hex dump there: header fields, then the tree from 0x400.
fn documented_sample() -> Vec<u8> {
    let mut f = vec![0u8; 0x488];
    f[..3].copy_from_slice(b"XQ\x0a");
    let pieces = [
        0x50, 0x46, 0x3C, 0x32, 0x28, 0x1E, 0x14, 0x0A, 0x00, 0x48, 0x0C, 0x53, 0x3F, 0x2B, 0x17,
        0x03, 0x09, 0x13, 0x1D, 0x27, 0x31, 0x3B, 0x45, 0x4F, 0x59, 0x11, 0x4D, 0x06, 0x1A, 0x2E,
        0x42, 0x56,
    ];
    f[0x10..0x30].copy_from_slice(&pieces);
    f[0x33] = 0x02;
    let title = [
        0x10, 0xCF, 0xC9, 0xC8, 0xCB, 0xD6, 0xB8, 0xC2, 0xB7, 0xB6, 0xD4, 0xC6, 0xF0, 0xC2, 0xED,
        0xBE, 0xD6,
    ];
    f[0x50..0x50 + title.len()].copy_from_slice(&title);
    let red = [0x06, 0xC1, 0xF8, 0xB4, 0xF3, 0xBB, 0xAA];
    f[0x130..0x130 + red.len()].copy_from_slice(&red);
    let black = [0x06, 0xC2, 0xC0, 0x20, 0x20, 0xC7, 0xD5];
    f[0x140..0x140 + black.len()].copy_from_slice(&black);
    let moves: [(u8, u8); 16] = [
        (0x2F, 0x38),
        (0x67, 0x63),
        (0x57, 0x60),
        (0x29, 0x3B),
        (0x2C, 0x4A),
        (0x2B, 0x27),
        (0x22, 0x36),
        (0x21, 0x33),
        (0x18, 0x2A),
        (0x2B, 0x2F),
        (0x24, 0x22),
        (0x27, 0x6B),
        (0x60, 0x6D),
        (0x33, 0x6D),
        (0x5E, 0x5E),
        (0x71, 0x6F),
    ];
    f[0x400..0x408].copy_from_slice(&[0x18, 0x20, 0xF0, 0xFF, 0, 0, 0, 0]);
    for (i, (from, to)) in moves.iter().enumerate() {
        let at = 0x408 + 8 * i;
        let tag = if i + 1 < moves.len() { 0xF0 } else { 0x00 };
        f[at..at + 4].copy_from_slice(&[*from, *to, tag, 0]);
    }
    f
}

#[test]
fn the_documented_version_10_sample_reads_as_its_chinese_notation() {
    let games = read_xqf(&documented_sample(), false).unwrap();
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(g.tag("Title"), Some("仙人指路对起马局"));
    assert_eq!(g.tag("Red"), Some("柳大华"));
    assert_eq!(g.tag("Black"), Some("吕  钦"));
    assert_eq!(g.result, GameResult::BlackWins);
    // The description gives the game in Chinese notation too.
    let chinese = "兵七进一 马８进７ 兵三进一 炮２平３ 相七进五 马２进１ 马八进七 车１平２ \
                   车九平八 车２进４ 炮八平九 车２平８ 炮二进五 炮３平８ 马二进三 车９平８";
    let mut pos = Position::start();
    let expected: Vec<_> = chinese
        .split_whitespace()
        .map(|t| {
            let m = parse_and_resolve(&pos, t).unwrap();
            pos.make_move(m);
            m
        })
        .collect();
    assert_eq!(g.start.fen(), Position::start().fen());
    assert_eq!(g.moves, expected);
}

/// A test-side XQF writer for the encrypted versions, after the format's
/// description: keys from the header, pieces offset (and rotated from
/// version 12), tree records offset and a key stream added by file offset.
struct Writer {
    version: u8,
    mask: u8,
    or: [u8; 4],
    /// KeysSum, KeyXY, KeyXYf, KeyXYt.
    keys: [u8; 4],
}

/// A tree record in file (pre-)order.
struct Record<'a> {
    from: u8,
    to: u8,
    next: bool,
    alternative: bool,
    comment: Option<&'a str>,
}

fn scramble(b: u8) -> u8 {
    (54 * u32::from(b) * u32::from(b) + 221) as u8
}

impl Writer {
    fn derived(&self) -> (u8, u8, u8, u32, [u8; 32]) {
        let [sum, xy, xyf, xyt] = self.keys;
        let pieces = scramble(xy).wrapping_mul(xy);
        let from = scramble(xyf).wrapping_mul(pieces);
        let to = scramble(xyt).wrapping_mul(from);
        let comment = (u32::from(sum) * 256 + u32::from(xy)) % 32000 + 767;
        let text = b"[(C) Copyright Mr. Dong Shiwei.]";
        let mut stream = [0u8; 32];
        for k in 0..32 {
            stream[k] = text[k] & ((self.keys[k % 4] & self.mask) | self.or[k % 4]);
        }
        (pieces, from, to, comment, stream)
    }

    /// `layout`: the square of each of the 32 pieces (255: absent).
    fn write(&self, layout: &[u8; 32], result: u8, red: &str, tree: &[Record]) -> Vec<u8> {
        let (kp, kf, kt, kc, stream) = self.derived();
        let mut f = vec![0u8; 0x400];
        f[..3].copy_from_slice(&[b'X', b'Q', self.version]);
        f[3] = self.mask;
        f[8..12].copy_from_slice(&self.or);
        f[12..16].copy_from_slice(&self.keys);
        for i in 0..32 {
            let slot = if self.version >= 12 {
                (i + 1 + kp as usize) % 32
            } else {
                i
            };
            let sq = if layout[slot] > 89 { 200 } else { layout[slot] };
            f[0x10 + i] = sq.wrapping_add(kp);
        }
        f[0x33] = result;
        let (name, _, _) = encoding_rs::GB18030.encode(red);
        f[0x130] = name.len() as u8;
        f[0x131..0x131 + name.len()].copy_from_slice(&name);
        for r in tree {
            let tag = (r.next as u8) << 7
                | (r.alternative as u8) << 6
                | (r.comment.is_some() as u8) << 5
                | 0x13;
            f.extend_from_slice(&[
                r.from.wrapping_add(0x18).wrapping_add(kf),
                r.to.wrapping_add(0x20).wrapping_add(kt),
                tag,
                0x5c,
            ]);
            if let Some(c) = r.comment {
                f.extend_from_slice(&(c.len() as u32 + kc).to_le_bytes());
                f.extend_from_slice(c.as_bytes());
            }
        }
        for (p, b) in f.iter_mut().enumerate().skip(0x400) {
            *b = b.wrapping_add(stream[p % 32]);
        }
        f
    }
}

/// The start: Red "RNBAKABNRCCPPPPP" then Black, each from its right.
const START: [u8; 32] = [
    80, 70, 60, 50, 40, 30, 20, 10, 0, 72, 12, 83, 63, 43, 23, 3, 9, 19, 29, 39, 49, 59, 69, 79,
    89, 17, 77, 6, 26, 46, 66, 86,
];

fn sq(name: &str) -> u8 {
    let b = name.as_bytes();
    (b[0] - b'a') * 10 + (b[1] - b'0')
}

fn rec<'a>(m: &str, next: bool, alternative: bool, comment: Option<&'a str>) -> Record<'a> {
    Record {
        from: sq(&m[..2]),
        to: sq(&m[2..]),
        next,
        alternative,
        comment,
    }
}

fn iccs(moves: &[xqcore::Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_derived_version_18_vector_is_what_the_writer_writes() {
    // Keys and expected bytes worked out from the format description.
    let w = Writer {
        version: 18,
        mask: 0xff,
        or: [0x10, 0x20, 0x30, 0x40],
        keys: [106, 30, 50, 70],
    };
    let root = Record {
        from: sq("e0"),
        to: sq("e0"),
        next: true,
        alternative: false,
        comment: None,
    };
    let mut file = w.write(
        &START,
        0,
        "",
        &[root, rec("c3c4", false, false, Some("OK"))],
    );
    // The root's squares are 'X', 'Q' in XQStudio's files.
    let (_, kf, kt, _, stream) = w.derived();
    file[0x400] = b'X'.wrapping_add(stream[0]);
    file[0x401] = b'Q'.wrapping_add(stream[1]);
    let _ = (kf, kt);
    let expected_pieces = [
        0x85, 0x8F, 0x47, 0x83, 0x3C, 0x50, 0x64, 0x78, 0x8C, 0x86, 0x7C, 0x72, 0x68, 0x5E, 0x54,
        0x4A, 0x40, 0x36, 0x7E, 0x42, 0x89, 0x75, 0x61, 0x4D, 0x39, 0x3F, 0x49, 0x53, 0x5D, 0x67,
        0x71, 0x7B,
    ];
    assert_eq!(&file[0x10..0x30], &expected_pieces);
    // Tag noise and reserved byte as in the vector (zero).
    file[0x402] = 0x80u8.wrapping_add(stream[2]);
    file[0x403] = stream[3];
    file[0x406] = 0x20u8.wrapping_add(stream[6]);
    file[0x407] = stream[7];
    assert_eq!(
        &file[0x400..],
        &[0xB2, 0x79, 0x82, 0x00, 0x7D, 0x40, 0x42, 0x40, 0x97, 0x9F, 0x20, 0x46, 0xB7, 0x7F]
    );
    let games = read_xqf(&file, false).unwrap();
    assert_eq!(iccs(&games[0].moves), "c3c4");
}

/// Main line h2e2 h9g7 h0g2; h9g7 has the alternative b9c7 (then b0c2),
/// and h2e2 has the alternative c3c4. Pre-order: a node, its
/// continuation, then its alternative.
fn variation_tree() -> [Record<'static>; 7] {
    [
        Record {
            from: 0,
            to: 0,
            next: true,
            alternative: false,
            comment: Some("game comment"),
        },
        rec("h2e2", true, true, Some("the central cannon")),
        rec("h9g7", true, true, None),
        rec("h0g2", false, false, Some("中文注解")),
        rec("b9c7", true, false, None),
        rec("b0c2", false, false, None),
        rec("c3c4", false, false, None),
    ]
}

#[test]
fn encrypted_versions_with_variations_and_comments() {
    let tree = variation_tree();
    for (version, keys) in [
        (11, [10, 20, 30, 196]),
        (12, [250, 3, 1, 2]),
        (18, [0x7f, 0x80, 0x01, 0x00]),
    ] {
        let w = Writer {
            version,
            mask: 0xaa,
            or: [7, 100, 200, 205],
            keys,
        };
        let file = w.write(&START, 3, "许银川", &tree);
        let main = read_xqf(&file, false).unwrap();
        assert_eq!(main.len(), 1, "version {version}");
        assert_eq!(iccs(&main[0].moves), "h2e2 h9g7 h0g2");
        assert_eq!(main[0].result, GameResult::Draw);
        assert_eq!(main[0].tag("Red"), Some("许银川"));
        let all = read_xqf(&file, true).unwrap();
        let lines: Vec<String> = all.iter().map(|g| iccs(&g.moves)).collect();
        assert_eq!(
            lines,
            ["h2e2 h9g7 h0g2", "h2e2 b9c7 b0c2", "c3c4"],
            "version {version}"
        );
    }
}

#[test]
fn an_endgame_with_black_to_move_and_missing_pieces() {
    let mut layout = [255u8; 32];
    layout[4] = sq("e0"); // red king
    layout[0] = sq("a1"); // a red rook
    layout[20] = sq("d9"); // black king
    layout[27] = sq("e5"); // a black pawn
    let w = Writer {
        version: 12,
        mask: 0xff,
        or: [1, 2, 3, 250],
        keys: [0, 0, 0, 0],
    };
    let file = w.write(
        &layout,
        2,
        "",
        &[
            Record {
                from: 0,
                to: 0,
                next: true,
                alternative: false,
                comment: None,
            },
            rec("e5e4", false, false, None),
        ],
    );
    let g = &read_xqf(&file, false).unwrap()[0];
    assert_eq!(
        g.start.fen().split(' ').take(2).collect::<Vec<_>>(),
        ["3k5/9/9/9/4p4/9/9/9/R8/4K4", "b"]
    );
    assert_eq!(iccs(&g.moves), "e5e4");
}

#[test]
fn damaged_files_give_errors_not_panics() {
    let good = documented_sample();
    for len in 0..good.len() {
        let _ = read_xqf(&good[..len], true);
    }
    assert!(read_xqf(&good[..0x100], false)
        .unwrap_err()
        .0
        .contains("too short"));
    assert!(read_xqf(&good[..0x440], false)
        .unwrap_err()
        .0
        .contains("ends early"));
    let mut bad = good.clone();
    bad[0] = b'Y';
    assert!(read_xqf(&bad, false).unwrap_err().0.contains("signature"));
    let mut seed = 99u64;
    for _ in 0..2000 {
        let mut bytes = good.clone();
        for _ in 0..4 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed % bytes.len() as u64) as usize;
            bytes[at] = (seed >> 32) as u8;
        }
        let _ = read_xqf(&bytes, true);
    }
    // An illegal move is reported with its number.
    let mut bad = good.clone();
    bad[0x408] = 0x18; // first move from a0 ...
    bad[0x409] = 0x20 + 9; // ... to a9: no rook can go through the pawns
    assert!(read_xqf(&bad, false).unwrap_err().0.contains("move 1"));
}

#[test]
fn files_are_told_apart_by_their_bytes_whatever_their_name() {
    let xqf = documented_sample();
    assert_eq!(sniff(&xqf), RecordFormat::Xqf);
    assert_eq!(sniff(b"[Event \"x\"]\n1. h2e2 h9g7 *\n"), RecordFormat::Pgn);
    // "XQ" alone, shorter than an XQF header, is text.
    assert_eq!(sniff(b"XQ is a game"), RecordFormat::Pgn);
    let dir = tempfile::tempdir().unwrap();
    let named_pgn = dir.path().join("game.pgn");
    std::fs::write(&named_pgn, &xqf).unwrap();
    let done = std::sync::atomic::AtomicU64::new(0);
    let read = read_file(&named_pgn, &ReadOptions::default(), &|n| {
        done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(read.format, RecordFormat::Xqf);
    assert_eq!(read.games.len(), 1);
    assert_eq!(read.games[0].result, GameResult::BlackWins);
    assert_eq!(done.into_inner(), xqf.len() as u64);
    let pgn = read_records(
        "[Result \"1-0\"]\n1. h2e2 h9g7 2. h0g2 *\n\n[Result \"0-1\"]\n1. h2e9 *\n".as_bytes(),
        &ReadOptions::default(),
        &|_| {},
    );
    assert_eq!(pgn.format, RecordFormat::Pgn);
    assert_eq!(pgn.games.len(), 1);
    assert_eq!(pgn.errors.len(), 1);
    assert_eq!(pgn.errors[0].index, 2);
    // A damaged XQF file is one unreadable game, with the reason.
    let damaged = read_records(&xqf[..0x440], &ReadOptions::default(), &|_| {});
    assert!(damaged.games.is_empty());
    assert_eq!(damaged.errors[0].reason, SkipReason::BadXqf);
    assert!(damaged.errors[0].detail.contains("ends early"));
    let missing = read_file(
        &dir.path().join("none.pgn"),
        &ReadOptions::default(),
        &|_| {},
    )
    .unwrap_err();
    assert!(missing.to_string().contains("none.pgn"), "{missing}");
}

/// Writes the files of these tests into the directory `XQF_SEEDS` names,
/// as seeds for the `xqf` fuzz target (fuzz/corpus/xqf):
/// `XQF_SEEDS=fuzz/corpus/xqf cargo test -p xqrecords --test xqf -- --ignored`.
#[test]
#[ignore = "writes fuzzing seeds when asked"]
fn write_fuzz_seeds() {
    let Some(dir) = std::env::var_os("XQF_SEEDS") else {
        return;
    };
    let tree = variation_tree();
    let mut files = vec![("sample-v10", documented_sample())];
    for (name, version, keys) in [
        ("v11", 11, [10, 20, 30, 196]),
        ("v12", 12, [250, 3, 1, 2]),
        ("v18", 18, [0x7f, 0x80, 0x01, 0x00]),
    ] {
        let w = Writer {
            version,
            mask: 0xaa,
            or: [7, 100, 200, 205],
            keys,
        };
        files.push((name, w.write(&START, 3, "许银川", &tree)));
    }
    for (name, bytes) in files {
        // The files must read, or they seed nothing useful.
        read_xqf(&bytes, true).unwrap();
        std::fs::write(std::path::Path::new(&dir).join(name), bytes).unwrap();
    }
}
