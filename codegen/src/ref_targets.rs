//! References to any place of the document, not only to a definition: `#/properties/foo`,
//! `#/prefixItems/0`, a percent-encoded `#/$defs/foo%22bar`.
//!
//! The emitters call a definition's walker for every `$ref`, so each such target is made a
//! definition: a reference to where a definition already sits (a nested `$defs` entry lifted
//! by [`SchemaDoc::lift_nested_defs`], a name written percent-encoded) is pointed at it, and
//! any other target schema is copied into a new definition carrying the target's pointer
//! (so error `schemaPath`s still point at the schema as written).

use serde_json::Value;

use crate::doc::{escape_pointer, pascal, ref_target, visit_schemas_mut, Definition, SchemaDoc};

/// A JSON Pointer fragment (`#/a/b%20c`) percent-decoded (`/a/b c`); `None` when it is not a
/// pointer fragment or its escapes are not UTF-8.
pub(crate) fn fragment_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    if !fragment.starts_with('/') {
        return None;
    }
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = fragment.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl SchemaDoc {
    /// Points every `#/...` reference at a definition (see the module documentation). A
    /// target that resolves nowhere is left alone: checking references reports it.
    pub(crate) fn lift_ref_targets(&mut self) {
        let mut index = 0;
        while index < self.defs.len() {
            let mut schema = std::mem::take(&mut self.defs[index].schema);
            let mut found = Vec::new();
            let outcome = visit_schemas_mut(&mut schema, "", &mut |map, _| {
                if let Some(Value::String(target)) = map.get("$ref") {
                    found.push(target.clone());
                }
                Ok(())
            });
            debug_assert!(outcome.is_ok(), "the visitor above never fails");
            let mut renames = Vec::new();
            for target in found {
                if ref_target(&target).is_some_and(|name| self.get(&name).is_some()) {
                    continue;
                }
                if let Some(name) = self.definition_at(&target) {
                    renames.push((target, name));
                }
            }
            if !renames.is_empty() {
                let outcome = visit_schemas_mut(&mut schema, "", &mut |map, _| {
                    let Some(Value::String(target)) = map.get("$ref") else {
                        return Ok(());
                    };
                    if let Some((_, name)) = renames.iter().find(|(t, _)| t == target) {
                        let reference = format!("#/$defs/{}", escape_pointer(name));
                        map.insert("$ref".into(), Value::String(reference));
                    }
                    Ok(())
                });
                debug_assert!(outcome.is_ok(), "the visitor above never fails");
            }
            self.defs[index].schema = schema;
            index += 1;
        }
    }

    /// The definition standing for the schema `target` points to: one already at that
    /// pointer, or a copy made now. `None` when `target` is no pointer into the document.
    fn definition_at(&mut self, target: &str) -> Option<String> {
        let pointer = fragment_pointer(target)?;
        if let Some(def) = self.defs.iter().find(|d| d.pointer == pointer) {
            return Some(def.name.clone());
        }
        // A target inside a definition the evaluator validates stays the evaluator's.
        let inside_evaluated = self.evaluated.iter().any(|name| {
            self.get(name)
                .is_some_and(|def| pointer.starts_with(&format!("{}/", def.pointer)))
        });
        if inside_evaluated {
            return None;
        }
        let mut copy = self.raw.pointer(&pointer)?.clone();
        if !copy.is_object() && !copy.is_boolean() {
            return None;
        }
        if crate::doc::evaluator_reason(&copy).is_some() {
            return None;
        }
        crate::dialect::normalize(&mut copy, crate::dialect::Dialect::Current);
        // Nested `$defs` were lifted from where they are written; the copy needs none.
        let _lifted_already: Vec<(String, String, Value)> =
            crate::dialect::take_nested_defs(&mut copy, &pointer);
        // Named after the whole pointer: a name from its last token alone (`Ref0`) can meet
        // another definition's once both are made Rust identifiers.
        let name = self.fresh_name(&format!("At{}", pascal(&pointer)));
        self.defs.push(Definition {
            name: name.clone(),
            pointer,
            schema: copy,
        });
        Some(name)
    }
}
