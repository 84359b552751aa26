//! Validator emitter.
