//! Support for generated code. Not public API: generated code reaches the runtime only
//! through this module, so a generator/runtime version mismatch fails to compile.
