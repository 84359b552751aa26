//! A complete JSON Schema 2020-12 evaluator over a schema embedded in the generated code.
//!
//! The generator copies these files, as they are, into generated code (module `__eval` of the
//! `validate` module) when some definition uses keywords its emitted validators do not
//! implement keyword by keyword (`unevaluated*`, `$dynamicRef`, `$id`/`$anchor` resources,
//! remote references, ...): those definitions are validated here. The generator also compiles
//! these files into itself, to resolve every reference at generation time (a schema whose
//! references do not all resolve is refused then, never at run time).
//!
//! It reaches nothing but `std` and `super::__rt` (`Value`, `Number` and `LazyRegex`).
//! Semantics: the core, applicator, unevaluated and validation vocabularies; `format` and
//! `content*` are annotations; a `$schema` whose metaschema (a listed remote document) leaves
//! the validation vocabulary out turns the validation keywords off. Numbers compare as
//! numbers (`1` equals `1.0`), `multipleOf` is exact decimal arithmetic on the numbers'
//! shortest text, lengths count Unicode code points.
//!
//! The files: [`registry`] (the schema resources and anchors one evaluation can reach),
//! [`state`] (the evaluation itself), [`values`] (JSON value and number semantics) and
//! [`uris`] (JSON Pointers and RFC 3986 reference resolution). Each is one module here and
//! one inline module of the generated `__eval`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use super::__rt::{LazyRegex, Map, Number, Value};

mod registry;
mod state;
mod uris;
mod values;

pub(crate) use registry::*;
use state::*;
pub(crate) use uris::*;
use values::*;
