//! Turning schema values into generated expressions: JSON values (for an error's `limit`),
//! exact numeric bounds, and tests "is this instance one of these constants?".

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use serde_json::{Number, Value};

use super::Emitter;

/// JSON equality at generation time (numbers by value, as the runtime's `json_equal`).
pub(super) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        (x, y) => x == y,
    }
}

/// `Bound` expression for a schema number.
pub(super) fn bound(rt: &TokenStream, n: &Number) -> TokenStream {
    if let Some(u) = n.as_u64() {
        let lit = Literal::u64_unsuffixed(u);
        quote!(#rt::Bound::U(#lit))
    } else if let Some(i) = n.as_i64() {
        if i == i64::MIN {
            quote!(#rt::Bound::I(i64::MIN))
        } else {
            let lit = Literal::u64_unsuffixed(i.unsigned_abs());
            quote!(#rt::Bound::I(-#lit))
        }
    } else {
        let f = n.as_f64().unwrap_or_default();
        let lit = Literal::f64_suffixed(f.abs());
        if f < 0.0 {
            quote!(#rt::Bound::F(-#lit))
        } else {
            quote!(#rt::Bound::F(#lit))
        }
    }
}

impl Emitter<'_> {
    /// An error part (`typed_mcp::__private::Part`) holding `value`, turned into a JSON
    /// value only when the error is read: nothing is allocated when the error is recorded.
    pub(super) fn part_expr(&self, value: &Value) -> TokenStream {
        let rt = &self.rt;
        match value {
            Value::Null => quote!(#rt::Part::Null),
            Value::Bool(b) => quote!(#rt::Part::Bool(#b)),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    quote!(#rt::Part::U64(#u))
                } else if let Some(i) = n.as_i64() {
                    quote!(#rt::Part::I64(#i))
                } else {
                    let f = n.as_f64().unwrap_or_default();
                    quote!(#rt::Part::F64(#f))
                }
            }
            Value::String(s) => quote!(#rt::Part::Str(#s)),
            Value::Array(_) | Value::Object(_) => {
                let text = value.to_string();
                quote!(#rt::Part::Json(#text))
            }
        }
    }

    /// An error sentence written as is.
    pub(super) fn sentence(&self, text: &str) -> TokenStream {
        let rt = &self.rt;
        quote!(#rt::Message::Static(#text))
    }

    /// An error sentence in which `{limit}` and `{actual}` stand for those parts, rendered
    /// when the error is read.
    pub(super) fn template(&self, text: &str) -> TokenStream {
        let rt = &self.rt;
        quote!(#rt::Message::Template(#text))
    }

    /// A static holding an array or object constant, parsed once (deduplicated).
    fn json_static(&mut self, value: &Value) -> Ident {
        let text = value.to_string();
        if let Some(ident) = self.jsons.get(&text) {
            return ident.clone();
        }
        let ident = format_ident!("__JSON_{}", self.jsons.len());
        let rt = &self.rt;
        self.statics
            .push(quote!(static #ident: #rt::LazyJson = #rt::LazyJson::new(#text);));
        self.jsons.insert(text, ident.clone());
        ident
    }

    /// A boolean expression: `pattern` matches the `&str` `s`. A pattern simple enough (see
    /// [`super::simple_pattern`]) is a generated function walking the string once; any other
    /// is a compiled-once regular expression static. Both are written once per pattern.
    pub(super) fn pattern_test(&mut self, pattern: &str, s: &TokenStream) -> TokenStream {
        let (ident, is_function) = match self.patterns.get(pattern) {
            Some(known) => known.clone(),
            None => {
                let written = self.write_pattern(pattern);
                self.patterns.insert(pattern.to_string(), written.clone());
                written
            }
        };
        if is_function {
            quote!(#ident(#s))
        } else {
            quote!(#ident.is_match(#s))
        }
    }

    /// Writes the matcher of a pattern not written yet; returns its name and whether it is a
    /// function (else a `LazyRegex` static).
    fn write_pattern(&mut self, pattern: &str) -> (Ident, bool) {
        let index = self.patterns.len();
        let Some(matcher) = super::simple_pattern::parse(pattern) else {
            let ident = format_ident!("__PATTERN_{}", index);
            let rt = &self.rt;
            self.statics
                .push(quote!(static #ident: #rt::LazyRegex = #rt::LazyRegex::new(#pattern);));
            return (ident, false);
        };
        let ident = format_ident!("__pattern_{}", index);
        let body = matcher.emit();
        let doc = format!(" Whether `s` matches the pattern `{pattern}`.");
        self.statics.push(quote! {
            #[doc = #doc]
            #[inline]
            // Classes are written as the pattern wrote them (`'0'..='9'`).
            #[allow(clippy::manual_is_ascii_check)]
            fn #ident(s: &str) -> bool {
                #body
            }
        });
        (ident, true)
    }

    /// A boolean expression: `v` (a `&Value`) equals one of `values` (JSON equality).
    pub(super) fn one_of_values(&mut self, v: &TokenStream, values: &[Value]) -> TokenStream {
        let rt = self.rt.clone();
        let mut terms: Vec<TokenStream> = Vec::new();
        let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        match strings.as_slice() {
            [] => {}
            [one] => terms.push(quote!(matches!(#v, #rt::Value::String(s) if s == #one))),
            many => terms.push(quote!(
                matches!(#v, #rt::Value::String(s) if matches!(s.as_str(), #(#many)|*))
            )),
        }
        let numbers: Vec<TokenStream> = values
            .iter()
            .filter_map(|value| value.as_number().map(|n| bound(&rt, n)))
            .collect();
        match numbers.as_slice() {
            [] => {}
            [one] => terms.push(quote!(
                matches!(#v, #rt::Value::Number(n) if #rt::number_eq(n, #one))
            )),
            many => terms.push(quote!(
                matches!(#v, #rt::Value::Number(n) if #rt::number_in(n, &[#(#many),*]))
            )),
        }
        let has_true = values.contains(&Value::Bool(true));
        let has_false = values.contains(&Value::Bool(false));
        match (has_true, has_false) {
            (true, true) => terms.push(quote!(#v.is_boolean())),
            (true, false) => terms.push(quote!(matches!(#v, #rt::Value::Bool(true)))),
            (false, true) => terms.push(quote!(matches!(#v, #rt::Value::Bool(false)))),
            (false, false) => {}
        }
        if values.contains(&Value::Null) {
            terms.push(quote!(#v.is_null()));
        }
        for value in values.iter().filter(|v| v.is_array() || v.is_object()) {
            let ident = self.json_static(value);
            terms.push(quote!(#rt::json_equal(#v, #ident.get())));
        }
        if terms.is_empty() {
            return quote!(false);
        }
        if terms.len() == 1 {
            return terms.remove(0);
        }
        quote!(#(#terms)||*)
    }
}
