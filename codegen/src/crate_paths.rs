//! Routes every `::serde` and `::serde_json` path of a generated file through the runtime.
//!
//! typify names `::serde` (derives, `Deserialize` impls) and `::serde_json` (numbers, maps,
//! values) directly, which would make every crate using generated code depend on `serde`
//! and `serde_json` itself, at versions that happen to match the runtime's. This pass
//! rewrites those paths to `<runtime>::__private::serde` and
//! `<runtime>::__private::serde_json`, and gives every type deriving a serde trait
//! `#[serde(crate = "<runtime>::__private::serde")]`, so that generated code needs nothing
//! but the runtime, under whatever name [`crate::Config::runtime_path`] gives it.

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{parse_quote, Attribute, Token};

/// The crates whose leading-`::` paths are rerouted.
const REROUTED: [&str; 2] = ["serde", "serde_json"];

/// Rewrites `file` in place so it reaches serde and serde_json through `runtime`.
pub(crate) fn through_runtime(file: &mut syn::File, runtime: &syn::Path) {
    let mut pass = Reroute {
        runtime,
        serde_crate: format!("{}::__private::serde", path_text(runtime)),
    };
    pass.visit_file_mut(file);
}

/// `runtime` as written in source, without spaces (`::typed_mcp`), for the paths generated
/// code names inside strings (serde attributes) and comments.
pub(crate) fn path_text(runtime: &syn::Path) -> String {
    runtime
        .to_token_stream()
        .to_string()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

struct Reroute<'a> {
    runtime: &'a syn::Path,
    /// The value of `#[serde(crate = "..")]`.
    serde_crate: String,
}

impl Reroute<'_> {
    /// `::serde::X` → `<runtime>::__private::serde::X` (same for `serde_json`); returns the
    /// number of segments put in front.
    fn reroute(&self, path: &mut syn::Path) -> usize {
        let rerouted = path.leading_colon.is_some()
            && path
                .segments
                .first()
                .is_some_and(|first| REROUTED.iter().any(|name| first.ident == name));
        if !rerouted {
            return 0;
        }
        let mut segments = self.runtime.segments.clone();
        segments.push(parse_quote!(__private));
        let added = segments.len();
        segments.extend(std::mem::take(&mut path.segments));
        path.leading_colon = self.runtime.leading_colon;
        path.segments = segments;
        added
    }

    /// A path that may be qualified (`<T as ::serde::Trait>::item`): the trait's segments
    /// are the path's first `qself.position` ones, so the position grows with the prefix.
    fn reroute_qualified(&mut self, qself: &mut Option<syn::QSelf>, path: &mut syn::Path) {
        if let Some(qself) = qself {
            self.visit_type_mut(&mut qself.ty);
            if qself.position > 0 {
                qself.position += self.reroute(path);
            }
        } else {
            self.reroute(path);
        }
        syn::visit_mut::visit_path_mut(self, path);
    }

    /// Rewrites the paths of `#[derive(..)]` attributes; returns whether one of them derives
    /// a serde trait.
    fn reroute_derives(&self, attrs: &mut [Attribute]) -> bool {
        let mut derives_serde = false;
        for attr in attrs.iter_mut().filter(|a| a.path().is_ident("derive")) {
            let Ok(mut paths) =
                attr.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
            else {
                continue;
            };
            for path in paths.iter_mut() {
                let is_serde = path.leading_colon.is_some()
                    && path.segments.first().is_some_and(|s| s.ident == "serde");
                derives_serde |= is_serde;
                self.reroute(path);
            }
            *attr = parse_quote!(#[derive(#paths)]);
        }
        derives_serde
    }

    fn name_serde_crate(&self, attrs: &mut Vec<Attribute>) {
        if self.reroute_derives(attrs) {
            let serde_crate = &self.serde_crate;
            attrs.push(parse_quote!(#[serde(crate = #serde_crate)]));
        }
    }
}

impl VisitMut for Reroute<'_> {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        self.reroute(path);
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_type_path_mut(&mut self, node: &mut syn::TypePath) {
        self.reroute_qualified(&mut node.qself, &mut node.path);
    }

    fn visit_expr_path_mut(&mut self, node: &mut syn::ExprPath) {
        for attr in &mut node.attrs {
            self.visit_attribute_mut(attr);
        }
        self.reroute_qualified(&mut node.qself, &mut node.path);
    }

    fn visit_item_struct_mut(&mut self, item: &mut syn::ItemStruct) {
        self.name_serde_crate(&mut item.attrs);
        syn::visit_mut::visit_item_struct_mut(self, item);
    }

    fn visit_item_enum_mut(&mut self, item: &mut syn::ItemEnum) {
        self.name_serde_crate(&mut item.attrs);
        syn::visit_mut::visit_item_enum_mut(self, item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rerouted(code: syn::File, runtime: &str) -> String {
        let mut file = code;
        through_runtime(&mut file, &syn::parse_str(runtime).unwrap());
        prettyplease::unparse(&file)
    }

    #[test]
    fn derives_and_paths_go_through_the_runtime() {
        let code = rerouted(
            parse_quote! {
                #[derive(::serde::Deserialize, ::serde::Serialize, Clone)]
                pub struct A { pub n: ::serde_json::Number, pub m: ::std::string::String }
            },
            "::mcp",
        );
        assert!(
            code.contains("::mcp::__private::serde::Deserialize"),
            "{code}"
        );
        assert!(
            code.contains("::mcp::__private::serde::Serialize"),
            "{code}"
        );
        assert!(
            code.contains("::mcp::__private::serde_json::Number"),
            "{code}"
        );
        assert!(
            code.contains(r#"#[serde(crate = "::mcp::__private::serde")]"#),
            "{code}"
        );
        assert!(code.contains("::std::string::String"), "{code}");
    }

    #[test]
    fn qualified_and_nested_paths_are_rerouted_and_others_left_alone() {
        let code = rerouted(
            parse_quote! {
                impl<'de> ::serde::Deserialize<'de> for B {
                    fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                        let v = <::serde_json::Value as ::serde::Deserialize>::deserialize(d)?;
                        Err(<D::Error as ::serde::de::Error>::custom(serde_json::to_string(&v).len()))
                    }
                }
            },
            "crate::rt",
        );
        assert!(!code.contains(" ::serde"), "{code}");
        assert!(!code.contains("<::serde"), "{code}");
        assert!(code.contains("<crate::rt::__private::serde_json::Value as crate::rt::__private::serde::Deserialize>"), "{code}");
        // A relative path is the user's own business.
        assert!(code.contains(" serde_json::to_string"), "{code}");
    }

    #[test]
    fn types_without_serde_derives_get_no_crate_attribute() {
        let code = rerouted(
            parse_quote! {
                #[derive(Clone, Debug)]
                pub enum C { X }
            },
            "::typed_mcp",
        );
        assert!(!code.contains("crate ="), "{code}");
    }
}
