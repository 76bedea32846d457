//! Where things are in the file: a map from TOML path (`units[3].weapon`) to
//! line, and the check for keys the format does not know.
//!
//! Validation works on the deserialised values, which have lost their
//! positions; walking toml's spanned document once gives every path a line,
//! so each problem can point at the line to edit.

use super::error::Problem;
use super::names::unknown_name_message;
use std::collections::HashMap;
use toml::de::{DeTable, DeValue};

/// The keys each table shape of a schema may hold.
pub type KnownKeys = fn(&str) -> Option<&'static [&'static str]>;

/// Lines of every path in the document, and the unknown keys found.
pub struct SpanIndex {
    known: KnownKeys,
    lines: HashMap<String, usize>,
    /// (byte offset, path) of every key and array item, in file order.
    offsets: Vec<(usize, String)>,
    pub unknown_keys: Vec<Problem>,
}

impl SpanIndex {
    /// Parse `text` as TOML and index it (as [`Self::build_with`]); a
    /// syntax error is the one problem, with its line.
    pub fn parse(text: &str, known: KnownKeys) -> Result<SpanIndex, Problem> {
        let doc = DeTable::parse(text).map_err(|e| Problem {
            path: String::new(),
            line: e.span().map(|s| LineStarts::new(text).line_of(s.start)),
            message: format!("TOML syntax error: {}", e.message().trim()),
        })?;
        Ok(SpanIndex::build_with(text, doc.get_ref(), known))
    }

    /// Index a document that has already parsed successfully, whose
    /// tables may hold the keys `known` gives for each shape (path with
    /// array indices removed; `None`: any key): each ruleset's schema
    /// gives its own.
    pub fn build_with(text: &str, doc: &DeTable<'_>, known: KnownKeys) -> SpanIndex {
        let mut index = SpanIndex {
            known,
            lines: HashMap::new(),
            offsets: Vec::new(),
            unknown_keys: Vec::new(),
        };
        let starts = LineStarts::new(text);
        index.walk_table(&starts, doc, "", "");
        index.offsets.sort();
        index
    }

    /// The path of the last key or item starting at or before `offset`: the
    /// value a deserialisation error at `offset` belongs to.
    pub fn path_at(&self, offset: usize) -> Option<&str> {
        let i = self.offsets.partition_point(|(o, _)| *o <= offset);
        i.checked_sub(1)
            .and_then(|i| self.offsets.get(i))
            .map(|(_, p)| p.as_str())
    }

    /// The line of `path`, or of the nearest enclosing path that has one.
    pub fn line_of(&self, path: &str) -> Option<usize> {
        let mut p = path;
        loop {
            if let Some(line) = self.lines.get(p) {
                return Some(*line);
            }
            let cut = p.rfind(['.', '['])?;
            p = &p[..cut];
        }
    }

    fn walk_table(&mut self, starts: &LineStarts, table: &DeTable<'_>, path: &str, shape: &str) {
        let known = (self.known)(shape);
        for (key, value) in table.iter() {
            let name: &str = key.get_ref();
            let child_path = join(path, name);
            let line = starts.line_of(key.span().start);
            self.lines.insert(child_path.clone(), line);
            self.offsets.push((key.span().start, child_path.clone()));
            if let Some(known) = known
                && !known.contains(&name)
            {
                self.unknown_keys.push(Problem {
                    path: child_path.clone(),
                    line: Some(line),
                    message: unknown_name_message("key", name, known.iter().copied()),
                });
                continue;
            }
            let child_shape = join(shape, name);
            self.walk_value(starts, value.get_ref(), &child_path, &child_shape);
        }
    }

    fn walk_value(&mut self, starts: &LineStarts, value: &DeValue<'_>, path: &str, shape: &str) {
        match value {
            DeValue::Table(t) => self.walk_table(starts, t, path, shape),
            DeValue::Array(items) => {
                let item_shape = format!("{shape}[]");
                for (i, item) in items.iter().enumerate() {
                    let item_path = format!("{path}[{i}]");
                    self.lines
                        .insert(item_path.clone(), starts.line_of(item.span().start));
                    self.offsets.push((item.span().start, item_path.clone()));
                    self.walk_value(starts, item.get_ref(), &item_path, &item_shape);
                }
            }
            _ => {}
        }
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Byte offsets at which each line starts, for offset → line.
pub struct LineStarts(Vec<usize>);

impl LineStarts {
    pub fn new(text: &str) -> LineStarts {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineStarts(starts)
    }

    /// 1-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.0.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }
}
