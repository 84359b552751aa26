//! `unevaluatedProperties` and `unevaluatedItems`, with annotation tracking in generated code.
//!
//! For a schema object with `unevaluatedProperties: U`, the walker fills a
//! `__rt::Evaluated` with the members its other keywords evaluate, then checks `U` against
//! every member left. What counts as evaluated follows 2020-12's annotations:
//! `properties` (the names present), `patternProperties` (the names a pattern matches),
//! `additionalProperties` and a nested `unevaluatedProperties` (every member); for items
//! `prefixItems` (its length), `items` and a nested `unevaluatedItems` (every item) and
//! `contains` (the indexes it accepts). Those are collected through `allOf`, `$ref` and
//! `dependentSchemas` (which must all accept the value for it to be valid anyway), and
//! through `anyOf` / `oneOf` branches, `if` and `then` / `else` only when that subschema
//! accepts the value (asked with a counting collector). `not` contributes nothing.
//!
//! The annotations of a `$ref`'s target are collected by a helper function per definition
//! (`__ann_p_<stem>` / `__ann_i_<stem>`), written once.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use super::keywords::child;
use super::Emitter;
use crate::error::{Error, Result};

/// Which annotations are collected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    /// Member names, for `unevaluatedProperties`.
    Properties,
    /// Item indexes, for `unevaluatedItems`.
    Items,
}

impl Kind {
    fn keyword(self) -> &'static str {
        match self {
            Kind::Properties => "unevaluatedProperties",
            Kind::Items => "unevaluatedItems",
        }
    }
}

impl Emitter<'_> {
    /// The checks of `unevaluatedProperties` and `unevaluatedItems` in `map`, on `v` at `at`.
    pub(super) fn unevaluated_checks(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> Result<TokenStream> {
        let mut out = TokenStream::new();
        for kind in [Kind::Properties, Kind::Items] {
            if let Some(rest) = map.get(kind.keyword()) {
                out.extend(self.unevaluated(kind, map, rest, path, v, at)?);
            }
        }
        Ok(out)
    }

    fn unevaluated(
        &mut self,
        kind: Kind,
        map: &Map<String, Value>,
        rest: &Value,
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> Result<TokenStream> {
        let rt = self.rt.clone();
        let here = child(path, kind.keyword());
        let id = self.fresh();
        let (whole, member, item, mat, seen) = (
            format_ident!("whole_{id}"),
            format_ident!("member_{id}"),
            format_ident!("item_{id}"),
            format_ident!("at_{id}"),
            format_ident!("seen_{id}"),
        );
        let refuse_all = rest == &Value::Bool(false);
        let check = if refuse_all {
            let (actual, sentence) = match kind {
                Kind::Properties => (
                    quote!(#rt::summary_str(#member)),
                    "property is not evaluated by any keyword of the schema",
                ),
                Kind::Items => (
                    quote!(#rt::Part::from(#member)),
                    "item is not evaluated by any keyword of the schema",
                ),
            };
            self.fail(
                &quote!(#mat),
                &here,
                kind.keyword(),
                quote!(#rt::Part::Bool(false)),
                actual,
                self.sentence(sentence),
            )
        } else {
            self.schema(rest, &here, &quote!(#item), &quote!(#mat))?
        };
        if check.is_empty() {
            return Ok(TokenStream::new());
        }
        let collect = self.annotations_of_map(kind, map, path, v, &quote!(#seen), true)?;
        // `seen` is a `&mut`, as in the annotation helpers the collection calls.
        let declare = if collect.is_empty() {
            quote!(let #seen = &#rt::Evaluated::new();)
        } else {
            quote!(let #seen = &mut #rt::Evaluated::new(); #collect)
        };
        Ok(match (kind, refuse_all) {
            (Kind::Properties, true) => quote! {
                if let #rt::Value::Object(#whole) = #v {
                    #declare
                    for #member in #whole.keys() {
                        if !#seen.has_name(#member) {
                            let #mat = &#at.key(#member);
                            #check
                        }
                    }
                }
            },
            (Kind::Properties, false) => quote! {
                if let #rt::Value::Object(#whole) = #v {
                    #declare
                    for (#member, #item) in #whole {
                        if !#seen.has_name(#member) {
                            let #mat = &#at.key(#member);
                            #check
                        }
                    }
                }
            },
            (Kind::Items, true) => quote! {
                if let #rt::Value::Array(#whole) = #v {
                    #declare
                    for #member in 0..#whole.len() {
                        if !#seen.has_index(#member) {
                            let #mat = &#at.index(#member);
                            #check
                        }
                    }
                }
            },
            (Kind::Items, false) => quote! {
                if let #rt::Value::Array(#whole) = #v {
                    #declare
                    for (#member, #item) in #whole.iter().enumerate() {
                        if !#seen.has_index(#member) {
                            let #mat = &#at.index(#member);
                            #check
                        }
                    }
                }
            },
        })
    }

    /// Statements recording in `seen` what `schema` evaluates of `v`.
    fn annotations(
        &mut self,
        kind: Kind,
        schema: &Value,
        path: &str,
        v: &TokenStream,
        seen: &TokenStream,
    ) -> Result<TokenStream> {
        match schema {
            Value::Object(map) => self.annotations_of_map(kind, map, path, v, seen, false),
            _ => Ok(TokenStream::new()),
        }
    }

    /// As [`Emitter::annotations`] for a schema object; `own` leaves out its own
    /// `unevaluated*` keyword of this kind (the one being checked).
    fn annotations_of_map(
        &mut self,
        kind: Kind,
        map: &Map<String, Value>,
        path: &str,
        v: &TokenStream,
        seen: &TokenStream,
        own: bool,
    ) -> Result<TokenStream> {
        let rt = self.rt.clone();
        let mut out = TokenStream::new();
        let everything = match kind {
            Kind::Properties => {
                map.contains_key("additionalProperties")
                    || (!own && map.contains_key("unevaluatedProperties"))
            }
            Kind::Items => {
                map.contains_key("items") || (!own && map.contains_key("unevaluatedItems"))
            }
        };
        if everything {
            out.extend(quote!(#seen.all();));
        } else {
            out.extend(self.own_annotations(kind, map, path, v, seen)?);
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            let annotator = self.annotator_of_ref(kind, reference, path)?;
            out.extend(quote!(#annotator(#v, #seen);));
        }
        if let Some(Value::Array(members)) = map.get("allOf") {
            let here = child(path, "allOf");
            for (i, member) in members.iter().enumerate() {
                out.extend(self.annotations(kind, member, &format!("{here}/{i}"), v, seen)?);
            }
        }
        for union in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(union) {
                let here = child(path, union);
                for (i, branch) in branches.iter().enumerate() {
                    let at = format!("{here}/{i}");
                    let inner = self.annotations(kind, branch, &at, v, seen)?;
                    if !inner.is_empty() {
                        let walker = self.question_walker(branch, &at)?;
                        out.extend(quote!(if #rt::accepts(#v, #walker) { #inner }));
                    }
                }
            }
        }
        if let Some(condition) = map.get("if") {
            let if_path = child(path, "if");
            let when = self.annotations(kind, condition, &if_path, v, seen)?;
            let then = match map.get("then") {
                Some(then) => self.annotations(kind, then, &child(path, "then"), v, seen)?,
                None => TokenStream::new(),
            };
            let otherwise = match map.get("else") {
                Some(other) => self.annotations(kind, other, &child(path, "else"), v, seen)?,
                None => TokenStream::new(),
            };
            if !when.is_empty() || !then.is_empty() || !otherwise.is_empty() {
                let walker = self.question_walker(condition, &if_path)?;
                let then = quote!(#when #then);
                out.extend(super::conditionals::if_else(
                    quote!(#rt::accepts(#v, #walker)),
                    &then,
                    &otherwise,
                ));
            }
        }
        if let Some(Value::Object(deps)) = map.get("dependentSchemas") {
            let here = child(path, "dependentSchemas");
            for (name, sub) in deps {
                let inner = self.annotations(kind, sub, &child(&here, name), v, seen)?;
                if !inner.is_empty() {
                    out.extend(quote! {
                        if #v.as_object().is_some_and(|o| o.contains_key(#name)) { #inner }
                    });
                }
            }
        }
        Ok(out)
    }

    /// What the schema object's own keywords evaluate (no subschema followed).
    fn own_annotations(
        &mut self,
        kind: Kind,
        map: &Map<String, Value>,
        path: &str,
        v: &TokenStream,
        seen: &TokenStream,
    ) -> Result<TokenStream> {
        let rt = self.rt.clone();
        let id = self.fresh();
        let whole = format_ident!("whole_{id}");
        let mut body = TokenStream::new();
        match kind {
            Kind::Properties => {
                if let Some(Value::Object(props)) = map.get("properties") {
                    let names = props.keys();
                    body.extend(quote! {
                        #(
                            if let ::core::option::Option::Some((name, _)) = #whole.get_key_value(#names) {
                                #seen.name(name);
                            }
                        )*
                    });
                }
                if let Some(Value::Object(patterns)) = map.get("patternProperties") {
                    let tests: Vec<TokenStream> = patterns
                        .keys()
                        .map(|p| self.pattern_test(p, &quote!(name.as_str())))
                        .collect();
                    if !tests.is_empty() {
                        body.extend(quote! {
                            for name in #whole.keys() {
                                if #(#tests)||* {
                                    #seen.name(name);
                                }
                            }
                        });
                    }
                }
                if body.is_empty() {
                    return Ok(body);
                }
                Ok(quote!(if let #rt::Value::Object(#whole) = #v { #body }))
            }
            Kind::Items => {
                if let Some(Value::Array(prefix)) = map.get("prefixItems") {
                    let count = prefix.len();
                    body.extend(quote!(#seen.prefix(#count);));
                }
                if let Some(contained) = map.get("contains") {
                    let walker = self.question_walker(contained, &child(path, "contains"))?;
                    body.extend(quote! {
                        if let #rt::Value::Array(#whole) = #v {
                            for (index, item) in #whole.iter().enumerate() {
                                if #rt::accepts(item, #walker) {
                                    #seen.index(index);
                                }
                            }
                        }
                    });
                }
                Ok(body)
            }
        }
    }

    /// The helper collecting the annotations of the definition a `$ref` names (written on
    /// first use).
    fn annotator_of_ref(&mut self, kind: Kind, reference: &str, at: &str) -> Result<Ident> {
        let name = crate::doc::ref_target(reference)
            .ok_or_else(|| self.invalid(at, "unsupported $ref"))?;
        if let Some(known) = self.annotators.get(&(name.clone(), kind)) {
            return Ok(known.clone());
        }
        let stem = self.stem(&name)?.to_string();
        let ident = match kind {
            Kind::Properties => format_ident!("__ann_p_{stem}"),
            Kind::Items => format_ident!("__ann_i_{stem}"),
        };
        self.annotators.insert((name.clone(), kind), ident.clone());
        let def = self
            .doc
            .get(&name)
            .ok_or_else(|| self.invalid(at, &format!("$ref to unknown definition `{name}`")))?
            .clone();
        if crate::interp::is_evaluated(&def.schema) {
            // Its annotations are only known to the evaluator: so must be the referrer's.
            return Err(Error::Unsupported {
                file: self.doc.file.clone(),
                pointer: at.to_string(),
                keyword: format!("{} through `$ref` to `{name}`", kind.keyword()),
            });
        }
        let rt = self.rt.clone();
        let body = self.annotations(
            kind,
            &def.schema,
            &def.pointer,
            &quote!(value),
            &quote!(seen),
        )?;
        let params = if body.is_empty() {
            quote!(_value: &'v #rt::Value, _seen: &mut #rt::Evaluated<'v>)
        } else {
            quote!(value: &'v #rt::Value, seen: &mut #rt::Evaluated<'v>)
        };
        self.helpers.push(quote! {
            fn #ident<'v>(#params) { #body }
        });
        Ok(ident)
    }
}
