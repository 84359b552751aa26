//! The example programs of typed-mcp are this package's `[[example]]` targets (see
//! `Cargo.toml`); cargo needs a library or binary target in every package, and this one has
//! nothing to share, so the library is empty.
