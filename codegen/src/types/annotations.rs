//! Vendor keywords that add to the generated types.
//!
//! - `x-retryable: [values]` on a string `enum` definition: the values whose failures may
//!   succeed when retried. Emits `RETRYABLE` and `is_retryable()`, so the retryable class
//!   of every code is declared in the schema and nowhere else.
//! - `x-descriptions: {value: text}` on an `enum` definition: a doc comment per variant.
//! - `x-names: {value: NAME}` on an integer `enum` definition (typify makes it a newtype):
//!   an associated constant per value, documented from `x-descriptions`.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;
use syn::{Item, ItemEnum};

use crate::doc::SchemaDoc;
use crate::error::{Error, Result};

/// Applies the annotations of every definition of `doc` to the typify output in `file`,
/// returning the extra items to append.
pub(crate) fn apply(
    doc: &SchemaDoc,
    names: &BTreeMap<String, String>,
    file: &mut syn::File,
) -> Result<TokenStream> {
    let mut extra = TokenStream::new();
    for def in &doc.defs {
        let retryable = def.schema.get("x-retryable");
        let descriptions = def.schema.get("x-descriptions");
        if retryable.is_none() && descriptions.is_none() && def.schema.get("x-names").is_none() {
            continue;
        }
        let invalid = |message: String| Error::InvalidSchema {
            file: doc.file.clone(),
            pointer: def.pointer.clone(),
            message,
        };
        if def.schema.get("type").and_then(Value::as_str) == Some("integer") {
            let Some(type_name) = names.get(&def.name) else {
                continue;
            };
            extra.extend(integer_constants(def, type_name, &invalid)?);
            continue;
        }
        let values: Vec<&str> = def
            .schema
            .get("enum")
            .and_then(Value::as_array)
            .map(|vs| vs.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if values.is_empty() {
            return Err(invalid(
                "`x-retryable`/`x-descriptions` need a string `enum`".into(),
            ));
        }
        let Some(type_name) = names.get(&def.name) else {
            continue;
        };
        let Some(item) = find_enum(file, type_name) else {
            return Err(invalid(format!("no enum `{type_name}` was generated")));
        };
        let variants = variant_values(item);
        if let Some(descriptions) = descriptions {
            let Some(map) = descriptions.as_object() else {
                return Err(invalid("`x-descriptions` must be an object".into()));
            };
            for (value, text) in map {
                let text = text
                    .as_str()
                    .ok_or_else(|| invalid(format!("`x-descriptions.{value}` must be a string")))?;
                let variant = item
                    .variants
                    .iter_mut()
                    .find(|v| variants.get(value.as_str()) == Some(&v.ident.to_string()))
                    .ok_or_else(|| {
                        invalid(format!("`x-descriptions` names `{value}`, not in `enum`"))
                    })?;
                variant.attrs.retain(|a| !a.path().is_ident("doc"));
                variant.attrs.insert(0, syn::parse_quote!(#[doc = #text]));
            }
        }
        if let Some(retryable) = retryable {
            let listed: Vec<&str> = retryable
                .as_array()
                .map(|vs| vs.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if retryable.as_array().map(Vec::len) != Some(listed.len()) {
                return Err(invalid("`x-retryable` must be an array of strings".into()));
            }
            let mut idents = Vec::new();
            for value in &listed {
                let ident = variants.get(*value).ok_or_else(|| {
                    invalid(format!(
                        "`x-retryable` names `{value}`, which is not in `enum`"
                    ))
                })?;
                idents.push(format_ident!("{}", ident));
            }
            let ty = format_ident!("{}", type_name);
            let pointer = format!("#{}/x-retryable", def.pointer);
            let list_doc = format!(" The values the schema declares retryable (`{pointer}`).");
            extra.extend(quote! {
                impl #ty {
                    #[doc = #list_doc]
                    pub const RETRYABLE: &'static [Self] = &[#(Self::#idents),*];

                    /// Whether the schema declares this value retryable (`x-retryable`):
                    /// a failure with it may succeed when the same call is repeated later.
                    pub fn is_retryable(&self) -> bool {
                        #[allow(unreachable_patterns)]
                        let retryable = matches!(self, #(Self::#idents)|*);
                        retryable
                    }
                }
            });
        }
    }
    Ok(extra)
}

/// Associated constants for an integer `enum` with `x-names`.
fn integer_constants(
    def: &crate::doc::Definition,
    type_name: &str,
    invalid: &dyn Fn(String) -> Error,
) -> Result<TokenStream> {
    if def.schema.get("x-retryable").is_some() {
        return Err(invalid(
            "`x-retryable` is only supported on string enums".into(),
        ));
    }
    let names = def
        .schema
        .get("x-names")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("an integer enum with annotations needs `x-names`".into()))?;
    let values: Vec<i64> = def
        .schema
        .get("enum")
        .and_then(Value::as_array)
        .map(|vs| vs.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default();
    let descriptions = def.schema.get("x-descriptions").and_then(Value::as_object);
    let mut constants = Vec::new();
    for (key, name) in names {
        let value: i64 = key
            .parse()
            .ok()
            .filter(|v| values.contains(v))
            .ok_or_else(|| invalid(format!("`x-names` key `{key}` is not a value of `enum`")))?;
        let name = name
            .as_str()
            .filter(|n| syn::parse_str::<syn::Ident>(n).is_ok())
            .ok_or_else(|| invalid(format!("`x-names.{key}` must be an identifier")))?;
        let ident = format_ident!("{}", name);
        let text = descriptions
            .and_then(|d| d.get(key))
            .and_then(Value::as_str)
            .map(|t| format!(" `{value}`: {t}"))
            .unwrap_or_else(|| format!(" `{value}`."));
        constants.push(quote! {
            #[doc = #text]
            pub const #ident: Self = Self(#value);
        });
    }
    if constants.len() != values.len() {
        return Err(invalid("`x-names` must name every value of `enum`".into()));
    }
    let ty = format_ident!("{}", type_name);
    Ok(quote! {
        impl #ty {
            #(#constants)*
        }
    })
}

fn find_enum<'f>(file: &'f mut syn::File, name: &str) -> Option<&'f mut ItemEnum> {
    file.items.iter_mut().find_map(|item| match item {
        Item::Enum(e) if e.ident == name => Some(e),
        _ => None,
    })
}

/// JSON value → variant ident, read from the variants' `#[serde(rename = "..")]`.
fn variant_values(item: &ItemEnum) -> BTreeMap<String, String> {
    item.variants
        .iter()
        .map(|variant| {
            let ident = variant.ident.to_string();
            let value = super::docs::serde_rename(&variant.attrs).unwrap_or_else(|| ident.clone());
            (value, ident)
        })
        .collect()
}
