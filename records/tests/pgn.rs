//! PGN structure: games, tags, comments, variations, results, and games
//! that cannot be read, with where and why.

use xqcore::GameResult;
use xqrecords::encoding::{decode, TextEncoding};
use xqrecords::pgn::{parse_game, split, Game, GameError, SkipReason};

fn games(text: &str) -> Vec<Result<Game, GameError>> {
    split(text).iter().map(parse_game).collect()
}

fn iccs(g: &Game) -> String {
    g.moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

const FILE: &str = r#"[Event "one"]
[Result "1-0"]

1. h2e2 {a comment
spanning lines} h9g7 (1... h7e7 2. h0g2 (2. b0c2)) 2. h0g2 $1 i9h9!? ; rest of line
3. R1.2 車１進１ 1-0

[Event "two"]
[FEN "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1"]
1. R5+7 0-1

[Event "three"]
1. h2e2 h9g7 2. 炮五進九 *

[Event "four"]
[FEN "4k4/9/9/9/9/9/9/9/9/4K4 w"]
1. h2e2

[Event "five"]
1. h2e2 h9g7 2. xyz
"#;

#[test]
fn a_file_of_games_with_comments_variations_and_errors() {
    let all = games(FILE);
    assert_eq!(all.len(), 5);
    let one = all[0].as_ref().unwrap();
    assert_eq!(one.tag("Event"), Some("one"));
    assert_eq!(one.result, GameResult::RedWins);
    // Variations and comments skipped; WXF and Chinese mixed in.
    assert_eq!(iccs(one), "h2e2 h9g7 h0g2 i9h9 i0h0 a9a8");
    let two = all[1].as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        two.start.fen().split(' ').next(),
        Some("3k5/9/9/9/9/9/9/9/4R4/4K4")
    );
    assert_eq!(iccs(two), "e1e8");
    // No [Result] tag: the result token ending the moves counts.
    assert_eq!(two.result, GameResult::BlackWins);
    let three = all[2].as_ref().unwrap_err();
    assert_eq!(
        (three.index, three.line, three.reason),
        (3, 13, SkipReason::IllegalMove)
    );
    assert!(three.to_string().contains("move 3"), "{three}");
    let four = all[3].as_ref().unwrap_err();
    assert_eq!(
        (four.index, four.line, four.reason),
        (4, 16, SkipReason::BadFen)
    );
    let five = all[4].as_ref().unwrap_err();
    assert_eq!(
        (five.index, five.line, five.reason),
        (5, 20, SkipReason::UnreadableMove)
    );
}

#[test]
fn crlf_line_ends_and_gbk_text() {
    let text = "[Event \"中炮\"]\r\n[Result \"1/2-1/2\"]\r\n\r\n1. 炮二平五 马８进７\r\n2. 马二进三 车９平８ 1/2-1/2\r\n";
    let (bytes, _, _) = encoding_rs::GB18030.encode(text);
    let decoded = decode(&bytes, None);
    assert_eq!(decoded.encoding, TextEncoding::Gb18030);
    let all = games(&decoded.text);
    let g = all[0].as_ref().unwrap();
    assert_eq!(g.tag("Event"), Some("中炮"));
    assert_eq!(g.result, GameResult::Draw);
    assert_eq!(iccs(g), "h2e2 h9g7 h0g2 i9h9");
}

#[test]
fn no_input_line_panics() {
    for text in [
        "",
        "[",
        "[Event",
        "{",
        "(((",
        ")",
        "1.",
        "[FEN \"\"]\n1. h2e2",
        "[FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r\"]\nh2e2",
        "\u{feff}[Event \"x\"]\n炮二平五",
        "1. 前前前前 後後 中兵平 一兵平二",
    ] {
        let _ = games(text);
    }
}
