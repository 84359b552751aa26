//! The compiled patterns of one evaluator.

use super::*;

/// The `pattern`s and `patternProperties` keys one evaluator met, each compiled once (on
/// first use) and kept for the life of the program, as the evaluator itself is a `static`.
#[derive(Debug)]
pub(crate) struct Patterns(Mutex<BTreeMap<&'static str, &'static LazyRegex>>);

impl Patterns {
    /// No pattern yet.
    pub(crate) const fn new() -> Self {
        Self(Mutex::new(BTreeMap::new()))
    }

    /// The compiled `pattern` (or `patternProperties` key) `source`, compiled once.
    pub(crate) fn regex(&self, source: &'static str) -> &'static LazyRegex {
        let mut patterns = self.0.lock().unwrap_or_else(|e| e.into_inner());
        patterns
            .entry(source)
            .or_insert_with(|| Box::leak(Box::new(LazyRegex::new(source))))
    }
}
