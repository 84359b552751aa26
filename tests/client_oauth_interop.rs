//! The OAuth client against an OpenID provider we did not write: npm `oidc-provider`
//! (tests/oauth/provider.mjs) as the authorization server of our own demo server, protected by
//! our resource server (`HttpOptions::auth`: the provider's JWT access tokens checked against
//! its JWKS, audience = the resource; `notes:read` for everything, `notes:write` to call
//! `add`).
//!
//! - authorization code + PKCE with dynamic registration: the test plays the user at the
//!   provider's login and consent pages over HTTP; calling `add` gets 403
//!   `insufficient_scope` and the client steps up (the user is sent to the provider again,
//!   for both scopes); then the token expires (in the store) and the client refreshes it
//!   with the refresh token before the next request, without the user;
//! - client credentials (`client_secret_basic`), over `http://` and over `https://` with a
//!   CA made in the test.

mod http_support;
mod oauth_support;
mod tls_support;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::header;
use http_support::demo;
use serde_json::json;
use typed_mcp::client::auth::{
    AuthError, AuthorizationStep, MemoryTokenStore, OAuthOptions, StepFuture, StoredTokens,
    TokenStore,
};
use typed_mcp::client::{Client, ClientOptions};
use typed_mcp::generated::limits::Limits;
use typed_mcp::http::auth::{JwtValidator, ResourceServer};
use typed_mcp::http::{RunningHttpServer, TlsConfig};

use oauth_support::{Provider, CC_SECRET};
use tls_support::TestCa;

/// The demo server on a free port of 127.0.0.1, protected by the provider: `scheme` is
/// `http`, or `https` with `tls`.
async fn protected_demo(
    provider: &Provider,
    scheme: &str,
    tls: Option<TlsConfig>,
) -> RunningHttpServer {
    let addr: SocketAddr = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap()
    };
    let resource = format!("{scheme}://{addr}/mcp");
    let validator = JwtValidator::discover(&provider.issuer, &resource)
        .await
        .expect("the provider's JWKS");
    // The metadata and the 401 challenge name notes:read only (a 401 names scopes_supported),
    // so the first token lacks notes:write and `add` takes a step-up.
    let auth = ResourceServer::new(&resource, &provider.issuer, validator)
        .scopes_supported(["notes:read"])
        .require_scopes(["notes:read"])
        .tool_scopes("add", ["notes:write"]);
    let server = demo::build(Limits::default()).expect("the demo server builds");
    let mut options = server.http_options().bound_to(addr).auth(auth);
    if let Some(tls) = tls {
        options = options.tls(tls);
    }
    server
        .serve_http_with(addr, options)
        .await
        .expect("listening")
}

/// The `add` tool's answer as JSON text.
async fn add(client: &Client) -> String {
    let reply = client
        .call_tool("add", json!({"a": 2, "b": 3}))
        .await
        .expect("add");
    serde_json::to_string(&reply).unwrap()
}

/// The user at the provider's development login and consent pages: follows the redirects
/// with the provider's cookies, logs in, consents, and returns the redirect to the client.
#[derive(Debug)]
struct ProviderUser {
    http: reqwest::Client,
    /// How many times the user was sent to the provider.
    steps: Arc<Mutex<usize>>,
}

impl ProviderUser {
    fn new() -> Self {
        Self {
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            steps: Arc::default(),
        }
    }

    async fn walk(&self, start: &str) -> Result<String, AuthError> {
        *self.steps.lock().unwrap() += 1;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authorization_code_with_pkce_step_up_then_refresh_after_expiry() {
    let Some(provider) = Provider::start() else {
        return;
    };
    let running = protected_demo(&provider, "http", None).await;
    let url = running.url();
    let store = SharedStore::default();
    let user = ProviderUser::new();
    let steps = Arc::clone(&user.steps);
    let oauth =
        OAuthOptions::authorization_code("typed-mcp-interop", user).token_store(store.clone());
    let client = Client::connect_http(&url, options().oauth(oauth))
        .await
        .expect("authorized and connected");
    let tools = client
        .list_tools()
        .await
        .expect("tools/list with the token");
    assert!(tools.iter().any(|tool| tool.name == "add"), "{tools:?}");
    assert_eq!(*steps.lock().unwrap(), 1, "the user was asked once");
    let first = store.load(&url).unwrap().expect("stored tokens");
    assert_eq!(first.resource, url);
    let scopes = |tokens: &StoredTokens| tokens.scope.clone().unwrap_or_default();
    assert!(
        !scopes(&first)
            .split(' ')
            .any(|scope| scope == "notes:write"),
        "the first token was asked for the challenge's scope only: {}",
        scopes(&first)
    );

    // `add` needs notes:write: 403 insufficient_scope, then a second authorization.
    let sum = add(&client).await;
    assert!(sum.contains(r#""sum":5"#), "{sum}");
    assert_eq!(
        *steps.lock().unwrap(),
        2,
        "the step-up asked the user again"
    );
    let mut tokens = store.load(&url).unwrap().expect("stored tokens");
    assert!(
        scopes(&tokens)
            .split(' ')
            .any(|scope| scope == "notes:write"),
        "the step-up token has notes:write: {}",
        scopes(&tokens)
    );
    assert!(
        tokens.refresh_token.is_some(),
        "offline_access gave a refresh token"
    );

    // The access token expires: a later client refreshes it before its first request.
    let stepped_up = tokens.access_token.expose().to_owned();
    tokens.expires_at = Some(0);
    store.save(&url, &tokens).unwrap();
    let user = ProviderUser::new();
    let later_steps = Arc::clone(&user.steps);
    let oauth =
        OAuthOptions::authorization_code("typed-mcp-interop", user).token_store(store.clone());
    let client = Client::connect_http(&url, options().oauth(oauth))
        .await
        .expect("connected with the refreshed token");
    let sum = add(&client).await;
    assert!(sum.contains(r#""sum":5"#), "{sum}");
    let refreshed = store.load(&url).unwrap().expect("stored tokens");
    assert_ne!(
        refreshed.access_token.expose(),
        stepped_up,
        "a new access token"
    );
    assert!(!refreshed.expired(Duration::ZERO), "the new token is live");
    assert_eq!(
        *later_steps.lock().unwrap(),
        0,
        "no user step for a refresh"
    );
    running.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_credentials_over_http_and_https() {
    let Some(provider) = Provider::start() else {
        return;
    };
    // Plain HTTP. The client `mcp-cc` may have both scopes: it gets what the challenge names,
    // then steps up for `add` on its own (no user).
    let running = protected_demo(&provider, "http", None).await;
    let oauth = OAuthOptions::client_credentials("mcp-cc", CC_SECRET);
    let client = Client::connect_http(&running.url(), options().oauth(oauth))
        .await
        .expect("client credentials");
    client.list_tools().await.expect("tools/list");
    let sum = add(&client).await;
    assert!(sum.contains(r#""sum":5"#), "{sum}");
    running.shutdown().await.unwrap();

    // HTTPS with a CA made in the test.
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new("typed-mcp client interop CA");
    let (cert, key) = ca.write_server_identity(dir.path(), &["127.0.0.1"]);
    let tls = TlsConfig::from_pem_files(&cert, &key).unwrap();
    let running = protected_demo(&provider, "https", Some(tls)).await;
    let url = running.url();
    assert!(url.starts_with("https://"), "{url}");
    let options = options()
        .platform_roots(false)
        .root_certificates_pem(ca.pem().as_bytes())
        .expect("the CA");
    let oauth = OAuthOptions::client_credentials("mcp-cc", CC_SECRET);
    let client = Client::connect_http(&url, options.oauth(oauth))
        .await
        .expect("client credentials over https");
    client.list_tools().await.expect("tools/list over https");
    let sum = add(&client).await;
    assert!(sum.contains(r#""sum":5"#), "{sum}");
    running.shutdown().await.unwrap();
}
