//! The schema resources and anchors the references of one definition can reach.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::uris::{percent_decode, resolve, strip_fragment, walk_pointer};

/// The URI of the validation vocabulary of JSON Schema 2020-12: a metaschema whose
/// `$vocabulary` leaves it out turns the validation keywords off.
pub const VALIDATION_VOCABULARY: &str = "https://json-schema.org/draft/2020-12/vocab/validation";

/// Keywords whose value is one subschema.
pub const ONE_SUBSCHEMA: &[&str] = &[
    "additionalProperties",
    "items",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];

/// Keywords whose value is an array of subschemas.
pub const SUBSCHEMA_ARRAYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value is an object mapping names to subschemas.
pub const SUBSCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];

/// Every schema resource the references of one definition can reach: the document it sits
/// in, the resources the definition embeds (`$id`) and the remote documents, with their
/// anchors and dynamic anchors.
///
/// Documents are borrowed for `'v` (the runtime's are `'static`, parsed once).
#[derive(Debug)]
pub struct Registry<'v> {
    /// Absolute URI (no fragment) → (resource root, whether validation keywords apply, the
    /// base URI in force at the root's parent).
    resources: BTreeMap<String, (&'v Value, bool, String)>,
    /// `uri#name` → (schema holding `$anchor` / `$dynamicAnchor` `name`, the base URI in
    /// force at its parent).
    anchors: BTreeMap<String, (&'v Value, String)>,
    /// `uri#name` of every `$dynamicAnchor`.
    dynamic: BTreeSet<String>,
}

/// The schema a reference names.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Target<'v> {
    /// The schema.
    pub schema: &'v Value,
    /// The base URI in force at the schema's parent (its own `$id`, if any, applies on
    /// entering it).
    pub base: String,
    /// Whether the validation keywords apply in the resource it sits in (see
    /// [`Registry::validation_of`]).
    pub validation: bool,
}

/// The references (`$ref` and `$dynamicRef`) of the definition at JSON Pointer `pointer` in
/// `document` (whose URI is `base`) that resolve neither in the document nor in `remotes` (an
/// object mapping absolute URIs to documents), as written, in the order met.
///
/// The references of the remote documents are not checked: only those a definition's
/// validation can meet first. A pointer that leads nowhere gives an empty list (the caller
/// has reported it already).
pub fn unresolved(document: &Value, base: &str, pointer: &str, remotes: &Value) -> Vec<String> {
    let mut references = Vec::new();
    let registry = Registry::build(document, base, pointer, remotes, Some(&mut references));
    references
        .into_iter()
        .filter(|(base, reference)| registry.lookup(base, reference).is_none())
        .map(|(_, reference)| reference)
        .collect()
}

impl<'v> Registry<'v> {
    /// Indexes the definition at JSON Pointer `pointer` in `document` (whose URI is `base`)
    /// and every document of `remotes` (an object mapping absolute URIs to documents; any
    /// other value is no remote document).
    ///
    /// Of `document`, the root and the definition's subtree are indexed: a JSON Pointer
    /// reaches anywhere in it, an anchor or `$id` only when it sits below the definition.
    pub fn new(document: &'v Value, base: &str, pointer: &str, remotes: &'v Value) -> Self {
        Self::build(document, base, pointer, remotes, None)
    }

    /// [`Registry::new`], recording in `references` every `(base URI, reference)` of the
    /// definition (not of the remote documents).
    fn build(
        document: &'v Value,
        base: &str,
        pointer: &str,
        remotes: &'v Value,
        references: Option<&mut Vec<(String, String)>>,
    ) -> Self {
        let mut registry = Self {
            resources: BTreeMap::new(),
            anchors: BTreeMap::new(),
            dynamic: BTreeSet::new(),
        };
        if let Value::Object(remotes) = remotes {
            for (uri, remote) in remotes {
                registry.index(remote, uri, true, None);
                let validation = match remote.get("$schema") {
                    Some(Value::String(meta)) => registry.validation_of(meta),
                    _ => true,
                };
                registry.resources.entry(strip_fragment(uri)).or_insert((
                    remote,
                    validation,
                    uri.clone(),
                ));
            }
        }
        registry
            .resources
            .insert(strip_fragment(base), (document, true, base.to_string()));
        if let Some((definition, def_base)) = walk_pointer(document, base, pointer) {
            registry.index(definition, &def_base, true, references);
        }
        registry
    }

    /// Registers `schema` (and its subschemas) found at base URI `base`, recording its
    /// references in `references` when given.
    fn index(
        &mut self,
        schema: &'v Value,
        base: &str,
        resource_root: bool,
        mut references: Option<&mut Vec<(String, String)>>,
    ) {
        let Value::Object(map) = schema else {
            return;
        };
        let parent = base.to_string();
        let mut base = base.to_string();
        if let Some(Value::String(id)) = map.get("$id") {
            base = strip_fragment(&resolve(&base, id));
        }
        if resource_root || map.contains_key("$id") {
            let validation = match map.get("$schema") {
                Some(Value::String(meta)) => self.validation_of(meta),
                _ => true,
            };
            self.resources
                .entry(base.clone())
                .or_insert((schema, validation, parent.clone()));
        }
        for keyword in ["$anchor", "$dynamicAnchor"] {
            if let Some(Value::String(name)) = map.get(keyword) {
                let key = format!("{base}#{name}");
                self.anchors.insert(key.clone(), (schema, parent.clone()));
                if keyword == "$dynamicAnchor" {
                    self.dynamic.insert(key);
                }
            }
        }
        if let Some(references) = references.as_deref_mut() {
            for keyword in ["$ref", "$dynamicRef"] {
                if let Some(Value::String(reference)) = map.get(keyword) {
                    references.push((base.clone(), reference.clone()));
                }
            }
        }
        for (key, value) in map {
            let key = key.as_str();
            match value {
                schema if ONE_SUBSCHEMA.contains(&key) => {
                    self.index(schema, &base, false, references.as_deref_mut());
                }
                Value::Array(schemas) if SUBSCHEMA_ARRAYS.contains(&key) => {
                    for schema in schemas {
                        self.index(schema, &base, false, references.as_deref_mut());
                    }
                }
                Value::Object(schemas) if SUBSCHEMA_MAPS.contains(&key) => {
                    for schema in schemas.values() {
                        self.index(schema, &base, false, references.as_deref_mut());
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether the metaschema `meta` keeps the validation vocabulary: `false` only when it is
    /// a known resource whose `$vocabulary` leaves [`VALIDATION_VOCABULARY`] out.
    pub fn validation_of(&self, meta: &str) -> bool {
        let Some((schema, _, _)) = self.resources.get(&strip_fragment(meta)) else {
            return true;
        };
        match schema.get("$vocabulary") {
            Some(Value::Object(vocabularies)) => vocabularies.contains_key(VALIDATION_VOCABULARY),
            _ => true,
        }
    }

    /// Whether the validation keywords apply in the resource of absolute URI `uri` (no
    /// fragment); `None` when no such resource is known.
    pub fn resource_validation(&self, uri: &str) -> Option<bool> {
        self.resources
            .get(uri)
            .map(|(_, validation, _)| *validation)
    }

    /// The schema `reference` (resolved against `base`) names: a resource, a JSON Pointer
    /// below one, or an anchor (`$anchor` or `$dynamicAnchor`); `None` when it names nothing
    /// known.
    pub fn lookup(&self, base: &str, reference: &str) -> Option<Target<'v>> {
        let target = resolve(base, reference);
        let (uri, fragment) = match target.split_once('#') {
            Some((uri, fragment)) => (uri.to_string(), fragment.to_string()),
            None => (target.clone(), String::new()),
        };
        let fragment = percent_decode(&fragment);
        let (root, validation, parent) = self.resources.get(&uri)?;
        let (root, validation) = (*root, *validation);
        let (schema, base) = if fragment.is_empty() {
            (root, parent.clone())
        } else if fragment.starts_with('/') {
            walk_pointer(root, parent, &fragment)?
        } else {
            let (schema, at) = self.anchors.get(&format!("{uri}#{fragment}"))?;
            (*schema, at.clone())
        };
        Some(Target {
            schema,
            base,
            validation,
        })
    }

    /// What `$dynamicRef: reference` (at base URI `base`) names in the dynamic scope `scope`
    /// (the base URIs of the resources entered, outermost first): when the reference's own
    /// target is a `$dynamicAnchor`, the one of that name in the outermost resource of the
    /// scope that has one; else that target, as [`Registry::lookup`] finds it.
    pub fn dynamic_lookup(
        &self,
        base: &str,
        reference: &str,
        scope: &[String],
    ) -> Option<Target<'v>> {
        let initial = self.lookup(base, reference)?;
        let resolved = resolve(base, reference);
        let Some((uri, name)) = resolved.split_once('#') else {
            return Some(initial);
        };
        if name.starts_with('/') || !self.dynamic.contains(&format!("{uri}#{name}")) {
            return Some(initial);
        }
        for outer in scope {
            let key = format!("{outer}#{name}");
            if self.dynamic.contains(&key) {
                let (schema, at) = self.anchors.get(&key)?;
                return Some(Target {
                    schema,
                    base: at.clone(),
                    validation: self.resource_validation(outer).unwrap_or(true),
                });
            }
        }
        Some(initial)
    }
}
