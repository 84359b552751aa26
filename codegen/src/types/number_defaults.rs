//! Defaults of exact numbers without `unwrap`.
//!
//! A `number` member is a `serde_json::Number` (see the view), a type typify does not know,
//! so it writes the member's default as `serde_json::from_str::<Number>("0.5").unwrap()`.
//! This pass parses the literal here, at generation time, and writes a constructor that
//! cannot fail: `Number::from(20u64)`, `Number::from(-3i64)`, or for a fraction
//! `Number::from_f64(0.5)` with a fallback (unreachable for a finite JSON number) instead of
//! a panic. A literal that is not a JSON number is left for the compiler to see.

use syn::{parse_quote, Expr, Item};

/// Applies the pass to the `defaults` module of typify's output.
pub(crate) fn without_unwrap(file: &mut syn::File) {
    let Some(defaults) = file.items.iter_mut().find_map(|item| match item {
        Item::Mod(m) if m.ident == "defaults" => m.content.as_mut().map(|(_, items)| items),
        _ => None,
    }) else {
        return;
    };
    for item in defaults.iter_mut() {
        let Item::Fn(function) = item else { continue };
        let [syn::Stmt::Expr(body, None)] = function.block.stmts.as_slice() else {
            continue;
        };
        let Some(replacement) = constructor(body) else {
            continue;
        };
        function.block.stmts = vec![syn::Stmt::Expr(replacement, None)];
    }
}

/// `from_str::<..Number>("lit").unwrap()` → a constructor of the same number.
fn constructor(body: &Expr) -> Option<Expr> {
    let Expr::MethodCall(call) = body else {
        return None;
    };
    if call.method != "unwrap" || !call.args.is_empty() {
        return None;
    }
    let Expr::Call(inner) = &*call.receiver else {
        return None;
    };
    let Expr::Path(func) = &*inner.func else {
        return None;
    };
    let last = func.path.segments.last()?;
    let names_number = matches!(&last.arguments, syn::PathArguments::AngleBracketed(args)
        if args.args.iter().any(|a| matches!(a, syn::GenericArgument::Type(syn::Type::Path(t))
            if t.path.segments.last().is_some_and(|s| s.ident == "Number"))));
    if last.ident != "from_str" || !names_number || inner.args.len() != 1 {
        return None;
    }
    let Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(text),
        ..
    }) = &inner.args[0]
    else {
        return None;
    };
    let number: serde_json::Number = serde_json::from_str(&text.value()).ok()?;
    Some(if let Some(n) = number.as_u64() {
        parse_quote!(::serde_json::Number::from(#n))
    } else if let Some(n) = number.as_i64() {
        parse_quote!(::serde_json::Number::from(#n))
    } else {
        let f = number.as_f64()?;
        parse_quote! {
            ::serde_json::Number::from_f64(#f).unwrap_or_else(|| ::serde_json::Number::from(0u8))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_defaults_are_constructed_not_parsed() {
        let mut file: syn::File = parse_quote! {
            pub mod defaults {
                pub(super) fn a() -> ::serde_json::Number {
                    ::serde_json::from_str::<::serde_json::Number>("0.5").unwrap()
                }
                pub(super) fn b() -> ::serde_json::Number {
                    ::serde_json::from_str::<::serde_json::Number>("-3").unwrap()
                }
            }
        };
        without_unwrap(&mut file);
        let code = prettyplease::unparse(&file);
        assert!(!code.contains("unwrap()"), "{code}");
        assert!(code.contains("from_f64(0.5f64)"), "{code}");
        assert!(code.contains("Number::from(-3i64)"), "{code}");
    }
}
