//! `serve_http` over TLS (feature `tls`): HTTP/2 and HTTP/1.1 by ALPN, the Host check behind
//! TLS (HTTP/2's `:authority` included), and the certificate reloaded on a file change and on
//! SIGHUP while an open connection keeps working. The CAs are made here with rcgen.

mod http_support;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use reqwest::{Certificate, Client, StatusCode, Version};
use typed_mcp::generated::limits::Limits;
use typed_mcp::http::{RunningHttpServer, TlsConfig};

use http_support::{demo, HANG_GUARD};

/// A test CA: its PEM, and what signs leaves with it.
struct Ca {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl Ca {
    fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        let key = KeyPair::generate().expect("a CA key");
        let cert = params.self_signed(&key).expect("a CA certificate");
        Self {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// Writes a leaf for localhost, 127.0.0.1 and evil.example into `dir`.
    fn leaf_into(&self, dir: &Path) -> (PathBuf, PathBuf) {
        let params = CertificateParams::new(vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "evil.example".to_owned(),
        ])
        .expect("leaf params");
        let key = KeyPair::generate().expect("a leaf key");
        let cert = params.signed_by(&key, &self.issuer).expect("a leaf");
        let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
        // Written beside, then renamed: the watcher never reads half a file.
        std::fs::write(dir.join("cert.tmp"), cert.pem()).unwrap();
        std::fs::write(dir.join("key.tmp"), key.serialize_pem()).unwrap();
        std::fs::rename(dir.join("key.tmp"), &key_path).unwrap();
        std::fs::rename(dir.join("cert.tmp"), &cert_path).unwrap();
        (cert_path, key_path)
    }

    fn client(&self, http1_only: bool) -> Client {
        let mut builder = Client::builder()
            .timeout(HANG_GUARD)
            .tls_built_in_root_certs(false)
            .add_root_certificate(Certificate::from_pem(self.pem.as_bytes()).unwrap())
            .resolve("evil.example", SocketAddr::from(([127, 0, 0, 1], 0)));
        if http1_only {
            builder = builder.http1_only();
        }
        builder.build().expect("a TLS client")
    }
}

async fn serve(tls: TlsConfig) -> RunningHttpServer {
    let server = demo::build(Limits::default()).expect("the demo server builds");
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let options = server.http_options().bound_to(addr).tls(tls);
    server
        .serve_http_with(addr, options)
        .await
        .expect("listening")
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tls-test","version":"1"}}}"#;

/// POSTs `initialize` to `url` (with `host` as the Host header when given).
async fn initialize(
    client: &Client,
    url: &str,
    host: Option<&str>,
) -> reqwest::Result<reqwest::Response> {
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(INITIALIZE);
    if let Some(host) = host {
        request = request.header("host", host);
    }
    request.send().await
}

#[tokio::test]
async fn https_speaks_h2_and_http1_and_keeps_the_host_check() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("test CA");
    let (cert, key) = ca.leaf_into(dir.path());
    let running = serve(TlsConfig::from_pem_files(&cert, &key).unwrap()).await;
    let url = running.url();
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let port = running.local_addr().port();

    let h2 = initialize(&ca.client(false), &url, None).await.unwrap();
    assert_eq!(h2.version(), Version::HTTP_2);
    assert_eq!(h2.status(), StatusCode::OK);
    assert!(h2.headers().contains_key("mcp-session-id"));
    assert!(h2.text().await.unwrap().contains("\"serverInfo\""));

    let h1 = initialize(&ca.client(true), &url, None).await.unwrap();
    assert_eq!(h1.version(), Version::HTTP_11);
    assert_eq!(h1.status(), StatusCode::OK);

    // DNS rebinding behind TLS: a name that is not loopback is refused over either version.
    let evil = format!("https://evil.example:{port}/mcp");
    let refused = initialize(&ca.client(true), &url, Some("evil.example"))
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let refused = initialize(&ca.client(false), &evil, None).await.unwrap();
    assert_eq!(refused.version(), Version::HTTP_2);
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);

    // A client that does not trust the CA gets no connection.
    let stranger = Ca::new("another CA").client(false);
    assert!(initialize(&stranger, &url, None).await.is_err());
    running.shutdown().await.unwrap();
}

/// Waits until a client trusting only `ca` can connect (the reload happened).
async fn until_served_by(ca: &Ca, url: &str) {
    let started = Instant::now();
    loop {
        if let Ok(answer) = initialize(&ca.client(true), url, None).await {
            assert_eq!(answer.status(), StatusCode::OK);
            return;
        }
        assert!(
            started.elapsed() < HANG_GUARD,
            "the certificate was not reloaded"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_changed_certificate_is_served_to_new_connections_without_dropping_open_ones() {
    let dir = tempfile::tempdir().unwrap();
    let first = Ca::new("first CA");
    let (cert, key) = first.leaf_into(dir.path());
    let tls = TlsConfig::from_pem_files(&cert, &key)
        .unwrap()
        .reload_on_sighup(false)
        .watch_interval(Some(Duration::from_millis(50)));
    let running = serve(tls).await;
    let url = running.url();
    let open = first.client(true);
    assert_eq!(
        initialize(&open, &url, None).await.unwrap().status(),
        StatusCode::OK
    );

    let second = Ca::new("second CA");
    let _written = second.leaf_into(dir.path());
    until_served_by(&second, &url).await;
    // The connection opened before still works (a new one would fail: `open` trusts only
    // the first CA).
    assert_eq!(
        initialize(&open, &url, None).await.unwrap().status(),
        StatusCode::OK
    );
    assert!(initialize(&first.client(true), &url, None).await.is_err());
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn sighup_reloads_the_certificate_and_a_bad_file_keeps_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let first = Ca::new("first CA");
    let (cert, key) = first.leaf_into(dir.path());
    let tls = TlsConfig::from_pem_files(&cert, &key)
        .unwrap()
        .watch_interval(None);
    let running = serve(tls.clone()).await;
    let url = running.url();

    // A broken file: the explicit reload fails, the old certificate stays.
    std::fs::write(&cert, "not PEM").unwrap();
    assert!(tls.reload().is_err());
    until_served_by(&first, &url).await;

    let second = Ca::new("second CA");
    let _written = second.leaf_into(dir.path());
    // No watch: nothing changes until SIGHUP.
    assert!(initialize(&second.client(true), &url, None).await.is_err());
    let status = std::process::Command::new("kill")
        .args(["-HUP", &std::process::id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    until_served_by(&second, &url).await;
    running.shutdown().await.unwrap();
}

#[test]
fn missing_or_mismatched_files_are_refused_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("test CA");
    let (cert, key) = ca.leaf_into(dir.path());
    let missing = dir.path().join("missing.pem");
    let error = TlsConfig::from_pem_files(&missing, &key).unwrap_err();
    assert!(error.to_string().contains("missing.pem"), "{error}");
    let error = TlsConfig::from_pem_files(&cert, &missing).unwrap_err();
    assert!(error.to_string().contains("missing.pem"), "{error}");
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    let error = TlsConfig::from_pem_files(&empty, &key).unwrap_err();
    assert!(error.to_string().contains("no certificate"), "{error}");
    // Another leaf's key does not belong to this certificate.
    let other_dir = tempfile::tempdir().unwrap();
    let (_other_cert, other_key) = ca.leaf_into(other_dir.path());
    let error = TlsConfig::from_pem_files(&cert, &other_key).unwrap_err();
    assert!(error.to_string().contains("unusable"), "{error}");
}
