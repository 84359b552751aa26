//! Logging to stderr.
//!
//! stdout carries protocol messages only, so every log line must go to stderr.

#[cfg(feature = "stderr-logging")]
use tracing::level_filters::LevelFilter;
#[cfg(feature = "stderr-logging")]
use tracing_subscriber::EnvFilter;

/// Installs a global `tracing` subscriber that writes formatted events to stderr (never
/// stdout).
///
/// The filter comes from `RUST_LOG` when it is set (e.g. `RUST_LOG=typed_mcp=trace`);
/// otherwise events at `default_level` and more severe are shown.
///
/// # Errors
///
/// Returns an error if a global subscriber is already installed.
///
/// # Examples
///
/// ```
/// use tracing::level_filters::LevelFilter;
///
/// typed_mcp::logging::init_stderr(LevelFilter::INFO).expect("first subscriber");
/// assert!(typed_mcp::logging::init_stderr(LevelFilter::INFO).is_err());
/// ```
#[cfg(feature = "stderr-logging")]
pub fn init_stderr(default_level: LevelFilter) -> Result<(), LoggingError> {
    let filter = EnvFilter::builder()
        .with_default_directive(default_level.into())
        .from_env_lossy();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_ansi(false)
        .try_init()
        .map_err(|_| LoggingError::AlreadyInitialized)
}

/// Errors of the logging setup.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoggingError {
    /// A global `tracing` subscriber was installed before.
    #[error("a global tracing subscriber is already installed")]
    AlreadyInitialized,
}

/// Displays an error with its whole chain of sources, `outer: inner: innermost`.
///
/// Error messages in this crate never repeat their source (each layer says only what it
/// adds), so a top-level report should show the chain, as `anyhow` does with `{:#}`.
///
/// # Examples
///
/// ```
/// let error = typed_mcp::framing::FramingError::from(std::io::Error::other("disk gone"));
/// assert_eq!(
///     typed_mcp::logging::ErrorChain(&error).to_string(),
///     "I/O error: disk gone"
/// );
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ErrorChain<'a>(pub &'a (dyn std::error::Error + 'static));

impl std::fmt::Display for ErrorChain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(error) = source {
            write!(f, ": {error}")?;
            source = error.source();
        }
        Ok(())
    }
}
