//! `xqserve`: our books, endgame tables and engine over HTTP.
//!
//! - [`chessdb`]: the chessdb.cn query API (`/chessdb.php`), answered from
//!   the tables, then the books, then the store; [`reply`] writes its
//!   replies as chessdb does.
//! - [`library`]: what a server answers from, and the [`library::Policy`]
//!   it answers by.
//! - [`engine`]: the searches behind it: a queue of bounded length, and
//!   the store's table of answers so that a repeated query is answered at
//!   once.
//! - [`store`]: every position analysed (SQLite), the queue of positions
//!   waiting, and the scores learned by backing up through them; [`dump`]
//!   turns it into a book and seeds it from one.
//! - [`analysers`]: threads that analyse queued positions at idle
//!   priority.
//! - [`workers`]: chessdb's worker protocol on the server, with
//!   [`tokens`] proving a worker; [`work`]: a worker on any machine.
//! - [`bench`](mod@bench) and [`load`]: `xqserve bench`'s queries and load.
//! - [`rank`]: chessdb's ranks of moves, and the score of a book move
//!   from its games (one ranking for the API and the board).
//! - [`play`]: the engine's moves in a game on the board, at a level;
//!   [`review`]: a game's every move judged and marked in the background.
//! - [`board`]: the `board` parameter (a FEN, and our extension: moves
//!   played from it).
//! - [`http`]: the routes, on axum.
//!
//! No query names a file: the server reads only the book, table and store
//! files it was started with, and with a web root ([`http::WebRoot`]) the
//! files inside that folder.

pub mod analysers;
pub mod api;
pub mod bench;
pub mod board;
pub mod chessdb;
pub mod dump;
pub mod engine;
pub mod http;
pub mod library;
pub mod load;
pub mod play;
pub mod rank;
pub mod reply;
pub mod review;
pub mod store;
pub mod tokens;
pub mod work;
pub mod workers;
