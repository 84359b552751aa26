//! Union definitions (`anyOf` / `oneOf` at a definition's root) become enums that we emit
//! ourselves: serialized untagged, but *deserialized by their discriminator* — the branch
//! the generated `validate::select_*` function picks — never by first-match order.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;
use typify::TypeSpace;

use crate::doc::{ref_target, Definition, SchemaDoc};
use crate::error::Result;
use crate::types::{guarded, rust_type_name, type_error};

/// Emits the enum and its `Deserialize` impl for the union definition `def`.
pub(crate) fn emit_union(
    doc: &SchemaDoc,
    stem: &str,
    def: &Definition,
    view_schema: &Value,
    space: &mut TypeSpace,
    runtime: &syn::Path,
) -> Result<TokenStream> {
    let keyword = if def.schema.get("oneOf").is_some() {
        "oneOf"
    } else {
        "anyOf"
    };
    let original = def.schema[keyword].as_array().cloned().unwrap_or_default();
    let branches = view_schema
        .get(keyword)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let type_name = rust_type_name(&def.name);
    let ident = format_ident!("{}", type_name);

    let mut variant_names: Vec<String> = Vec::new();
    let mut payloads = Vec::new();
    for (index, (branch, view_branch)) in original.iter().zip(&branches).enumerate() {
        let wanted = variant_name(branch, index);
        let mut name = wanted.clone();
        let mut n = 2;
        while variant_names.contains(&name) {
            name = format!("{wanted}{n}");
            n += 1;
        }
        variant_names.push(name);
        let schema: schemars::schema::Schema = serde_json::from_value(view_branch.clone())
            .map_err(|e| {
                type_error(
                    doc,
                    &format!("{}/{keyword}/{index}", def.pointer),
                    e.to_string(),
                )
            })?;
        let hint = format!("{type_name}Variant{index}");
        let pointer = format!("{}/{keyword}/{index}", def.pointer);
        let id = guarded(|| space.add_type_with_name(&schema, Some(hint)))
            .map_err(|message| type_error(doc, &pointer, message))?;
        let ty = space
            .get_type(&id)
            .map_err(|e| type_error(doc, &pointer, e.to_string()))?;
        payloads.push(ty.ident());
    }

    let variants: Vec<_> = variant_names
        .iter()
        .map(|n| format_ident!("{}", n))
        .collect();
    let variant_docs: Vec<String> = (0..variants.len())
        .map(|i| {
            format!(
                "Branch {i} of the union (`#{}/{keyword}/{i}`).",
                def.pointer
            )
        })
        .collect();
    let indexes = 0..variants.len();
    let select = format_ident!("select_{}", stem);
    let doc_text = def
        .schema
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| format!("The `{}` union.", def.name));
    let origin = format!(
        " Generated from `#{}` ({keyword}); deserialized by the branch `validate::{select}` picks.",
        def.pointer
    );
    let no_match = format!("the value matches no branch of `{}`", def.name);
    let private = quote!(#runtime::__private);
    Ok(quote! {
        #[doc = #doc_text]
        #[doc = ""]
        #[doc = #origin]
        #[derive(::serde::Serialize, Clone, Debug, PartialEq)]
        #[serde(untagged)]
        #[allow(
            clippy::large_enum_variant,
            reason = "protocol messages are built once and moved, boxing would cost an allocation each"
        )]
        pub enum #ident {
            #(
                #[doc = #variant_docs]
                #variants(#payloads),
            )*
        }

        impl<'de> ::serde::Deserialize<'de> for #ident {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: ::serde::Deserializer<'de>,
            {
                use #private::serde::de::Error as _;
                let value = <#private::serde_json::Value as ::serde::Deserialize>::deserialize(
                    deserializer,
                )?;
                match validate::#select(&value) {
                    #(
                        ::std::option::Option::Some(#indexes) => #private::serde_json::from_value(value)
                            .map(Self::#variants)
                            .map_err(D::Error::custom),
                    )*
                    _ => ::std::result::Result::Err(D::Error::custom(#no_match)),
                }
            }
        }
    })
}

/// The variant name of a branch: the referenced type's name, or the branch's JSON type.
fn variant_name(branch: &Value, index: usize) -> String {
    if let Some(target) = branch
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(ref_target)
    {
        return rust_type_name(&target);
    }
    if let Some(title) = branch.get("title").and_then(Value::as_str) {
        return rust_type_name(title);
    }
    match branch.get("type") {
        Some(Value::String(t)) => rust_type_name(t),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(rust_type_name)
            .collect::<Vec<_>>()
            .join("Or"),
        _ => format!("Variant{index}"),
    }
}
