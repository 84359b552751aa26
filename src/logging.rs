//! Logging to stderr.
