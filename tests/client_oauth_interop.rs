//! The OAuth client against an OpenID provider we did not write: npm `oidc-provider`
//! (tests/oauth/provider.mjs) as the authorization server of our own MCP server, which a
//! small resource-server guard in this test protects (it verifies the provider's RS256 JWT
//! access tokens against its JWKS: signature, issuer, audience = the resource, expiry).
//!
//! - authorization code + PKCE with dynamic registration: the test plays the user at the
//!   provider's login and consent pages over HTTP; then the token expires (in the store)
//!   and the client refreshes it with the refresh token before the next request;
//! - client credentials (`client_secret_basic`);
//! - the same over `https://` with a CA made in the test.

mod oauth_support;
mod tls_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{json, Value};
use typed_mcp::client::auth::{
    AuthError, AuthorizationStep, MemoryTokenStore, OAuthOptions, StepFuture, StoredTokens,
    TokenStore,
};
use typed_mcp::client::{Client, ClientOptions};
use typed_mcp::http::HttpOptions;
use typed_mcp::mcp::McpServer;

use oauth_support::{Provider, CC_SECRET};

/// What the guard in front of the MCP server knows and saw.
#[derive(Clone)]
struct Guard {
    issuer: String,
    resource: String,
    jwks: Value,
    mcp: typed_mcp::http::McpHttpService,
    /// Every token it accepted, in order.
    accepted: Arc<Mutex<Vec<String>>>,
}

impl Guard {
    /// Whether `token` is an RS256 JWT of the provider for this resource, unexpired.
    fn verify(&self, token: &str) -> bool {
        let parts: Vec<&str> = token.split('.').collect();
        let [header, claims, signature] = parts.as_slice() else {
            return false;
        };
        let decode = |part: &str| URL_SAFE_NO_PAD.decode(part).ok();
        let json = |part: &str| decode(part).and_then(|b| serde_json::from_slice::<Value>(&b).ok());
        let (Some(header_json), Some(claims_json), Some(signature)) =
            (json(header), json(claims), decode(signature))
        else {
            return false;
        };
        if header_json["alg"] != "RS256" {
            return false;
        }
        let Some(key) = self.jwks["keys"]
            .as_array()
            .and_then(|keys| keys.iter().find(|k| k["kid"] == header_json["kid"]))
        else {
            return false;
        };
        let (Some(n), Some(e)) = (
            key["n"].as_str().and_then(decode),
            key["e"].as_str().and_then(decode),
        ) else {
            return false;
        };
        let public = ring::signature::RsaPublicKeyComponents { n, e };
        let message = format!("{header}.{claims}");
        if public
            .verify(
                &ring::signature::RSA_PKCS1_2048_8192_SHA256,
                message.as_bytes(),
                &signature,
            )
            .is_err()
        {
            return false;
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        claims_json["iss"] == self.issuer.as_str()
            && claims_json["aud"] == self.resource.as_str()
            && claims_json["exp"].as_u64().is_some_and(|exp| exp > now)
    }
}

async fn guarded(State(guard): State<Guard>, request: Request) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    match token {
        Some(token) if guard.verify(&token) => {
            guard.accepted.lock().unwrap().push(token);
            let answer = tower::ServiceExt::oneshot(guard.mcp.clone(), request).await;
            match answer {
                Ok(response) => response.into_response(),
                Err(never) => match never {},
            }
        }
        _ => {
            let challenge = format!(
                r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
                guard.resource.trim_end_matches("/mcp")
            );
            (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, challenge)],
            )
                .into_response()
        }
    }
}

async fn resource_metadata(State(guard): State<Guard>) -> Response {
    json_response(json!({
        "resource": guard.resource,
        "authorization_servers": [guard.issuer],
        "scopes_supported": ["notes:read"],
    }))
    .into_response()
}

/// Our MCP server behind the guard, as an axum app; `base` is the URL it is reached at.
async fn protected_app(provider: &Provider, base: &str) -> (Router, Guard) {
    let server = McpServer::builder("interop", "1.0.0")
        .build()
        .expect("a server");
    let discovery = provider.get_json("/.well-known/openid-configuration").await;
    let jwks_path = discovery["jwks_uri"]
        .as_str()
        .expect("jwks_uri")
        .trim_start_matches(&provider.issuer)
        .to_owned();
    let guard = Guard {
        issuer: provider.issuer.clone(),
        resource: format!("{base}/mcp"),
        jwks: provider.get_json(&jwks_path).await,
        mcp: server.http_service(HttpOptions::default()),
        accepted: Arc::default(),
    };
    let app = Router::new()
        .route("/mcp", any(guarded))
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_metadata),
        )
        .with_state(guard.clone());
    (app, guard)
}

/// The user at the provider's development login and consent pages: follows the redirects
/// with the provider's cookies, logs in, consents, and returns the redirect to the client.
#[derive(Debug)]
struct ProviderUser {
    http: reqwest::Client,
    logins: Arc<Mutex<usize>>,
}

impl ProviderUser {
    fn new() -> Self {
        Self {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            logins: Arc::default(),
        }
    }

    async fn walk(&self, start: &str) -> Result<String, AuthError> {
        let failed = |reason: String| AuthError::UserStep { reason };
        let mut cookies: Vec<(String, String)> = Vec::new();
        let mut url = url::Url::parse(start).map_err(|e| failed(e.to_string()))?;
        let mut form: Option<Vec<(&str, &str)>> = None;
        for _ in 0..20 {
            let cookie = cookies
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join("; ");
            let request = match form.take() {
                Some(fields) => self.http.post(url.clone()).form(&fields),
                None => self.http.get(url.clone()),
            };
            let response = request
                .header(header::COOKIE, cookie)
                .send()
                .await
                .map_err(|e| failed(format!("{url}: {}", chain(&e))))?;
            for value in response.headers().get_all(header::SET_COOKIE) {
                let text = value.to_str().unwrap_or_default();
                let pair = text.split(';').next().unwrap_or_default();
                if let Some((name, value)) = pair.split_once('=') {
                    cookies.retain(|(n, _)| n != name);
                    cookies.push((name.to_owned(), value.to_owned()));
                }
            }
            if response.status().is_redirection() {
                let location = response
                    .headers()
                    .get(header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| failed("a redirect without Location".into()))?;
                let next = url.join(location).map_err(|e| failed(e.to_string()))?;
                if next.path() == "/callback" {
                    return Ok(next.to_string());
                }
                url = next;
                continue;
            }
            let status = response.status();
            let page = response.text().await.unwrap_or_default();
            if !status.is_success() {
                return Err(failed(format!("the provider answered {status}: {page}")));
            }
            form = Some(if page.contains("name=\"login\"") {
                *self.logins.lock().unwrap() += 1;
                vec![("prompt", "login"), ("login", "alice"), ("password", "any")]
            } else {
                vec![("prompt", "consent")]
            });
        }
        Err(failed("too many steps at the provider".into()))
    }
}

impl AuthorizationStep for ProviderUser {
    fn redirect_uri(&self) -> String {
        // Registered by the client (RFC 8252 loopback); never contacted: the test takes
        // the redirect from the provider's Location header.
        "http://127.0.0.1:9/callback".to_owned()
    }

    fn authorize<'a>(&'a self, url: &'a str) -> StepFuture<'a> {
        Box::pin(self.walk(url))
    }
}

/// An error with its sources.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// A store the test can reach into (to expire the token).
#[derive(Debug, Clone, Default)]
struct SharedStore(Arc<MemoryTokenStore>);

impl TokenStore for SharedStore {
    fn load(&self, resource: &str) -> Result<Option<StoredTokens>, AuthError> {
        self.0.load(resource)
    }
    fn save(&self, resource: &str, tokens: &StoredTokens) -> Result<(), AuthError> {
        self.0.save(resource, tokens)
    }
    fn clear(&self, resource: &str) -> Result<(), AuthError> {
        self.0.clear(resource)
    }
}

fn options() -> ClientOptions {
    ClientOptions::new("oauth-interop", "1.0.0").request_timeout(Duration::from_secs(30))
}

#[tokio::test]
async fn authorization_code_with_pkce_then_refresh_after_expiry() {
    let Some(provider) = Provider::start() else {
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let (app, guard) = protected_app(&provider, &base).await;
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let store = SharedStore::default();
    let user = ProviderUser::new();
    let logins = Arc::clone(&user.logins);
    let oauth =
        OAuthOptions::authorization_code("typed-mcp-interop", user).token_store(store.clone());
    let url = format!("{base}/mcp");
    let client = Client::connect_http(&url, options().oauth(oauth))
        .await
        .expect("authorized and connected");
    client
        .list_tools()
        .await
        .expect("tools/list with the token");
    assert_eq!(*logins.lock().unwrap(), 1, "the user logged in once");
    let first = guard
        .accepted
        .lock()
        .unwrap()
        .last()
        .cloned()
        .expect("a token");
    let mut tokens = store.load(&url).unwrap().expect("stored tokens");
    assert!(
        tokens.refresh_token.is_some(),
        "offline_access gave a refresh token"
    );
    assert_eq!(tokens.resource, url);
    // The access token expires: the next request refreshes it first.
    tokens.expires_at = Some(0);
    store.save(&url, &tokens).unwrap();
    // A new client with the same store (a later run of a program).
    let user = ProviderUser::new();
    let later_logins = Arc::clone(&user.logins);
    let oauth =
        OAuthOptions::authorization_code("typed-mcp-interop", user).token_store(store.clone());
    let client = Client::connect_http(&url, options().oauth(oauth))
        .await
        .expect("connected with the refreshed token");
    client
        .list_tools()
        .await
        .expect("tools/list after the refresh");
    let second = guard
        .accepted
        .lock()
        .unwrap()
        .last()
        .cloned()
        .expect("a token");
    assert_ne!(first, second, "a new access token");
    assert_eq!(
        *later_logins.lock().unwrap(),
        0,
        "no user step for a refresh"
    );
    server.abort();
}

#[tokio::test]
async fn client_credentials_over_http_and_https() {
    let Some(provider) = Provider::start() else {
        return;
    };
    // Plain HTTP.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let (app, guard) = protected_app(&provider, &base).await;
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let oauth = OAuthOptions::client_credentials("mcp-cc", CC_SECRET);
    let client = Client::connect_http(&format!("{base}/mcp"), options().oauth(oauth))
        .await
        .expect("client credentials");
    client.list_tools().await.expect("tools/list");
    assert!(!guard.accepted.lock().unwrap().is_empty());
    server.abort();

    // HTTPS with a CA made in the test.
    let ca = tls_support::TestCa::new("interop CA");
    let (chain, key) = ca.server_identity(&["localhost"]);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let base = format!("https://localhost:{port}");
    let (app, guard) = protected_app(&provider, &base).await;
    let tls = tls_support::TlsServer::start_on(port, app, chain, key, &[b"h2", b"http/1.1"]).await;
    let options = options()
        .platform_roots(false)
        .root_certificates_pem(ca.pem().as_bytes())
        .expect("the CA");
    let oauth = OAuthOptions::client_credentials("mcp-cc", CC_SECRET);
    let client = Client::connect_http(&tls.url("localhost"), options.oauth(oauth))
        .await
        .expect("client credentials over https");
    client.list_tools().await.expect("tools/list over https");
    assert!(!guard.accepted.lock().unwrap().is_empty());
}

/// A JSON body.
fn json_response(value: Value) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}
