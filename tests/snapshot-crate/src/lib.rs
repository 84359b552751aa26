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
