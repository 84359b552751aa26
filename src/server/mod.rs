//! The request loop: framing, dispatch, concurrency, graceful shutdown.
