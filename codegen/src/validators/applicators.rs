//! The applicators published tool schemas use beyond the core set: `prefixItems` (tuples,
//! also draft-07's array `items`), `propertyNames`, `dependentRequired` and
//! `dependentSchemas` (draft-07's `dependencies`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use super::keywords::child;
use super::Emitter;
use crate::error::Result;

impl Emitter<'_> {
    /// The checks of `prefixItems`: item `i` against schema `i`, for the items present.
    pub(super) fn prefix_items_checks(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        items: &proc_macro2::Ident,
        at: &TokenStream,
    ) -> Result<TokenStream> {
        let mut out = TokenStream::new();
        let Some(Value::Array(schemas)) = map.get("prefixItems") else {
            return Ok(out);
        };
        let here = child(path, "prefixItems");
        for (index, schema) in schemas.iter().enumerate() {
            let id = self.fresh();
            let (iv, iat) = (format_ident!("v_{id}"), format_ident!("at_{id}"));
            let inner = self.schema(
                schema,
                &format!("{here}/{index}"),
                &quote!(#iv),
                &quote!(#iat),
            )?;
            if !inner.is_empty() {
                let item = if index == 0 {
                    quote!(#items.first())
                } else {
                    quote!(#items.get(#index))
                };
                out.extend(quote! {
                    if let ::core::option::Option::Some(#iv) = #item {
                        let #iat = &#at.index(#index);
                        #inner
                    }
                });
            }
        }
        Ok(out)
    }

    /// The checks of `propertyNames`, `dependentRequired` and `dependentSchemas` on the
    /// object `obj` (a `&Map` identifier) whose value is `v`.
    pub(super) fn dependency_checks(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        obj: &proc_macro2::Ident,
        v: &TokenStream,
        at: &TokenStream,
    ) -> Result<TokenStream> {
        let rt = self.rt.clone();
        let mut out = TokenStream::new();
        if let Some(names) = map.get("propertyNames") {
            let id = self.fresh();
            let (key, kv, kat) = (
                format_ident!("key_{id}"),
                format_ident!("name_{id}"),
                format_ident!("at_{id}"),
            );
            let inner = self.schema(
                names,
                &child(path, "propertyNames"),
                &quote!(&#kv),
                &quote!(#kat),
            )?;
            if !inner.is_empty() {
                out.extend(quote! {
                    for #key in #obj.keys() {
                        let #kv = #rt::Value::String(::std::string::String::from(#key.as_str()));
                        let #kat = &#at.key(#key);
                        #inner
                    }
                });
            }
        }
        if let Some(Value::Object(deps)) = map.get("dependentRequired") {
            let here = child(path, "dependentRequired");
            for (name, needed) in deps {
                let schema_path = child(&here, name);
                let needed: Vec<&str> = needed
                    .as_array()
                    .map(|n| n.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if needed.is_empty() {
                    continue;
                }
                let message = format!(
                    "missing property `{{limit}}`, required when `{}` is present",
                    name.escape_debug()
                );
                let template = self.template(&message);
                out.extend(quote! {
                    #(
                        if #obj.contains_key(#name) && !#obj.contains_key(#needed) {
                            errors.fail(#at, #schema_path, "dependentRequired", || {
                                (#rt::Part::Str(#needed), #rt::Part::Null, #template)
                            });
                        }
                    )*
                });
            }
        }
        if let Some(Value::Object(deps)) = map.get("dependentSchemas") {
            let here = child(path, "dependentSchemas");
            for (name, schema) in deps {
                let inner = self.schema(schema, &child(&here, name), v, at)?;
                if !inner.is_empty() {
                    out.extend(quote!(if #obj.contains_key(#name) { #inner }));
                }
            }
        }
        Ok(out)
    }
}
