//! Values the generated code builds once, on first use: compiled `pattern`s and JSON
//! constants that are arrays or objects.

use std::sync::OnceLock;

use serde_json::Value;

/// An ECMA-262 regular expression (the `pattern` keyword) with the `u` flag (Unicode mode, as
/// JSON Schema 2020-12 asks: `\p{Letter}` is a property escape), compiled on first use.
#[derive(Debug)]
pub struct LazyRegex {
    source: &'static str,
    compiled: OnceLock<Option<regress::Regex>>,
}

impl LazyRegex {
    /// A pattern, not compiled yet.
    pub const fn new(source: &'static str) -> Self {
        Self {
            source,
            compiled: OnceLock::new(),
        }
    }

    /// `true` when the pattern matches somewhere in `s` (patterns are not anchored).
    ///
    /// The generator already compiled the pattern with the same engine, so compilation
    /// cannot fail here; if it somehow did, nothing matches.
    pub fn is_match(&self, s: &str) -> bool {
        self.compiled
            .get_or_init(|| regress::Regex::with_flags(self.source, "u").ok())
            .as_ref()
            .is_some_and(|re| re.find(s).is_some())
    }
}

/// A JSON value written by the generator as text, parsed on first use.
#[derive(Debug)]
pub struct LazyJson {
    text: &'static str,
    parsed: OnceLock<Value>,
}

impl LazyJson {
    /// A value, not parsed yet.
    pub const fn new(text: &'static str) -> Self {
        Self {
            text,
            parsed: OnceLock::new(),
        }
    }

    /// The parsed value.
    pub fn get(&self) -> &Value {
        self.parsed
            .get_or_init(|| super::values::json_literal(self.text))
    }
}
