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
    if integral_numbers_as_integers(&mut file.items) {
        file.items.extend(integral_helpers());
    }
    if keep_explicit_nulls(&mut file.items) {
        file.items.push(parse_quote! {
            /// Reads a member that is present (an explicit `null` included) as `Some`; an
            /// absent one is `None` through `#[serde(default)]`. Without it an optional
            /// `serde_json::Value` member holding `null` would come back absent.
            fn __typed_mcp_present_json<'de, D>(
                deserializer: D,
            ) -> ::std::result::Result<::std::option::Option<::serde_json::Value>, D::Error>
            where
                D: ::serde::Deserializer<'de>,
            {
                <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)
                    .map(::std::option::Option::Some)
            }
        });
    }
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
/// `__typed_mcp_integral`, which decodes the member as written and, if that fails, once more
/// with its integral numbers written as integers. Returns whether any field got it.
fn integral_numbers_as_integers(items: &mut [Item]) -> bool {
    let mut used = false;
    for item in items {
        let Item::Struct(item) = item else { continue };
        for field in item.fields.iter_mut() {
            if !holds_integer(&field.ty) {
                continue;
            }
            let index = field.attrs.iter().position(|a| a.path().is_ident("serde"));
            let options = match index {
                Some(index) => match field.attrs[index]
                    .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                {
                    Ok(options) => options,
                    Err(_) => continue,
                },
                None => Punctuated::new(),
            };
            if options.iter().any(|m| {
                ["deserialize_with", "with", "flatten"]
                    .iter()
                    .any(|k| m.path().is_ident(k))
            }) {
                continue;
            }
            let has_default = options.iter().any(|m| m.path().is_ident("default"));
            let kept = options.iter();
            // A missing `Option` member is `None` only through `default` once it has a
            // `deserialize_with`.
            let attr: Attribute = if is_option(&field.ty) && !has_default {
                parse_quote!(#[serde(#(#kept,)* default, deserialize_with = "__typed_mcp_integral")])
            } else {
                parse_quote!(#[serde(#(#kept,)* deserialize_with = "__typed_mcp_integral")])
            };
            match index {
                Some(index) => field.attrs[index] = attr,
                None => field.attrs.push(attr),
            }
            used = true;
        }
    }
    used
}

/// The helpers of [`integral_numbers_as_integers`].
fn integral_helpers() -> [Item; 2] {
    [
        parse_quote! {
            /// Reads a member whose type holds Rust integers: as written first, then, if that
            /// fails, with every integral number (`3.0`, an integer to JSON Schema) written as
            /// an integer.
            fn __typed_mcp_integral<'de, D, T>(deserializer: D) -> ::std::result::Result<T, D::Error>
            where
                D: ::serde::Deserializer<'de>,
                T: ::serde::de::DeserializeOwned,
            {
                let mut value =
                    <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                if let ::std::result::Result::Ok(typed) = <T as ::serde::Deserialize>::deserialize(&value) {
                    return ::std::result::Result::Ok(typed);
                }
                __typed_mcp_integral_numbers(&mut value);
                <T as ::serde::Deserialize>::deserialize(value).map_err(<D::Error as ::serde::de::Error>::custom)
            }
        },
        parse_quote! {
            /// Writes every number of `value` that has a zero fraction and fits `i64` or `u64`
            /// as an integer.
            fn __typed_mcp_integral_numbers(value: &mut ::serde_json::Value) {
                match value {
                    ::serde_json::Value::Number(number) if number.is_f64() => {
                        let float = number.as_f64().unwrap_or(0.5);
                        if float.fract() != 0.0 {
                            return;
                        }
                        // Within ±2^63 (or below 2^64 for positives) the conversion is exact.
                        if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&float) {
                            *number = (float as i64).into();
                        } else if (0.0..1.844_674_407_370_955_2e19).contains(&float) {
                            *number = (float as u64).into();
                        }
                    }
                    ::serde_json::Value::Array(items) => {
                        items.iter_mut().for_each(__typed_mcp_integral_numbers)
                    }
                    ::serde_json::Value::Object(members) => {
                        members.values_mut().for_each(__typed_mcp_integral_numbers)
                    }
                    _ => {}
                }
            }
        },
    ]
}

/// Gives every optional `serde_json::Value` field of a top-level struct a deserializer that
/// keeps an explicit `null` (see `__typed_mcp_present_json`). Returns whether any field got it.
fn keep_explicit_nulls(items: &mut [Item]) -> bool {
    let mut used = false;
    for item in items {
        let Item::Struct(item) = item else { continue };
        for field in item.fields.iter_mut() {
            if !is_optional_json_value(&field.ty) {
                continue;
            }
            let Some(index) = field.attrs.iter().position(|a| a.path().is_ident("serde")) else {
                continue;
            };
            let Ok(options) =
                field.attrs[index].parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            else {
                continue;
            };
            if options
                .iter()
                .any(|m| m.path().is_ident("deserialize_with") || m.path().is_ident("with"))
            {
                continue;
            }
            let kept: Vec<&Meta> = options
                .iter()
                .filter(|m| !m.path().is_ident("default"))
                .collect();
            field.attrs[index] = parse_quote! {
                #[serde(#(#kept,)* default, deserialize_with = "__typed_mcp_present_json")]
            };
            used = true;
        }
    }
    used
}

/// Whether `ty` is `Option<..::serde_json::Value>`.
fn is_optional_json_value(ty: &syn::Type) -> bool {
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
    segments.ends_with(&["serde_json".to_string(), "Value".to_string()])
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

fn is_option(ty: &syn::Type) -> bool {
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
