//! Run-time evaluation of a schema definition: the one part of validation that is not emitted
//! as Rust code.
//!
//! `typed-mcp-codegen` writes every keyword it can as Rust code. A definition it cannot
//! resolve statically (today: a `$schema` naming a metaschema of the file's remote documents,
//! which may switch vocabularies off; a definition whose type the type generator failed on;
//! see the generator's `run_time` report) is validated here instead: the generated validator
//! holds a `static` [`Evaluator`] built from the schema document (embedded as JSON text) and
//! calls [`Evaluator::validate`]. The build prints a `cargo:warning` naming the definition and
//! the keyword that needed it. This module is compiled once, into this crate; generated code
//! reaches it only through `typed_mcp::__private`, never by carrying its source.
//!
//! Semantics: the core, applicator, unevaluated and validation vocabularies of JSON Schema
//! 2020-12; `format` is asserted when the generator's `format_assertion` was on (with the
//! same checks as generated validators), an annotation otherwise; a `$schema` whose
//! metaschema (a listed remote document) leaves the validation vocabulary out turns the
//! validation keywords off. Numbers compare as numbers (`1` equals `1.0`), `multipleOf` is
//! exact decimal arithmetic on the numbers' shortest text, lengths count Unicode code points.
//!
//! Diagnostics are those of generated validators: every violation is a
//! [`ValidationError`](super::ValidationError) with the instance path, the schema path of the
//! keyword (from the definition's pointer, through every `$ref` and `$dynamicRef` followed, as
//! JSON Schema's `keywordLocation`), the keyword, and the limit and actual value where they
//! apply. A subschema whose failure is not itself a violation (a branch of `anyOf` or `oneOf`,
//! `not`, `if`, an item tried against `contains`) reports through its applicator.
//!
//! References resolve with `typed-mcp-schema-refs` (the schema resources, anchors and dynamic
//! anchors one evaluation can reach; JSON Pointers and RFC 3986), the crate the generator
//! resolves them with at build time, so both follow the same rules.
//!
//! The files: [`state`] (the evaluation and its applicators), [`children`] (members and
//! items), [`assertions`] (the validation vocabulary), [`values`] (JSON value and number
//! semantics) and [`patterns`] (the compiled `pattern`s).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, OnceLock};

use serde_json::{Map, Number, Value};
use typed_mcp_schema_refs::{resolve, strip_fragment, Registry, Target};

use super::collector::Collector;
use super::error::{Message, Part};
use super::lazy::{LazyJson, LazyRegex};
use super::location::Location;

mod assertions;
mod children;
mod patterns;
mod state;
mod values;

use patterns::*;
use state::*;
use values::*;

/// A JSON object.
pub(crate) type Object = Map<String, Value>;

/// One definition validated at run time: the schema document it sits in, the remote
/// documents its references may reach, and the index of both, built on first use.
///
/// Generated code holds one per run-time definition, as a `static`.
#[derive(Debug)]
pub struct Evaluator {
    document: &'static LazyJson,
    remotes: &'static LazyJson,
    base: &'static str,
    pointer: &'static str,
    formats: bool,
    registry: OnceLock<Registry<'static>>,
    patterns: Patterns,
}

impl Evaluator {
    /// The definition at JSON Pointer `pointer` of `document` (whose base URI is `base`),
    /// with `remotes` (an object mapping absolute URIs to documents); `formats` asserts
    /// `format`. Nothing is parsed or indexed until the first validation.
    pub const fn new(
        document: &'static LazyJson,
        remotes: &'static LazyJson,
        base: &'static str,
        pointer: &'static str,
        formats: bool,
    ) -> Self {
        Self {
            document,
            remotes,
            base,
            pointer,
            formats,
            registry: OnceLock::new(),
            patterns: Patterns::new(),
        }
    }

    /// Validates `value` (found at `at`), recording every violation in `errors`.
    pub fn validate(&'static self, value: &Value, at: &Location<'_>, errors: &mut Collector) {
        let registry = self.registry.get_or_init(|| {
            Registry::new(
                self.document.get(),
                self.base,
                self.pointer,
                self.remotes.get(),
            )
        });
        let before = errors.failures();
        let Some(Target {
            schema,
            base,
            validation,
            ..
        }) = registry.lookup(self.base, &format!("#{}", self.pointer))
        else {
            errors.fail_dynamic(
                at,
                || self.pointer.to_string(),
                "$ref",
                || {
                    (
                        Part::Str(self.pointer),
                        Part::Null,
                        Message::Static("the definition is not in its document"),
                    )
                },
            );
            return;
        };
        let mut scope = vec![base.clone()];
        let mut state = State {
            registry,
            patterns: &self.patterns,
            scope: &mut scope,
            depth: 0,
            root: self.pointer,
            path: Vec::new(),
            errors,
            quiet: 0,
            formats: self.formats,
        };
        let (valid, _) = state.eval(schema, &base, validation, value, at);
        if !valid && errors.failures() == before {
            // Every failure reports where it happens; this is a safety net, never expected.
            errors.fail_dynamic(
                at,
                || self.pointer.to_string(),
                "false",
                || {
                    (
                        Part::Null,
                        super::values::summary(value),
                        Message::Static("the value does not match the schema"),
                    )
                },
            );
        }
    }
}

#[cfg(test)]
mod tests;
