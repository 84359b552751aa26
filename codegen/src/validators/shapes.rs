//! What a union branch says about the values it can accept, computed at generation time
//! (following `$ref`s and `allOf`): its JSON types, required and declared properties, and
//! the properties whose value is fixed (`const` or `enum`). Union selection is built on it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::keywords::type_names;
use super::literals::json_eq;
use crate::doc::SchemaDoc;

/// JSON types as bits.
pub(super) const NULL: u8 = 1;
pub(super) const BOOLEAN: u8 = 2;
pub(super) const OBJECT: u8 = 4;
pub(super) const ARRAY: u8 = 8;
pub(super) const NUMBER: u8 = 16;
pub(super) const INTEGER: u8 = 32;
pub(super) const STRING: u8 = 64;

/// The type bit of a schema type name.
fn type_bit(name: &str) -> u8 {
    match name {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "object" => OBJECT,
        "array" => ARRAY,
        "number" => NUMBER | INTEGER,
        "integer" => INTEGER,
        "string" => STRING,
        _ => 0,
    }
}

/// The type bits of a JSON value.
fn value_bits(value: &Value) -> u8 {
    match value {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Object(_) => OBJECT,
        Value::Array(_) => ARRAY,
        Value::String(_) => STRING,
        Value::Number(n) => {
            let integral = n.is_u64() || n.is_i64() || n.as_f64().is_some_and(|f| f.fract() == 0.0);
            if integral {
                INTEGER
            } else {
                NUMBER
            }
        }
    }
}

/// The names of the types in `bits`, for a generated type test (`number` covers `integer`).
pub(super) fn bit_names(bits: u8) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (bit, name) in [
        (NULL, "null"),
        (BOOLEAN, "boolean"),
        (OBJECT, "object"),
        (ARRAY, "array"),
        (STRING, "string"),
    ] {
        if bits & bit != 0 {
            out.push(name);
        }
    }
    if bits & NUMBER != 0 {
        out.push("number");
    } else if bits & INTEGER != 0 {
        out.push("integer");
    }
    out
}

/// What a schema requires of the values it accepts (a necessary condition only).
#[derive(Debug, Clone, Default)]
pub(super) struct Shape {
    /// Accepted JSON types; `None` for any. `NUMBER` set means any number, `INTEGER` alone
    /// means integers only.
    pub(super) types: Option<u8>,
    /// Properties an object must have.
    pub(super) required: BTreeSet<String>,
    /// Properties named in `properties`.
    pub(super) declared: BTreeSet<String>,
    /// Properties whose value, when present, must be one of these values.
    pub(super) consts: BTreeMap<String, Vec<Value>>,
}

impl Shape {
    /// Both shapes at once (as `allOf` / `$ref` siblings combine).
    fn merge(&mut self, other: Shape) {
        self.types = match (self.types, other.types) {
            (None, t) | (t, None) => t,
            (Some(a), Some(b)) => Some(a & b),
        };
        self.required.extend(other.required);
        self.declared.extend(other.declared);
        for (name, values) in other.consts {
            match self.consts.get_mut(&name) {
                Some(mine) => mine.retain(|v| values.iter().any(|w| json_eq(v, w))),
                None => {
                    self.consts.insert(name, values);
                }
            }
        }
    }

    /// Either shape (as the branches of a union combine).
    fn either(shapes: Vec<Shape>) -> Shape {
        let mut iter = shapes.into_iter();
        let Some(mut out) = iter.next() else {
            return Shape::default();
        };
        for other in iter {
            out.types = match (out.types, other.types) {
                (Some(a), Some(b)) => Some(a | b),
                _ => None,
            };
            out.required.retain(|r| other.required.contains(r));
            out.declared.extend(other.declared);
            out.consts.clear();
        }
        out
    }

    /// `true` when the branch may accept objects.
    pub(super) fn allows_object(&self) -> bool {
        self.types.is_none_or(|t| t & OBJECT != 0)
    }
}

/// Computes shapes, following references with a guard against cycles.
pub(super) struct ShapeOf<'d> {
    doc: &'d SchemaDoc,
    visiting: Vec<String>,
}

impl<'d> ShapeOf<'d> {
    pub(super) fn new(doc: &'d SchemaDoc) -> Self {
        Self {
            doc,
            visiting: Vec::new(),
        }
    }

    /// The shape of `schema`.
    pub(super) fn shape(&mut self, schema: &Value) -> Shape {
        let map = match schema {
            Value::Bool(true) => return Shape::default(),
            Value::Bool(false) => {
                return Shape {
                    types: Some(0),
                    ..Shape::default()
                }
            }
            Value::Object(map) => map,
            _ => return Shape::default(),
        };
        let mut shape = Shape::default();
        if let Some(types) = map.get("type") {
            shape.types = Some(type_names(types).iter().fold(0, |acc, t| acc | type_bit(t)));
        }
        for values in self.fixed_values(schema) {
            let bits = values.iter().fold(0, |acc, v| acc | value_bits(v));
            shape.merge(Shape {
                types: Some(bits),
                ..Shape::default()
            });
        }
        if let Some(Value::Array(required)) = map.get("required") {
            shape
                .required
                .extend(required.iter().filter_map(Value::as_str).map(String::from));
        }
        if let Some(Value::Object(props)) = map.get("properties") {
            for (name, sub) in props {
                shape.declared.insert(name.clone());
                if let Some(values) = self.fixed_values(sub).into_iter().next() {
                    shape.consts.insert(name.clone(), values);
                }
            }
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            let target = self.follow(reference);
            shape.merge(target);
        }
        if let Some(Value::Array(members)) = map.get("allOf") {
            for member in members {
                let member = self.shape(member);
                shape.merge(member);
            }
        }
        for kind in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(kind) {
                let branches = branches.iter().map(|b| self.shape(b)).collect();
                shape.merge(Shape::either(branches));
            }
        }
        shape
    }

    fn follow(&mut self, reference: &str) -> Shape {
        let Some(name) = crate::doc::ref_target(reference) else {
            return Shape::default();
        };
        let Some(def) = self.doc.get(&name) else {
            return Shape::default();
        };
        if self.visiting.contains(&name) {
            return Shape::default();
        }
        self.visiting.push(name);
        let shape = self.shape(&def.schema);
        self.visiting.pop();
        shape
    }

    /// The value sets a schema fixes (`const`, `enum`, also through `$ref` and `allOf`);
    /// empty when it fixes none.
    fn fixed_values(&mut self, schema: &Value) -> Vec<Vec<Value>> {
        let Value::Object(map) = schema else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(constant) = map.get("const") {
            out.push(vec![constant.clone()]);
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            out.push(values.clone());
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            if let Some(name) = crate::doc::ref_target(reference) {
                if let Some(def) = self.doc.get(&name) {
                    if !self.visiting.contains(&name) {
                        self.visiting.push(name);
                        out.extend(self.fixed_values(&def.schema));
                        self.visiting.pop();
                    }
                }
            }
        }
        if let Some(Value::Array(members)) = map.get("allOf") {
            for member in members {
                out.extend(self.fixed_values(member));
            }
        }
        // Several sets: only values in all of them are allowed.
        let mut sets = out.into_iter();
        let Some(mut first) = sets.next() else {
            return Vec::new();
        };
        for set in sets {
            first.retain(|v| set.iter().any(|w| json_eq(v, w)));
        }
        vec![first]
    }
}
