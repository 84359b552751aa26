//! A `syn` pass over typify's output.
//!
//! typify turns an optional property whose type has an "intrinsic" default (arrays, maps,
//! objects whose properties are all optional) into a non-`Option` field with
//! `#[serde(default)]` (and for arrays and maps `skip_serializing_if = "..::is_empty"`).
//! That loses presence: `"capabilities": {"roots": {}}` round-trips to `{}` (or an absent
//! object comes back as `{}`), so a client's declared capability disappears or appears.
//! This pass makes every such field an `Option`, so absent and empty stay distinct.
//!
//! typify also lets a struct ignore members its schema does not declare, so they vanish on
//! a round trip. Nothing may be lost silently: an open object (no `additionalProperties:
//! false`) is given `additionalProperties: {}` by the view, which typify turns into a
//! `flatten`ed map keeping the unknown members; this pass adds `deny_unknown_fields` to
//! every struct that still has no such map, so an undeclared member is a deserialization
//! error naming it, never dropped. When a declared member has the map's name (`extra`), the
//! map is renamed (`additional_properties`) so the struct compiles.

use syn::punctuated::Punctuated;
use syn::{parse_quote, Attribute, Field, Item, Meta, Token};

/// Applies the post-pass to every struct of `file`.
pub(crate) fn keep_presence(file: &mut syn::File) {
    keep_presence_in(&mut file.items);
    fix_struct_defaults(&mut file.items);
}

/// typify writes the default of a struct-typed property whose schema default is `{}` as a
/// struct literal filling every field with `Default::default()`, which neither compiles
/// when a field type lacks `Default` (`NonZeroU64`, enums) nor applies the fields' own
/// schema defaults. Deserializing `{}` gives exactly the struct's `Default` impl (which
/// typify derives from the field defaults), so such a body becomes that impl.
fn fix_struct_defaults(items: &mut [Item]) {
    let Some(defaults) = items.iter_mut().find_map(|item| match item {
        Item::Mod(m) if m.ident == "defaults" => m.content.as_mut().map(|(_, items)| items),
        _ => None,
    }) else {
        return;
    };
    for item in defaults.iter_mut() {
        let Item::Fn(function) = item else { continue };
        let [syn::Stmt::Expr(syn::Expr::Struct(literal), None)] = function.block.stmts.as_slice()
        else {
            continue;
        };
        let all_default = literal.rest.is_none()
            && literal.fields.iter().all(|field| {
                matches!(&field.expr, syn::Expr::Call(call)
                    if call.args.is_empty()
                        && matches!(&*call.func, syn::Expr::Path(p)
                            if p.path.segments.len() == 2
                                && p.path.segments[0].ident == "Default"
                                && p.path.segments[1].ident == "default"))
            });
        if !all_default {
            continue;
        }
        let path = literal.path.clone();
        function.block.stmts = vec![syn::Stmt::Expr(
            parse_quote!(<#path as ::std::default::Default>::default()),
            None,
        )];
    }
}

fn keep_presence_in(items: &mut [Item]) {
    for item in items {
        match item {
            Item::Struct(item) => {
                for field in item.fields.iter_mut() {
                    keep_field_presence(field);
                }
                rename_colliding_map(item);
                deny_unknown_fields(item);
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
    let Ok(options) =
        field.attrs[index].parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
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

/// Renames a `flatten`ed field whose name a declared field has too.
fn rename_colliding_map(item: &mut syn::ItemStruct) {
    let names: Vec<String> = item
        .fields
        .iter()
        .filter_map(|f| f.ident.as_ref().map(ToString::to_string))
        .collect();
    for field in item.fields.iter_mut() {
        let flattened = field.attrs.iter().any(|a| {
            a.path().is_ident("serde")
                && a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                    .is_ok_and(|m| m.iter().any(|m| m.path().is_ident("flatten")))
        });
        let Some(ident) = field.ident.as_ref() else {
            continue;
        };
        let current = ident.to_string();
        if !flattened || names.iter().filter(|n| **n == current).count() < 2 {
            continue;
        }
        let mut name = "additional_properties".to_string();
        while names.contains(&name) {
            name.push('_');
        }
        field.ident = Some(syn::Ident::new(&name, ident.span()));
    }
}

pub(super) fn is_option(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    path.path
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "Option")
}

fn deny_unknown_fields(item: &mut syn::ItemStruct) {
    if !matches!(item.fields, syn::Fields::Named(_)) || !derives_deserialize(&item.attrs) {
        return;
    }
    let serde_options = |attrs: &[Attribute]| -> Vec<Meta> {
        attrs
            .iter()
            .filter(|a| a.path().is_ident("serde"))
            .filter_map(|a| {
                a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                    .ok()
            })
            .flatten()
            .collect()
    };
    let captures_extra = item.fields.iter().any(|field| {
        serde_options(&field.attrs)
            .iter()
            .any(|m| m.path().is_ident("flatten"))
    });
    let already = serde_options(&item.attrs)
        .iter()
        .any(|m| m.path().is_ident("deny_unknown_fields"));
    if !captures_extra && !already {
        item.attrs.push(parse_quote!(#[serde(deny_unknown_fields)]));
    }
}

fn derives_deserialize(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            a.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
                .is_ok_and(|paths| {
                    paths
                        .iter()
                        .any(|p| p.segments.last().is_some_and(|s| s.ident == "Deserialize"))
                })
        })
}
