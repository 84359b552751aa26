//! Loading and validating the runtime configuration (`schema/limits.json`).
