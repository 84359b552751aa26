//! Rust types for a [`SchemaDoc`]: typify (on the [`view`] of the schema), our own union
//! enums, and the [`postpass`].

mod annotations;
mod docs;
mod enum_defaults;
mod member_reads;
mod number_defaults;
pub(crate) mod own_enums;
mod postpass;
mod shape;
mod struct_defaults;
mod unions;
mod view;

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use proc_macro2::TokenStream;
use serde_json::Value;
use typify::{TypeSpace, TypeSpaceSettings};

use crate::doc::SchemaDoc;
use crate::error::{Error, Result};

/// The Rust name typify gives a definition called `name` (and the name our own union enums
/// use, so that typify's references to them resolve).
pub(crate) fn rust_type_name(name: &str) -> String {
    use heck::ToPascalCase;
    let cleaned: String = name
        .replace('\'', "")
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let pascal = cleaned.to_pascal_case();
    if pascal.starts_with(|c: char| c.is_ascii_digit()) {
        format!("X{pascal}")
    } else {
        pascal
    }
}

/// Whether a definition's root is a union we emit ourselves.
pub(crate) fn is_union(schema: &Value) -> bool {
    schema.get("anyOf").is_some() || schema.get("oneOf").is_some()
}

/// The generated types: typify's items (post-processed) followed by our union enums.
pub(crate) struct GeneratedTypes {
    /// The items, ready to be placed at the top of the generated file.
    pub(crate) items: TokenStream,
    /// Definition name → Rust type name, for every definition of the document.
    pub(crate) names: BTreeMap<String, String>,
}

/// Whether a definition's root is a string `enum` we emit ourselves (typify cannot name its
/// variants, see [`own_enums`]).
pub(crate) fn is_own_enum(schema: &Value) -> bool {
    schema
        .as_object()
        .is_some_and(|map| crate::hoist::is_own_enum(map, &own_enums::typify_refuses))
}

/// Generates the types of `doc`. `runtime` is the path of the runtime crate.
///
/// When typify fails on the schema's `default` values (a default it finds does not conform
/// to a referenced type, or cannot render), the types are generated again with every
/// `default` treated as an annotation only: members are then `Option`s, absent stays absent.
pub(crate) fn emit_types(doc: &SchemaDoc, runtime: &syn::Path) -> Result<GeneratedTypes> {
    let shaped = view::types_view(doc, true);
    let first = match emit_view_or_without_defaults(doc, &shaped, runtime) {
        Ok(types) => return Ok(types),
        Err(error) => error,
    };
    // The shapes of evaluated definitions are new ground for typify: when it fails on them,
    // those definitions fall back to `serde_json::Value` rather than refuse the file.
    if doc.evaluated.is_empty() {
        return Err(first);
    }
    let plain = view::types_view(doc, false);
    if plain == shaped {
        return Err(first);
    }
    emit_view_or_without_defaults(doc, &plain, runtime).map_err(|_| first)
}

/// [`emit_view`], then, when typify fails and the view has `default`s, once more with every
/// `default` an annotation only. The error is the first attempt's.
fn emit_view_or_without_defaults(
    doc: &SchemaDoc,
    view: &[(String, Value)],
    runtime: &syn::Path,
) -> Result<GeneratedTypes> {
    match emit_view(doc, view, runtime) {
        Err(first) if view::has_defaults(view) => {
            emit_view(doc, &view::without_defaults(view.to_vec()), runtime).map_err(|_| first)
        }
        outcome => outcome,
    }
}

fn emit_view(
    doc: &SchemaDoc,
    view: &[(String, Value)],
    runtime: &syn::Path,
) -> Result<GeneratedTypes> {
    let mut settings = TypeSpaceSettings::default();
    settings
        .with_struct_builder(false)
        .with_derive("PartialEq".to_string())
        .with_map_type("::std::collections::BTreeMap")
        .with_replacement(
            rust_type_name(view::NUMBER_DEF),
            "::serde_json::Number",
            std::iter::empty(),
        );
    for def in doc
        .defs
        .iter()
        .filter(|d| is_union(&d.schema) || is_own_enum(&d.schema))
    {
        let name = rust_type_name(&def.name);
        settings.with_replacement(&name, &name, std::iter::empty());
    }

    let schemas = to_schemars(doc, view)?;
    let mut space = TypeSpace::new(&settings);
    guarded(|| space.add_ref_types(schemas.clone())).map_err(|message| {
        // Name the definition that fails on its own, when one does.
        let pointer = culprit(doc, &settings, &schemas).unwrap_or_default();
        Error::TypeGeneration {
            file: doc.file.clone(),
            pointer,
            message,
        }
    })?;

    let stems = crate::validators::naming::stems(doc);
    let mut names = BTreeMap::new();
    let mut union_items = Vec::new();
    for def in &doc.defs {
        if is_own_enum(&def.schema) {
            names.insert(def.name.clone(), rust_type_name(&def.name));
            union_items.push(own_enums::emit_enum(def));
        } else if is_union(&def.schema) {
            names.insert(def.name.clone(), rust_type_name(&def.name));
            let view_schema = &view
                .iter()
                .find(|(n, _)| *n == def.name)
                .expect("the view has every definition")
                .1;
            union_items.push(unions::emit_union(
                doc,
                &stems[&def.name],
                def,
                view_schema,
                &mut space,
                runtime,
            )?);
        } else {
            let reference = schemars::schema::Schema::Object(schemars::schema::SchemaObject {
                reference: Some(format!("#/$defs/{}", def.name)),
                ..Default::default()
            });
            let id = guarded(|| space.add_type(&reference))
                .map_err(|message| type_error(doc, &def.pointer, message))?;
            let ty = space
                .get_type(&id)
                .map_err(|e| type_error(doc, &def.pointer, e.to_string()))?;
            names.insert(def.name.clone(), ty.name());
        }
    }

    // Rendering runs typify's code too (defaults are rendered here): it is guarded as well.
    let stream =
        guarded(|| Ok(space.to_stream())).map_err(|message| type_error(doc, "", message))?;
    let mut file: syn::File = syn::parse2(stream).map_err(|e| Error::GeneratedCode {
        file: doc.file.clone(),
        message: e.to_string(),
    })?;
    number_defaults::without_unwrap(&mut file);
    postpass::keep_presence(&mut file);
    member_reads::apply(&mut file, &nullable_unions(doc), runtime);
    struct_defaults::implement(&mut file);
    enum_defaults::derive_enum_defaults(&mut file);
    docs::document(&mut file.items);
    let annotated = annotations::apply(doc, &names, &mut file)?;
    let items = quote::quote! { #file #annotated #(#union_items)* };
    Ok(GeneratedTypes { items, names })
}

/// The Rust names of our union enums with a branch that is `null` (they read `null` as a
/// value of their own, see [`member_reads`]).
fn nullable_unions(doc: &SchemaDoc) -> std::collections::BTreeSet<String> {
    let is_null = |branch: &Value| {
        branch.get("type").and_then(Value::as_str) == Some("null")
            || branch.get("const") == Some(&Value::Null)
    };
    doc.defs
        .iter()
        .filter(|def| is_union(&def.schema))
        .filter(|def| {
            ["anyOf", "oneOf"]
                .iter()
                .filter_map(|k| def.schema.get(*k).and_then(Value::as_array))
                .flatten()
                .any(is_null)
        })
        .map(|def| rust_type_name(&def.name))
        .collect()
}

/// The view's schemas as schemars 0.8 schemas, the form typify takes.
fn to_schemars(
    doc: &SchemaDoc,
    view: &[(String, Value)],
) -> Result<Vec<(String, schemars::schema::Schema)>> {
    view.iter()
        .map(|(name, schema)| {
            let converted = serde_json::from_value(schema.clone()).map_err(|e| {
                let pointer = doc.get(name).map(|d| d.pointer.clone()).unwrap_or_default();
                Error::InvalidSchema {
                    file: doc.file.clone(),
                    pointer,
                    message: format!("not a schema typify can read: {e}"),
                }
            })?;
            Ok((name.clone(), converted))
        })
        .collect()
}

/// Runs a typify call, turning both its errors and its panics into messages.
pub(crate) fn guarded<T>(
    call: impl FnOnce() -> std::result::Result<T, typify::Error>,
) -> std::result::Result<T, String> {
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(error.to_string()),
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(format!("typify panicked: {text}"))
        }
    }
}

pub(crate) fn type_error(doc: &SchemaDoc, pointer: &str, message: String) -> Error {
    Error::TypeGeneration {
        file: doc.file.clone(),
        pointer: pointer.to_string(),
        message,
    }
}

/// After a failure: the pointer of the first definition that fails when converted with
/// every other definition replaced by an unconstrained schema.
fn culprit(
    doc: &SchemaDoc,
    settings: &TypeSpaceSettings,
    schemas: &[(String, schemars::schema::Schema)],
) -> Option<String> {
    let open = schemars::schema::Schema::Bool(true);
    schemas.iter().enumerate().find_map(|(index, (name, _))| {
        let alone: Vec<_> = schemas
            .iter()
            .enumerate()
            .map(|(i, (n, s))| (n.clone(), if i == index { s.clone() } else { open.clone() }))
            .collect();
        let mut space = TypeSpace::new(settings);
        guarded(|| space.add_ref_types(alone))
            .err()
            .and_then(|_| doc.get(name).map(|d| d.pointer.clone()))
    })
}

/// The impls tying each generated type to its definition: `SchemaValidate` (the generated
/// validator) and `SchemaDefinition` (the definition's name, JSON text and description, and
/// the definitions its `$ref`s reach),
/// the latter named through `<runtime>::__private::v1` (see [`crate::output`]).
pub(crate) fn validate_impls(
    doc: &SchemaDoc,
    names: &BTreeMap<String, String>,
    runtime: &syn::Path,
) -> TokenStream {
    let stems = crate::validators::naming::stems(doc);
    let contract = quote::format_ident!("{}", crate::output::RUNTIME_CONTRACT);
    let contract_path = quote::quote! { #runtime::__private::#contract };
    // Only named, generated types: not `String`, `Vec<..>` or replaced types.
    let typed: Vec<(&crate::doc::Definition, &String)> = doc
        .defs
        .iter()
        .filter_map(|def| Some((def, names.get(&def.name)?)))
        .filter(|(_, type_name)| type_name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .collect();
    let pointers: Vec<&str> = typed.iter().map(|(def, _)| def.pointer.as_str()).collect();
    let types: Vec<TokenStream> = typed
        .iter()
        .map(|(_, type_name)| {
            let ty = quote::format_ident!("{}", type_name);
            quote::quote! { #ty }
        })
        .collect();
    let (referenced, statics) =
        crate::referenced::emit(&doc.raw, &pointers, &types, &contract_path);
    let impls = typed.iter().zip(referenced).map(|((def, type_name), referenced)| {
        let ty = quote::format_ident!("{}", type_name);
        let stem = quote::format_ident!("{}", stems[&def.name]);
        // The definition as written in the file (a hoisted union: where it was found).
        let written = doc.raw.pointer(&def.pointer).unwrap_or(&def.schema);
        let schema_text = written.to_string();
        let name = &def.name;
        let description = match written.get("description").and_then(Value::as_str) {
            Some(text) => quote::quote! { ::std::option::Option::Some(#text) },
            None => quote::quote! { ::std::option::Option::None },
        };
        quote::quote! {
            impl #runtime::validation::SchemaValidate for #ty {
                fn validate_value(
                    value: &#runtime::__private::serde_json::Value,
                ) -> ::std::result::Result<(), ::std::vec::Vec<#runtime::validation::ValidationError>> {
                    validate::#stem(value)
                }
            }
            impl #contract_path::SchemaDefinition for #ty {
                const NAME: &'static str = #name;
                const SCHEMA: &'static str = #schema_text;
                const DESCRIPTION: ::std::option::Option<&'static str> = #description;
                #referenced
            }
        }
    });
    quote::quote! { #statics #(#impls)* }
}
