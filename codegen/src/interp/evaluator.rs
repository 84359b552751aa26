//! A complete JSON Schema 2020-12 evaluator over a schema embedded in the generated code.
//!
//! The generator copies this file, as it is, into generated code (module `__eval` of the
//! `validate` module) when some definition uses keywords its emitted validators do not
//! implement keyword by keyword (`unevaluated*`, `$dynamicRef`, `$id`/`$anchor` resources,
//! remote references, ...): those definitions are validated here. The generator also compiles
//! this file into itself, to resolve every reference at generation time (a schema whose
//! references do not all resolve is refused then, never at run time).
//!
//! It reaches nothing but `std` and `super::__rt` (`Value`, `Number` and `LazyRegex`).
//! Semantics: the core, applicator, unevaluated and validation vocabularies; `format` and
//! `content*` are annotations; a `$schema` whose metaschema (a listed remote document) leaves
//! the validation vocabulary out turns the validation keywords off. Numbers compare as
//! numbers (`1` equals `1.0`), `multipleOf` is exact decimal arithmetic on the numbers'
//! shortest text, lengths count Unicode code points.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use super::__rt::{LazyRegex, Map, Number, Value};

/// A JSON object.
type Object = Map<String, Value>;

/// Every schema resource one evaluation can reach: the document, the resources it embeds
/// (`$id`) and the remote documents, with their anchors.
#[derive(Debug)]
pub(crate) struct Registry {
    /// Absolute URI (no fragment) → (resource root, whether validation keywords apply, the
    /// base URI in force at the root's parent).
    resources: BTreeMap<String, (&'static Value, bool, String)>,
    /// `uri#name` → (schema holding `$anchor` / `$dynamicAnchor` `name`, the base URI in
    /// force at its parent).
    anchors: BTreeMap<String, (&'static Value, String)>,
    /// `uri#name` of every `$dynamicAnchor`.
    dynamic: BTreeSet<String>,
    /// Every `(base URI, reference)` found (for the generator's resolution check).
    references: Vec<(String, String)>,
    /// Compiled patterns, by source.
    patterns: Mutex<BTreeMap<&'static str, &'static LazyRegex>>,
}

const VALIDATION_VOCABULARY: &str = "https://json-schema.org/draft/2020-12/vocab/validation";

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
            patterns: Mutex::new(BTreeMap::new()),
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
    fn index(&mut self, schema: &'static Value, base: &str, resource_root: bool, remote: bool) {
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
    fn validation_of(&self, meta: &str) -> bool {
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
    fn lookup(&self, base: &str, reference: &str) -> Option<(&'static Value, String, bool)> {
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

    /// `true` when `instance` is valid against the definition this registry was built for
    /// (at `pointer` in the document of URI `base`).
    pub(crate) fn is_valid(&self, base: &str, pointer: &str, instance: &Value) -> bool {
        let Some((schema, at, validation)) = self.lookup(base, &format!("#{pointer}")) else {
            return false;
        };
        let mut scope = vec![at.clone()];
        let mut state = State {
            registry: self,
            scope: &mut scope,
            depth: 0,
        };
        state.eval(schema, &at, validation, instance).0
    }

    fn regex(&self, source: &'static str) -> &'static LazyRegex {
        let mut patterns = self.patterns.lock().unwrap_or_else(|e| e.into_inner());
        patterns
            .entry(source)
            .or_insert_with(|| Box::leak(Box::new(LazyRegex::new(source))))
    }
}

/// What a successful evaluation learnt about the instance: which members and items some
/// subschema evaluated (for `unevaluatedProperties` / `unevaluatedItems`).
#[derive(Debug, Default)]
struct Seen {
    properties: BTreeSet<String>,
    all_properties: bool,
    items: BTreeSet<usize>,
    all_items: bool,
}

impl Seen {
    fn merge(&mut self, other: Seen) {
        self.properties.extend(other.properties);
        self.all_properties |= other.all_properties;
        self.items.extend(other.items);
        self.all_items |= other.all_items;
    }
}

struct State<'r, 's> {
    registry: &'r Registry,
    /// Base URIs of the resources entered, outermost first (the dynamic scope).
    scope: &'s mut Vec<String>,
    depth: usize,
}

impl State<'_, '_> {
    fn eval(
        &mut self,
        schema: &'static Value,
        base: &str,
        validation: bool,
        instance: &Value,
    ) -> (bool, Seen) {
        let map = match schema {
            Value::Bool(ok) => return (*ok, Seen::default()),
            Value::Object(map) => map,
            _ => return (false, Seen::default()),
        };
        if self.depth > 256 {
            return (false, Seen::default());
        }
        self.depth += 1;
        let mut base = base.to_string();
        let mut validation = validation;
        let entered = if let Some(Value::String(id)) = map.get("$id") {
            base = strip_fragment(&resolve(&base, id));
            if let Some((_, v, _)) = self.registry.resources.get(&base) {
                validation = *v;
            }
            self.scope.push(base.clone());
            true
        } else {
            false
        };
        let outcome = self.eval_object(map, &base, validation, instance);
        if entered {
            self.scope.pop();
        }
        self.depth -= 1;
        outcome
    }

    /// Evaluates the target of a reference, entering its resource (`at`) when it is not the
    /// current one.
    fn follow(
        &mut self,
        target: &'static Value,
        base: &str,
        at: &str,
        v: bool,
        instance: &Value,
    ) -> (bool, Seen) {
        // A target with an `$id` enters its own resource (in `eval`); any other target
        // enters the resource it sits in.
        let enter = at != base && target.get("$id").is_none();
        if enter {
            self.scope.push(at.to_string());
        }
        let outcome = self.eval(target, at, v, instance);
        if enter {
            self.scope.pop();
        }
        outcome
    }

    fn sub(
        &mut self,
        schema: &'static Value,
        base: &str,
        v: bool,
        instance: &Value,
    ) -> (bool, Seen) {
        self.eval(schema, base, v, instance)
    }

    fn eval_object(
        &mut self,
        map: &'static Object,
        base: &str,
        validation: bool,
        instance: &Value,
    ) -> (bool, Seen) {
        let mut ok = true;
        let mut seen = Seen::default();
        if let Some(Value::String(reference)) = map.get("$ref") {
            match self.registry.lookup(base, reference) {
                Some((target, at, v)) => {
                    let (valid, s) = self.follow(target, base, &at, v, instance);
                    ok &= valid;
                    seen.merge(s);
                }
                None => ok = false,
            }
        }
        if let Some(Value::String(reference)) = map.get("$dynamicRef") {
            match self.dynamic_target(base, reference) {
                Some((target, at, v)) => {
                    let (valid, s) = self.follow(target, base, &at, v, instance);
                    ok &= valid;
                    seen.merge(s);
                }
                None => ok = false,
            }
        }
        if validation && !self.validation_keywords(map, instance) {
            ok = false;
        }
        ok &= self.in_place(map, base, validation, instance, &mut seen);
        match instance {
            Value::Object(object) => ok &= self.object(map, base, validation, object, &mut seen),
            Value::Array(items) => ok &= self.array(map, base, validation, items, &mut seen),
            _ => {}
        }
        (ok, seen)
    }

    fn dynamic_target(
        &self,
        base: &str,
        reference: &str,
    ) -> Option<(&'static Value, String, bool)> {
        let initial = self.registry.lookup(base, reference)?;
        let resolved = resolve(base, reference);
        let Some((uri, name)) = resolved.split_once('#') else {
            return Some(initial);
        };
        if name.starts_with('/') || !self.registry.dynamic.contains(&format!("{uri}#{name}")) {
            return Some(initial);
        }
        for outer in self.scope.iter() {
            let key = format!("{outer}#{name}");
            if self.registry.dynamic.contains(&key) {
                let (schema, at) = self.registry.anchors.get(&key)?;
                let v = self.registry.resources.get(outer).is_none_or(|r| r.1);
                return Some((schema, at.clone(), v));
            }
        }
        Some(initial)
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`.
    fn in_place(
        &mut self,
        map: &'static Object,
        base: &str,
        v: bool,
        instance: &Value,
        seen: &mut Seen,
    ) -> bool {
        let mut ok = true;
        if let Some(Value::Array(all)) = map.get("allOf") {
            for schema in all {
                let (valid, s) = self.sub(schema, base, v, instance);
                ok &= valid;
                seen.merge(s);
            }
        }
        if let Some(Value::Array(any)) = map.get("anyOf") {
            let mut matched = false;
            for schema in any {
                let (valid, s) = self.sub(schema, base, v, instance);
                if valid {
                    matched = true;
                    seen.merge(s);
                }
            }
            ok &= matched;
        }
        if let Some(Value::Array(one)) = map.get("oneOf") {
            let mut matched = 0;
            for schema in one {
                let (valid, s) = self.sub(schema, base, v, instance);
                if valid {
                    matched += 1;
                    seen.merge(s);
                }
            }
            ok &= matched == 1;
        }
        if let Some(not) = map.get("not") {
            ok &= !self.sub(not, base, v, instance).0;
        }
        if let Some(condition) = map.get("if") {
            let (holds, s) = self.sub(condition, base, v, instance);
            let branch = if holds {
                seen.merge(s);
                map.get("then")
            } else {
                map.get("else")
            };
            if let Some(branch) = branch {
                let (valid, s) = self.sub(branch, base, v, instance);
                ok &= valid;
                seen.merge(s);
            }
        }
        if let (Some(Value::Object(dependents)), Value::Object(object)) =
            (map.get("dependentSchemas"), instance)
        {
            for (name, schema) in dependents {
                if object.contains_key(name) {
                    let (valid, s) = self.sub(schema, base, v, instance);
                    ok &= valid;
                    seen.merge(s);
                }
            }
        }
        ok
    }

    fn object(
        &mut self,
        map: &'static Object,
        base: &str,
        v: bool,
        object: &Object,
        seen: &mut Seen,
    ) -> bool {
        let mut ok = true;
        let mut here = BTreeSet::new();
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (name, schema) in properties {
                if let Some(member) = object.get(name) {
                    ok &= self.sub(schema, base, v, member).0;
                    here.insert(name.clone());
                }
            }
        }
        if let Some(Value::Object(patterns)) = map.get("patternProperties") {
            for (pattern, schema) in patterns {
                let regex = self.registry.regex(pattern);
                for (name, member) in object {
                    if regex.is_match(name) {
                        ok &= self.sub(schema, base, v, member).0;
                        here.insert(name.clone());
                    }
                }
            }
        }
        if let Some(additional) = map.get("additionalProperties") {
            for (name, member) in object {
                if !here.contains(name) {
                    ok &= self.sub(additional, base, v, member).0;
                }
            }
            seen.all_properties = true;
        }
        if let Some(names) = map.get("propertyNames") {
            for name in object.keys() {
                ok &= self.sub(names, base, v, &Value::String(name.clone())).0;
            }
        }
        seen.properties.extend(here);
        if let Some(unevaluated) = map.get("unevaluatedProperties") {
            for (name, member) in object {
                if !seen.all_properties && !seen.properties.contains(name) {
                    ok &= self.sub(unevaluated, base, v, member).0;
                }
            }
            seen.all_properties = true;
        }
        ok
    }

    fn array(
        &mut self,
        map: &'static Object,
        base: &str,
        v: bool,
        items: &[Value],
        seen: &mut Seen,
    ) -> bool {
        let mut ok = true;
        let mut prefix = 0;
        if let Some(Value::Array(schemas)) = map.get("prefixItems") {
            for (schema, item) in schemas.iter().zip(items) {
                ok &= self.sub(schema, base, v, item).0;
            }
            prefix = schemas.len().min(items.len());
            seen.items.extend(0..prefix);
        }
        if let Some(rest) = map.get("items") {
            for item in items.iter().skip(prefix) {
                ok &= self.sub(rest, base, v, item).0;
            }
            seen.all_items = true;
        }
        if let Some(contains) = map.get("contains") {
            let mut matched = 0u64;
            for (index, item) in items.iter().enumerate() {
                if self.sub(contains, base, v, item).0 {
                    matched += 1;
                    seen.items.insert(index);
                }
            }
            let min = if v {
                map.get("minContains").and_then(as_count)
            } else {
                None
            };
            let max = if v {
                map.get("maxContains").and_then(as_count)
            } else {
                None
            };
            ok &= matched >= min.unwrap_or(1) && max.is_none_or(|max| matched <= max);
        }
        if let Some(unevaluated) = map.get("unevaluatedItems") {
            for (index, item) in items.iter().enumerate() {
                if !seen.all_items && !seen.items.contains(&index) {
                    ok &= self.sub(unevaluated, base, v, item).0;
                }
            }
            seen.all_items = true;
        }
        ok
    }

    /// The validation vocabulary (no subschema involved).
    fn validation_keywords(&self, map: &'static Object, instance: &Value) -> bool {
        if let Some(types) = map.get("type") {
            let matches = |t: &Value| t.as_str().is_some_and(|t| has_type(instance, t));
            let ok = match types {
                Value::Array(types) => types.iter().any(matches),
                one => matches(one),
            };
            if !ok {
                return false;
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            if !values.iter().any(|v| json_eq(v, instance)) {
                return false;
            }
        }
        if let Some(constant) = map.get("const") {
            if !json_eq(constant, instance) {
                return false;
            }
        }
        match instance {
            Value::Number(n) => number_keywords(map, n),
            Value::String(s) => {
                let length = s.chars().count() as u64;
                if map
                    .get("minLength")
                    .and_then(as_count)
                    .is_some_and(|m| length < m)
                    || map
                        .get("maxLength")
                        .and_then(as_count)
                        .is_some_and(|m| length > m)
                {
                    return false;
                }
                match map.get("pattern") {
                    Some(Value::String(p)) => self.registry.regex(p).is_match(s),
                    _ => true,
                }
            }
            Value::Array(items) => {
                let length = items.len() as u64;
                if map
                    .get("minItems")
                    .and_then(as_count)
                    .is_some_and(|m| length < m)
                    || map
                        .get("maxItems")
                        .and_then(as_count)
                        .is_some_and(|m| length > m)
                {
                    return false;
                }
                if map.get("uniqueItems") == Some(&Value::Bool(true)) {
                    for (i, a) in items.iter().enumerate() {
                        if items[i + 1..].iter().any(|b| json_eq(a, b)) {
                            return false;
                        }
                    }
                }
                true
            }
            Value::Object(object) => {
                let length = object.len() as u64;
                if map
                    .get("minProperties")
                    .and_then(as_count)
                    .is_some_and(|m| length < m)
                    || map
                        .get("maxProperties")
                        .and_then(as_count)
                        .is_some_and(|m| length > m)
                {
                    return false;
                }
                if let Some(Value::Array(required)) = map.get("required") {
                    if required
                        .iter()
                        .any(|name| name.as_str().is_some_and(|n| !object.contains_key(n)))
                    {
                        return false;
                    }
                }
                if let Some(Value::Object(dependents)) = map.get("dependentRequired") {
                    for (name, needed) in dependents {
                        if object.contains_key(name) {
                            let missing = needed
                                .as_array()
                                .into_iter()
                                .flatten()
                                .any(|n| n.as_str().is_some_and(|n| !object.contains_key(n)));
                            if missing {
                                return false;
                            }
                        }
                    }
                }
                true
            }
            _ => true,
        }
    }
}

fn number_keywords(map: &Object, n: &Number) -> bool {
    let bound = |key: &str| match map.get(key) {
        Some(Value::Number(b)) => Some(b),
        _ => None,
    };
    use std::cmp::Ordering::{Greater, Less};
    let cmp = |b: &Number| compare(n, b);
    !(bound("minimum").is_some_and(|b| cmp(b) == Some(Less))
        || bound("maximum").is_some_and(|b| cmp(b) == Some(Greater))
        || bound("exclusiveMinimum").is_some_and(|b| cmp(b) != Some(Greater))
        || bound("exclusiveMaximum").is_some_and(|b| cmp(b) != Some(Less))
        || bound("multipleOf").is_some_and(|d| !multiple_of(n, d)))
}

/// A keyword's count (`minLength: 2` or `2.0`).
fn as_count(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0)
            .map(|f| f as u64)
    })
}

fn has_type(instance: &Value, name: &str) -> bool {
    match (name, instance) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("object", Value::Object(_))
        | ("array", Value::Array(_))
        | ("string", Value::String(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_u64()
                || n.is_i64()
                || n.as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// JSON equality, numbers compared as numbers.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(std::cmp::Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn compare(a: &Number, b: &Number) -> Option<std::cmp::Ordering> {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return Some(x.cmp(&y));
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return Some(x.cmp(&y));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// A number's shortest decimal text as `(digits, exponent of ten)`, sign dropped.
fn decimal(n: &Number) -> Option<(u128, i64)> {
    let text = n.to_string();
    let text = text.trim_start_matches('-');
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    let mut value: u128 = digits.trim_start_matches('0').parse().unwrap_or(0);
    let mut exponent = exponent - fraction.len() as i64;
    while value != 0 && value % 10 == 0 {
        value /= 10;
        exponent += 1;
    }
    Some((value, exponent))
}

/// `n / d` is an integer, in exact decimal arithmetic.
fn multiple_of(n: &Number, d: &Number) -> bool {
    let (Some((a, ea)), Some((b, eb))) = (decimal(n), decimal(d)) else {
        return false;
    };
    if a == 0 {
        return true;
    }
    if b == 0 {
        return false;
    }
    if ea >= eb {
        // (a * 10^(ea - eb)) mod b == 0
        let mut rest = a % b;
        for _ in 0..(ea - eb) {
            rest = (rest * 10) % b;
            if rest == 0 {
                break;
            }
        }
        rest == 0
    } else {
        // a must be divisible by b * 10^(eb - ea)
        let mut a = a;
        for _ in 0..(eb - ea) {
            if a % 10 != 0 {
                return false;
            }
            a /= 10;
        }
        a % b == 0
    }
}

/// The schema at JSON Pointer `pointer` below `root` (whose base URI is `base`), with the base
/// URI in force at the schema's parent.
fn walk_pointer(
    root: &'static Value,
    base: &str,
    pointer: &str,
) -> Option<(&'static Value, String)> {
    let mut node = root;
    let mut base = base.to_string();
    if pointer.is_empty() {
        return Some((node, base));
    }
    for token in pointer.strip_prefix('/')?.split('/') {
        if let Some(Value::String(id)) = node.get("$id") {
            base = strip_fragment(&resolve(&base, id));
        }
        let token = token.replace("~1", "/").replace("~0", "~");
        node = match node {
            Value::Object(map) => map.get(&token)?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some((node, base))
}

fn strip_fragment(uri: &str) -> String {
    uri.split_once('#').map_or(uri, |(u, _)| u).to_string()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The parts of a URI reference (RFC 3986): scheme, authority, path, query, fragment.
fn split(uri: &str) -> (Option<&str>, Option<&str>, &str, Option<&str>, Option<&str>) {
    let (rest, fragment) = match uri.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (uri, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let scheme_end = rest.find(':').filter(|&i| {
        i > 0 && !rest[..i].contains('/') && rest[..1].chars().all(|c| c.is_ascii_alphabetic())
    });
    let (scheme, rest) = match scheme_end {
        Some(i) => (Some(&rest[..i]), &rest[i + 1..]),
        None => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(&after[..end]), &after[end..])
        }
        None => (None, rest),
    };
    (scheme, authority, path, query, fragment)
}

/// `reference` resolved against `base` (RFC 3986, section 5.2).
fn resolve(base: &str, reference: &str) -> String {
    let (rs, ra, rp, rq, rf) = split(reference);
    let (bs, ba, bp, bq, _) = split(base);
    let (scheme, authority, path, query);
    if rs.is_some() {
        (scheme, authority, path, query) = (rs, ra, remove_dots(rp), rq);
    } else if ra.is_some() {
        (scheme, authority, path, query) = (bs, ra, remove_dots(rp), rq);
    } else if rp.is_empty() {
        (scheme, authority, path, query) = (bs, ba, bp.to_string(), rq.or(bq));
    } else if rp.starts_with('/') {
        (scheme, authority, path, query) = (bs, ba, remove_dots(rp), rq);
    } else {
        let merged = if ba.is_some() && bp.is_empty() {
            format!("/{rp}")
        } else {
            match bp.rfind('/') {
                Some(i) => format!("{}{rp}", &bp[..=i]),
                None => rp.to_string(),
            }
        };
        (scheme, authority, path, query) = (bs, ba, remove_dots(&merged), rq);
    }
    let mut out = String::new();
    if let Some(s) = scheme {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = authority {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(&path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = rf {
        out.push('#');
        out.push_str(f);
    }
    out
}

fn remove_dots(path: &str) -> String {
    if !path.contains("./") && !path.ends_with("/.") && !path.ends_with("/..") {
        return path.to_string();
    }
    let mut out: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > usize::from(absolute) {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    out.join("/")
}
