//! Emitting the checks of one schema object, keyword by keyword.
//!
//! Each check is inlined into the definition's walker; sub-schemas (properties, items,
//! additional properties, `allOf` members) are inlined recursively, and `$ref`s call the
//! target definition's walker. Type-specific keywords sit behind one `if let` per JSON type,
//! so a value is matched once per schema object.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use super::literals::bound;
use super::Emitter;
use crate::doc::escape_pointer;
use crate::error::Result;

/// `{path}/{key}` with `key` escaped.
pub(super) fn child(path: &str, key: &str) -> String {
    format!("{path}/{}", escape_pointer(key))
}

/// The JSON type names a `type` keyword lists.
pub(super) fn type_names(value: &Value) -> Vec<&str> {
    match value {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

impl Emitter<'_> {
    /// A `errors.fail(..)` statement.
    pub(super) fn fail(
        &self,
        at: &TokenStream,
        schema_path: &str,
        keyword: &str,
        limit: TokenStream,
        actual: TokenStream,
        message: TokenStream,
    ) -> TokenStream {
        quote!(errors.fail(#at, #schema_path, #keyword, || (#limit, #actual, #message));)
    }

    /// The checks for `schema` applied to the value `v` (a `&Value` expression) found at `at`
    /// (a `&Location` expression). Empty when the schema accepts everything.
    pub(super) fn schema(
        &mut self,
        schema: &Value,
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> Result<TokenStream> {
        let map = match schema {
            Value::Bool(true) => return Ok(TokenStream::new()),
            Value::Bool(false) => {
                let rt = &self.rt;
                return Ok(self.fail(
                    at,
                    path,
                    "false",
                    quote!(#rt::Part::Bool(false)),
                    quote!(#rt::Part::Str(#rt::type_name(#v))),
                    self.sentence("no value is allowed here"),
                ));
            }
            Value::Object(map) => map,
            _ => return Err(self.invalid(path, "a schema must be an object or a boolean")),
        };
        let mut out = TokenStream::new();
        if let Some(types) = map.get("type") {
            out.extend(self.type_check(&type_names(types), &child(path, "type"), v, at));
        }
        if let Some(constant) = map.get("const") {
            out.extend(self.const_check(
                std::slice::from_ref(constant),
                &child(path, "const"),
                "const",
                v,
                at,
            ));
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            out.extend(self.const_check(values, &child(path, "enum"), "enum", v, at));
        }
        out.extend(self.object_checks(map, path, v, at)?);
        out.extend(self.array_checks(map, path, v, at)?);
        out.extend(self.string_checks(map, path, v, at));
        out.extend(self.number_checks(map, path, v, at));
        out.extend(self.conditional_checks(map, path, v, at)?);
        if let Some(Value::String(reference)) = map.get("$ref") {
            let walker = self.walker_of_ref(reference, path)?;
            out.extend(quote!(#walker(#v, #at, errors);));
        }
        if let Some(Value::Array(members)) = map.get("allOf") {
            let here = child(path, "allOf");
            for (i, member) in members.iter().enumerate() {
                out.extend(self.schema(member, &format!("{here}/{i}"), v, at)?);
            }
        }
        for kind in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(kind) {
                out.extend(self.union(kind, branches, path, v, at)?);
            }
        }
        out.extend(self.unevaluated_checks(map, path, v, at)?);
        Ok(out)
    }

    /// A boolean expression: `v` is of one of the JSON types `types`.
    pub(super) fn type_test(&self, types: &[&str], v: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let has_number = types.contains(&"number");
        let terms: Vec<TokenStream> = types
            .iter()
            .filter_map(|t| match *t {
                "null" => Some(quote!(#v.is_null())),
                "boolean" => Some(quote!(#v.is_boolean())),
                "object" => Some(quote!(#v.is_object())),
                "array" => Some(quote!(#v.is_array())),
                "string" => Some(quote!(#v.is_string())),
                "number" => Some(quote!(#v.is_number())),
                "integer" if !has_number => Some(quote!(
                    matches!(#v, #rt::Value::Number(n) if #rt::is_integer(n))
                )),
                _ => None,
            })
            .collect();
        if terms.is_empty() {
            return quote!(false);
        }
        quote!(#(#terms)||*)
    }

    fn type_check(
        &self,
        types: &[&str],
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> TokenStream {
        let test = self.type_test(types, v);
        let fail = quote!(errors.wrong_type(#at, #path, &[#(#types),*], #v););
        quote!(if !(#test) { #fail })
    }

    fn const_check(
        &mut self,
        values: &[Value],
        path: &str,
        keyword: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> TokenStream {
        let rt = self.rt.clone();
        let test = self.one_of_values(v, values);
        let (limit, message) = if keyword == "const" {
            let text = values[0].to_string();
            let message = if text.len() <= 64 {
                format!("value does not equal the constant {text}")
            } else {
                "value does not equal the constant".to_string()
            };
            (self.part_expr(&values[0]), message)
        } else {
            let message = format!("value is not one of the {} allowed values", values.len());
            (self.part_expr(&Value::Array(values.to_vec())), message)
        };
        let fail = self.fail(
            at,
            path,
            keyword,
            limit,
            quote!(#rt::summary(#v)),
            self.sentence(&message),
        );
        quote!(if !(#test) { #fail })
    }

    /// `minX` / `maxX` checks of a length `len` (of `collection`, when it has `is_empty`).
    #[allow(clippy::too_many_arguments, reason = "one call per collection kind")]
    pub(super) fn count_checks(
        &self,
        map: &Map<String, Value>,
        path: &str,
        at: &TokenStream,
        keywords: [(&str, bool); 2],
        len: &TokenStream,
        collection: Option<&proc_macro2::Ident>,
        (sentence, fewer, more): (&str, &str, &str),
    ) -> TokenStream {
        let rt = &self.rt;
        let mut out = TokenStream::new();
        for (keyword, is_min) in keywords {
            let Some(limit) = map.get(keyword).and_then(Value::as_u64) else {
                continue;
            };
            let limit = usize::try_from(limit).unwrap_or(usize::MAX);
            let violated = match (is_min, limit, collection) {
                (true, 0, _) => continue,
                (true, 1, Some(c)) => quote!(#c.is_empty()),
                (false, 0, Some(c)) => quote!(!#c.is_empty()),
                (true, _, _) => quote!(#len < #limit),
                (false, _, _) => quote!(#len > #limit),
            };
            let word = if is_min { fewer } else { more };
            let template = sentence
                .replacen("{}", "{actual}", 1)
                .replacen("{}", word, 1)
                .replacen("{}", &limit.to_string(), 1);
            let bound = limit as u64;
            let fail = self.fail(
                at,
                &child(path, keyword),
                keyword,
                quote!(#rt::Part::U64(#bound)),
                quote!(#rt::Part::from(#len)),
                self.template(&template),
            );
            out.extend(quote!(if #violated { #fail }));
        }
        out
    }

    fn array_checks(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> Result<TokenStream> {
        let rt = self.rt.clone();
        let id = self.fresh();
        let items = format_ident!("items_{id}");
        let mut body = TokenStream::new();
        body.extend(self.count_checks(
            map,
            path,
            at,
            [("minItems", true), ("maxItems", false)],
            &quote!(#items.len()),
            Some(&items),
            ("array has {} items, {} than {}", "fewer", "more"),
        ));
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            let fail = self.fail(
                at,
                &child(path, "uniqueItems"),
                "uniqueItems",
                quote!(#rt::Part::Bool(true)),
                quote!(#rt::Part::Value(::std::boxed::Box::new(#rt::Value::from(vec![first, second])))),
                quote!(#rt::Message::Owned(::std::format!("items {} and {} are equal", first, second))),
            );
            body.extend(quote! {
                if let ::core::option::Option::Some((first, second)) = #rt::first_duplicate(#items) {
                    #fail
                }
            });
        }
        body.extend(self.prefix_items_checks(map, path, &items, at)?);
        let prefix = match map.get("prefixItems") {
            Some(Value::Array(schemas)) => schemas.len(),
            _ => 0,
        };
        if let Some(item_schema) = map.get("items") {
            let (iv, iat, index) = (
                format_ident!("v_{id}"),
                format_ident!("at_{id}"),
                format_ident!("index_{id}"),
            );
            let inner = self.schema(
                item_schema,
                &child(path, "items"),
                &quote!(#iv),
                &quote!(#iat),
            )?;
            if !inner.is_empty() {
                let skip = (prefix > 0).then(|| quote!(.skip(#prefix)));
                body.extend(quote! {
                    for (#index, #iv) in #items.iter().enumerate()#skip {
                        let #iat = &#at.index(#index);
                        #inner
                    }
                });
            }
        }
        if body.is_empty() {
            return Ok(body);
        }
        Ok(quote!(if let #rt::Value::Array(#items) = #v { #body }))
    }

    fn string_checks(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> TokenStream {
        let rt = self.rt.clone();
        let id = self.fresh();
        let s = format_ident!("s_{id}");
        let len = format_ident!("len_{id}");
        let mut body = TokenStream::new();
        let lengths = self.count_checks(
            map,
            path,
            at,
            [("minLength", true), ("maxLength", false)],
            &quote!(#len),
            None,
            ("string has {} characters, {} than {}", "shorter", "longer"),
        );
        if !lengths.is_empty() {
            body.extend(quote!(let #len = #rt::char_count(#s);));
            body.extend(lengths);
        }
        if let Some(Value::String(pattern)) = map.get("pattern") {
            let matches = self.pattern_test(pattern, &quote!(#s));
            let fail = self.fail(
                at,
                &child(path, "pattern"),
                "pattern",
                quote!(#rt::Part::Str(#pattern)),
                quote!(#rt::summary_str(#s)),
                self.sentence("string does not match the pattern"),
            );
            body.extend(quote!(if !#matches { #fail }));
        }
        if let Some(Value::String(format)) = map.get("format").filter(|_| self.doc.assert_formats) {
            let check = crate::validators::formats::checker(format).map(|name| {
                let name = quote::format_ident!("{name}");
                quote!(#rt::#name)
            });
            if let Some(check) = check {
                let message = format!("string is not a valid `{format}`");
                let fail = self.fail(
                    at,
                    &child(path, "format"),
                    "format",
                    quote!(#rt::Part::Str(#format)),
                    quote!(#rt::summary_str(#s)),
                    self.sentence(&message),
                );
                body.extend(quote!(if !#check(#s) { #fail }));
            }
        }
        if body.is_empty() {
            return body;
        }
        quote!(if let #rt::Value::String(#s) = #v { #body })
    }

    fn number_checks(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> TokenStream {
        let rt = self.rt.clone();
        let id = self.fresh();
        let n = format_ident!("n_{id}");
        let mut body = TokenStream::new();
        let checks = [
            ("minimum", quote!(#rt::number_lt), "less than the minimum"),
            (
                "maximum",
                quote!(#rt::number_gt),
                "greater than the maximum",
            ),
            (
                "exclusiveMinimum",
                quote!(#rt::number_le),
                "not greater than the exclusive minimum",
            ),
            (
                "exclusiveMaximum",
                quote!(#rt::number_ge),
                "not less than the exclusive maximum",
            ),
        ];
        for (keyword, violated, words) in checks {
            let Some(Value::Number(limit)) = map.get(keyword) else {
                continue;
            };
            let b = bound(&rt, limit);
            let message = format!("{{actual}} is {words} {limit}");
            let fail = self.fail(
                at,
                &child(path, keyword),
                keyword,
                self.part_expr(&Value::Number(limit.clone())),
                quote!(#rt::number_value(#n)),
                self.template(&message),
            );
            body.extend(quote!(if #violated(#n, #b) { #fail }));
        }
        if let Some(Value::Number(divisor)) = map.get("multipleOf") {
            let b = bound(&rt, divisor);
            let message = format!("{{actual}} is not a multiple of {divisor}");
            let fail = self.fail(
                at,
                &child(path, "multipleOf"),
                "multipleOf",
                self.part_expr(&Value::Number(divisor.clone())),
                quote!(#rt::number_value(#n)),
                self.template(&message),
            );
            body.extend(quote!(if !#rt::is_multiple_of(#n, #b) { #fail }));
        }
        if body.is_empty() {
            return body;
        }
        quote!(if let #rt::Value::Number(#n) = #v { #body })
    }
}
