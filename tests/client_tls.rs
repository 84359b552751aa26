//! The client over `https://`: a CA made in the test, a TLS server in the test in front of
//! an in-process MCP server. HTTP/2 is chosen by ALPN when offered, HTTP/1.1 otherwise; the
//! options' headers and bearer token reach the server; a certificate that does not verify
//! is `ClientError::Tls` naming the host, and no HTTP request is sent.

mod tls_support;

use hyper::Version;
use typed_mcp::client::{Client, ClientError, ClientOptions};
use typed_mcp::http::HttpOptions;
use typed_mcp::mcp::McpServer;

use tls_support::{TestCa, TlsServer};

fn service() -> typed_mcp::http::McpHttpService {
    let server = McpServer::builder("tls-test", "1.0.0")
        .build()
        .expect("a server");
    server.http_service(HttpOptions::default())
}

fn options() -> ClientOptions {
    ClientOptions::new("tls-test-client", "1.0.0")
        .request_timeout(std::time::Duration::from_secs(20))
        .platform_roots(false)
}

async fn server(ca: &TestCa, names: &[&str], alpn: &[&[u8]]) -> TlsServer {
    let (chain, key) = ca.server_identity(names);
    TlsServer::start(service(), chain, key, alpn).await
}

#[tokio::test]
async fn https_with_a_test_ca_speaks_http2_by_alpn_and_sends_the_headers() {
    let ca = TestCa::new("typed-mcp test CA");
    let server = server(&ca, &["localhost", "127.0.0.1"], &[b"h2", b"http/1.1"]).await;
    let options = options()
        .root_certificates_pem(ca.pem().as_bytes())
        .expect("the CA parses")
        .header("X-Api-Key", "key-123")
        .expect("a valid header")
        .bearer_token("secret-token-456")
        .expect("a valid token");
    let client = Client::connect_http(&server.url("localhost"), options)
        .await
        .expect("connects over https");
    let tools = client.list_tools().await.expect("tools/list");
    assert!(tools.is_empty());
    client.close().await;
    let seen = server.seen();
    assert!(seen.len() >= 2, "{seen:?}");
    for request in &seen {
        assert_eq!(request.version, Version::HTTP_2);
        assert_eq!(request.headers["x-api-key"], "key-123");
        assert_eq!(request.headers["authorization"], "Bearer secret-token-456");
    }
}

#[tokio::test]
async fn https_falls_back_to_http1_when_the_server_offers_only_that() {
    let ca = TestCa::new("typed-mcp test CA");
    let server = server(&ca, &["127.0.0.1"], &[b"http/1.1"]).await;
    let options = options()
        .root_certificates_pem(ca.pem().as_bytes())
        .expect("the CA parses");
    let client = Client::connect_http(&server.url("127.0.0.1"), options)
        .await
        .expect("connects over https");
    client.list_tools().await.expect("tools/list");
    let seen = server.seen();
    assert!(!seen.is_empty());
    assert!(
        seen.iter().all(|r| r.version == Version::HTTP_11),
        "{seen:?}"
    );
}

#[tokio::test]
async fn a_certificate_from_an_unknown_ca_is_a_tls_error_naming_the_host() {
    let trusted = TestCa::new("trusted CA");
    let other = TestCa::new("other CA");
    let server = server(&other, &["localhost"], &[b"h2", b"http/1.1"]).await;
    let options = options()
        .root_certificates_pem(trusted.pem().as_bytes())
        .expect("the CA parses")
        .bearer_token("never-sent-token")
        .expect("a valid token");
    let error = Client::connect_http(&server.url("localhost"), options)
        .await
        .expect_err("the certificate does not verify");
    match &error {
        ClientError::Tls { host, reason } => {
            assert_eq!(host, "localhost");
            assert!(reason.contains("UnknownIssuer"), "{reason}");
        }
        other => panic!("expected ClientError::Tls, got {other:?}"),
    }
    assert!(!error.to_string().contains("never-sent-token"));
    assert!(server.seen().is_empty(), "no request may reach the server");
}

#[tokio::test]
async fn a_certificate_for_another_name_is_a_tls_error() {
    let ca = TestCa::new("typed-mcp test CA");
    let server = server(&ca, &["other.test"], &[b"http/1.1"]).await;
    let options = options()
        .root_certificates_pem(ca.pem().as_bytes())
        .expect("the CA parses");
    let error = Client::connect_http(&server.url("127.0.0.1"), options)
        .await
        .expect_err("the name does not match");
    assert!(
        matches!(&error, ClientError::Tls { host, .. } if host == "127.0.0.1"),
        "{error:?}"
    );
    assert!(server.seen().is_empty());
}

#[test]
fn bad_headers_and_certificates_are_refused_when_the_options_are_built() {
    let base = || ClientOptions::new("t", "1");
    for (name, value) in [
        ("X-Ok", "line\nbreak-value-1"),
        ("X-Ok", "nul\0value-2"),
        ("Bad Name", "value-3"),
        ("Content-Type", "value-4"),
        ("Mcp-Session-Id", "value-5"),
    ] {
        let error = base().header(name, value).expect_err(name);
        assert!(
            matches!(error, ClientError::InvalidHeader { .. }),
            "{error:?}"
        );
        assert!(!error.to_string().contains(value), "{error}");
    }
    for token in ["", "two words", "new\nline"] {
        let error = base().bearer_token(token).expect_err(token);
        assert!(matches!(error, ClientError::InvalidHeader { .. }));
    }
    let error = base()
        .root_certificates_pem(b"not a certificate")
        .expect_err("no PEM block");
    assert!(matches!(error, ClientError::InvalidCertificate { .. }));
    let broken = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    assert!(base().root_certificates_pem(broken).is_err());
    // Secrets stay out of Debug.
    let options = base()
        .bearer_token("tok-789")
        .unwrap()
        .header("X-Api-Key", "key-000")
        .unwrap();
    let debug = format!("{options:?}");
    assert!(
        !debug.contains("tok-789") && !debug.contains("key-000"),
        "{debug}"
    );
}
