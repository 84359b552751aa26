//! One evaluation: the keywords of the core, applicator, unevaluated and validation
//! vocabularies.

use super::*;

/// What a successful evaluation learnt about the instance: which members and items some
/// subschema evaluated (for `unevaluatedProperties` / `unevaluatedItems`).
#[derive(Debug, Default)]
pub(crate) struct Seen {
    properties: BTreeSet<String>,
    all_properties: bool,
    items: BTreeSet<usize>,
    all_items: bool,
}

impl Seen {
    pub(crate) fn merge(&mut self, other: Seen) {
        self.properties.extend(other.properties);
        self.all_properties |= other.all_properties;
        self.items.extend(other.items);
        self.all_items |= other.all_items;
    }
}

pub(crate) struct State<'r, 's> {
    pub(crate) registry: &'r Registry,
    /// Base URIs of the resources entered, outermost first (the dynamic scope).
    pub(crate) scope: &'s mut Vec<String>,
    pub(crate) depth: usize,
}

impl State<'_, '_> {
    pub(crate) fn eval(
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
    pub(crate) fn follow(
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

    pub(crate) fn sub(
        &mut self,
        schema: &'static Value,
        base: &str,
        v: bool,
        instance: &Value,
    ) -> (bool, Seen) {
        self.eval(schema, base, v, instance)
    }

    pub(crate) fn eval_object(
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

    pub(crate) fn dynamic_target(
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
    pub(crate) fn in_place(
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

    pub(crate) fn object(
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

    pub(crate) fn array(
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
    pub(crate) fn validation_keywords(&self, map: &'static Object, instance: &Value) -> bool {
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
