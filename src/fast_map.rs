//! The hash map of the per-request lookups: the requests in flight (keyed by their ids) and
//! the tools (keyed by their names).
//!
//! `std`'s default hasher, SipHash-1-3, cost about 700 instructions per `tools/call` over these
//! lookups (callgrind, BENCHMARKS.md "Issue 12, stop 22"). `foldhash` (the default hasher of
//! `hashbrown`) hashes a short key in a few dozen. Its `RandomState` seeds every map from a
//! per-process random value, so a client cannot choose ids that collide in advance; and the
//! map of ids holds at most the requests in flight and queued (`maxInFlight` + `maxQueued`),
//! which bounds the cost of any collisions it does find.

use std::collections::HashMap;

/// A `HashMap` with `foldhash`'s randomly seeded hasher.
pub(crate) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
