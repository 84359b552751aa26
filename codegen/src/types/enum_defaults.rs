//! Derives `Default` for enums whose default is one of their unit variants.
//!
//! typify writes `impl Default for E { fn default() -> Self { E::V } }` for an enum schema
//! with a `default`, which clippy's `derivable_impls` rejects in every crate that includes
//! the generated code. This pass replaces such an impl with `#[derive(Default)]` on the enum
//! and `#[default]` on the variant; the behaviour is the same.

use syn::punctuated::Punctuated;
use syn::{parse_quote, Item, Token};

/// Applies the pass to the top-level items of typify's output.
pub(crate) fn derive_enum_defaults(file: &mut syn::File) {
    let mut derivable = Vec::new();
    for (index, item) in file.items.iter().enumerate() {
        let Some((enum_name, variant)) = default_impl_returning_a_variant(item) else {
            continue;
        };
        let Some(target) = file.items.iter().position(|item| {
            matches!(item, Item::Enum(e) if e.ident == enum_name
                && e.variants.iter().any(|v| v.ident == variant && v.fields.is_empty()))
        }) else {
            continue;
        };
        derivable.push((index, target, variant));
    }
    for (_, target, variant) in &derivable {
        let Item::Enum(item) = &mut file.items[*target] else {
            continue;
        };
        for attr in item
            .attrs
            .iter_mut()
            .filter(|a| a.path().is_ident("derive"))
        {
            if let Ok(mut paths) =
                attr.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
            {
                paths.push(parse_quote!(Default));
                *attr = parse_quote!(#[derive(#paths)]);
                break;
            }
        }
        if let Some(v) = item.variants.iter_mut().find(|v| v.ident == *variant) {
            v.attrs.push(parse_quote!(#[default]));
        }
    }
    let removed: Vec<usize> = derivable.iter().map(|(index, _, _)| *index).collect();
    let mut index = 0;
    file.items.retain(|_| {
        let keep = !removed.contains(&index);
        index += 1;
        keep
    });
}

/// `impl ::std::default::Default for E { fn default() -> Self { E::V } }` → `(E, V)`.
fn default_impl_returning_a_variant(item: &Item) -> Option<(syn::Ident, syn::Ident)> {
    let Item::Impl(imp) = item else { return None };
    let (trait_path, _) = imp.trait_.as_ref()?;
    if trait_path.segments.last()?.ident != "Default" || imp.items.len() != 1 {
        return None;
    }
    let syn::Type::Path(self_ty) = &*imp.self_ty else {
        return None;
    };
    let enum_name = self_ty.path.get_ident()?.clone();
    let syn::ImplItem::Fn(function) = &imp.items[0] else {
        return None;
    };
    let [syn::Stmt::Expr(syn::Expr::Path(body), None)] = function.block.stmts.as_slice() else {
        return None;
    };
    let segments = &body.path.segments;
    let names_the_enum = segments.len() == 2 && (segments[0].ident == enum_name);
    names_the_enum.then(|| (enum_name, segments[1].ident.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unit_variant_default_becomes_a_derive() {
        let mut file: syn::File = parse_quote! {
            #[derive(Clone, Debug)]
            pub enum Mode { Up, Down }
            impl ::std::default::Default for Mode {
                fn default() -> Self { Mode::Down }
            }
        };
        derive_enum_defaults(&mut file);
        let code = prettyplease::unparse(&file);
        assert!(code.contains("#[derive(Clone, Debug, Default)]"), "{code}");
        assert!(code.contains("#[default]\n    Down"), "{code}");
        assert!(!code.contains("impl"), "{code}");
    }

    #[test]
    fn other_default_impls_are_left_alone() {
        let mut file: syn::File = parse_quote! {
            pub struct S { n: i64 }
            impl ::std::default::Default for S {
                fn default() -> Self { S { n: 3 } }
            }
            pub enum T { A(i64) }
            impl ::std::default::Default for T {
                fn default() -> Self { T::A(1) }
            }
        };
        let before = prettyplease::unparse(&file);
        derive_enum_defaults(&mut file);
        assert_eq!(prettyplease::unparse(&file), before);
    }
}
