//! The rustls client stack (feature `tls`) shared by the MCP client's HTTP transport and the
//! resource server's requests to its authorization server: the `ring` provider, the
//! platform's roots (read once per process) plus any given, HTTP/2 and HTTP/1.1 by ALPN.

use std::sync::Arc;

use hyper_util::client::legacy::connect::HttpConnector;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, TrustAnchor};

/// A connector speaking `http://` and `https://`.
pub(crate) type HttpsConnector = hyper_rustls::HttpsConnector<HttpConnector>;

/// The root certificates in `pem` (one or more `-----BEGIN CERTIFICATE-----` blocks), each
/// checked as rustls would use it; the error says why not, quoting nothing of `pem`.
pub(crate) fn roots_from_pem(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, String> {
    let mut found = Vec::new();
    for certificate in CertificateDer::pem_slice_iter(pem) {
        let certificate =
            certificate.map_err(|error| format!("a PEM block does not parse ({error})"))?;
        // Checked now, so that a certificate rustls would refuse fails here.
        let mut store = rustls::RootCertStore::empty();
        store
            .add(certificate.clone())
            .map_err(|error| format!("not a usable root certificate ({error})"))?;
        found.push(certificate);
    }
    if found.is_empty() {
        return Err("no `BEGIN CERTIFICATE` block".to_owned());
    }
    Ok(found)
}

/// A connector trusting `roots`, and the platform's roots when `platform` is set, over
/// `http` (a TCP connector configured by the caller).
pub(crate) fn https_connector(
    http: HttpConnector,
    roots: &[CertificateDer<'static>],
    platform: bool,
) -> Result<HttpsConnector, String> {
    let mut store = rustls::RootCertStore::empty();
    if platform {
        store.roots.extend(platform_roots().iter().cloned());
    }
    for certificate in roots {
        store
            .add(certificate.clone())
            .map_err(|error| error.to_string())?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| error.to_string())?
        .with_root_certificates(store)
        .with_no_client_auth();
    let mut http = http;
    // The TLS connector hands it https:// URLs too.
    http.enforce_http(false);
    Ok(hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http()
        .enable_http1()
        .enable_http2()
        .wrap_connector(http))
}

/// The platform's trust anchors, read once per process (an unreadable store is logged and
/// leaves only the roots given).
fn platform_roots() -> &'static [TrustAnchor<'static>] {
    static ROOTS: std::sync::OnceLock<Vec<TrustAnchor<'static>>> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for error in &found.errors {
            tracing::debug!(%error, "reading the platform's root certificates");
        }
        let mut store = rustls::RootCertStore::empty();
        let (added, ignored) = store.add_parsable_certificates(found.certs);
        tracing::debug!(added, ignored, "platform root certificates");
        store.roots
    })
}
