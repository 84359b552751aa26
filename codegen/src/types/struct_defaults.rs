//! `Default` for open structs.
//!
//! typify implements `Default` for a struct whose members all have a default, but not once
//! the struct keeps unknown members in a flattened `serde_json::Map` (open objects, see the
//! view). Deserializing `{}` must still give the same value as `Default::default()` (a
//! member default of `{}` relies on it), so this pass writes the impl typify would have
//! written: each field from its `#[serde(default = "..")]` function, or
//! `Default::default()` for an `Option`, a bare `#[serde(default)]` or the flattened map.
//! When every field is `Default::default()`, `Default` is derived instead (clippy's
//! `derivable_impls` rejects the hand-written impl in every crate including the code).

use syn::punctuated::Punctuated;
use syn::{parse_quote, Item, Meta, Token};

/// Adds the missing `Default` impls to the top-level structs of `file`.
pub(crate) fn implement(file: &mut syn::File) {
    let has_default_impl = |name: &syn::Ident, items: &[Item]| {
        items.iter().any(|item| matches!(item, Item::Impl(imp)
            if imp.trait_.as_ref().is_some_and(|(p, _)| p.segments.last().is_some_and(|s| s.ident == "Default"))
            && matches!(&*imp.self_ty, syn::Type::Path(t) if t.path.is_ident(name))))
    };
    let mut added = Vec::new();
    let mut derived = Vec::new();
    for (index, item) in file.items.iter().enumerate() {
        let Item::Struct(s) = item else { continue };
        let syn::Fields::Named(fields) = &s.fields else {
            continue;
        };
        if has_default_impl(&s.ident, &file.items) {
            continue;
        }
        let mut flattened = false;
        let mut all_plain = true;
        let mut inits = Vec::new();
        for field in &fields.named {
            let options = serde_options(&field.attrs);
            let ident = field.ident.as_ref().expect("named fields");
            let default_fn = options.iter().find_map(|m| match m {
                Meta::NameValue(nv) if nv.path.is_ident("default") => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }) => syn::parse_str::<syn::ExprPath>(&s.value()).ok(),
                    _ => None,
                },
                _ => None,
            });
            let is_flatten = options.iter().any(|m| m.path().is_ident("flatten"));
            let bare_default = options
                .iter()
                .any(|m| matches!(m, Meta::Path(p) if p.is_ident("default")));
            flattened |= is_flatten;
            if let Some(path) = default_fn {
                all_plain = false;
                inits.push(quote::quote!(#ident: #path()));
            } else if is_flatten || bare_default || is_option(&field.ty) {
                inits.push(quote::quote!(#ident: ::std::default::Default::default()));
            } else {
                inits.clear();
                flattened = false;
                break;
            }
        }
        if !flattened {
            continue;
        }
        if all_plain {
            derived.push(index);
            continue;
        }
        let name = &s.ident;
        added.push(parse_quote! {
            impl ::std::default::Default for #name {
                fn default() -> Self {
                    Self { #(#inits),* }
                }
            }
        });
    }
    for index in derived {
        let Item::Struct(s) = &mut file.items[index] else {
            continue;
        };
        if let Some(attr) = s.attrs.iter_mut().find(|a| a.path().is_ident("derive")) {
            if let Ok(mut paths) =
                attr.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
            {
                paths.push(parse_quote!(Default));
                *attr = parse_quote!(#[derive(#paths)]);
            }
        }
    }
    file.items.extend(added);
}

fn serde_options(attrs: &[syn::Attribute]) -> Vec<Meta> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .filter_map(|a| {
            a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .ok()
        })
        .flatten()
        .collect()
}

fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}
