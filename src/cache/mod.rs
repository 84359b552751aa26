//! Tool-result cache (see issue: runtime guarantees).
