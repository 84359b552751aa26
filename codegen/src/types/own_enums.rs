//! String enums typify cannot name, written by this crate.
//!
//! typify makes a variant name of each value (`"reactions-+1"` → `ReactionsPlus1`-like) and
//! panics when two values give the same name (`"+"` and `"-"` both lose every character).
//! Published schemas have such values (`"."`, `","`, `"'"`, `"reactions-+1"` next to
//! `"reactions--1"`), so for an enum typify would refuse ([`typify_refuses`]) this module
//! emits the enum itself: every value gets a variant whose name always works (symbols
//! spelled out, a number suffix for what still collides) and the JSON value is kept in
//! `#[serde(rename)]`. Enums typify handles keep typify's names, so existing code is
//! unaffected.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use crate::doc::Definition;
use crate::types::rust_type_name;

/// Whether typify fails on a string `enum` with these values (it panics when its two ways
/// of naming variants both leave duplicates; this mirrors them).
pub(crate) fn typify_refuses(values: &[Value]) -> bool {
    let raw: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
    let first: Vec<String> = raw.iter().map(|v| typify_sanitize(v)).collect();
    if unique(&first) {
        return false;
    }
    let second: Vec<String> = raw
        .iter()
        .map(|v| typify_sanitize(&v.replace(|c: char| c == '_' || !is_ident_char(c), "X")))
        .collect();
    !unique(&second)
}

fn unique(names: &[String]) -> bool {
    names.iter().collect::<BTreeSet<_>>().len() == names.len()
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// typify's `sanitize(.., Case::Pascal)`, as far as uniqueness is concerned.
fn typify_sanitize(input: &str) -> String {
    use heck::ToPascalCase;
    let out = match input {
        "+1" => "plus1".to_pascal_case(),
        "-1" => "minus1".to_pascal_case(),
        _ => input
            .replace('\'', "")
            .replace(|c: char| !is_ident_char(c), "-")
            .to_pascal_case(),
    };
    match out.chars().next() {
        None => "X".to_string(),
        Some(c) if c.is_alphabetic() || c == '_' => out,
        Some(_) => format!("X{out}"),
    }
}

/// A variant name for `value` that is always an identifier: letters and digits kept (words
/// joined in PascalCase), every other character spelled out, `Empty` for `""`, a `V`
/// before a leading digit.
fn variant_name(value: &str) -> String {
    use heck::ToPascalCase;
    let mut words = String::new();
    for c in value.chars() {
        if c.is_ascii_alphanumeric() {
            words.push(c);
            continue;
        }
        let spelled = match c {
            '+' => "plus".to_string(),
            '-' => "minus".to_string(),
            '.' => "dot".to_string(),
            ',' => "comma".to_string(),
            '\'' => "quote".to_string(),
            '"' => "double quote".to_string(),
            ';' => "semicolon".to_string(),
            ':' => "colon".to_string(),
            '/' => "slash".to_string(),
            '*' => "star".to_string(),
            '_' | ' ' | '\t' | '\n' | '\r' => String::new(),
            other => format!("u{:x}", u32::from(other)),
        };
        words.push(' ');
        words.push_str(&spelled);
        words.push(' ');
    }
    let name = words.to_pascal_case();
    match name.chars().next() {
        None => "Empty".to_string(),
        Some(c) if c.is_ascii_digit() => format!("V{name}"),
        Some(_) if name == "Self" => "SelfValue".to_string(),
        Some(_) => name,
    }
}

/// Unique variant names for `values`, in order.
fn variant_names(values: &[&str]) -> Vec<String> {
    let mut taken = BTreeSet::new();
    values
        .iter()
        .map(|value| {
            let wanted = variant_name(value);
            let mut name = wanted.clone();
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{wanted}{n}");
                n += 1;
            }
            name
        })
        .collect()
}

/// The enum for definition `def` (a string `enum` typify refuses).
pub(crate) fn emit_enum(def: &Definition) -> TokenStream {
    let values: Vec<&str> = def
        .schema
        .get("enum")
        .and_then(Value::as_array)
        .map(|vs| vs.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut seen = BTreeSet::new();
    let values: Vec<&str> = values.into_iter().filter(|v| seen.insert(*v)).collect();
    let ident = format_ident!("{}", rust_type_name(&def.name));
    let variants: Vec<_> = variant_names(&values)
        .iter()
        .map(|n| format_ident!("{}", n))
        .collect();
    let docs: Vec<String> = values.iter().map(|v| format!(" `{v:?}`.")).collect();
    let doc_text = def
        .schema
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| format!("The `{}` enum.", def.name));
    let origin = format!(" Generated from `#{}` (string `enum`).", def.pointer);
    quote! {
        #[doc = #doc_text]
        #[doc = ""]
        #[doc = #origin]
        #[derive(
            ::serde::Serialize, ::serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash,
            PartialOrd, Ord,
        )]
        pub enum #ident {
            #(
                #[doc = #docs]
                #[serde(rename = #values)]
                #variants,
            )*
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn typify_refuses_only_what_it_cannot_name() {
        let refused = |v: Value| typify_refuses(v.as_array().unwrap());
        assert!(refused(json!(["+", "-"])));
        assert!(refused(json!([".", ","])));
        assert!(refused(json!([
            "reactions-+1",
            "reactions--1",
            "reactions_+1"
        ])));
        assert!(!refused(json!(["text", "image", "resource_link"])));
        assert!(!refused(json!(["2025-06-18", "2026-07-28"])));
        assert!(!refused(json!(["+1", "-1", "laugh"])));
    }

    #[test]
    fn every_value_gets_a_distinct_identifier() {
        let values = [
            ".",
            ",",
            "'",
            "",
            "+1",
            "-1",
            "reactions-+1",
            "reactions--1",
            "laugh",
            "Laugh",
            "foo\nbar",
            "foo bar",
            "self",
            "Self",
            "type",
            "2x",
            "é",
        ];
        let names = variant_names(&values);
        assert_eq!(names.iter().collect::<BTreeSet<_>>().len(), values.len());
        for name in &names {
            assert!(syn::parse_str::<syn::Ident>(name).is_ok(), "{name}");
        }
        assert_eq!(names[0], "Dot");
        assert_eq!(names[6], "ReactionsMinusPlus1");
        assert_eq!(names[7], "ReactionsMinusMinus1");
    }
}
