//! Static resolution of references the emitters cannot follow as written: `$ref`s through
//! `$id` resources, to `$anchor`s, to other files listed in the `Config` as remote documents.
//!
//! Before a definition is left to the runtime's evaluator for using `$id`, `$anchor` or such
//! a reference, it is *bundled*: every reference below it is resolved at generation time
//! (with the [`Registry`] of `typed-mcp-schema-refs`, which the runtime's evaluator resolves
//! with too), each target schema becomes a definition of the document (once per target), the
//! reference is rewritten to `#/$defs/<that definition>`, and the identifiers (`$id`,
//! `$anchor`) and nested `$defs`, now resolved, are dropped. The definition is then emitted
//! like any other.
//!
//! `$dynamicRef` is resolved the same way, against the dynamic scope the path from the
//! definition to it enters (the resources of the `$id`s and `$ref`s followed): a target is
//! bundled once per distinct scope, so each copy's dynamic references are fixed.
//!
//! Bundling is given up (the definition stays with the evaluator) when a reference does not
//! resolve, or the definition needs what static resolution cannot give: `$recursiveRef`, a
//! metaschema of its own (`$schema` naming a dialect the generator does not know, which may
//! turn vocabularies off).
//!
//! A target in the file keeps its pointer as the definition's pointer (errors point at it);
//! a target in a remote document takes the pointer of the first `$ref` that named it.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::doc::{escape_pointer, pascal, Definition};
// The subschemas walked are those the registry indexes (`$defs` and `definitions`, among
// SUBSCHEMA_MAPS, are dropped before they are looked at).
use typed_mcp_schema_refs::{
    resolve, strip_fragment, walk_pointer, Registry, Target, ONE_SUBSCHEMA, SUBSCHEMA_ARRAYS,
    SUBSCHEMA_MAPS,
};

/// One bundling: the registry, the definitions made so far and where each target went.
struct Bundler<'d> {
    registry: &'d Registry<'static>,
    document: &'static Value,
    /// (Target schema by address, dynamic scope) → definition name.
    names: BTreeMap<(usize, Vec<String>), String>,
    /// Names taken in the document, and by this bundling.
    taken: Vec<String>,
    /// The definitions made, in order.
    made: Vec<Definition>,
}

/// Bundles the definition `def` of `doc` (see the module documentation): its new schema
/// and the definitions it now refers to, or `None` when it must stay with the evaluator.
/// `base` is the document's URI, `taken` the names of the document's definitions.
pub(crate) fn bundle(
    base: &str,
    taken: &[String],
    def: &Definition,
    document: &'static Value,
    remotes: &'static Value,
) -> Option<(Value, Vec<Definition>)> {
    let registry = Registry::new(document, base, &def.pointer, remotes);
    let (root, root_base) = walk_pointer(document, base, &def.pointer)?;
    let mut bundler = Bundler {
        registry: &registry,
        document,
        names: BTreeMap::new(),
        taken: taken.to_vec(),
        made: Vec::new(),
    };
    let scope = vec![root_base.clone()];
    bundler.names.insert(
        (std::ptr::from_ref(root) as usize, scope.clone()),
        def.name.clone(),
    );
    let schema = bundler.copy(root, &root_base, &def.pointer, &scope)?;
    Some((schema, bundler.made))
}

impl Bundler<'_> {
    /// `schema` (found at base URI `base`, with the dynamic scope `scope`: the resources
    /// entered, outermost first) with every reference resolved; `at` is the pointer errors
    /// name for it.
    fn copy(
        &mut self,
        schema: &'static Value,
        base: &str,
        at: &str,
        scope: &[String],
    ) -> Option<Value> {
        let map = match schema {
            Value::Object(map) => map,
            other => return Some(other.clone()),
        };
        if ["$recursiveRef", "$recursiveAnchor"]
            .iter()
            .any(|k| map.contains_key(*k))
        {
            return None;
        }
        if let Some(Value::String(meta)) = map.get("$schema") {
            // A metaschema listed as a remote document may leave the validation vocabulary
            // out (`$vocabulary`): then the validation keywords do not apply, which only
            // the evaluator knows how to honour.
            crate::dialect::Dialect::from_uri(meta)?;
            if !self.registry.validation_of(meta) {
                return None;
            }
        }
        let mut base = base.to_string();
        let mut scope = scope.to_vec();
        if let Some(Value::String(id)) = map.get("$id") {
            base = strip_fragment(&resolve(&base, id));
            enter(&mut scope, &base);
        }
        let mut out = Map::new();
        let mut dynamic = None;
        for (key, value) in map {
            let here = format!("{at}/{}", escape_pointer(key));
            let copied = match key.as_str() {
                "$id" | "$anchor" | "$dynamicAnchor" | "$defs" | "definitions" => continue,
                "$ref" => {
                    let target = self.registry.lookup(&base, value.as_str()?)?;
                    Value::String(self.reference(target, &base, &here, &scope)?)
                }
                "$dynamicRef" => {
                    let target = self
                        .registry
                        .dynamic_lookup(&base, value.as_str()?, &scope)?;
                    dynamic = Some(self.reference(target, &base, &here, &scope)?);
                    continue;
                }
                k if ONE_SUBSCHEMA.contains(&k) => self.copy(value, &base, &here, &scope)?,
                k if SUBSCHEMA_ARRAYS.contains(&k) => match value {
                    Value::Array(items) => Value::Array(
                        items
                            .iter()
                            .enumerate()
                            .map(|(i, item)| self.copy(item, &base, &format!("{here}/{i}"), &scope))
                            .collect::<Option<_>>()?,
                    ),
                    other => other.clone(),
                },
                k if SUBSCHEMA_MAPS.contains(&k) => match value {
                    Value::Object(subs) => Value::Object(
                        subs.iter()
                            .map(|(name, sub)| {
                                let p = format!("{here}/{}", escape_pointer(name));
                                Some((name.clone(), self.copy(sub, &base, &p, &scope)?))
                            })
                            .collect::<Option<_>>()?,
                    ),
                    other => other.clone(),
                },
                _ => value.clone(),
            };
            out.insert(key.clone(), copied);
        }
        if let Some(reference) = dynamic {
            // A `$dynamicRef` next to a `$ref` applies too: as one more `allOf` member.
            if out.contains_key("$ref") {
                let mut only = Map::new();
                only.insert("$ref".into(), Value::String(reference));
                match out
                    .entry("allOf")
                    .or_insert_with(|| Value::Array(Vec::new()))
                {
                    Value::Array(members) => members.push(Value::Object(only)),
                    _ => return None,
                }
            } else {
                out.insert("$ref".into(), Value::String(reference));
            }
        }
        Some(Value::Object(out))
    }

    /// The `#/$defs/<name>` a reference written at `at` (base URI `base`, dynamic scope
    /// `scope`) to `target` (with the base URI at its parent) becomes.
    fn reference(
        &mut self,
        Target {
            schema: target,
            base: target_base,
            validation,
            ..
        }: Target<'static>,
        base: &str,
        at: &str,
        scope: &[String],
    ) -> Option<String> {
        if !validation {
            return None;
        }
        // Following a reference into another resource enters it (as the evaluator does).
        let mut scope = scope.to_vec();
        if target_base != base && target.get("$id").is_none() {
            enter(&mut scope, &target_base);
        }
        let key = (std::ptr::from_ref(target) as usize, scope.clone());
        let name = match self.names.get(&key) {
            Some(name) => name.clone(),
            None => {
                let pointer = find(self.document, target, "").unwrap_or_else(|| at.to_string());
                let name = self.fresh(&pointer);
                self.names.insert(key, name.clone());
                self.taken.push(name.clone());
                let schema = self.copy(target, &target_base, &pointer, &scope)?;
                self.made.push(Definition {
                    name: name.clone(),
                    pointer,
                    schema,
                });
                name
            }
        };
        Some(format!("#/$defs/{}", escape_pointer(&name)))
    }

    /// An unused definition name for the target at `pointer`.
    fn fresh(&self, pointer: &str) -> String {
        let wanted = format!("Bundled{}", pascal(pointer));
        let mut name = wanted.clone();
        let mut n = 2;
        while self
            .taken
            .iter()
            .any(|t| crate::hoist::same_rust_names(t, &name))
        {
            name = format!("{wanted}{n}");
            n += 1;
        }
        name
    }
}

/// `uri` entered: added to the dynamic scope unless already in it (only the outermost
/// occurrence of a resource matters to `$dynamicRef`, and this keeps scopes finite).
fn enter(scope: &mut Vec<String>, uri: &str) {
    if !scope.iter().any(|s| s == uri) {
        scope.push(uri.to_string());
    }
}

/// The JSON Pointer of `target` (by address) in `value` (at `at`), if it is in there.
fn find(value: &'static Value, target: &'static Value, at: &str) -> Option<String> {
    if std::ptr::eq(value, target) {
        return Some(at.to_string());
    }
    match value {
        Value::Object(map) => map
            .iter()
            .find_map(|(k, v)| find(v, target, &format!("{at}/{}", escape_pointer(k)))),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| find(v, target, &format!("{at}/{i}"))),
        _ => None,
    }
}
