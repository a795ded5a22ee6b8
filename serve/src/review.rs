//! Reviews of games: every position of a game judged in the background
//! (by the tables where they hold it, else the books, else the engine, as
//! the chessdb answers are), and every move marked by what it cost its
//! player: the drop in the player's expected score (a win 1, a draw ½),
//! read off the engine's win-draw-loss model (docs/wdl.md). A review is
//! written back as PGN with a comment and an annotation glyph a move.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use xqcore::{Color, EndRules, Move, Position};
use xqegtb::Value;
use xqengine::wdl::{material, WdlView};
use xqengine::MATE;

use crate::chessdb::table_answer;
use crate::library::Library;
use crate::rank::book_file_moves;

/// Reviews kept at once; the oldest is dropped for a new one.
pub const MAX_REVIEWS: usize = 16;

/// Drops of expected score that make a move an inaccuracy, a mistake or a
/// blunder: 5, 10 and 15 points of a hundred (a tenth, a fifth and
/// three tenths of the winning chances, as lichess marks them).
const INACCURACY: f64 = 0.05;
const MISTAKE: f64 = 0.10;
const BLUNDER: f64 = 0.15;

/// What a move cost, by the drop in its player's expected score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Mark {
    /// The mark of a move that dropped its player's expected score by
    /// `drop`; `None` below an inaccuracy's.
    pub fn of_drop(drop: f64) -> Option<Mark> {
        [
            (BLUNDER, Mark::Blunder),
            (MISTAKE, Mark::Mistake),
            (INACCURACY, Mark::Inaccuracy),
        ]
        .into_iter()
        .find(|(least, _)| drop >= *least)
        .map(|(_, mark)| mark)
    }

    /// The mark in words.
    pub fn name(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }

    /// PGN's numeric annotation glyph: `$6` (?!), `$2` (?), `$4` (??).
    pub fn nag(self) -> u8 {
        match self {
            Mark::Inaccuracy => 6,
            Mark::Mistake => 2,
            Mark::Blunder => 4,
        }
    }
}

/// Who judged a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The game is over by the rules.
    Rules,
    Tables,
    Book,
    Engine,
}

/// What a position is worth to the side to move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Judgement {
    /// The score for the side to move: centipawns, or beyond
    /// [`xqengine::MATE_BOUND`] a mate (the tables' wins and losses too).
    pub score: i32,
    /// The expected score of the side to move, 0 to 1.
    pub expected: f64,
    /// The best move, where there is one.
    #[serde(serialize_with = "move_text")]
    pub best: Option<Move>,
    pub source: Source,
    /// The tables' verdict (`win in 12 plies`), where they hold the
    /// position.
    pub tables: Option<String>,
    /// The book's moves, best first, where the books know the position.
    #[serde(serialize_with = "moves_text")]
    pub book: Vec<Move>,
}

fn move_text<S: serde::Serializer>(m: &Option<Move>, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&m.map(|m| m.to_string()), s)
}

fn moves_text<S: serde::Serializer>(moves: &[Move], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(moves.iter().map(|m| m.to_string()))
}

/// A move of a reviewed game, once both positions around it are judged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveReview {
    /// The drop in its player's expected score (0 for the best move).
    pub drop: f64,
    pub mark: Option<Mark>,
    /// A book move (never marked).
    pub book: bool,
}

impl MoveReview {
    /// The move `played` from a position judged `before`, to one judged
    /// `after` (from the other side's view).
    pub fn of(played: Move, before: &Judgement, after: &Judgement) -> MoveReview {
        let book = before.book.contains(&played);
        let drop = (before.expected - (1.0 - after.expected)).max(0.0);
        // The tables are exact: a move that keeps the verdict costs
        // nothing, however the mate distance moves.
        let drop = if before.source == Source::Tables && same_verdict(before, after) {
            0.0
        } else {
            drop
        };
        MoveReview {
            drop,
            mark: if book { None } else { Mark::of_drop(drop) },
            book,
        }
    }
}

/// Whether the tables' verdict stands after a move: a win becomes a loss
/// for the other side, a draw stays a draw.
fn same_verdict(before: &Judgement, after: &Judgement) -> bool {
    after.source == Source::Tables && before.score.signum() == -after.score.signum()
}

/// A game under review: its positions' judgements as they come.
#[derive(Clone, Debug, Serialize)]
pub struct Review {
    /// The start position's FEN.
    pub start: String,
    #[serde(serialize_with = "moves_text")]
    pub moves: Vec<Move>,
    /// The game's tags.
    pub tags: Vec<(String, String)>,
    /// One a position, the start's first; `None` until judged.
    pub positions: Vec<Option<Judgement>>,
    /// One a move, once both its positions are judged.
    pub reviews: Vec<Option<MoveReview>>,
    /// Positions judged.
    pub judged: usize,
    /// Why the review stopped early (the engine busy, the tables damaged).
    pub error: Option<String>,
}

impl Review {
    fn new(game: &xqrecords::pgn::Game) -> Review {
        Review {
            start: game.start.fen(),
            moves: game.moves.clone(),
            tags: game.tags.clone(),
            positions: vec![None; game.moves.len() + 1],
            reviews: vec![None; game.moves.len()],
            judged: 0,
            error: None,
        }
    }

    /// Records the judgement of position `ply` and reviews the moves
    /// around it that can now be.
    fn judged(&mut self, ply: usize, judgement: Judgement) {
        self.positions[ply] = Some(judgement);
        self.judged += 1;
        for m in ply.saturating_sub(1)..(ply + 1).min(self.moves.len()) {
            if let (Some(before), Some(after)) = (&self.positions[m], &self.positions[m + 1]) {
                self.reviews[m] = Some(MoveReview::of(self.moves[m], before, after));
            }
        }
    }

    /// Whether every position is judged.
    pub fn done(&self) -> bool {
        self.judged == self.positions.len()
    }

    /// The review as PGN: the game's tags (`Annotator` added), each move
    /// with its annotation glyph and a comment: the score after it from
    /// Red's side and who gave it, the drop and mark, the best move where
    /// another was better, the tables' verdict.
    pub fn pgn(&self) -> String {
        self.write_pgn(true)
    }

    /// The game alone as PGN, without comments or glyphs, for readers that
    /// take every word of the move text for a move (PyPI cchess 1.25 stops
    /// with an error at a comment).
    pub fn plain_pgn(&self) -> String {
        self.write_pgn(false)
    }

    fn write_pgn(&self, annotated: bool) -> String {
        let mut text = String::new();
        for (name, value) in &self.tags {
            if !["Annotator", "Format"].contains(&name.as_str()) {
                text.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
            }
        }
        if annotated {
            text.push_str("[Annotator \"xqserve review\"]\n");
        }
        text.push_str("[Format \"ICCS\"]\n\n");
        let mut pos = Position::from_fen(&self.start).unwrap_or_else(|_| Position::start());
        let mut words = Vec::new();
        for (i, &mv) in self.moves.iter().enumerate() {
            if pos.turn() == Color::Red || i == 0 {
                let number = pos.fullmoves();
                words.push(if pos.turn() == Color::Red {
                    format!("{number}.")
                } else {
                    format!("{number}...")
                });
            }
            let iccs = mv.to_string().to_uppercase();
            words.push(format!("{}-{}", &iccs[..2], &iccs[2..]));
            if let Some(mark) = self.reviews[i].as_ref().and_then(|r| r.mark) {
                if annotated {
                    words.push(format!("${}", mark.nag()));
                }
            }
            if let Some(comment) = self.comment(i, pos.turn()).filter(|_| annotated) {
                words.push(format!("{{{comment}}}"));
            }
            pos.make_move(mv);
        }
        let result = self
            .tags
            .iter()
            .find(|(k, _)| k == "Result")
            .map_or("*", |(_, v)| v.as_str());
        words.push(result.to_string());
        text.push_str(&wrap(&words));
        text
    }

    /// The comment on move `i`, played by `mover`.
    fn comment(&self, i: usize, mover: Color) -> Option<String> {
        let after = self.positions[i + 1].as_ref()?;
        let before = self.positions[i].as_ref()?;
        // `after` is for the side to move after the move: Red's view flips
        // when that is Black.
        let red = if mover == Color::Red {
            -after.score
        } else {
            after.score
        };
        let mut parts = vec![format!("{} {}", red_score(red), source_name(after.source))];
        if let Some(review) = &self.reviews[i] {
            if review.book {
                parts.push("book move".into());
            } else if let Some(book) = before.book.first() {
                parts.push(format!("out of book (book {book})"));
            }
            if let Some(mark) = review.mark {
                parts.push(format!(
                    "{} (-{:.0} % expected score)",
                    mark.name(),
                    review.drop * 100.0
                ));
                if let Some(best) = before.best.filter(|&b| b != self.moves[i]) {
                    parts.push(format!("best {best}"));
                }
            }
        }
        if let Some(verdict) = &after.tables {
            parts.push(format!("tables: {verdict}"));
        }
        Some(parts.join("; "))
    }
}

fn source_name(source: Source) -> &'static str {
    match source {
        Source::Rules => "rules",
        Source::Tables => "tables",
        Source::Book => "book",
        Source::Engine => "engine",
    }
}

/// A score from Red's side as the board writes it: `+0.35`, `+M3`.
fn red_score(score: i32) -> String {
    if score.abs() >= xqengine::MATE_BOUND {
        let moves = (MATE - score.abs() + 1) / 2;
        format!("{}M{moves}", if score > 0 { "+" } else { "-" })
    } else {
        format!("{:+.2}", f64::from(score) / 100.0)
    }
}

/// `"` and `\` escaped, for a PGN tag's value.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Words in lines of at most 79 characters (a comment may be longer).
fn wrap(words: &[String]) -> String {
    let mut text = String::new();
    let mut line = String::new();
    for word in words {
        if !line.is_empty() && line.len() + 1 + word.len() > 79 {
            text.push_str(&line);
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    text.push_str(&line);
    text.push('\n');
    text
}

/// The reviews under way and done, the newest [`MAX_REVIEWS`].
#[derive(Default)]
pub struct Reviews {
    next: std::sync::atomic::AtomicU64,
    kept: Mutex<VecDeque<(u64, Arc<Mutex<Review>>)>>,
}

impl Reviews {
    /// Starts a review of `game` in the background; its number.
    pub fn start(&self, library: Arc<Library>, game: &xqrecords::pgn::Game) -> u64 {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let review = Arc::new(Mutex::new(Review::new(game)));
        {
            let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
            if kept.len() == MAX_REVIEWS {
                kept.pop_front();
            }
            kept.push_back((id, review.clone()));
        }
        let (start, moves) = (game.start.clone(), game.moves.clone());
        tokio::spawn(async move { judge_all(&library, start, &moves, &review).await });
        id
    }

    /// Review `id` as it stands, if it is kept.
    pub fn get(&self, id: u64) -> Option<Review> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter()
            .find(|(k, _)| *k == id)
            .map(|(_, r)| r.lock().unwrap_or_else(|e| e.into_inner()).clone())
    }
}

/// Judges every position of the game, in order, into `review`.
async fn judge_all(library: &Library, start: Position, moves: &[Move], review: &Mutex<Review>) {
    let mut pos = start;
    for ply in 0..=moves.len() {
        match judge(library, &pos).await {
            Ok(judgement) => review
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .judged(ply, judgement),
            Err(why) => {
                review.lock().unwrap_or_else(|e| e.into_inner()).error = Some(why);
                return;
            }
        }
        if let Some(&mv) = moves.get(ply) {
            pos.make_move(mv);
        }
    }
}

/// What `pos` is worth to the side to move: by the rules when the game is
/// over, else the tables, the books, the engine.
///
/// # Errors
///
/// The tables cannot answer (damaged), or the engine's queue is full.
pub async fn judge(library: &Library, pos: &Position) -> Result<Judgement, String> {
    let view = WdlView {
        material: material(pos),
        net_scale: {
            let search = &library.engine.config().search;
            search.net.is_some().then_some(search.params.net_scale)
        },
    };
    let expected = |score: i32| {
        let [w, d, _] = view.per_mille(score);
        (f64::from(w) + f64::from(d) / 2.0) / 1000.0
    };
    let judgement = |score, best, source| Judgement {
        score,
        expected: expected(score),
        best,
        source,
        tables: None,
        book: Vec::new(),
    };
    if let Some(outcome) = pos.outcome(&EndRules::default()) {
        let score = match outcome.winner() {
            Some(winner) if winner == pos.turn() => MATE,
            Some(_) => -MATE,
            None => 0,
        };
        return Ok(Judgement {
            expected: outcome
                .winner()
                .map_or(0.5, |w| f64::from(u8::from(w == pos.turn()))),
            ..judgement(score, None, Source::Rules)
        });
    }
    let legal: Vec<Move> = pos.legal_moves().iter().copied().collect();
    let tables = table_answer(library, pos, &legal)
        .map_err(|_| "the endgame tables cannot answer: a table is damaged".to_string())?;
    if let Some((mv, value)) = tables.and_then(|t| t.values.first().copied()) {
        let (score, verdict, expected) = match value {
            Value::Win(plies) => (MATE - plies as i32, format!("win in {plies} plies"), 1.0),
            Value::Loss(plies) => (
                -(MATE - plies as i32),
                format!("loss in {plies} plies"),
                0.0,
            ),
            Value::Draw => (0, "draw".to_string(), 0.5),
        };
        return Ok(Judgement {
            expected,
            tables: Some(verdict),
            ..judgement(score, Some(mv), Source::Tables)
        });
    }
    let book = library
        .books
        .iter()
        .find_map(|b| book_file_moves(b, pos).ok().flatten());
    if let Some(ranked) = book {
        let best = &ranked[0];
        return Ok(Judgement {
            book: ranked.iter().map(|m| m.mv).collect(),
            ..judgement(best.score, Some(best.mv), Source::Book)
        });
    }
    let analysis = library
        .engine
        .analyse(pos, &[])
        .await
        .map_err(|e| format!("the engine cannot answer: {e}"))?;
    Ok(judgement(
        analysis.score,
        analysis.pv.first().copied(),
        Source::Engine,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_by_the_drop() {
        assert_eq!(Mark::of_drop(0.0), None);
        assert_eq!(Mark::of_drop(0.049), None);
        assert_eq!(Mark::of_drop(0.05), Some(Mark::Inaccuracy));
        assert_eq!(Mark::of_drop(0.12), Some(Mark::Mistake));
        assert_eq!(Mark::of_drop(0.5), Some(Mark::Blunder));
    }

    fn judged(score: i32, expected: f64, source: Source) -> Judgement {
        Judgement {
            score,
            expected,
            best: None,
            source,
            tables: None,
            book: Vec::new(),
        }
    }

    #[test]
    fn a_move_costs_what_its_player_expected_less_what_it_leaves() {
        let h2e2 = Position::start().parse_move("h2e2").unwrap();
        // 0.60 expected before; the opponent expects 0.55 after: 0.15 lost.
        let review = MoveReview::of(
            h2e2,
            &judged(80, 0.60, Source::Engine),
            &judged(40, 0.55, Source::Engine),
        );
        assert!((review.drop - 0.15).abs() < 1e-9);
        assert_eq!(review.mark, Some(Mark::Blunder));
        // A better move than the engine saw costs nothing.
        let review = MoveReview::of(
            h2e2,
            &judged(80, 0.60, Source::Engine),
            &judged(-200, 0.20, Source::Engine),
        );
        assert_eq!((review.drop, review.mark), (0.0, None));
        // A book move is never marked.
        let mut before = judged(80, 0.60, Source::Book);
        before.book = vec![h2e2];
        let review = MoveReview::of(h2e2, &before, &judged(300, 0.9, Source::Engine));
        assert!(review.book && review.mark.is_none());
        // In the tables a win kept is no loss, however much longer.
        let review = MoveReview::of(
            h2e2,
            &judged(MATE - 5, 1.0, Source::Tables),
            &judged(-(MATE - 30), 0.0, Source::Tables),
        );
        assert_eq!(review.mark, None);
        let review = MoveReview::of(
            h2e2,
            &judged(MATE - 5, 1.0, Source::Tables),
            &judged(0, 0.5, Source::Tables),
        );
        assert_eq!(review.mark, Some(Mark::Blunder));
    }
}
