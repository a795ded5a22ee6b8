//! The commands of `xqserve`, one module each: serving (the default) and
//! `bench`, both from the library of books, tables and engine that
//! [`library`] opens from the serving options.

pub mod bench;
pub mod library;
pub mod serve;
