//! The resource server reaches its authorization server over `https://` (features `auth` and
//! `tls`): npm `oidc-provider` served over HTTPS with a certificate of a test CA; the
//! metadata, the JWKS and the introspection endpoint are fetched through rustls trusting that
//! CA (`FetchOptions::root_certificates_pem`), and its tokens are then accepted. Without the
//! CA the same discovery fails (no fallback to plain HTTP, no unverified TLS).

mod oauth_support;
mod tls_support;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use oauth_support::{Provider, RS_CLIENT, RS_SECRET};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tls_support::TestCa;
use typed_mcp::http::auth::{
    FetchError, FetchOptions, IntrospectionValidator, JwtValidator, ResourceServer, TokenValidator,
};
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::ToolContext;

/// A test CA's certificate (PEM) and a certificate of it for 127.0.0.1, written as PEM files
/// in `dir`: (ca, cert, key).
fn test_ca(dir: &std::path::Path) -> (Vec<u8>, PathBuf, PathBuf) {
    let ca = TestCa::new("typed-mcp JWKS test CA");
    let (cert, key) = ca.write_server_identity(dir, &["127.0.0.1"]);
    (ca.pem().into_bytes(), cert, key)
}

/// A free port on 127.0.0.1 (the resource URL names it before the server binds it).
fn free_addr() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    probe.local_addr().unwrap()
}

/// A server at `addr` whose `whoami` tool answers the caller's client id, protected by
/// `validator`; its URL.
async fn serve(addr: SocketAddr, issuer: &str, validator: impl TokenValidator) -> String {
    let resource = format!("http://{addr}/mcp");
    let whoami = ToolDefinition::new("whoami", |ctx: ToolContext, _args: Value| async move {
        let auth = ctx.auth().expect("an identity on a protected server");
        Ok(json!({"client": auth.client_id}))
    })
    .unwrap();
    let server = McpServer::builder("protected", "1.0.0")
        .tool(whoami)
        .build()
        .unwrap();
    let auth = ResourceServer::new(&resource, issuer, validator).require_scopes(["notes:read"]);
    let options = server.http_options().bound_to(addr).auth(auth);
    let running = server.serve_http_with(addr, options).await.unwrap();
    let url = running.url();
    // Served until the test's runtime ends.
    std::mem::forget(running);
    url
}

/// The client id the tool saw, or the HTTP status when the call was refused.
async fn whoami(url: &str, token: &str) -> Result<String, StatusCode> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "whoami", "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "jwks-test", "version": "1"}}}});
    let answer = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "whoami")
        .bearer_auth(token)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    if answer.status() != StatusCode::OK {
        return Err(answer.status());
    }
    let body: Value = serde_json::from_str(&answer.text().await.unwrap()).unwrap();
    Ok(body["result"]["structuredContent"]["data"]["client"]
        .as_str()
        .unwrap_or_else(|| panic!("no client: {body}"))
        .to_owned())
}

#[tokio::test]
async fn the_jwks_and_introspection_are_fetched_over_https_trusting_the_given_ca() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = test_ca(dir.path());
    let Some(provider) = Provider::start_tls(&cert, &key, &ca) else {
        return;
    };
    assert!(
        provider.issuer.starts_with("https://"),
        "{}",
        provider.issuer
    );
    let trusted = FetchOptions::new().root_certificates_pem(&ca).unwrap();

    // Without the CA the provider is not trusted: no fallback, no unverified TLS.
    let addr = free_addr();
    let resource = format!("http://{addr}/mcp");
    let untrusted = JwtValidator::discover(&provider.issuer, &resource).await;
    assert!(
        matches!(untrusted, Err(FetchError::Unreachable { .. })),
        "{untrusted:?}"
    );

    // JWT mode: the metadata and the JWKS come over https; the provider's token is accepted.
    let validator = JwtValidator::discover_with(&provider.issuer, &resource, &trusted)
        .await
        .unwrap();
    let url = serve(addr, &provider.issuer, validator).await;
    let token = provider
        .access_token("mcp-cc", &resource, "notes:read")
        .await;
    assert_eq!(whoami(&url, &token).await, Ok("mcp-cc".to_owned()));
    assert_eq!(
        whoami(&url, "not.a.token").await,
        Err(StatusCode::UNAUTHORIZED)
    );

    // Introspection mode: the endpoint is found and asked over https.
    let addr = free_addr();
    let resource = format!("http://{addr}/mcp");
    let validator = IntrospectionValidator::discover_with(
        &provider.issuer,
        &resource,
        RS_CLIENT,
        RS_SECRET,
        &trusted,
    )
    .await
    .unwrap();
    let url = serve(addr, &provider.issuer, validator).await;
    let opaque = provider
        .access_token("mcp-cc-opaque", &resource, "notes:read")
        .await;
    assert_eq!(whoami(&url, &opaque).await, Ok("mcp-cc-opaque".to_owned()));
    assert_eq!(whoami(&url, "made-up").await, Err(StatusCode::UNAUTHORIZED));
}

#[test]
fn a_root_certificate_that_does_not_parse_is_refused_quoting_nothing() {
    let error = FetchOptions::new()
        .root_certificates_pem(b"-----BEGIN CERTIFICATE-----\nsecret-looking\n")
        .unwrap_err();
    assert!(
        matches!(error, FetchError::InvalidCertificate { .. }),
        "{error:?}"
    );
    assert!(!error.to_string().contains("secret-looking"), "{error}");
    let none = FetchOptions::new()
        .root_certificates_pem(b"no pem here")
        .unwrap_err();
    assert!(
        matches!(none, FetchError::InvalidCertificate { .. }),
        "{none}"
    );
}
