//! Unions (`anyOf` / `oneOf`): a picker that selects the branch a value belongs to, and the
//! check that reports the picked branch's errors.
//!
//! The picker (documented on the generated `select_*` functions) dispatches on a
//! discriminator property when every object branch fixes one with distinct values; otherwise
//! it keeps the plausible branches (JSON type, required properties, fixed-value properties),
//! orders them by specificity and returns the first that accepts the value. It returns the
//! index and whether it already found the branch valid, so the walker does not validate the
//! same branch twice.
//!
//! The walker calls the picker with `most_specific = false`: plausible branches are then
//! tried in schema order and the first that accepts the value ends the check (as cheap as
//! a plain `anyOf`); only when none accepts it is the most specific one chosen, and its
//! errors reported. `select_*` passes `true`, so a value several branches accept maps to the
//! most specific of them.
//!
//! The verdict equals JSON Schema's: a branch is only dropped when it certainly rejects the
//! value, and the picker prefers a branch that accepts it. For `oneOf`, the walker also
//! counts accepting branches and reports `oneOf` when there are several.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;

use super::keywords::child;
use super::literals::json_eq;
use super::shapes::{bit_names, Shape, ShapeOf};
use super::Emitter;
use crate::error::Result;

/// A property that tells object branches apart: branch index → allowed values.
struct Discriminator {
    property: String,
    arms: Vec<(usize, Vec<Value>)>,
}

/// Finds a property fixed in every object branch with pairwise disjoint values.
fn discriminator(shapes: &[Shape]) -> Option<Discriminator> {
    let objects: Vec<(usize, &Shape)> = shapes
        .iter()
        .enumerate()
        .filter(|(_, s)| s.allows_object())
        .collect();
    if objects.len() < 2 {
        return None;
    }
    let mut candidates: Vec<&String> = objects[0].1.consts.keys().collect();
    // Prefer a property every branch requires.
    candidates.sort_by_key(|p| !objects.iter().all(|(_, s)| s.required.contains(*p)));
    candidates.into_iter().find_map(|property| {
        let mut arms = Vec::new();
        for (index, shape) in &objects {
            let values = shape.consts.get(property)?;
            if values.is_empty() {
                return None;
            }
            let clash = arms.iter().any(|(_, other): &(usize, Vec<Value>)| {
                other.iter().any(|a| values.iter().any(|b| json_eq(a, b)))
            });
            if clash {
                return None;
            }
            arms.push((*index, values.clone()));
        }
        Some(Discriminator {
            property: property.clone(),
            arms,
        })
    })
}

impl Emitter<'_> {
    /// The check of an `anyOf` / `oneOf` at `path`, applied to `v` at `at`.
    pub(super) fn union(
        &mut self,
        kind: &str,
        branches: &[Value],
        path: &str,
        v: &TokenStream,
        at: &TokenStream,
    ) -> Result<TokenStream> {
        let rt = self.rt.clone();
        let id = self.fresh();
        let here = child(path, kind);
        let mut walkers: Vec<Ident> = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            walkers.push(self.branch_walker(branch, &format!("{here}/{i}"), id, i)?);
        }
        let table = format_ident!("__UNION_{id}");
        let count = branches.len();
        self.helpers.push(quote! {
            const #table: [#rt::Walker; #count] = [#(#walkers),*];
        });
        let shapes: Vec<Shape> = {
            let mut shape_of = ShapeOf::new(self.doc);
            branches.iter().map(|b| shape_of.shape(b)).collect()
        };
        let pick = format_ident!("__pick_{id}");
        let pick_body = self.pick_body(&shapes, &table);
        self.helpers.push(quote! {
            fn #pick(value: &#rt::Value, most_specific: bool) -> ::core::option::Option<(usize, bool)> {
                #pick_body
            }
        });
        if path == self.current_pointer && self.root_pick.is_none() {
            self.root_pick = Some(pick.clone());
        }
        let (limit, message) = match discriminator(&shapes) {
            Some(d) => {
                let values: Vec<Value> = d.arms.iter().flat_map(|(_, v)| v.clone()).collect();
                let message = format!(
                    "value matches none of the {count} alternatives (property `{}` selects one)",
                    d.property
                );
                (self.part_expr(&Value::Array(values)), message)
            }
            None => (
                self.part_expr(&Value::from(count)),
                format!("value matches none of the {count} alternatives"),
            ),
        };
        let none = self.fail_union(at, &here, kind, limit, v, &message);
        let one_of = if kind == "oneOf" {
            let message = "value matches more than one alternative";
            quote! {
                let matching = #table.iter().filter(|walker| #rt::accepts(#v, **walker)).count();
                if matching > 1 {
                    errors.fail(#at, #here, "oneOf", || (#rt::Part::U64(1), #rt::Part::from(matching), #rt::Message::Static(#message)));
                }
            }
        } else {
            TokenStream::new()
        };
        Ok(quote! {
            match #pick(#v, false) {
                ::core::option::Option::Some((index, checked)) => {
                    if !checked {
                        #table[index](#v, #at, errors);
                    }
                    #one_of
                }
                ::core::option::Option::None => { #none }
            }
        })
    }

    fn fail_union(
        &self,
        at: &TokenStream,
        path: &str,
        kind: &str,
        limit: TokenStream,
        v: &TokenStream,
        message: &str,
    ) -> TokenStream {
        let rt = &self.rt;
        quote! {
            errors.fail(#at, #path, #kind, || (#limit, #rt::Part::Str(#rt::type_name(#v)), #rt::Message::Static(#message)));
        }
    }

    /// The walker of one branch: the target's walker for a bare `$ref`, else a helper.
    fn branch_walker(&mut self, branch: &Value, path: &str, id: usize, i: usize) -> Result<Ident> {
        if let Value::Object(map) = branch {
            let only_ref = map.keys().all(|k| {
                k == "$ref"
                    || k.starts_with("x-")
                    || matches!(
                        k.as_str(),
                        "description"
                            | "title"
                            | "$comment"
                            | "default"
                            | "examples"
                            | "deprecated"
                            | "readOnly"
                            | "writeOnly"
                    )
            });
            if let (true, Some(Value::String(reference))) = (only_ref, map.get("$ref")) {
                return self.walker_of_ref(reference, path);
            }
        }
        let rt = self.rt.clone();
        let name = format_ident!("__branch_{id}_{i}");
        let body = self.schema(branch, path, &quote!(value), &quote!(at))?;
        let params = if body.is_empty() {
            quote!(_value: &#rt::Value, _at: &#rt::Location<'_>, _errors: &mut #rt::Collector)
        } else {
            quote!(value: &#rt::Value, at: &#rt::Location<'_>, errors: &mut #rt::Collector)
        };
        self.helpers.push(quote!(fn #name(#params) { #body }));
        Ok(name)
    }

    /// The body of a picker over branches with these shapes.
    fn pick_body(&mut self, shapes: &[Shape], table: &Ident) -> TokenStream {
        let rt = self.rt.clone();
        let mut out = TokenStream::new();
        if let Some(d) = discriminator(shapes) {
            let property = &d.property;
            let all_strings = d.arms.iter().all(|(_, vs)| vs.iter().all(Value::is_string));
            let dispatch = if all_strings {
                let arms = d.arms.iter().map(|(index, values)| {
                    let names = values.iter().filter_map(Value::as_str);
                    quote!(#(#names)|* => return ::core::option::Option::Some((#index, false)),)
                });
                quote! {
                    if let ::core::option::Option::Some(#rt::Value::String(tag)) = map.get(#property) {
                        match tag.as_str() {
                            #(#arms)*
                            _ => {}
                        }
                    }
                }
            } else {
                let tests: Vec<TokenStream> = d
                    .arms
                    .iter()
                    .map(|(index, values)| {
                        let test = self.one_of_values(&quote!(tag), values);
                        quote!(if #test { return ::core::option::Option::Some((#index, false)); })
                    })
                    .collect();
                quote! {
                    if let ::core::option::Option::Some(tag) = map.get(#property) {
                        #(#tests)*
                    }
                }
            };
            out.extend(quote! {
                if let #rt::Value::Object(map) = value {
                    #dispatch
                }
            });
        }
        let count = shapes.len();
        let mut filters = TokenStream::new();
        let mut scores = TokenStream::new();
        let mut reads_members = false;
        for (index, shape) in shapes.iter().enumerate() {
            let plausible = self.plausible(shape);
            let record = quote! {
                candidates[found] = #index;
                found += 1;
            };
            if plausible.to_string() == "true" {
                filters.extend(record);
            } else {
                filters.extend(quote!(if #plausible { #record }));
            }
            let declared: Vec<&String> = shape.declared.iter().collect();
            let required = shape.required.len();
            if !declared.is_empty() {
                reads_members = true;
                scores.extend(quote! {
                    #index => (members.filter(|k| matches!(k.as_str(), #(#declared)|*)).count(), #required),
                });
            } else if required > 0 {
                scores.extend(quote!(#index => (0, #required),));
            }
        }
        // Specificity, computed only when candidates are ordered: (declared members of the
        // value, required properties), higher first, then schema order.
        let specificity = if scores.is_empty() {
            quote!(let specificity = |_: usize| (0usize, 0usize);)
        } else {
            let members = if reads_members {
                quote! {
                    let ::core::option::Option::Some(members) = value.as_object().map(|map| map.keys()) else {
                        return (0, 0);
                    };
                }
            } else {
                TokenStream::new()
            };
            quote! {
                let specificity = |index: usize| -> (usize, usize) {
                    #members
                    match index {
                        #scores
                        _ => (0, 0),
                    }
                };
            }
        };
        let specificity = quote! {
            #specificity
            let order = |a: &usize, b: &usize| {
                let (sa, sb) = (specificity(*a), specificity(*b));
                sb.0.cmp(&sa.0).then(sb.1.cmp(&sa.1)).then(a.cmp(b))
            };
        };
        out.extend(quote! {
            let mut candidates = [0usize; #count];
            let mut found = 0;
            #filters
            let candidates = &mut candidates[..found];
            match candidates.len() {
                0 => return ::core::option::Option::None,
                1 => return ::core::option::Option::Some((candidates[0], false)),
                _ => {}
            }
            #specificity
            if most_specific {
                candidates.sort_unstable_by(order);
            }
            for candidate in candidates.iter() {
                if #rt::accepts(value, #table[*candidate]) {
                    return ::core::option::Option::Some((*candidate, true));
                }
            }
            if !most_specific {
                candidates.sort_unstable_by(order);
            }
            ::core::option::Option::Some((candidates[0], false))
        });
        out
    }

    /// A boolean expression over `value`: the branch with this shape may accept it.
    fn plausible(&mut self, shape: &Shape) -> TokenStream {
        let rt = self.rt.clone();
        let mut object_terms: Vec<TokenStream> = Vec::new();
        for name in &shape.required {
            object_terms.push(quote!(map.contains_key(#name)));
        }
        for (name, values) in &shape.consts {
            let test = self.one_of_values(&quote!(fixed), values);
            object_terms.push(quote!(map.get(#name).is_none_or(|fixed| #test)));
        }
        let object_test = if object_terms.is_empty() {
            None
        } else {
            Some(quote!(#(#object_terms)&&*))
        };
        match (shape.types, object_test) {
            (Some(0), _) => quote!(false),
            (None, None) => quote!(true),
            (Some(bits), None) => self.type_test(&bit_names(bits), &quote!(value)),
            (Some(bits), Some(test)) if bits == super::shapes::OBJECT => {
                quote!(matches!(value, #rt::Value::Object(map) if #test))
            }
            (None, Some(test)) => {
                quote!(match value { #rt::Value::Object(map) => #test, _ => true })
            }
            (Some(bits), Some(test)) => {
                let type_ok = self.type_test(&bit_names(bits), &quote!(value));
                quote!((#type_ok) && match value { #rt::Value::Object(map) => #test, _ => true })
            }
        }
    }
}
