//! Loading a schema file into a [`SchemaDoc`]: its definitions, checked against the keywords
//! the generator supports, with every nested union hoisted into a definition of its own.
//!
//! Both emitters (types and validators) read the same `SchemaDoc`, so they cannot disagree
//! about which schema a definition has.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::{Error, Result};

/// One schema file, ready for the emitters.
#[derive(Debug, Clone)]
pub(crate) struct SchemaDoc {
    /// The file the schema was read from (used in every error message).
    pub(crate) file: PathBuf,
    /// The definitions in name order (as `serde_json` maps iterate), hoisted unions after the
    /// ones they came from.
    pub(crate) defs: Vec<Definition>,
    /// The file's root as read, for the runtime evaluator's definitions (see [`crate::interp`]).
    pub(crate) raw: Value,
    /// Names of the definitions the runtime's evaluator validates (their `schema` is the
    /// [`crate::interp::MARKER`]).
    pub(crate) evaluated: Vec<String>,
    /// For each name in `evaluated` (same order): the keyword or construct that sent it to
    /// the runtime's evaluator.
    pub(crate) evaluated_why: Vec<String>,
    /// The remote documents listed in the `Config`, as an object mapping URIs to documents.
    pub(crate) remotes: Value,
    /// Whether the emitted validators assert `format` (see `Config::format_assertion`).
    pub(crate) assert_formats: bool,
}

/// A named schema of the document.
#[derive(Debug, Clone)]
pub(crate) struct Definition {
    /// Key of the definition. Every `$ref` in the document reads `#/$defs/<name>`.
    pub(crate) name: String,
    /// JSON Pointer of this schema in the original file (`/$defs/Foo`, or for a hoisted union
    /// the place it was found, e.g. `/$defs/Foo/properties/result`).
    pub(crate) pointer: String,
    /// The schema itself.
    pub(crate) schema: Value,
}

/// Keywords accepted in any schema object. Vendor keywords (`x-...`) are accepted too.
const SUPPORTED_KEYWORDS: &[&str] = &[
    // validation
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "format",
    "prefixItems",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedProperties",
    "unevaluatedItems",
    // annotations
    "default",
    "description",
    "title",
    "$comment",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];

/// Keywords accepted only at the root of a file.
const ROOT_KEYWORDS: &[&str] = &["$schema", "$id", "$defs", "definitions"];

// `format`: any string. With format assertion on, the validators check every 2020-12 format
// and `byte` (see `validators::formats`); any other format is an annotation (as 2020-12 says
// of formats an implementation does not know): accepted, never checked.

impl SchemaDoc {
    /// Reads and checks a schema file.
    pub(crate) fn load(path: &Path) -> Result<Self> {
        Self::from_value(path, Self::read(path)?)
    }

    /// Reads a schema file as JSON.
    pub(crate) fn read(path: &Path) -> Result<Value> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|source| Error::Json {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Checks an already parsed schema; `file` is only used in messages.
    pub(crate) fn from_value(file: &Path, root: Value) -> Result<Self> {
        Self::from_value_evaluating(file, root, &[], &Value::Object(Map::new()))
    }

    /// As [`SchemaDoc::from_value`], the definitions named in `evaluate` (with the reason
    /// why) and every one using what the emitted validators do not implement (see
    /// [`evaluator_reason`]) and static resolution cannot bundle (see [`crate::bundle`],
    /// which reads `remotes`) being left to the runtime's evaluator.
    pub(crate) fn from_value_evaluating(
        file: &Path,
        root: Value,
        evaluate: &[(String, String)],
        remotes: &Value,
    ) -> Result<Self> {
        let file = file.to_path_buf();
        let raw = root.clone();
        let Value::Object(root) = root else {
            return Err(invalid(
                &file,
                "",
                "the root of a schema file must be an object",
            ));
        };
        let mut defs = Vec::new();
        for (key, container) in [("$defs", "$defs"), ("definitions", "definitions")] {
            match root.get(key) {
                None => {}
                Some(Value::Object(map)) => {
                    for (name, schema) in map {
                        let pointer = format!("/{container}/{}", escape_pointer(name));
                        defs.push(Definition {
                            name: name.clone(),
                            pointer,
                            schema: schema.clone(),
                        });
                    }
                }
                Some(_) => return Err(invalid(&file, &format!("/{key}"), "must be an object")),
            }
        }
        if let Some(Value::String(title)) = root.get("title") {
            let body: Map<String, Value> = root
                .iter()
                .filter(|(k, _)| !ROOT_KEYWORDS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if [
                "type",
                "properties",
                "anyOf",
                "oneOf",
                "allOf",
                "$ref",
                "enum",
                "const",
            ]
            .iter()
            .any(|k| body.contains_key(*k))
            {
                defs.push(Definition {
                    name: title.clone(),
                    pointer: String::new(),
                    schema: Value::Object(body),
                });
            }
        }
        if defs.is_empty() {
            return Err(invalid(
                &file,
                "",
                "no definitions: expected `$defs` (or a titled root schema)",
            ));
        }
        let dialect = root
            .get("$schema")
            .and_then(Value::as_str)
            .and_then(crate::dialect::Dialect::from_uri)
            .unwrap_or(crate::dialect::Dialect::Current);
        let mut evaluated = Vec::new();
        let mut evaluated_why = Vec::new();
        let mut bundled = Vec::new();
        let mut leaked: Option<(&'static Value, &'static Value)> = None;
        let base = crate::interp::base_uri_of(&file);
        for index in 0..defs.len() {
            let def = &defs[index];
            if def.pointer.is_empty() {
                continue;
            }
            let asked = evaluate
                .iter()
                .find(|(name, _)| *name == def.name)
                .map(|(_, why)| why.clone());
            let why = match asked {
                Some(why) => why,
                None => match evaluator_reason(&def.schema) {
                    None => continue,
                    Some(why) => {
                        let (document, remotes) = *leaked.get_or_insert_with(|| {
                            (
                                &*Box::leak(Box::new(raw.clone())),
                                &*Box::leak(Box::new(remotes.clone())),
                            )
                        });
                        let taken: Vec<String> = defs
                            .iter()
                            .chain(bundled.iter())
                            .map(|d: &Definition| d.name.clone())
                            .collect();
                        let outcome = crate::bundle::bundle(&base, &taken, def, document, remotes)
                            .filter(|(schema, made)| {
                                evaluator_reason(schema).is_none()
                                    && made.iter().all(|d| evaluator_reason(&d.schema).is_none())
                            });
                        match outcome {
                            Some((schema, made)) => {
                                defs[index].schema = schema;
                                bundled.extend(made);
                                continue;
                            }
                            None => why,
                        }
                    }
                },
            };
            let def = &mut defs[index];
            evaluated.push(def.name.clone());
            evaluated_why.push(why);
            def.schema = serde_json::json!({ crate::interp::MARKER: true });
        }
        defs.extend(bundled);
        for def in &mut defs {
            crate::dialect::normalize(&mut def.schema, dialect);
        }
        let mut doc = SchemaDoc {
            file,
            defs,
            raw,
            evaluated,
            evaluated_why,
            remotes: Value::Object(Map::new()),
            assert_formats: true,
        };
        doc.lift_nested_defs();
        doc.lift_ref_targets();
        for def in &doc.defs {
            check_schema(&doc.file, &def.pointer, &def.schema, true)?;
        }
        doc.normalize_refs()?;
        doc.refuse_ref_cycles()?;
        doc.hoist_unions(&crate::types::own_enums::typify_refuses);
        Ok(doc)
    }

    /// The definition called `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&Definition> {
        self.defs.iter().find(|d| d.name == name)
    }

    /// Refuses a definition that is, through `$ref`s and `allOf` members alone (no object
    /// member or array item in between), a reference to itself: no value can be built for it
    /// and typify recurses on it until the stack overflows.
    fn refuse_ref_cycles(&self) -> Result<()> {
        fn direct_refs(schema: &Value, out: &mut Vec<String>) {
            if let Some(target) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(ref_target)
            {
                out.push(target);
            }
            for keyword in ["allOf", "anyOf", "oneOf"] {
                if let Some(Value::Array(members)) = schema.get(keyword) {
                    members.iter().for_each(|m| direct_refs(m, out));
                }
            }
        }
        for def in &self.defs {
            let mut seen = vec![def.name.clone()];
            let mut stack = Vec::new();
            direct_refs(&def.schema, &mut stack);
            while let Some(name) = stack.pop() {
                if name == def.name {
                    return Err(invalid(
                        &self.file,
                        &def.pointer,
                        "the definition refers to itself through `$ref`/`allOf`/`anyOf`/`oneOf` alone",
                    ));
                }
                if seen.contains(&name) {
                    continue;
                }
                if let Some(target) = self.get(&name) {
                    direct_refs(&target.schema, &mut stack);
                }
                seen.push(name);
            }
        }
        Ok(())
    }

    /// Rewrites `#/definitions/X` to `#/$defs/X` and checks every reference resolves.
    fn normalize_refs(&mut self) -> Result<()> {
        let names: Vec<String> = self.defs.iter().map(|d| d.name.clone()).collect();
        let file = self.file.clone();
        for def in &mut self.defs {
            let pointer = def.pointer.clone();
            visit_schemas_mut(&mut def.schema, &pointer, &mut |schema, at| {
                let Some(Value::String(target)) = schema.get("$ref") else {
                    return Ok(());
                };
                let name = ref_target(target).ok_or_else(|| Error::Unsupported {
                    file: file.clone(),
                    pointer: at.to_string(),
                    keyword: format!("$ref: {target} (only local #/$defs/<name> references)"),
                })?;
                if !names.contains(&name) {
                    return Err(invalid(
                        &file,
                        at,
                        &format!("$ref to unknown definition `{name}`"),
                    ));
                }
                schema.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
                Ok(())
            })?;
        }
        Ok(())
    }

    pub(crate) fn fresh_name(&self, wanted: &str) -> String {
        if self.get(wanted).is_none() {
            return wanted.to_string();
        }
        (2..)
            .map(|n| format!("{wanted}{n}"))
            .find(|candidate| self.get(candidate).is_none())
            .expect("an unused name exists")
    }
}

/// Keywords (besides [`SUPPORTED_KEYWORDS`]) the dialect pass rewrites or takes out.
const NORMALIZED_KEYWORDS: &[&str] = &[
    "$defs",
    "definitions",
    "$schema",
    "dependencies",
    "additionalItems",
];

/// Whether `schema` uses anything the emitted validators do not implement keyword by keyword
/// (a keyword outside [`SUPPORTED_KEYWORDS`], a reference other than to a definition, a
/// metaschema the dialect pass does not know, a count written as a decimal, an empty `enum`,
/// a decimal `multipleOf`): such a definition is validated by the runtime's evaluator. Returns
/// the first such keyword (with its value for a reference or `$schema`).
pub(crate) fn evaluator_reason(schema: &Value) -> Option<String> {
    let Value::Object(map) = schema else {
        return None;
    };
    for (key, value) in map {
        let key = key.as_str();
        if key.starts_with("x-") {
            continue;
        }
        if !SUPPORTED_KEYWORDS.contains(&key) && !NORMALIZED_KEYWORDS.contains(&key) {
            return Some(key.to_string());
        }
        let odd = match (key, value) {
            ("$schema", Value::String(uri)) => crate::dialect::Dialect::from_uri(uri).is_none(),
            ("$ref", Value::String(target)) => !is_definition_ref(target),
            ("enum", Value::Array(values)) => values.is_empty(),
            _ => false,
        };
        if odd {
            return Some(match value {
                Value::String(text) => format!("{key}: {text}"),
                _ => key.to_string(),
            });
        }
        let below = match (key, value) {
            (
                "additionalProperties"
                | "items"
                | "propertyNames"
                | "additionalItems"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "unevaluatedProperties"
                | "unevaluatedItems",
                sub,
            ) => evaluator_reason(sub),
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(subs)) => {
                subs.iter().find_map(evaluator_reason)
            }
            (
                "properties" | "dependentSchemas" | "dependencies" | "$defs" | "definitions"
                | "patternProperties",
                Value::Object(subs),
            ) => subs.values().find_map(evaluator_reason),
            _ => None,
        };
        if below.is_some() {
            return below;
        }
    }
    None
}

/// Whether the emitted validators resolve `target`: a JSON Pointer into the document (a
/// definition, a nested `$defs` entry lifted by the document, or any other schema, copied
/// into a definition of its own by [`SchemaDoc::lift_ref_targets`]).
fn is_definition_ref(target: &str) -> bool {
    ref_target(target).is_some() || crate::ref_targets::fragment_pointer(target).is_some()
}

/// `#/$defs/Name` or `#/definitions/Name` → `Name`.
pub(crate) fn ref_target(reference: &str) -> Option<String> {
    let rest = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))?;
    if rest.contains('/') {
        return None;
    }
    Some(rest.replace("~1", "/").replace("~0", "~"))
}

/// Escapes one JSON Pointer reference token (RFC 6901).
pub(crate) fn escape_pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn invalid(file: &Path, pointer: &str, message: &str) -> Error {
    Error::InvalidSchema {
        file: file.to_path_buf(),
        pointer: pointer.to_string(),
        message: message.to_string(),
    }
}

/// Checks one schema (and everything below it) against the supported keywords.
fn check_schema(file: &Path, at: &str, schema: &Value, _is_def_root: bool) -> Result<()> {
    let map = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(map) => map,
        _ => return Err(invalid(file, at, "a schema must be an object or a boolean")),
    };
    for (key, value) in map {
        let here = format!("{at}/{}", escape_pointer(key));
        if key.starts_with("x-") {
            continue;
        }
        if !SUPPORTED_KEYWORDS.contains(&key.as_str()) {
            return Err(Error::Unsupported {
                file: file.to_path_buf(),
                pointer: at.to_string(),
                keyword: key.clone(),
            });
        }
        match key.as_str() {
            "properties" => {
                let Value::Object(props) = value else {
                    return Err(invalid(file, &here, "`properties` must be an object"));
                };
                for (name, sub) in props {
                    check_schema(
                        file,
                        &format!("{here}/{}", escape_pointer(name)),
                        sub,
                        false,
                    )?;
                }
            }
            "additionalProperties" => check_schema(file, &here, value, false)?,
            "items"
            | "propertyNames"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "unevaluatedProperties"
            | "unevaluatedItems" => {
                check_schema(file, &here, value, false)?;
            }
            "patternProperties" => {
                let Value::Object(subs) = value else {
                    return Err(invalid(
                        file,
                        &here,
                        "`patternProperties` must be an object",
                    ));
                };
                for (pattern, sub) in subs {
                    let p = format!("{here}/{}", escape_pointer(pattern));
                    if let Err(e) = regress::Regex::with_flags(pattern, "u") {
                        let message = format!(
                            "`patternProperties` name is not an ECMA-262 regular expression: {e}"
                        );
                        return Err(invalid(file, &p, &message));
                    }
                    check_schema(file, &p, sub, false)?;
                }
            }
            "dependentSchemas" => {
                let Value::Object(subs) = value else {
                    return Err(invalid(file, &here, "`dependentSchemas` must be an object"));
                };
                for (name, sub) in subs {
                    let p = format!("{here}/{}", escape_pointer(name));
                    check_schema(file, &p, sub, false)?;
                }
            }
            "prefixItems" => {
                let Value::Array(items) = value else {
                    return Err(invalid(file, &here, "`prefixItems` must be an array"));
                };
                for (i, sub) in items.iter().enumerate() {
                    check_schema(file, &format!("{here}/{i}"), sub, false)?;
                }
            }
            "anyOf" | "oneOf" | "allOf" => {
                let Value::Array(branches) = value else {
                    return Err(invalid(file, &here, &format!("`{key}` must be an array")));
                };
                if branches.is_empty() {
                    return Err(invalid(file, &here, &format!("`{key}` must not be empty")));
                }
                for (i, sub) in branches.iter().enumerate() {
                    check_schema(file, &format!("{here}/{i}"), sub, false)?;
                }
            }
            "format" => {
                if !value.is_string() {
                    return Err(invalid(file, &here, "`format` must be a string"));
                }
            }
            "pattern" => {
                let Some(pattern) = value.as_str() else {
                    return Err(invalid(file, &here, "`pattern` must be a string"));
                };
                if let Err(e) = regress::Regex::with_flags(pattern, "u") {
                    let message = format!("`pattern` is not an ECMA-262 regular expression: {e}");
                    return Err(invalid(file, &here, &message));
                }
            }
            other => {
                if let Some(expected) = malformed_value(other, value) {
                    return Err(invalid(
                        file,
                        &here,
                        &format!("`{other}` must be {expected}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// What the value of `keyword` must be, when `value` is not that.
fn malformed_value(keyword: &str, value: &Value) -> Option<&'static str> {
    const TYPES: &[&str] = &[
        "null", "boolean", "object", "array", "number", "integer", "string",
    ];
    let is_type_name = |t: &Value| t.as_str().is_some_and(|t| TYPES.contains(&t));
    let (ok, expected) = match keyword {
        "required" => (
            value
                .as_array()
                .is_some_and(|names| names.iter().all(Value::is_string)),
            "an array of strings",
        ),
        "enum" => (
            value.as_array().is_some_and(|v| !v.is_empty()),
            "a non-empty array",
        ),
        "type" => (
            match value {
                Value::Array(ts) => !ts.is_empty() && ts.iter().all(is_type_name),
                other => is_type_name(other),
            },
            "a JSON Schema type name or a non-empty array of them",
        ),
        "$ref" => (value.is_string(), "a string"),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => {
            (value.is_number(), "a number")
        }
        "multipleOf" => (value.as_f64().is_some_and(|m| m > 0.0), "a number > 0"),
        "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties" | "maxProperties"
        | "minContains" | "maxContains" => (value.as_u64().is_some(), "a non-negative integer"),
        "uniqueItems" => (value.is_boolean(), "a boolean"),
        "dependentRequired" => (
            value.as_object().is_some_and(|deps| {
                deps.values().all(|names| {
                    names
                        .as_array()
                        .is_some_and(|names| names.iter().all(Value::is_string))
                })
            }),
            "an object of arrays of strings",
        ),
        _ => (true, ""),
    };
    (!ok).then_some(expected)
}

/// The callback of [`visit_schemas_mut`]: a schema object and its JSON Pointer.
pub(crate) type SchemaVisitor<'a> = dyn FnMut(&mut Map<String, Value>, &str) -> Result<()> + 'a;

/// Calls `visit` on every schema object at or below `schema` (with its pointer).
pub(crate) fn visit_schemas_mut(
    schema: &mut Value,
    at: &str,
    visit: &mut SchemaVisitor<'_>,
) -> Result<()> {
    let Value::Object(map) = schema else {
        return Ok(());
    };
    visit(map, at)?;
    for (key, value) in map.iter_mut() {
        let here = format!("{at}/{}", escape_pointer(key));
        match key.as_str() {
            "properties" => {
                if let Value::Object(props) = value {
                    for (name, sub) in props.iter_mut() {
                        let p = format!("{here}/{}", escape_pointer(name));
                        visit_schemas_mut(sub, &p, visit)?;
                    }
                }
            }
            "additionalProperties"
            | "propertyNames"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "unevaluatedProperties"
            | "unevaluatedItems" => {
                visit_schemas_mut(value, &here, visit)?;
            }
            // An array of schemas is `items`' tuple form (draft 7, and the types view's
            // tuples).
            "items" => match value {
                Value::Array(members) => {
                    for (i, sub) in members.iter_mut().enumerate() {
                        visit_schemas_mut(sub, &format!("{here}/{i}"), visit)?;
                    }
                }
                sub => visit_schemas_mut(sub, &here, visit)?,
            },
            "dependentSchemas" | "patternProperties" => {
                if let Value::Object(subs) = value {
                    for (name, sub) in subs.iter_mut() {
                        let p = format!("{here}/{}", escape_pointer(name));
                        visit_schemas_mut(sub, &p, visit)?;
                    }
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Value::Array(branches) = value {
                    for (i, sub) in branches.iter_mut().enumerate() {
                        visit_schemas_mut(sub, &format!("{here}/{i}"), visit)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// `camelCase` / `snake_case` / `with-dash` → `PascalCase`.
pub(crate) fn pascal(word: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in word.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    out
}
