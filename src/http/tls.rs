//! TLS for [`serve_http`](crate::mcp::McpServer::serve_http) (feature `tls`): rustls with the
//! `ring` provider, the certificate chain and key read from PEM files, ALPN `h2` and
//! `http/1.1` (each connection speaks what the client chose), and the certificate reloaded
//! without dropping a connection, on SIGHUP or when the files change.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, SystemTime};

use tokio_rustls::rustls::crypto::ring::default_provider;
use tokio_rustls::rustls::crypto::CryptoProvider;
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// How often the files are looked at for a change, unless told otherwise.
const DEFAULT_WATCH_INTERVAL: Duration = Duration::from_secs(5);

/// Errors of loading the certificate and key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// The certificate file could not be read or holds a malformed PEM section.
    #[error("cannot read the certificate chain from {path}")]
    Certificate {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: rustls_pki_types::pem::Error,
    },
    /// The certificate file holds no `CERTIFICATE` section.
    #[error("no certificate in {path}")]
    NoCertificate {
        /// The file.
        path: PathBuf,
    },
    /// The key file could not be read, or holds no private key.
    #[error("cannot read a private key from {path}")]
    Key {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: rustls_pki_types::pem::Error,
    },
    /// rustls refused the key (an unsupported type), or it does not match the certificate.
    #[error("the private key is unusable with the certificate")]
    Unusable(#[source] tokio_rustls::rustls::Error),
    /// rustls refused the protocol versions of the provider (not expected with `ring`).
    #[error("the TLS configuration could not be built")]
    Config(#[source] tokio_rustls::rustls::Error),
}

/// TLS settings of [`serve_http`](crate::mcp::McpServer::serve_http): set them with
/// [`HttpOptions::tls`](super::HttpOptions::tls). The files are read once here (so a
/// mistake shows before the server starts), again on SIGHUP (Unix), and whenever their
/// modification time changes (looked at every [`watch_interval`](Self::watch_interval)).
/// A reload that fails keeps the certificate in use and logs why. Open connections keep the
/// certificate they were opened with; new ones get the new one.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use typed_mcp::http::TlsConfig;
/// use typed_mcp::mcp::McpServer;
///
/// let server = McpServer::builder("example", "1.0.0").build()?;
/// let tls = TlsConfig::from_pem_files("cert.pem", "key.pem")?;
/// let addr = "127.0.0.1:8443".parse()?;
/// let options = server.http_options().bound_to(addr).tls(tls);
/// let running = server.serve_http_with(addr, options).await?;
/// assert!(running.url().starts_with("https://"));
/// # Ok(()) }
/// ```
#[derive(Clone)]
#[must_use]
pub struct TlsConfig {
    resolver: Arc<Reloading>,
    config: Arc<ServerConfig>,
    watch_interval: Option<Duration>,
    reload_on_sighup: bool,
}

impl fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConfig")
            .field("cert_path", &self.resolver.cert_path)
            .field("key_path", &self.resolver.key_path)
            .field("watch_interval", &self.watch_interval)
            .field("reload_on_sighup", &self.reload_on_sighup)
            .finish_non_exhaustive()
    }
}

impl TlsConfig {
    /// Reads the certificate chain (PEM `CERTIFICATE` sections, the server's own first) and
    /// the private key (PEM PKCS #8, PKCS #1 or SEC1).
    ///
    /// # Errors
    ///
    /// A [`TlsError`] naming the file that could not be used.
    pub fn from_pem_files(
        cert_path: impl AsRef<Path>,
        key_path: impl AsRef<Path>,
    ) -> Result<Self, TlsError> {
        let provider = Arc::new(default_provider());
        let (cert_path, key_path) = (cert_path.as_ref(), key_path.as_ref());
        let stamps = stamps_on_disk(cert_path, key_path);
        let first = load(cert_path, key_path, &provider)?;
        let resolver = Arc::new(Reloading {
            cert_path: cert_path.to_path_buf(),
            key_path: key_path.to_path_buf(),
            current: RwLock::new(Arc::new(first)),
            stamps: RwLock::new(stamps),
            provider: Arc::clone(&provider),
        });
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(TlsError::Config)?
            .with_no_client_auth()
            .with_cert_resolver(Arc::clone(&resolver) as Arc<dyn ResolvesServerCert>);
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Self {
            resolver,
            config: Arc::new(config),
            watch_interval: Some(DEFAULT_WATCH_INTERVAL),
            reload_on_sighup: true,
        })
    }

    /// How often the files' modification times are compared with the loaded ones (5 s by
    /// default); `None` turns the watch off.
    pub fn watch_interval(mut self, interval: Option<Duration>) -> Self {
        self.watch_interval = interval.filter(|interval| !interval.is_zero());
        self
    }

    /// Whether SIGHUP reloads the files (Unix; on by default).
    pub fn reload_on_sighup(mut self, reload: bool) -> Self {
        self.reload_on_sighup = reload;
        self
    }

    /// Reads the files again now; on success new connections get the new certificate.
    ///
    /// # Errors
    ///
    /// As [`from_pem_files`](Self::from_pem_files); the certificate in use is kept then.
    pub fn reload(&self) -> Result<(), TlsError> {
        self.resolver.reload()
    }

    pub(crate) fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(Arc::clone(&self.config))
    }

    /// Watches for SIGHUP and file changes until `stop` is cancelled.
    pub(crate) fn spawn_reloader(&self, stop: CancellationToken) {
        let resolver = Arc::clone(&self.resolver);
        let interval = self.watch_interval;
        let sighup = self.reload_on_sighup;
        // The SIGHUP handler is in place before `serve_http` returns.
        let mut hangups = hangup_stream(sighup);
        drop(tokio::spawn(async move {
            let mut ticks = interval.map(tokio::time::interval);
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    Some(()) = next_hangup(&mut hangups) => {
                        tracing::info!("SIGHUP: reloading the TLS certificate");
                        resolver.reload_logged();
                    }
                    _instant = tick(&mut ticks) => {
                        if resolver.changed_on_disk() {
                            tracing::info!("the TLS certificate files changed: reloading");
                            resolver.reload_logged();
                        }
                    }
                }
            }
        }));
    }
}

async fn tick(ticks: &mut Option<tokio::time::Interval>) -> tokio::time::Instant {
    match ticks {
        Some(ticks) => ticks.tick().await,
        None => std::future::pending().await,
    }
}

#[cfg(unix)]
type Hangups = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type Hangups = Option<std::convert::Infallible>;

#[cfg(unix)]
fn hangup_stream(wanted: bool) -> Hangups {
    use tokio::signal::unix::{signal, SignalKind};
    if !wanted {
        return None;
    }
    match signal(SignalKind::hangup()) {
        Ok(stream) => Some(stream),
        Err(error) => {
            tracing::warn!(%error, "no SIGHUP handler: the TLS certificate reloads on file changes only");
            None
        }
    }
}

#[cfg(not(unix))]
fn hangup_stream(_wanted: bool) -> Hangups {
    None
}

#[cfg(unix)]
async fn next_hangup(hangups: &mut Hangups) -> Option<()> {
    match hangups {
        Some(stream) => stream.recv().await,
        None => std::future::pending().await,
    }
}

#[cfg(not(unix))]
async fn next_hangup(_hangups: &mut Hangups) -> Option<()> {
    std::future::pending().await
}

/// The certificate resolver: the loaded chain and key, replaced whole on reload.
struct Reloading {
    cert_path: PathBuf,
    key_path: PathBuf,
    current: RwLock<Arc<CertifiedKey>>,
    /// The files' modification times when last loaded.
    stamps: RwLock<Option<(SystemTime, SystemTime)>>,
    provider: Arc<CryptoProvider>,
}

impl fmt::Debug for Reloading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reloading")
            .field("cert_path", &self.cert_path)
            .field("key_path", &self.key_path)
            .finish_non_exhaustive()
    }
}

impl ResolvesServerCert for Reloading {
    fn resolve(&self, _client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(
            &self.current.read().unwrap_or_else(PoisonError::into_inner),
        ))
    }
}

impl Reloading {
    fn reload(&self) -> Result<(), TlsError> {
        let stamps = stamps_on_disk(&self.cert_path, &self.key_path);
        let certified = load(&self.cert_path, &self.key_path, &self.provider)?;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(certified);
        *self.stamps.write().unwrap_or_else(PoisonError::into_inner) = stamps;
        Ok(())
    }

    fn reload_logged(&self) {
        match self.reload() {
            Ok(()) => tracing::info!(cert = %self.cert_path.display(), "TLS certificate reloaded"),
            Err(error) => tracing::error!(
                %error,
                source = ?std::error::Error::source(&error).map(ToString::to_string),
                "TLS certificate reload failed: the previous certificate stays in use"
            ),
        }
    }

    fn changed_on_disk(&self) -> bool {
        let on_disk = stamps_on_disk(&self.cert_path, &self.key_path);
        on_disk.is_some() && on_disk != *self.stamps.read().unwrap_or_else(PoisonError::into_inner)
    }
}

fn read_chain(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let error = |source| TlsError::Certificate {
        path: path.to_path_buf(),
        source,
    };
    let chain = CertificateDer::pem_file_iter(path)
        .map_err(error)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(error)?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate {
            path: path.to_path_buf(),
        });
    }
    Ok(chain)
}

/// The two files' modification times (`None` when either cannot be read).
fn stamps_on_disk(cert_path: &Path, key_path: &Path) -> Option<(SystemTime, SystemTime)> {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|meta| meta.modified());
    Some((modified(cert_path).ok()?, modified(key_path).ok()?))
}

/// Reads the chain and the key, and checks that they belong together.
fn load(
    cert_path: &Path,
    key_path: &Path,
    provider: &CryptoProvider,
) -> Result<CertifiedKey, TlsError> {
    let chain = read_chain(cert_path)?;
    let key = PrivateKeyDer::from_pem_file(key_path).map_err(|source| TlsError::Key {
        path: key_path.to_path_buf(),
        source,
    })?;
    CertifiedKey::from_der(chain, key, provider).map_err(TlsError::Unusable)
}
