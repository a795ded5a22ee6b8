//! The commands of `xqserve`, one module each: serving (the default) and
//! `bench`, both from the library of books, tables, engine and store that
//! [`library`] opens from the serving options; `work`, a worker for a
//! server elsewhere; `dump` and `seed`, the store to a book and back.

pub mod bench;
pub mod library;
pub mod serve;
pub mod store;
pub mod work;
