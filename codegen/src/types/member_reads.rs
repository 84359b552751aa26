//! How generated struct members are *read*, where serde's derive would lose what JSON
//! Schema keeps (a `syn` pass over typify's output, after [`super::postpass`]):
//!
//! - **integral numbers**: JSON Schema counts `3.0` as an integer (the validators agree);
//!   Rust's integer types refuse it. A member whose type holds an integer type is read as
//!   written first and, if that fails, once more with its integral numbers as integers;
//! - **explicit `null`**: serde reads `null` into an `Option` member as `None`, which is then
//!   written back as an absent member. A member whose inner type can hold `null` itself (a
//!   `serde_json::Value`, one of our unions with a `null` branch, or a newtype around an
//!   `Option`, which an optional member with a `type` list holding `"null"` is hoisted into)
//!   keeps it as `Some`.
//!
//! The readers are the runtime's (`<runtime>::__private::{integral, present}`), shared with
//! its tool-argument decoder; generated code only names them.

use std::collections::BTreeSet;

use syn::punctuated::Punctuated;
use syn::{parse_quote, Attribute, Item, Meta, Token};

use super::postpass::is_option;

/// Applies both passes to the top-level structs of `file`. `nullable` names the generated
/// types (besides `serde_json::Value`) that read `null` as a value of their own; `runtime` is
/// the path generated code names the runtime by.
pub(crate) fn apply(file: &mut syn::File, nullable: &BTreeSet<String>, runtime: &syn::Path) {
    let mut nullable = nullable.clone();
    nullable.extend(option_newtypes(&file.items));
    let readers = format!("{}::__private", crate::crate_paths::path_text(runtime));
    integral_numbers_as_integers(&mut file.items, &format!("{readers}::integral"));
    keep_explicit_nulls(&mut file.items, &nullable, &format!("{readers}::present"));
}

/// The `serde` options of `field` and the index of its `#[serde(..)]` attribute, if it has
/// one; `None` when that attribute does not parse.
fn serde_options(field: &syn::Field) -> Option<(Option<usize>, Punctuated<Meta, Token![,]>)> {
    match field.attrs.iter().position(|a| a.path().is_ident("serde")) {
        Some(index) => field.attrs[index]
            .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .ok()
            .map(|options| (Some(index), options)),
        None => Some((None, Punctuated::new())),
    }
}

/// Replaces (or adds) the `#[serde(..)]` attribute of `field`.
fn set_serde(field: &mut syn::Field, index: Option<usize>, attr: Attribute) {
    match index {
        Some(index) => field.attrs[index] = attr,
        None => field.attrs.push(attr),
    }
}

/// Whether `options` already say how the member is read (or it is a flattened map).
fn reads_itself(options: &Punctuated<Meta, Token![,]>) -> bool {
    options.iter().any(|m| {
        ["deserialize_with", "with", "flatten"]
            .iter()
            .any(|k| m.path().is_ident(k))
    })
}

/// Integer types typify gives members (`integer` schemas).
const INTEGER_TYPES: &[&str] = &[
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "NonZeroI8",
    "NonZeroI16",
    "NonZeroI32",
    "NonZeroI64",
    "NonZeroU8",
    "NonZeroU16",
    "NonZeroU32",
    "NonZeroU64",
];

/// Whether `ty` names an integer type anywhere in it (`Option<i64>`, `Vec<u64>`, a tuple...).
fn holds_integer(ty: &syn::Type) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_path_segment(&mut self, segment: &'ast syn::PathSegment) {
            if INTEGER_TYPES.iter().any(|t| segment.ident == t) {
                self.0 = true;
            }
            syn::visit::visit_path_segment(self, segment);
        }
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_type(&mut finder, ty);
    finder.0
}

/// JSON Schema counts `1.0` as an integer (the validators agree); Rust's integer types do not
/// take it. Every field of a top-level struct whose type holds an integer type is read through
/// `reader` (the runtime's `integral`), which decodes the member as written and, if that
/// fails, once more with its integral numbers written as integers.
fn integral_numbers_as_integers(items: &mut [Item], reader: &str) {
    for item in items {
        let Item::Struct(item) = item else { continue };
        for field in item.fields.iter_mut() {
            if !holds_integer(&field.ty) {
                continue;
            }
            let Some((index, options)) = serde_options(field) else {
                continue;
            };
            if reads_itself(&options) {
                continue;
            }
            let has_default = options.iter().any(|m| m.path().is_ident("default"));
            let kept = options.iter();
            // A missing `Option` member is `None` only through `default` once it has a
            // `deserialize_with`.
            // (A newtype's field is never missing, and `transparent` refuses a `default`.)
            let attr: Attribute = if is_option(&field.ty) && !has_default && field.ident.is_some() {
                parse_quote!(#[serde(#(#kept,)* default, deserialize_with = #reader)])
            } else {
                parse_quote!(#[serde(#(#kept,)* deserialize_with = #reader)])
            };
            set_serde(field, index, attr);
        }
    }
}

/// The generated newtypes around an `Option` (`struct N(Option<String>)`, typify's type for
/// `"type": ["string", "null"]`): they read `null` as a value of their own.
fn option_newtypes(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Struct(s) => match &s.fields {
                syn::Fields::Unnamed(fields) if fields.unnamed.len() == 1 => fields
                    .unnamed
                    .first()
                    .filter(|f| is_option(&f.ty))
                    .map(|_| s.ident.to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Gives every optional member whose inner type holds `null` (see [`apply`]) `reader` (the
/// runtime's `present`), which keeps an explicit `null` as `Some`.
fn keep_explicit_nulls(items: &mut [Item], nullable: &BTreeSet<String>, reader: &str) {
    for item in items {
        let Item::Struct(item) = item else { continue };
        for field in item.fields.iter_mut() {
            if !option_of_nullable(&field.ty, nullable) {
                continue;
            }
            let Some((index, options)) = serde_options(field) else {
                continue;
            };
            if reads_itself(&options) {
                continue;
            }
            let kept = options.iter().filter(|m| !m.path().is_ident("default"));
            let attr = parse_quote! {
                #[serde(#(#kept,)* default, deserialize_with = #reader)]
            };
            set_serde(field, index, attr);
        }
    }
}

/// Whether `ty` is `Option<T>` with `T` a `serde_json::Value` or a type named in `nullable`.
fn option_of_nullable(ty: &syn::Type, nullable: &BTreeSet<String>) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    if last.ident != "Option" {
        return false;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    let Some(syn::GenericArgument::Type(syn::Type::Path(inner))) = args.args.first() else {
        return false;
    };
    let segments: Vec<String> = inner
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    match segments.as_slice() {
        [name] => nullable.contains(name),
        [.., krate, value] => krate == "serde_json" && value == "Value",
        [] => false,
    }
}
