//! The applicators whose verdict depends on whether a subschema accepts the value: `not`,
//! `if` / `then` / `else` and `contains` (with `minContains` / `maxContains`).
//!
//! The subschema that is only asked "do you accept this value?" (`not`'s, `if`'s,
//! `contains`') becomes a private walker run with a counting collector
//! (`__rt::accepts`, nothing allocated); `then` / `else` are inlined where they apply, so
//! their violations carry their own schema paths (`.../then/minimum`).

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use super::keywords::child;
use super::Emitter;
use crate::error::Result;

/// `if test { then } else { otherwise }` without an empty branch (clippy's
/// `needless_else` runs over generated code).
pub(super) fn if_else(
    test: TokenStream,
    then: &TokenStream,
    otherwise: &TokenStream,
) -> TokenStream {
    match (then.is_empty(), otherwise.is_empty()) {
        (_, true) => quote!(if #test { #then }),
        (true, false) => quote!(if !(#test) { #otherwise }),
        (false, false) => quote!(if #test { #then } else { #otherwise }),
    }
}

impl Emitter<'_> {
    /// A private walker for `schema` (at `path`), for a yes/no question about a value
    /// (written once per schema path).
    pub(super) fn question_walker(&mut self, schema: &Value, path: &str) -> Result<Ident> {
        if let Some(known) = self.questions.get(path) {
            return Ok(known.clone());
        }
        let rt = self.rt.clone();
        let name = format_ident!("__sub_{}", self.fresh());
        self.questions.insert(path.to_string(), name.clone());
        let body = self.schema(schema, path, &quote!(value), &quote!(at))?;
        let params = if body.is_empty() {
            quote!(_value: &#rt::Value, _at: &#rt::Location<'_>, _errors: &mut #rt::Collector)
        } else {
            quote!(value: &#rt::Value, at: &#rt::Location<'_>, errors: &mut #rt::Collector)
        };
        self.helpers.push(quote!(fn #name(#params) { #body }));
        Ok(name)
    }

    /// The checks of `not`, `if` / `then` / `else` and `contains` in `map`, on `v` at `at`.
    pub(super) fn conditional_checks(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> Result<TokenStream> {
        let rt = self.rt.clone();
        let mut out = TokenStream::new();
        if let Some(negated) = map.get("not") {
            let here = child(path, "not");
            let walker = self.question_walker(negated, &here)?;
            let fail = self.fail(
                at,
                &here,
                "not",
                quote!(#rt::Part::Null),
                quote!(#rt::summary(#v)),
                self.sentence("value matches the schema under `not`"),
            );
            out.extend(quote!(if #rt::accepts(#v, #walker) { #fail }));
        }
        if let Some(condition) = map.get("if") {
            let then = match map.get("then") {
                Some(then) => self.schema(then, &child(path, "then"), v, at)?,
                None => TokenStream::new(),
            };
            let otherwise = match map.get("else") {
                Some(otherwise) => self.schema(otherwise, &child(path, "else"), v, at)?,
                None => TokenStream::new(),
            };
            if !then.is_empty() || !otherwise.is_empty() {
                let walker = self.question_walker(condition, &child(path, "if"))?;
                out.extend(if_else(
                    quote!(#rt::accepts(#v, #walker)),
                    &then,
                    &otherwise,
                ));
            }
        }
        out.extend(self.contains_checks(map, path, v, at)?);
        Ok(out)
    }

    /// `contains` with its bounds: how many items the subschema accepts, against
    /// `minContains` (default 1) and `maxContains`.
    fn contains_checks(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> Result<TokenStream> {
        let rt = self.rt.clone();
        let Some(contained) = map.get("contains") else {
            return Ok(TokenStream::new());
        };
        let min = map.get("minContains").and_then(Value::as_u64);
        let max = map.get("maxContains").and_then(Value::as_u64);
        let least = min.unwrap_or(1);
        if least == 0 && max.is_none() {
            return Ok(TokenStream::new());
        }
        let walker = self.question_walker(contained, &child(path, "contains"))?;
        let id = self.fresh();
        let (items, count) = (format_ident!("items_{id}"), format_ident!("count_{id}"));
        let mut body = quote! {
            let #count = #items.iter().filter(|item| #rt::accepts(item, #walker)).count();
        };
        if least > 0 {
            let (keyword, schema_path) = match min {
                Some(_) => ("minContains", child(path, "minContains")),
                None => ("contains", child(path, "contains")),
            };
            let limit = usize::try_from(least).unwrap_or(usize::MAX);
            let template =
                format!("array has {{actual}} items matching `contains`, fewer than {least}");
            let fail = self.fail(
                at,
                &schema_path,
                keyword,
                quote!(#rt::Part::U64(#least)),
                quote!(#rt::Part::from(#count)),
                self.template(&template),
            );
            body.extend(quote!(if #count < #limit { #fail }));
        }
        if let Some(most) = max {
            let limit = usize::try_from(most).unwrap_or(usize::MAX);
            let template =
                format!("array has {{actual}} items matching `contains`, more than {most}");
            let fail = self.fail(
                at,
                &child(path, "maxContains"),
                "maxContains",
                quote!(#rt::Part::U64(#most)),
                quote!(#rt::Part::from(#count)),
                self.template(&template),
            );
            body.extend(quote!(if #count > #limit { #fail }));
        }
        Ok(quote!(if let #rt::Value::Array(#items) = #v { #body }))
    }
}
