//! The MCP server as an OAuth resource server (feature `auth`), against a real OpenID
//! provider we did not write: npm `oidc-provider` (tests/oauth/provider.mjs). Its JWT access
//! tokens are accepted, and the caller's identity reaches the tool; refused: no token,
//! expired, another audience, another key, `alg: none`, an HMAC with the public key, keys
//! rotated until the JWKS is fetched again; 403 `insufficient_scope` for a tool needing
//! `notes:write`; a session bound to the principal that opened it; an unreachable JWKS fails
//! closed; introspection mode against the same provider. Behind our own axum `Router` and
//! through `serve_http_with`'s `auth` option.

mod oauth_support;

use std::net::SocketAddr;
use std::time::Duration;

use base64::Engine;
use oauth_support::{Provider, RS_CLIENT, RS_SECRET};
use reqwest::{Client, StatusCode};
use serde_json::{json, Value};
use typed_mcp::http::auth::{IntrospectionValidator, JwtValidator, ResourceServer, TokenValidator};
use typed_mcp::mcp::{McpServer, ToolDefinition};
use typed_mcp::tools::ToolContext;

const HANG_GUARD: Duration = Duration::from_secs(60);

/// A server with `whoami` (answers the caller's identity) and `add_note`.
fn protected_server() -> McpServer {
    let whoami = ToolDefinition::new("whoami", |ctx: ToolContext, _args: Value| async move {
        let auth = ctx.auth().expect("an identity on a protected server");
        Ok(json!({"sub": auth.subject, "client": auth.client_id, "scopes": auth.scopes}))
    })
    .unwrap()
    .description("Who called.");
    let add_note = ToolDefinition::new("add_note", |_ctx: ToolContext, _args: Value| async move {
        Ok(Value::from("added"))
    })
    .unwrap()
    .description("Adds a note.");
    McpServer::builder("protected", "1.0.0")
        .tool(whoami)
        .tool(add_note)
        .build()
        .unwrap()
}

/// The resource server of the tests: `notes:read` for everything, `notes:write` for
/// `add_note`.
fn resource_server(resource: &str, issuer: &str, validator: impl TokenValidator) -> ResourceServer {
    ResourceServer::new(resource, issuer, validator)
        .scopes_supported(["notes:read", "notes:write"])
        .require_scopes(["notes:read"])
        .tool_scopes("add_note", ["notes:write"])
}

/// [`protected_server`] protected by `validator` in an axum `Router` of ours, at
/// `http://ADDR/mcp` from `listener`.
async fn serve(
    listener: tokio::net::TcpListener,
    issuer: &str,
    validator: impl TokenValidator,
) -> (String, tokio::task::JoinHandle<()>) {
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let server = protected_server();
    let auth = resource_server(&resource, issuer, validator);
    let options = server.http_options().bound_to(addr);
    let mcp = auth.layer().into_service(server.http_service(options));
    let mut app = axum::Router::new().route_service("/mcp", mcp);
    for path in auth.metadata_paths() {
        app = app.route_service(&path, auth.metadata_service());
    }
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (resource, task)
}

async fn listener() -> tokio::net::TcpListener {
    tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap()
}

fn client() -> Client {
    Client::builder().timeout(HANG_GUARD).build().unwrap()
}

/// A 2026-07-28 `tools/call` of `tool`.
async fn call(client: &Client, url: &str, token: Option<&str>, tool: &str) -> reqwest::Response {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "auth-test", "version": "1"}}}});
    let mut request = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("an answer")
}

fn challenge(answer: &reqwest::Response) -> String {
    answer
        .headers()
        .get("www-authenticate")
        .expect("a WWW-Authenticate header")
        .to_str()
        .unwrap()
        .to_owned()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn jwt_json(token: &str, part: usize) -> Value {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token.split('.').nth(part).unwrap())
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test]
async fn provider_tokens_are_checked_and_the_identity_reaches_the_tool() {
    let Some(provider) = Provider::start() else {
        return;
    };
    let listener = listener().await;
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let validator = JwtValidator::discover(&provider.issuer, &resource)
        .await
        .unwrap()
        .leeway(Duration::ZERO);
    let (url, _task) = serve(listener, &provider.issuer, validator).await;
    let client = client();

    // No token: 401 naming the metadata, which is served.
    let answer = call(&client, &url, None, "whoami").await;
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
    let metadata_url = resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    assert!(
        challenge(&answer).contains(&format!("resource_metadata=\"{metadata_url}\"")),
        "{}",
        challenge(&answer)
    );
    let metadata: Value = serde_json::from_str(
        &client
            .get(&metadata_url)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(metadata["resource"], resource.as_str());
    assert_eq!(metadata["authorization_servers"], json!([provider.issuer]));

    // A token of the provider for this resource: the tool sees who called.
    let token = provider
        .access_token("mcp-cc", &resource, "notes:read")
        .await;
    let answer = call(&client, &url, Some(&token), "whoami").await;
    assert_eq!(answer.status(), StatusCode::OK);
    let body: Value = serde_json::from_str(&answer.text().await.unwrap()).unwrap();
    let identity = &body["result"]["structuredContent"]["data"];
    assert_eq!(identity["sub"], "mcp-cc", "{body}");
    assert_eq!(identity["client"], "mcp-cc");
    assert_eq!(identity["scopes"], json!(["notes:read"]));

    // notes:read cannot add a note: 403 with the step-up challenge; notes:write can.
    let answer = call(&client, &url, Some(&token), "add_note").await;
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    let step_up = challenge(&answer);
    assert!(
        step_up.contains("error=\"insufficient_scope\""),
        "{step_up}"
    );
    assert!(step_up.contains("scope=\"notes:write\""), "{step_up}");
    let writer = provider
        .access_token("mcp-cc", &resource, "notes:read notes:write")
        .await;
    assert_eq!(
        call(&client, &url, Some(&writer), "add_note")
            .await
            .status(),
        StatusCode::OK
    );

    // Another audience (RFC 8707): refused.
    let other = provider
        .access_token("mcp-cc", "http://127.0.0.1:1/other", "notes:read")
        .await;
    let answer = call(&client, &url, Some(&other), "whoami").await;
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
    assert!(challenge(&answer).contains("error=\"invalid_token\""));

    // Expired: a 1-second token, zero leeway.
    let short = provider
        .access_token("mcp-cc-short", &resource, "notes:read")
        .await;
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(
        call(&client, &url, Some(&short), "whoami").await.status(),
        StatusCode::UNAUTHORIZED
    );

    // Another key under the provider's kid, alg none, HMAC keyed with the public key.
    let header = jwt_json(&token, 0);
    let claims = jwt_json(&token, 1);
    let mut es_header = header.clone();
    let es = provider
        .access_token("mcp-cc-es256", &resource, "notes:read")
        .await;
    es_header["kid"] = jwt_json(&es, 0)["kid"].clone();
    es_header["alg"] = "ES256".into();
    let stranger = rcgen::KeyPair::generate().unwrap();
    let forged = {
        let key = jsonwebtoken::EncodingKey::from_ec_der(&stranger.serialize_der());
        let mut h = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        h.kid = es_header["kid"].as_str().map(str::to_owned);
        h.typ = Some("at+jwt".into());
        jsonwebtoken::encode(&h, &claims, &key).unwrap()
    };
    assert_eq!(
        call(&client, &url, Some(&forged), "whoami").await.status(),
        StatusCode::UNAUTHORIZED
    );
    let mut none_header = header.clone();
    none_header["alg"] = "none".into();
    let none = format!(
        "{}.{}.",
        b64(none_header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    assert_eq!(
        call(&client, &url, Some(&none), "whoami").await.status(),
        StatusCode::UNAUTHORIZED
    );
    let jwks = provider.get_json("/jwks").await;
    let rsa = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kty"] == "RSA")
        .unwrap();
    let hmac = {
        let key = jsonwebtoken::EncodingKey::from_secret(rsa["n"].as_str().unwrap().as_bytes());
        let mut h = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
        h.kid = rsa["kid"].as_str().map(str::to_owned);
        h.typ = Some("at+jwt".into());
        jsonwebtoken::encode(&h, &claims, &key).unwrap()
    };
    assert_eq!(
        call(&client, &url, Some(&hmac), "whoami").await.status(),
        StatusCode::UNAUTHORIZED
    );
    // The genuine token still works after all that.
    assert_eq!(
        call(&client, &url, Some(&token), "whoami").await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn rotated_keys_are_found_when_the_jwks_may_be_fetched_again() {
    let Some(provider) = Provider::start() else {
        return;
    };
    let listener = listener().await;
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let interval = Duration::from_secs(4);
    let validator = JwtValidator::discover(&provider.issuer, &resource)
        .await
        .unwrap()
        .refetch_interval(interval);
    let started = std::time::Instant::now();
    let (url, _task) = serve(listener, &provider.issuer, validator).await;
    let client = client();
    let old = provider
        .access_token("mcp-cc", &resource, "notes:read")
        .await;
    assert_eq!(
        call(&client, &url, Some(&old), "whoami").await.status(),
        StatusCode::OK
    );

    let _kids = provider.rotate_keys().await;
    let new = provider
        .access_token("mcp-cc", &resource, "notes:read")
        .await;
    let early = call(&client, &url, Some(&new), "whoami").await.status();
    if started.elapsed() < interval {
        // The JWKS was fetched less than the interval ago: no fetch, the new kid is unknown.
        assert_eq!(early, StatusCode::UNAUTHORIZED);
    }
    tokio::time::sleep(interval.saturating_sub(started.elapsed())).await;
    assert_eq!(
        call(&client, &url, Some(&new), "whoami").await.status(),
        StatusCode::OK
    );
    // The old key is gone from the JWKS now.
    assert_eq!(
        call(&client, &url, Some(&old), "whoami").await.status(),
        StatusCode::UNAUTHORIZED
    );
}

/// A 2025-11-25 `initialize` with `token`: the session id.
async fn open_session(client: &Client, url: &str, token: &str) -> String {
    let body = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    let answer = client
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    answer.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned()
}

async fn list_on(client: &Client, url: &str, session: &str, token: &str) -> StatusCode {
    let body = json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}});
    client
        .post(url)
        .bearer_auth(token)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn a_session_belongs_to_the_principal_that_opened_it() {
    let Some(provider) = Provider::start() else {
        return;
    };
    let listener = listener().await;
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let validator = JwtValidator::discover(&provider.issuer, &resource)
        .await
        .unwrap();
    let (url, _task) = serve(listener, &provider.issuer, validator).await;
    let client = client();
    let alice = provider
        .access_token("mcp-cc", &resource, "notes:read")
        .await;
    let session = open_session(&client, &url, &alice).await;
    assert_eq!(
        list_on(&client, &url, &session, &alice).await,
        StatusCode::OK
    );
    // Another token of the same principal is fine; another principal's is not.
    let alice_again = provider
        .access_token("mcp-cc", &resource, "notes:read")
        .await;
    assert_eq!(
        list_on(&client, &url, &session, &alice_again).await,
        StatusCode::OK
    );
    let mallory = provider
        .access_token("mcp-cc-es256", &resource, "notes:read")
        .await;
    assert_eq!(
        list_on(&client, &url, &session, &mallory).await,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn serve_http_with_the_auth_option_protects_mcp_and_serves_the_metadata() {
    let Some(provider) = Provider::start() else {
        return;
    };
    let probe = listener().await;
    let addr = probe.local_addr().unwrap();
    drop(probe);
    let resource = format!("http://{addr}/mcp");
    let validator = JwtValidator::discover(&provider.issuer, &resource)
        .await
        .unwrap();
    let server = protected_server();
    let options = server.http_options().bound_to(addr).auth(resource_server(
        &resource,
        &provider.issuer,
        validator,
    ));
    let running = server.serve_http_with(addr, options).await.unwrap();
    let url = running.url();
    let client = client();
    let answer = call(&client, &url, None, "whoami").await;
    assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
    let metadata_url = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");
    assert!(
        challenge(&answer).contains(&metadata_url),
        "{}",
        challenge(&answer)
    );
    let metadata = client
        .get(&metadata_url)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let metadata: Value = serde_json::from_str(&metadata).unwrap();
    assert_eq!(metadata["resource"], resource.as_str());
    let token = provider
        .access_token("mcp-cc", &resource, "notes:read")
        .await;
    let answer = call(&client, &url, Some(&token), "whoami").await;
    assert_eq!(answer.status(), StatusCode::OK);
    let body: Value = serde_json::from_str(&answer.text().await.unwrap()).unwrap();
    assert_eq!(
        body["result"]["structuredContent"]["data"]["sub"], "mcp-cc",
        "{body}"
    );
    let step_up = call(&client, &url, Some(&token), "add_note").await;
    assert_eq!(step_up.status(), StatusCode::FORBIDDEN);
    // Other paths are still 404, with or without a token.
    let other = client
        .get(format!("http://{addr}/other"))
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), StatusCode::NOT_FOUND);
    running.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_unreachable_jwks_fails_closed() {
    let closed = listener().await;
    let dead = closed.local_addr().unwrap();
    drop(closed);
    let listener = listener().await;
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let issuer = format!("http://{dead}");
    let validator = JwtValidator::new(&issuer, &resource, format!("{issuer}/jwks"));
    let (url, _task) = serve(listener, &issuer, validator).await;
    // A well-formed token naming a kid: the JWKS cannot be fetched, so it is not accepted.
    let header = b64(br#"{"alg":"RS256","typ":"at+jwt","kid":"k1"}"#);
    let claims = b64(br#"{"sub":"x","iss":"x","aud":"x","exp":9999999999}"#);
    let token = format!("{header}.{claims}.{}", b64(b"sig"));
    let answer = call(&client(), &url, Some(&token), "whoami").await;
    assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn introspection_mode_accepts_active_tokens_for_this_resource_only() {
    let Some(provider) = Provider::start() else {
        return;
    };
    let listener = listener().await;
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let validator =
        IntrospectionValidator::discover(&provider.issuer, &resource, RS_CLIENT, RS_SECRET)
            .await
            .unwrap();
    let (url, _task) = serve(listener, &provider.issuer, validator).await;
    let client = client();
    let token = provider
        .access_token("mcp-cc-opaque", &resource, "notes:read")
        .await;
    let answer = call(&client, &url, Some(&token), "whoami").await;
    assert_eq!(answer.status(), StatusCode::OK);
    let body: Value = serde_json::from_str(&answer.text().await.unwrap()).unwrap();
    assert_eq!(
        body["result"]["structuredContent"]["data"]["client"], "mcp-cc-opaque",
        "{body}"
    );
    let other = provider
        .access_token("mcp-cc-opaque", "http://127.0.0.1:1/other", "notes:read")
        .await;
    assert_eq!(
        call(&client, &url, Some(&other), "whoami").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        call(&client, &url, Some("made-up"), "whoami")
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    // Step-up works the same in this mode.
    assert_eq!(
        call(&client, &url, Some(&token), "add_note").await.status(),
        StatusCode::FORBIDDEN
    );
}

#[tokio::test]
async fn a_flood_of_garbage_authorization_is_answered_401_each_time() {
    let listener = listener().await;
    let addr: SocketAddr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    // Keys that cannot be fetched: garbage must be refused before any fetch is tried (a
    // well-formed token with a kid would get 503, which the flood below never sends).
    let issuer = "http://127.0.0.1:9";
    let validator = JwtValidator::new(issuer, &resource, format!("{issuer}/jwks"));
    let (url, _task) = serve(listener, issuer, validator).await;
    let client = client();
    // Nested 4,000 deep: within the 16 KiB the layer reads, far past serde_json's depth limit.
    let deep = format!("{}{}", "[".repeat(4_000), "]".repeat(4_000));
    let bomb_header = std::sync::Arc::new(b64(deep.as_bytes()));
    let rss_before = rss_kib();
    // 16 connections, 625 requests each.
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..16_u64 {
        let (client, url, bomb_header) = (client.clone(), url.clone(), bomb_header.clone());
        let _abort = workers.spawn(async move {
            let mut statuses = std::collections::HashMap::new();
            let mut seed = 0x9e37_79b9_7f4a_7c15_u64 ^ (worker << 32);
            for round in 0..625_u32 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let value = garbage(round, seed, &bomb_header);
                let header = reqwest::header::HeaderValue::from_bytes(&value).unwrap();
                let status = client
                    .post(&url)
                    .header("authorization", header)
                    .header("content-type", "application/json")
                    .body("{}")
                    .send()
                    .await
                    .unwrap()
                    .status();
                *statuses.entry(status).or_insert(0_u32) += 1;
            }
            statuses
        });
    }
    let mut statuses = std::collections::HashMap::new();
    while let Some(done) = workers.join_next().await {
        for (status, count) in done.unwrap() {
            *statuses.entry(status).or_insert(0_u32) += count;
        }
    }
    assert_eq!(
        statuses.get(&StatusCode::UNAUTHORIZED),
        Some(&10_000),
        "{statuses:?}"
    );
    let rss_after = rss_kib();
    eprintln!("flood: RSS {rss_before} KiB -> {rss_after} KiB");
    // Bounded: the process (client and server) grows by less than 64 MiB over the flood.
    assert!(
        rss_after < rss_before + 64 * 1024,
        "RSS {rss_before} -> {rss_after} KiB"
    );
}

/// The `Authorization` value of flood request `round`: over-long, non-ASCII, a truncated
/// JWT, a JSON bomb in the header, or another scheme.
fn garbage(round: u32, seed: u64, bomb_header: &str) -> Vec<u8> {
    match round % 5 {
        // Longer than the 16 KiB the layer reads (hyper itself refuses past its own limit).
        0 => format!("Bearer {}", "A".repeat(16_400 + (seed % 1000) as usize)).into_bytes(),
        1 => {
            let mut value = b"Bearer ".to_vec();
            value.extend((0..64).map(|i| 0x80 | ((seed >> (i % 56)) as u8 & 0x7f)));
            value
        }
        2 => format!(
            "Bearer {}.{}",
            b64(br#"{"alg":"RS256","kid":"k"}"#),
            &b64(&seed.to_le_bytes())[..5]
        )
        .into_bytes(),
        3 => format!("Bearer {bomb_header}.{}.{}", b64(b"{}"), b64(b"s")).into_bytes(),
        _ => format!("Basic {}", b64(&seed.to_be_bytes())).into_bytes(),
    }
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
