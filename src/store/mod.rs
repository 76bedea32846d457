//! The SQLite game store. (in progress)
