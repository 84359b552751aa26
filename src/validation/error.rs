//! [`ValidationError`]: one violation, with its parts rendered when they are read.
//!
//! A validator that collects every violation of an invalid value builds one error per
//! violation; rendering each error's limit, summary and sentence up front (strings, JSON
//! values, `format!`) cost about as much as the walk itself. An error therefore keeps what
//! it was built from: the schema's static texts by reference, numbers as numbers, the
//! generator's JSON literals as text, and short strings inline. [`ValidationError::limit`],
//! [`ValidationError::actual`] and [`ValidationError::message`] render them on demand, and
//! its JSON form (`Serialize`) is the same as before.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Number, Value};

use super::text::{ShortText, TextBuilder};

/// One violation found while validating a value against a schema.
///
/// Serialized with camelCase members (`path`, `schemaPath`, `keyword`, `limit`, `actual`,
/// `message`), the shape of `ValidationError` in `schema/errors.json`. Two errors are equal
/// when those six members are.
#[derive(Clone)]
pub struct ValidationError {
    path: ShortText,
    names: Names,
    limit: Part,
    actual: Part,
    message: Message,
}

/// An error's schema path and keyword: the generator's texts, or texts built at run time.
///
/// One pointer-sized niche for both keeps an error at 128 bytes (a test pins it), so the
/// eight a collecting validator reserves at its first violation take one small allocation.
#[derive(Clone)]
enum Names {
    /// Written by the generator.
    Static {
        schema_path: &'static str,
        keyword: &'static str,
    },
    /// Built at run time (`schema_path`, `keyword`).
    Owned(Box<(String, String)>),
}

impl ValidationError {
    /// Builds an error from its parts.
    pub fn new(
        path: impl Into<String>,
        schema_path: impl Into<String>,
        keyword: impl Into<String>,
        limit: Value,
        actual: Value,
        message: impl Into<String>,
    ) -> Self {
        Self {
            path: ShortText::from(path.into().as_str()),
            names: Names::Owned(Box::new((schema_path.into(), keyword.into()))),
            limit: Part::Value(Box::new(limit)),
            actual: Part::Value(Box::new(actual)),
            message: Message::Owned(message.into()),
        }
    }

    /// An error recorded by a generated validator: the texts are the generator's, the parts
    /// are rendered when read.
    pub(crate) fn recorded(
        path: ShortText,
        schema_path: &'static str,
        keyword: &'static str,
        (limit, actual, message): (Part, Part, Message),
    ) -> Self {
        Self {
            path,
            names: Names::Static {
                schema_path,
                keyword,
            },
            limit,
            actual,
            message,
        }
    }

    /// An error recorded by the run-time evaluator: the schema path is built at run time.
    pub(crate) fn evaluated(
        schema_path: String,
        keyword: &'static str,
        (limit, actual, message): (Part, Part, Message),
    ) -> Self {
        Self {
            path: ShortText::EMPTY,
            names: Names::Owned(Box::new((schema_path, keyword.to_string()))),
            limit,
            actual,
            message,
        }
    }

    /// The path, to be written in place by the collector that recorded the error.
    pub(crate) fn path_mut(&mut self) -> &mut ShortText {
        &mut self.path
    }

    /// Where in the validated value the violation is: an RFC 6901 JSON Pointer, empty for
    /// the value itself.
    pub fn path(&self) -> &str {
        self.path.as_str()
    }

    /// Where the failing keyword is in the schema file: a JSON Pointer into that file.
    pub fn schema_path(&self) -> &str {
        match &self.names {
            Names::Static { schema_path, .. } => schema_path,
            Names::Owned(names) => &names.0,
        }
    }

    /// The schema keyword that failed (`type`, `required`, `maxItems`, ...).
    pub fn keyword(&self) -> &str {
        match &self.names {
            Names::Static { keyword, .. } => keyword,
            Names::Owned(names) => &names.1,
        }
    }

    /// The keyword's value in the schema (the bound, the expected type, the allowed values).
    pub fn limit(&self) -> Value {
        self.limit.to_value()
    }

    /// What the value had instead, summarised: a length, a count, a JSON type name, or the
    /// value itself only when it is a number or a string of at most 64 bytes.
    pub fn actual(&self) -> Value {
        self.actual.to_value()
    }

    /// A sentence describing the violation. It quotes the validated input only as
    /// [`actual`](Self::actual) does (a number, or a string of at most 64 bytes); an `enum`
    /// violation found by a generated validator names the allowed values (up to 200 bytes
    /// of them, then their count) and the value given instead.
    pub fn message(&self) -> Cow<'_, str> {
        if let Some(sentence) = self.enum_sentence() {
            return Cow::Owned(sentence);
        }
        match &self.message {
            Message::Static(text) => Cow::Borrowed(text),
            Message::Owned(text) => Cow::Borrowed(text),
            Message::Template(template) => {
                let mut out = String::new();
                // Writing into a String cannot fail.
                let _written: fmt::Result = self.write_template(template, &mut out);
                Cow::Owned(out)
            }
        }
    }

    /// Puts `prefix` (a JSON Pointer) in front of the error's path: the error was found in a
    /// value that sits at `prefix` inside the document reported on.
    pub fn prefix_path(&mut self, prefix: &str) {
        let mut path = TextBuilder::new();
        path.push(prefix);
        path.push(self.path.as_str());
        self.path = path.finish();
    }

    fn write_template(&self, template: &str, out: &mut impl fmt::Write) -> fmt::Result {
        let mut rest = template;
        while let Some(start) = rest.find('{') {
            out.write_str(&rest[..start])?;
            let after = &rest[start..];
            if let Some(tail) = after.strip_prefix("{limit}") {
                self.limit.write_words(out)?;
                rest = tail;
            } else if let Some(tail) = after.strip_prefix("{actual}") {
                self.actual.write_words(out)?;
                rest = tail;
            } else {
                out.write_char('{')?;
                rest = &after[1..];
            }
        }
        out.write_str(rest)
    }

    /// The sentence of an `enum` violation recorded by a generated validator: the allowed
    /// values (cut after [`MAX_ALLOWED_TEXT`] bytes, the count then said) and the actual
    /// value as [`actual`](Self::actual) summarises it.
    fn enum_sentence(&self) -> Option<String> {
        if !matches!(
            self.names,
            Names::Static {
                keyword: "enum",
                ..
            }
        ) {
            return None;
        }
        let Value::Array(allowed) = self.limit() else {
            return None;
        };
        let mut listed = String::new();
        let mut shown = 0;
        for value in &allowed {
            let text = value.to_string();
            if !listed.is_empty() && listed.len() + text.len() > MAX_ALLOWED_TEXT {
                break;
            }
            if !listed.is_empty() {
                listed.push_str(", ");
            }
            listed.push_str(&text);
            shown += 1;
        }
        if shown < allowed.len() {
            listed.push_str(&format!(", ... ({} values in all)", allowed.len()));
        }
        let actual = match &self.actual {
            Part::Str(type_name) => format!("a value of type {type_name}"),
            other => format!("value {}", other.to_value()),
        };
        Some(format!(
            "{actual} is not one of the allowed values: {listed}"
        ))
    }

    fn write_message(&self, out: &mut impl fmt::Write) -> fmt::Result {
        if let Some(sentence) = self.enum_sentence() {
            return out.write_str(&sentence);
        }
        match &self.message {
            Message::Static(text) => out.write_str(text),
            Message::Owned(text) => out.write_str(text),
            Message::Template(template) => self.write_template(template, out),
        }
    }
}

impl fmt::Debug for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ValidationError")
            .field("path", &self.path())
            .field("schema_path", &self.schema_path())
            .field("keyword", &self.keyword())
            .field("limit", &self.limit())
            .field("actual", &self.actual())
            .field("message", &self.message())
            .finish()
    }
}

impl PartialEq for ValidationError {
    fn eq(&self, other: &Self) -> bool {
        self.path() == other.path()
            && self.schema_path() == other.schema_path()
            && self.keyword() == other.keyword()
            && self.limit() == other.limit()
            && self.actual() == other.actual()
            && self.message() == other.message()
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = match self.path() {
            "" => "(root)",
            path => path,
        };
        write!(f, "{path}: ")?;
        self.write_message(f)
    }
}

impl std::error::Error for ValidationError {}

/// The JSON form of an error (`schema/errors.json`'s `ValidationError`).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(default, borrow)]
    schema_path: Cow<'a, str>,
    #[serde(borrow)]
    keyword: Cow<'a, str>,
    #[serde(default)]
    limit: Value,
    #[serde(default)]
    actual: Value,
    #[serde(borrow)]
    message: Cow<'a, str>,
}

impl Serialize for ValidationError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Wire {
            path: Cow::Borrowed(self.path()),
            schema_path: Cow::Borrowed(self.schema_path()),
            keyword: Cow::Borrowed(self.keyword()),
            limit: self.limit(),
            actual: self.actual(),
            message: self.message(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ValidationError {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = Wire::deserialize(deserializer)?;
        Ok(Self::new(
            wire.path.into_owned(),
            wire.schema_path.into_owned(),
            wire.keyword.into_owned(),
            wire.limit,
            wire.actual,
            wire.message.into_owned(),
        ))
    }
}

/// How much of an `enum`'s allowed values an error message lists, in bytes of JSON text
/// (the rest is counted, not listed).
pub(crate) const MAX_ALLOWED_TEXT: usize = 200;

/// A part of an error (its `limit` or `actual`) as the validator had it at hand, turned into
/// a JSON value only when read.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum Part {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A non-negative integer (a length, a count, a bound).
    U64(u64),
    /// A negative integer bound.
    I64(i64),
    /// A fractional bound.
    F64(f64),
    /// A number of the validated value.
    Number(Number),
    /// A text of the schema (a type name, a property name, a format).
    Str(&'static str),
    /// JSON type names: one is a string, several an array.
    Types(&'static [&'static str]),
    /// A short string of the validated value.
    Text(ShortText),
    /// JSON text written by the generator (an allowed value or set of values).
    Json(&'static str),
    /// Any other value (boxed: it is rare, and a `Part` stays at 24 bytes).
    Value(Box<Value>),
}

impl Part {
    /// The part as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            Part::Null => Value::Null,
            Part::Bool(b) => Value::Bool(*b),
            Part::U64(n) => Value::from(*n),
            Part::I64(n) => Value::from(*n),
            Part::F64(n) => Value::from(*n),
            Part::Number(n) => Value::Number(n.clone()),
            Part::Str(s) => Value::from(*s),
            Part::Types([one]) => Value::from(*one),
            Part::Types(many) => Value::from(many.to_vec()),
            Part::Text(s) => Value::from(s.as_str()),
            Part::Json(text) => super::values::json_literal(text),
            Part::Value(value) => Value::clone(value),
        }
    }

    /// The part in a sentence: strings without quotes, type lists joined by `or`.
    fn write_words(&self, out: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Part::Null => out.write_str("null"),
            Part::Bool(b) => write!(out, "{b}"),
            Part::U64(n) => write!(out, "{n}"),
            Part::I64(n) => write!(out, "{n}"),
            Part::Number(n) => write!(out, "{n}"),
            Part::Str(s) => out.write_str(s),
            Part::Types(names) => {
                for (i, name) in names.iter().enumerate() {
                    if i > 0 {
                        out.write_str(" or ")?;
                    }
                    out.write_str(name)?;
                }
                Ok(())
            }
            Part::Text(s) => out.write_str(s.as_str()),
            Part::Json(text) => out.write_str(text),
            Part::F64(_) | Part::Value(_) => match self.to_value() {
                Value::String(s) => out.write_str(&s),
                other => write!(out, "{other}"),
            },
        }
    }
}

impl From<usize> for Part {
    fn from(n: usize) -> Self {
        Part::U64(n as u64)
    }
}

/// The sentence of an error as the generator wrote it.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum Message {
    /// A fixed sentence.
    Static(&'static str),
    /// A sentence with `{limit}` and `{actual}` standing for those parts, in words.
    Template(&'static str),
    /// A sentence built at run time.
    Owned(String),
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::validation::text::ShortText;

    /// A recorded error and the same error built from rendered parts.
    fn pair(limit: Part, actual: Part, message: Message) -> (ValidationError, ValidationError) {
        let recorded = ValidationError::recorded(
            ShortText::from("/a/0"),
            "/$defs/A/x",
            "kw",
            (limit, actual, message),
        );
        let built = ValidationError::new(
            "/a/0",
            "/$defs/A/x",
            "kw",
            recorded.limit(),
            recorded.actual(),
            recorded.message().into_owned(),
        );
        (recorded, built)
    }

    #[test]
    fn an_enum_violation_names_the_allowed_values_and_the_actual_one() {
        let error = ValidationError::recorded(
            ShortText::from("/units"),
            "/$defs/A/properties/units/enum",
            "enum",
            (
                Part::Json(r#"["metric","imperial"]"#),
                Part::Text(ShortText::from("kelvin")),
                Message::Static("value is not one of the 2 allowed values"),
            ),
        );
        assert_eq!(
            error.message(),
            r#"value "kelvin" is not one of the allowed values: "metric", "imperial""#
        );
        assert!(
            error.to_string().contains(r#""metric", "imperial""#),
            "{error}"
        );
        let many: Vec<String> = (0..100).map(|i| format!("value-number-{i}")).collect();
        let text: &'static str = Box::leak(serde_json::to_string(&many).unwrap().into_boxed_str());
        let error = ValidationError::recorded(
            ShortText::from(""),
            "/enum",
            "enum",
            (
                Part::Json(text),
                Part::Str("object"),
                Message::Static("value is not one of the 100 allowed values"),
            ),
        );
        let message = error.message();
        assert!(
            message.starts_with("a value of type object is not one of"),
            "{message}"
        );
        assert!(message.ends_with("(100 values in all)"), "{message}");
        assert!(message.len() < MAX_ALLOWED_TEXT + 120, "{message}");
    }

    #[test]
    fn parts_render_as_the_values_they_stand_for() {
        let cases = [
            (Part::Null, json!(null)),
            (Part::Bool(false), json!(false)),
            (Part::U64(7), json!(7)),
            (Part::I64(-3), json!(-3)),
            (Part::F64(2.5), json!(2.5)),
            (Part::Number(Number::from_f64(0.1).unwrap()), json!(0.1)),
            (Part::Str("string"), json!("string")),
            (Part::Types(&["integer"]), json!("integer")),
            (Part::Types(&["string", "null"]), json!(["string", "null"])),
            (Part::Text(ShortText::from("ünï")), json!("ünï")),
            (Part::Json(r#"["a",{"b":1}]"#), json!(["a", {"b": 1}])),
            (Part::Value(Box::new(json!({"k": [1]}))), json!({"k": [1]})),
        ];
        for (part, value) in cases {
            assert_eq!(part.to_value(), value, "{part:?}");
            let (recorded, built) = pair(part, Part::Null, Message::Static("m"));
            assert_eq!(recorded, built);
            assert_eq!(
                serde_json::to_value(&recorded).unwrap(),
                serde_json::to_value(&built).unwrap()
            );
        }
    }

    #[test]
    fn templates_put_the_parts_in_words() {
        let (recorded, built) = pair(
            Part::Types(&["string", "null"]),
            Part::Str("integer"),
            Message::Template("expected {limit}, found {actual}"),
        );
        assert_eq!(recorded.message(), "expected string or null, found integer");
        assert_eq!(
            recorded.to_string(),
            "/a/0: expected string or null, found integer"
        );
        assert_eq!(recorded, built);
        let (number, _) = pair(
            Part::U64(1),
            Part::Number(Number::from_f64(0.5).unwrap()),
            Message::Template("{actual} is less than the minimum 1 {unknown} {"),
        );
        assert_eq!(
            number.message(),
            "0.5 is less than the minimum 1 {unknown} {"
        );
        let (text, _) = pair(
            Part::Value(Box::new(json!("quoted?"))),
            Part::Value(Box::new(json!([1]))),
            Message::Template("{limit}|{actual}"),
        );
        assert_eq!(text.message(), "quoted?|[1]");
    }

    #[test]
    fn the_json_form_is_unchanged_and_reads_back() {
        let (recorded, _) = pair(
            Part::U64(3),
            Part::U64(4),
            Message::Template("{actual} > {limit}"),
        );
        let wire = serde_json::to_value(&recorded).unwrap();
        assert_eq!(
            wire,
            json!({
                "path": "/a/0", "schemaPath": "/$defs/A/x", "keyword": "kw",
                "limit": 3, "actual": 4, "message": "4 > 3"
            })
        );
        let back: ValidationError = serde_json::from_value(wire).unwrap();
        assert_eq!(back, recorded);
        let text = serde_json::to_string(&recorded).unwrap();
        let borrowed: ValidationError = serde_json::from_str(&text).unwrap();
        assert_eq!(borrowed, recorded);
    }

    #[test]
    fn an_error_stays_small() {
        // Eight errors (the first reservation of a collecting validator) in 1 KiB.
        assert!(std::mem::size_of::<ValidationError>() <= 128);
        assert!(std::mem::size_of::<Part>() <= 24);
    }

    #[test]
    fn paths_take_prefixes() {
        let (mut error, _) = pair(Part::Null, Part::Null, Message::Static("m"));
        error.prefix_path("/params/arguments");
        assert_eq!(error.path(), "/params/arguments/a/0");
        assert_eq!(error.to_string(), "/params/arguments/a/0: m");
        let root = ValidationError::new("", "", "type", Value::Null, Value::Null, "m");
        assert_eq!(root.to_string(), "(root): m");
        assert_ne!(root, error);
    }
}
