//! Validator emitter: one-pass, allocation-free (on valid input) validators for every
//! definition of a [`SchemaDoc`].
//!
//! For each definition with stem `s` (see [`naming`]) the generated module holds:
//! - `pub fn s(value: &Value) -> Result<(), Vec<ValidationError>>`: every violation;
//! - `pub fn s_at(value, at: &Location, errors: &mut Collector)`: the walker `$ref`s call;
//! - for a definition whose root is a union, `pub fn select_s(value) -> Option<usize>`, the
//!   branch the discriminator picks (see [`unions`]).
//!
//! Generated code reaches the runtime only through `<runtime>::__private` (imported as
//! `__rt`). Error `schemaPath`s are JSON Pointers into the original file, built from each
//! definition's `pointer`.

use std::collections::BTreeMap;
use std::path::Path;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use crate::doc::{Definition, SchemaDoc};
use crate::error::{Error, Result};

mod applicators;
mod conditionals;
mod formats;
mod keywords;
mod literals;
pub(crate) mod naming;
mod objects;
mod shapes;
mod simple_pattern;
mod unevaluated;
mod unions;

/// Emits the items of the `validate` module for `doc`; `runtime` is the runtime crate's
/// path (e.g. `::typed_mcp`).
pub(crate) fn emit_validators(doc: &SchemaDoc, runtime: &syn::Path) -> Result<TokenStream> {
    let mut emitter = Emitter::new(doc);
    let mut items = Vec::new();
    for def in &doc.defs {
        items.push(emitter.definition(def)?);
    }
    let statics = &emitter.statics;
    let helpers = &emitter.helpers;
    let evaluator = crate::interp::emit_support(doc);
    Ok(quote! {
        use #runtime::__private as __rt;
        #(#statics)*
        #(#items)*
        #(#helpers)*
        #evaluator
    })
}

/// State shared while emitting one document's validators.
pub(super) struct Emitter<'d> {
    /// The document being emitted.
    doc: &'d SchemaDoc,
    /// The path generated code uses for the runtime support module (`__rt`).
    rt: TokenStream,
    /// Stem of every definition, by definition name.
    stems: BTreeMap<String, String>,
    /// Module-level statics (compiled patterns, JSON constants).
    statics: Vec<TokenStream>,
    /// Per `pattern` source: the function matching it or the regex static, and whether it is
    /// the function.
    patterns: BTreeMap<String, (Ident, bool)>,
    /// JSON text → static holding it.
    jsons: BTreeMap<String, Ident>,
    /// Private helper functions (union branches and pickers).
    helpers: Vec<TokenStream>,
    /// Counter for unique local and helper names.
    next_id: usize,
    /// The picker of the union at the root of the definition being emitted, if any.
    root_pick: Option<Ident>,
    /// Pointer of the definition being emitted.
    current_pointer: String,
    /// The yes/no walker written for the subschema at each schema path (see
    /// `conditionals`).
    questions: BTreeMap<String, Ident>,
    /// The annotation collector written for each definition (see [`unevaluated`]).
    annotators: BTreeMap<(String, unevaluated::Kind), Ident>,
}

impl<'d> Emitter<'d> {
    fn new(doc: &'d SchemaDoc) -> Self {
        Self {
            doc,
            rt: quote!(__rt),
            stems: naming::stems(doc),
            statics: Vec::new(),
            patterns: BTreeMap::new(),
            jsons: BTreeMap::new(),
            helpers: Vec::new(),
            next_id: 0,
            root_pick: None,
            current_pointer: String::new(),
            questions: BTreeMap::new(),
            annotators: BTreeMap::new(),
        }
    }

    /// A fresh number for generated names.
    fn fresh(&mut self) -> usize {
        self.next_id += 1;
        self.next_id
    }

    /// The stem of definition `name`.
    fn stem(&self, name: &str) -> Result<&str> {
        self.stems
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| self.invalid("", &format!("$ref to unknown definition `{name}`")))
    }

    /// The walker of the definition a `#/$defs/<name>` reference names.
    fn walker_of_ref(&self, reference: &str, at: &str) -> Result<Ident> {
        let name = crate::doc::ref_target(reference)
            .ok_or_else(|| self.invalid(at, "unsupported $ref"))?;
        Ok(format_ident!("{}_at", self.stem(&name)?))
    }

    fn invalid(&self, pointer: &str, message: &str) -> Error {
        Error::InvalidSchema {
            file: self.doc.file.clone(),
            pointer: pointer.to_string(),
            message: message.to_string(),
        }
    }

    /// The public validator, walker and (for unions) selector of one definition.
    fn definition(&mut self, def: &Definition) -> Result<TokenStream> {
        let rt = self.rt.clone();
        let stem = self.stem(&def.name)?.to_string();
        let public = format_ident!("{stem}");
        let walker = format_ident!("{stem}_at");
        self.root_pick = None;
        self.current_pointer = def.pointer.clone();
        let body = if crate::interp::is_evaluated(&def.schema) {
            crate::interp::emit_call(self.doc, def)
        } else {
            self.schema(&def.schema, &def.pointer, &quote!(value), &quote!(at))?
        };
        let (value, at, errors) = if body.is_empty() {
            (quote!(_value), quote!(_at), quote!(_errors))
        } else {
            (quote!(value), quote!(at), quote!(errors))
        };
        let file = self
            .doc
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = &def.name;
        let pointer = if def.pointer.is_empty() {
            "(root)"
        } else {
            &def.pointer
        };
        let public_doc = format!(
            " Validates a JSON value against definition `{name}` (`{pointer}` in `{file}`), \
             returning every violation."
        );
        let walker_doc = format!(
            " Walker of definition `{name}`: validates `value`, found at `at`, recording \
             violations in `errors`."
        );
        let mut out = quote! {
            #[doc = #public_doc]
            ///
            /// # Errors
            ///
            /// Every violation found (never an empty list).
            pub fn #public(value: &#rt::Value) -> ::core::result::Result<(), ::std::vec::Vec<#rt::ValidationError>> {
                #rt::validate_with(value, #walker)
            }

            #[doc = #walker_doc]
            pub fn #walker(#value: &#rt::Value, #at: &#rt::Location<'_>, #errors: &mut #rt::Collector) {
                #body
            }
        };
        if let Some(pick) = self.root_pick.take() {
            let select = format_ident!("select_{stem}");
            let select_doc = format!(
                " The branch of union `{name}` that `value` belongs to (its index in the \
                 schema's `anyOf` / `oneOf`), or `None` when no branch is plausible."
            );
            out.extend(quote! {
                #[doc = #select_doc]
                ///
                #[doc = " Algorithm (pure, no allocation):"]
                #[doc = " 1. when every object branch has a property with a constant value (`const` or"]
                #[doc = "    `enum`) at the same name, with distinct values, and the value carries one of"]
                #[doc = "    them, that branch;"]
                #[doc = " 2. otherwise the branches whose JSON type matches, whose required properties are"]
                #[doc = "    present and whose constant properties, when present, hold an allowed value;"]
                #[doc = " 3. if one is left, it; if several, the most specific branch that accepts the value"]
                #[doc = "    (most of the value's members declared by the branch, then most required"]
                #[doc = "    properties, then schema order), or the most specific one if none accepts it;"]
                #[doc = " 4. `None` when no branch is plausible."]
                pub fn #select(value: &#rt::Value) -> ::core::option::Option<usize> {
                    #pick(value, true).map(|(index, _)| index)
                }
            });
        }
        Ok(out)
    }
}

/// Generates the validators of the schema file at `schema` alone, formatted, for the
/// validator fixture crate (its `build.rs`). Not public API; `runtime` is the runtime path
/// generated code names (e.g. `::typed_mcp`).
#[doc(hidden)]
pub fn __validators_only(schema: &Path, runtime: &str) -> Result<String> {
    let doc = SchemaDoc::load(schema)?;
    render(&doc, runtime)
}

/// For the validator fixture crate: every definition of the schema file at `schema` as
/// `(definition name, JSON Pointer in the file, function stem, has a select_ function)`, in
/// file order. Not public API.
#[doc(hidden)]
pub fn __validator_stems(schema: &Path) -> Result<Vec<(String, String, String, bool)>> {
    let doc = SchemaDoc::load(schema)?;
    let stems = naming::stems(&doc);
    Ok(doc
        .defs
        .iter()
        .map(|def| {
            let is_union = def.schema.get("anyOf").is_some() || def.schema.get("oneOf").is_some();
            (
                def.name.clone(),
                def.pointer.clone(),
                stems[&def.name].clone(),
                is_union,
            )
        })
        .collect())
}

/// Generates the validators of a schema given as JSON text, formatted (for the generator's
/// own tests). Not public API.
#[doc(hidden)]
pub fn __emit_validators_for_tests(schema_json: &str) -> Result<String> {
    let file = Path::new("test.json");
    let value: Value = serde_json::from_str(schema_json).map_err(|source| Error::Json {
        path: file.to_path_buf(),
        source,
    })?;
    let doc = SchemaDoc::from_value(file, value)?;
    render(&doc, "::typed_mcp")
}

fn render(doc: &SchemaDoc, runtime: &str) -> Result<String> {
    let runtime: syn::Path = syn::parse_str(runtime)
        .map_err(|e| Error::Config(format!("runtime path `{runtime}`: {e}")))?;
    let items = emit_validators(doc, &runtime)?;
    let file: syn::File = syn::parse2(items).map_err(|e| Error::GeneratedCode {
        file: doc.file.clone(),
        message: e.to_string(),
    })?;
    Ok(prettyplease::unparse(&file))
}
