//! Reference resolution at generation time: the schema resources, anchors and dynamic
//! anchors a definition's references can reach (the file, its embedded `$id` resources and
//! the remote documents listed in the `Config`).
//!
//! The generator uses it to refuse a schema whose references do not all resolve, and to
//! bundle references statically (`crate::bundle`). It follows the same rules as the
//! runtime's evaluator (`typed_mcp::validation::evaluator`, which validates the few
//! definitions left to run time): RFC 3986 resolution against the `$id`s in force, JSON
//! Pointer and anchor fragments, and a metaschema without the validation vocabulary turning
//! it off. Nothing here evaluates an instance, and none of it is copied into generated code.
//!
//! The files: [`registry`] (the resources and anchors) and [`uris`] (JSON Pointers and
//! RFC 3986 reference resolution).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

mod registry;
mod uris;

pub(crate) use registry::*;
pub(crate) use uris::*;
