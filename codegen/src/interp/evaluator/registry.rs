//! The schema resources and anchors the references of one definition can reach.

use super::*;

/// Every schema resource one evaluation can reach: the document, the resources it embeds
/// (`$id`) and the remote documents, with their anchors.
#[derive(Debug)]
pub(crate) struct Registry {
    /// Absolute URI (no fragment) → (resource root, whether validation keywords apply, the
    /// base URI in force at the root's parent).
    pub(crate) resources: BTreeMap<String, (&'static Value, bool, String)>,
    /// `uri#name` → (schema holding `$anchor` / `$dynamicAnchor` `name`, the base URI in
    /// force at its parent).
    pub(crate) anchors: BTreeMap<String, (&'static Value, String)>,
    /// `uri#name` of every `$dynamicAnchor`.
    pub(crate) dynamic: BTreeSet<String>,
    /// Every `(base URI, reference)` found (for the generator's resolution check).
    references: Vec<(String, String)>,
}

pub(crate) const VALIDATION_VOCABULARY: &str =
    "https://json-schema.org/draft/2020-12/vocab/validation";

impl Registry {
    /// Indexes `definition` (at `pointer` in `document`, whose URI is `base`) and every
    /// document of `remotes` (an object mapping absolute URIs to documents).
    pub(crate) fn new(
        document: &'static Value,
        base: &str,
        pointer: &str,
        remotes: &'static Value,
    ) -> Self {
        let mut registry = Self {
            resources: BTreeMap::new(),
            anchors: BTreeMap::new(),
            dynamic: BTreeSet::new(),
            references: Vec::new(),
        };
        if let Value::Object(remotes) = remotes {
            for (uri, remote) in remotes {
                registry.index(remote, uri, true, true);
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
            registry.index(definition, &def_base, true, false);
        }
        registry
    }

    /// Registers `schema` (and its subschemas) found at base URI `base`.
    pub(crate) fn index(
        &mut self,
        schema: &'static Value,
        base: &str,
        resource_root: bool,
        remote: bool,
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
        for keyword in ["$ref", "$dynamicRef"] {
            if let Some(Value::String(reference)) = map.get(keyword) {
                if !remote {
                    self.references.push((base.clone(), reference.clone()));
                }
            }
        }
        for (key, value) in map {
            match (key.as_str(), value) {
                (
                    "additionalProperties"
                    | "items"
                    | "contains"
                    | "propertyNames"
                    | "not"
                    | "if"
                    | "then"
                    | "else"
                    | "unevaluatedItems"
                    | "unevaluatedProperties"
                    | "additionalItems",
                    schema,
                ) => self.index(schema, &base, false, remote),
                ("allOf" | "anyOf" | "oneOf" | "prefixItems", Value::Array(schemas)) => {
                    for schema in schemas {
                        self.index(schema, &base, false, remote);
                    }
                }
                (
                    "properties" | "patternProperties" | "$defs" | "definitions"
                    | "dependentSchemas" | "dependencies",
                    Value::Object(schemas),
                ) => {
                    for schema in schemas.values() {
                        self.index(schema, &base, false, remote);
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether the metaschema `meta` (when known) keeps the validation vocabulary.
    pub(crate) fn validation_of(&self, meta: &str) -> bool {
        let Some((schema, _, _)) = self.resources.get(&strip_fragment(meta)) else {
            return true;
        };
        match schema.get("$vocabulary") {
            Some(Value::Object(vocabularies)) => vocabularies.contains_key(VALIDATION_VOCABULARY),
            _ => true,
        }
    }

    /// The schema `reference` (resolved against `base`) names, with the base URI in force
    /// where it sits.
    pub(crate) fn lookup(
        &self,
        base: &str,
        reference: &str,
    ) -> Option<(&'static Value, String, bool)> {
        let target = resolve(base, reference);
        let (uri, fragment) = match target.split_once('#') {
            Some((uri, fragment)) => (uri.to_string(), fragment.to_string()),
            None => (target.clone(), String::new()),
        };
        let fragment = percent_decode(&fragment);
        let (root, validation, parent) = self.resources.get(&uri)?;
        let (root, validation) = (*root, *validation);
        if fragment.is_empty() {
            return Some((root, parent.clone(), validation));
        }
        if fragment.starts_with('/') {
            let (schema, at) = walk_pointer(root, parent, &fragment)?;
            return Some((schema, at, validation));
        }
        let (schema, at) = self.anchors.get(&format!("{uri}#{fragment}"))?;
        Some((schema, at.clone(), validation))
    }

    /// Every reference found that does not resolve (for the generator's check).
    pub(crate) fn unresolved(&self) -> Vec<String> {
        self.references
            .iter()
            .filter(|(base, reference)| self.lookup(base, reference).is_none())
            .map(|(_, reference)| reference.clone())
            .collect()
    }
}
