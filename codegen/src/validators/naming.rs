//! Names of the generated validator functions.
//!
//! Every definition gets a *stem*: [`crate::naming::fn_stem`] of its name (snake case, e.g.
//! `JSONRPCRequest` → `jsonrpc_request`). From the stem come three public functions:
//! `<stem>` (validate), `<stem>_at` (the walker `$ref`s call) and `select_<stem>` (unions).
//!
//! Collisions are resolved in file order, so adding a definition never renames an earlier
//! one: a definition takes the first of `stem`, `stem_2`, `stem_3`, ... whose three names are
//! all unused and are not Rust keywords. A stem that is itself a keyword (`type`, `match`)
//! gets a trailing underscore first (`type_`). Private helpers the emitter adds start with
//! `__` and upper-case statics with `__`, so they can never collide with these names.

use std::collections::{BTreeMap, BTreeSet};

use crate::doc::SchemaDoc;

/// Rust keywords (strict and reserved, all editions) that cannot name a function.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "union",
];

fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// The three names derived from a stem.
fn derived(stem: &str) -> [String; 3] {
    [
        stem.to_string(),
        format!("{stem}_at"),
        format!("select_{stem}"),
    ]
}

/// The stem of every definition of `doc`, by definition name (see the module docs).
pub(crate) fn stems(doc: &SchemaDoc) -> BTreeMap<String, String> {
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut out = BTreeMap::new();
    for def in &doc.defs {
        let mut base = crate::naming::fn_stem(&def.name);
        if is_keyword(&base) {
            base.push_str("_def");
        }
        let stem = std::iter::once(base.clone())
            .chain((2..).map(|n| format!("{base}_{n}")))
            .find(|candidate| {
                derived(candidate)
                    .iter()
                    .all(|name| !used.contains(name) && !is_keyword(name))
            })
            .unwrap_or(base);
        used.extend(derived(&stem));
        out.insert(def.name.clone(), stem);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::stems;
    use crate::doc::SchemaDoc;

    fn doc(names: &[&str]) -> SchemaDoc {
        let defs: serde_json::Map<String, serde_json::Value> = names
            .iter()
            .map(|n| (n.to_string(), serde_json::json!({"type": "string"})))
            .collect();
        let mut root = serde_json::Map::new();
        root.insert("$defs".into(), serde_json::Value::Object(defs));
        SchemaDoc::from_value(
            std::path::Path::new("t.json"),
            serde_json::Value::Object(root),
        )
        .expect("valid test schema")
    }

    #[test]
    fn snake_case_keywords_and_collisions() {
        let doc = doc(&[
            "JSONRPCRequest",
            "Type",
            "FooBar",
            "foo_bar",
            "Foo",
            "FooAt",
        ]);
        let s = stems(&doc);
        assert_eq!(s["JSONRPCRequest"], "jsonrpc_request");
        assert_eq!(s["Type"], "type_def");
        // Both spell `foo_bar`, and `Foo`'s walker would be `foo_at`: one of each pair moves.
        let all: Vec<&String> = s.values().collect();
        let mut names: Vec<String> = all.iter().flat_map(|stem| super::derived(stem)).collect();
        let before = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), before, "derived names collide: {s:?}");
    }
}
