//! A `syn` pass over typify's output.
//!
//! typify turns an optional property whose type has an "intrinsic" default (arrays, maps,
//! objects whose properties are all optional) into a non-`Option` field with
//! `#[serde(default)]` (and for arrays and maps `skip_serializing_if = "..::is_empty"`).
//! That loses presence: `"capabilities": {"roots": {}}` round-trips to `{}` (or an absent
//! object comes back as `{}`), so a client's declared capability disappears or appears.
//! This pass makes every such field an `Option`, so absent and empty stay distinct.

use syn::punctuated::Punctuated;
use syn::{parse_quote, Attribute, Field, Item, Meta, Token};

/// Applies the post-pass to every struct of `file`.
pub(crate) fn keep_presence(file: &mut syn::File) {
    keep_presence_in(&mut file.items);
}

fn keep_presence_in(items: &mut [Item]) {
    for item in items {
        match item {
            Item::Struct(item) => {
                for field in item.fields.iter_mut() {
                    keep_field_presence(field);
                }
            }
            Item::Mod(module) => {
                if let Some((_, items)) = &mut module.content {
                    keep_presence_in(items);
                }
            }
            _ => {}
        }
    }
}

fn keep_field_presence(field: &mut Field) {
    let Some(index) = field.attrs.iter().position(|a| a.path().is_ident("serde")) else {
        return;
    };
    let Ok(options) = field.attrs[index]
        .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
    else {
        return;
    };
    let has_bare_default = options
        .iter()
        .any(|m| matches!(m, Meta::Path(p) if p.is_ident("default")));
    if !has_bare_default || is_option(&field.ty) {
        return;
    }
    let kept: Vec<&Meta> = options
        .iter()
        .filter(|m| !m.path().is_ident("default") && !m.path().is_ident("skip_serializing_if"))
        .collect();
    let attr: Attribute = parse_quote! {
        #[serde(#(#kept,)* default, skip_serializing_if = "::std::option::Option::is_none")]
    };
    field.attrs[index] = attr;
    let ty = &field.ty;
    field.ty = parse_quote!(::std::option::Option<#ty>);
}

fn is_option(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    path.path
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "Option")
}
