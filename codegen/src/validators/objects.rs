//! Object keywords: `required`, `properties`, `patternProperties`, `additionalProperties`,
//! `minProperties`, `maxProperties`.
//!
//! When several members need checking, the instance's members are walked once with a
//! `match` on the key (declared properties get an arm, the rest go to
//! `additionalProperties`), and required properties are tracked in a bit set, so each member
//! costs one string match instead of one map lookup per declared property.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use super::keywords::child;
use super::Emitter;
use crate::error::Result;

/// One declared property and what the walk does with it.
struct Property<'s> {
    name: &'s str,
    /// Checks of the member's value (empty when its schema accepts everything).
    checks: TokenStream,
    /// Location variable the checks use.
    at: Ident,
    /// Bit in the "seen" set when the property is required.
    bit: Option<u32>,
}

impl Emitter<'_> {
    pub(super) fn object_checks(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> Result<TokenStream> {
        let rt = self.rt.clone();
        let id = self.fresh();
        let (obj, key, val, seen) = (
            format_ident!("map_{id}"),
            format_ident!("key_{id}"),
            format_ident!("v_{id}"),
            format_ident!("seen_{id}"),
        );
        let required: Vec<&str> = match map.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut properties = Vec::new();
        if let Some(Value::Object(props)) = map.get("properties") {
            let here = child(path, "properties");
            let mut next_bit = 0;
            for (name, sub) in props {
                let pat = format_ident!("at_{}", self.fresh());
                let checks = self.schema(sub, &child(&here, name), &quote!(#val), &quote!(#pat))?;
                let bit = (required.contains(&name.as_str()) && next_bit < 64).then(|| {
                    next_bit += 1;
                    next_bit - 1
                });
                properties.push(Property {
                    name,
                    checks,
                    at: pat,
                    bit,
                });
            }
        }
        let (additional, additional_uses_value) = match map.get("additionalProperties") {
            Some(extra) => {
                self.additional(extra, &child(path, "additionalProperties"), &key, &val, at)?
            }
            None => (TokenStream::new(), false),
        };
        let patterned = format_ident!("patterned_{id}");
        let mut pattern_checks = TokenStream::new();
        let mut patterns_use_value = false;
        if let Some(Value::Object(patterns)) = map.get("patternProperties") {
            let here = child(path, "patternProperties");
            for (pattern, sub) in patterns {
                let kat = format_ident!("at_{}", self.fresh());
                let checks =
                    self.schema(sub, &child(&here, pattern), &quote!(#val), &quote!(#kat))?;
                if checks.is_empty() && additional.is_empty() {
                    continue;
                }
                let test = self.pattern_test(pattern, &quote!(#key.as_str()));
                let mark = (!additional.is_empty()).then(|| quote!(#patterned = true;));
                let checks = if checks.is_empty() {
                    checks
                } else {
                    patterns_use_value = true;
                    quote!(let #kat = &#at.key(#key); #checks)
                };
                pattern_checks.extend(quote!(if #test { #mark #checks }));
            }
        }
        let tracks = !pattern_checks.is_empty() && !additional.is_empty();
        let additional = if tracks {
            quote!(if !#patterned { #additional })
        } else {
            additional
        };
        let busy = properties
            .iter()
            .filter(|p| !p.checks.is_empty() || p.bit.is_some())
            .count();
        let walk = !additional.is_empty() || !pattern_checks.is_empty() || busy >= 2;

        let mut body = TokenStream::new();
        let mut tracked = Vec::new();
        if walk {
            let mut arms = TokenStream::new();
            let mut uses_value = additional_uses_value || patterns_use_value;
            for p in &properties {
                if p.checks.is_empty() && p.bit.is_none() && additional.is_empty() {
                    continue;
                }
                let name = p.name;
                let mark = p.bit.map(|bit| {
                    let mask = 1u64 << bit;
                    quote!(#seen |= #mask;)
                });
                let checks = if p.checks.is_empty() {
                    TokenStream::new()
                } else {
                    uses_value = true;
                    let (pat, inner) = (&p.at, &p.checks);
                    let segment = pointer_segment(name);
                    quote!(let #pat = &#at.segment(#segment); #inner)
                };
                arms.extend(quote!(#name => { #mark #checks }));
                if let Some(bit) = p.bit {
                    tracked.push((name, bit));
                }
            }
            let members = if uses_value {
                quote!((#key, #val) in #obj)
            } else {
                quote!(#key in #obj.keys())
            };
            let dispatch = if properties.is_empty() {
                additional
            } else {
                quote!(match #key.as_str() { #arms _ => { #additional } })
            };
            let flag = tracks.then(|| quote!(let mut #patterned = false;));
            let dispatch = quote!(#flag #pattern_checks #dispatch);
            if !tracked.is_empty() {
                body.extend(quote!(let mut #seen = 0u64;));
            }
            body.extend(quote!(for #members { #dispatch }));
        } else {
            for p in properties.iter().filter(|p| !p.checks.is_empty()) {
                let (name, pat, inner) = (p.name, &p.at, &p.checks);
                let segment = pointer_segment(name);
                body.extend(quote! {
                    if let ::core::option::Option::Some(#val) = #obj.get(#name) {
                        let #pat = &#at.segment(#segment);
                        #inner
                    }
                });
            }
        }
        let here = child(path, "required");
        for name in &required {
            let fail = quote!(errors.missing(#at, #here, #name););
            match tracked.iter().find(|(n, _)| n == name) {
                Some((_, bit)) => {
                    let mask = 1u64 << bit;
                    body.extend(quote!(if (#seen & #mask) == 0 { #fail }));
                }
                None => body.extend(quote!(if !#obj.contains_key(#name) { #fail })),
            }
        }
        body.extend(self.dependency_checks(map, path, &obj, v, at)?);
        body.extend(self.count_checks(
            map,
            path,
            at,
            [("minProperties", true), ("maxProperties", false)],
            &quote!(#obj.len()),
            Some(&obj),
            ("object has {} properties, {} than {}", "fewer", "more"),
        ));
        if body.is_empty() {
            return Ok(body);
        }
        Ok(quote!(if let #rt::Value::Object(#obj) = #v { #body }))
    }

    /// The checks of one member `key` / `val` not named in `properties`, and whether they
    /// read `val`.
    fn additional(
        &mut self,
        extra: &Value,
        path: &str,
        key: &Ident,
        val: &Ident,
        at: &TokenStream,
    ) -> Result<(TokenStream, bool)> {
        let rt = self.rt.clone();
        let kat = format_ident!("at_{}", self.fresh());
        if extra == &Value::Bool(false) {
            let fail = self.fail(
                &quote!(#kat),
                path,
                "additionalProperties",
                quote!(#rt::Part::Bool(false)),
                quote!(#rt::summary_str(#key)),
                self.sentence("property is not allowed here"),
            );
            return Ok((quote!(let #kat = &#at.key(#key); #fail), false));
        }
        let inner = self.schema(extra, path, &quote!(#val), &quote!(#kat))?;
        if inner.is_empty() {
            return Ok((inner, false));
        }
        Ok((quote!(let #kat = &#at.key(#key); #inner), true))
    }
}

/// The JSON Pointer segment of member `name`, escaped (`~` as `~0`, `/` as `~1`), with its
/// leading `/`: what `Location::segment` takes, so the runtime never escapes a known name.
fn pointer_segment(name: &str) -> String {
    format!("/{}", name.replace('~', "~0").replace('/', "~1"))
}
