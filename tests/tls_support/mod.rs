//! A certificate authority made in the test (rcgen) and a TLS server in front of any
//! `McpHttpService` (tokio-rustls + hyper), on 127.0.0.1 with an ephemeral port. The server
//! records the HTTP version and headers of every request it receives.

// Each test crate uses a subset of this module.
#![allow(dead_code)]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use hyper::body::Incoming;
use hyper::header::{HeaderMap, HeaderValue, HOST};
use hyper::{Request, Version};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// A CA whose root the client is told to trust.
pub(crate) struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl TestCa {
    /// A new CA with a fresh key.
    pub(crate) fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().expect("a CA key");
        let issuer = CertifiedIssuer::self_signed(params, key).expect("the CA certificate");
        Self { issuer }
    }

    /// The CA's certificate, PEM.
    pub(crate) fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// A server certificate for `names` (DNS names or IP addresses) and its key.
    pub(crate) fn server_identity(
        &self,
        names: &[&str],
    ) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        let params = CertificateParams::new(names).expect("server parameters");
        let key = KeyPair::generate().expect("a server key");
        let certificate = params
            .signed_by(&key, &self.issuer)
            .expect("the server certificate");
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        (vec![certificate.der().clone()], key)
    }
}

impl TestCa {
    /// A server certificate for `names` and its key, both PEM (for servers that read files,
    /// such as `redis-server --tls-cert-file`).
    pub(crate) fn server_identity_pem(&self, names: &[&str]) -> (String, String) {
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        let params = CertificateParams::new(names).expect("server parameters");
        let key = KeyPair::generate().expect("a server key");
        let certificate = params
            .signed_by(&key, &self.issuer)
            .expect("the server certificate");
        (certificate.pem(), key.serialize_pem())
    }

    /// A server certificate for `names` and its key, written as `cert.pem` and `key.pem` in
    /// `dir` (for `TlsConfig::from_pem_files` and servers that read files): their paths.
    pub(crate) fn write_server_identity(&self, dir: &Path, names: &[&str]) -> (PathBuf, PathBuf) {
        let (certificate, key) = self.server_identity_pem(names);
        let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
        std::fs::write(&cert_path, certificate).expect("the certificate file");
        std::fs::write(&key_path, key).expect("the key file");
        (cert_path, key_path)
    }
}

/// What the server saw of one request.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    /// The HTTP version spoken.
    pub(crate) version: Version,
    /// The request's headers.
    pub(crate) headers: HeaderMap,
}

/// A TLS server on 127.0.0.1.
pub(crate) struct TlsServer {
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    /// Every request received, in order.
    pub(crate) seen: Arc<Mutex<Vec<Seen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl TlsServer {
    /// Serves `service` (an `McpHttpService`, an axum `Router`) on an ephemeral port with
    /// the certificate chain and key, offering the ALPN protocols `alpn` (e.g.
    /// `[b"h2", b"http/1.1"]`).
    pub(crate) async fn start<S>(
        service: S,
        chain: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
        alpn: &[&[u8]],
    ) -> Self
    where
        S: tower::Service<
                Request<Incoming>,
                Response = axum::response::Response,
                Error = Infallible,
            > + Clone
            + Send
            + 'static,
        S::Future: Send + 'static,
    {
        Self::start_on(0, service, chain, key, alpn).await
    }

    /// [`start`](Self::start) on `port`.
    pub(crate) async fn start_on<S>(
        port: u16,
        service: S,
        chain: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
        alpn: &[&[u8]],
    ) -> Self
    where
        S: tower::Service<
                Request<Incoming>,
                Response = axum::response::Response,
                Error = Infallible,
            > + Clone
            + Send
            + 'static,
        S::Future: Send + 'static,
    {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .expect("the server identity");
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&seen);
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let acceptor = acceptor.clone();
                let service = service.clone();
                let record = Arc::clone(&record);
                tokio::spawn(async move {
                    // A client that refuses the certificate ends the handshake here.
                    let Ok(tls) = acceptor.accept(stream).await else {
                        return;
                    };
                    let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2".as_slice());
                    let handler =
                        hyper::service::service_fn(move |mut request: Request<Incoming>| {
                            record.lock().unwrap().push(Seen {
                                version: request.version(),
                                headers: request.headers().clone(),
                            });
                            // HTTP/2 carries the host in `:authority`; the MCP service checks `Host`.
                            if !request.headers().contains_key(HOST) {
                                let authority = request.uri().authority().map(|a| a.to_string());
                                if let Some(value) =
                                    authority.and_then(|a| HeaderValue::from_str(&a).ok())
                                {
                                    request.headers_mut().insert(HOST, value);
                                }
                            }
                            tower::ServiceExt::oneshot(service.clone(), request)
                        });
                    let io = TokioIo::new(tls);
                    let served = if h2 {
                        hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                            .serve_connection(io, handler)
                            .await
                    } else {
                        hyper::server::conn::http1::Builder::new()
                            .serve_connection(io, handler)
                            .await
                    };
                    if let Err(error) = served {
                        eprintln!("test TLS server: connection ended: {error}");
                    }
                });
            }
        });
        Self { addr, seen, task }
    }

    /// `https://HOST:PORT/mcp`.
    pub(crate) fn url(&self, host: &str) -> String {
        format!("https://{host}:{}/mcp", self.addr.port())
    }

    /// The requests received so far.
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}
