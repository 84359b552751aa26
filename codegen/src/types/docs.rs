//! Documents what typify leaves undocumented, so generated code passes
//! `#![deny(missing_docs)]`: variants (named after the JSON value they stand for), fields
//! (after the member), and any public type or module.

use syn::{parse_quote, Attribute, Item};

/// Adds a doc comment to every undocumented public item, variant and field of `items`.
pub(crate) fn document(items: &mut [Item]) {
    for item in items {
        match item {
            Item::Enum(e) => {
                ensure_doc(&mut e.attrs, || format!(" The `{}` type.", e.ident));
                for variant in &mut e.variants {
                    let value =
                        serde_rename(&variant.attrs).unwrap_or_else(|| variant.ident.to_string());
                    ensure_doc(&mut variant.attrs, || format!(" `{value}`."));
                }
            }
            Item::Struct(s) => {
                ensure_doc(&mut s.attrs, || format!(" The `{}` type.", s.ident));
                for (index, field) in s.fields.iter_mut().enumerate() {
                    let member = serde_rename(&field.attrs)
                        .or_else(|| field.ident.as_ref().map(ToString::to_string))
                        .unwrap_or_else(|| index.to_string());
                    ensure_doc(&mut field.attrs, || format!(" The `{member}` member."));
                }
            }
            Item::Mod(m) => {
                ensure_doc(&mut m.attrs, || format!(" Support items: `{}`.", m.ident));
                if let Some((_, inner)) = &mut m.content {
                    document(inner);
                }
            }
            Item::Type(t) => ensure_doc(&mut t.attrs, || format!(" The `{}` type.", t.ident)),
            Item::Fn(f) => ensure_doc(&mut f.attrs, || format!(" `{}`.", f.sig.ident)),
            _ => {}
        }
    }
}

fn ensure_doc(attrs: &mut Vec<Attribute>, text: impl FnOnce() -> String) {
    if !attrs.iter().any(|a| a.path().is_ident("doc")) {
        let text = text();
        attrs.insert(0, parse_quote!(#[doc = #text]));
    }
}

/// The `rename = ".."` of a `#[serde(..)]` attribute, if any.
pub(crate) fn serde_rename(attrs: &[Attribute]) -> Option<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .find_map(|a| {
            let mut value = None;
            let parsed = a.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    let lit: syn::LitStr = meta.value()?.parse()?;
                    value = Some(lit.value());
                } else if meta.input.peek(syn::Token![=]) {
                    let _skipped: syn::Expr = meta.value()?.parse()?;
                }
                Ok(())
            });
            parsed.ok().and(value)
        })
}
