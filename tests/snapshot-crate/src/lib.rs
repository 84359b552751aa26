//! The generator's committed snapshots (`codegen/tests/snapshots/*.rs`, compared with fresh
//! output by `codegen/tests/snapshots.rs`) compiled as a library against the runtime, with
//! every warning an error. `tests/behaviour.rs` checks they do what their schemas say.

#![deny(warnings)]

/// Generated from `codegen/tests/fixtures/basic.json`.
pub mod basic {
    include!("../../../codegen/tests/snapshots/basic.rs");
}

/// Generated from `codegen/tests/fixtures/unions.json`.
pub mod unions {
    include!("../../../codegen/tests/snapshots/unions.rs");
}

/// Generated from `codegen/tests/fixtures/annotations.json`.
pub mod annotations {
    include!("../../../codegen/tests/snapshots/annotations.rs");
}

/// Generated from `codegen/tests/fixtures/refs.json`.
pub mod refs {
    include!("../../../codegen/tests/snapshots/refs.rs");
}

/// The regression corpus of issue 15 (`codegen/tests/real_world/*.json`): one schema per way
/// published tool schemas broke the generator.
pub mod real_world {
    macro_rules! corpus {
        ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
            $(
                $(#[$doc])*
                pub mod $name {
                    include!(concat!(
                        "../../../codegen/tests/snapshots/real_world/",
                        stringify!($name),
                        ".rs"
                    ));
                }
            )*
        };
    }

    corpus!(
        /// String enums whose values are not identifiers.
        enum_strings,
        /// Keywords the runtime's evaluator validates (`not`, `if`, `contains`,
        /// `unevaluatedProperties`) on a typed struct, and a `prefixItems` tuple.
        evaluated_shapes,
        /// `default: null` on members whose type does not allow null.
        null_defaults,
        /// Optional members with a `type` list holding `null` (absent, null, value).
        nullable_members,
        /// Open objects keep unknown members; closed ones refuse them.
        open_objects,
        /// A 2020-12 tool schema pasted with its `$schema` and `$defs`.
        pasted_2020_12,
        /// A draft-07 tool schema pasted with its `$schema` and `definitions`.
        pasted_draft07,
        /// `propertyNames`.
        property_names,
        /// An object `default` on a `$ref`'d struct.
        ref_object_default,
        /// Formats the validators do not know.
        unknown_formats,
    );
}
