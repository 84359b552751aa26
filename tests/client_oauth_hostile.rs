//! The OAuth client against an authorization server that misbehaves: garbage metadata, a
//! redirect to another origin, a token for another resource, an endpoint on `http://` for a
//! public host, a protected resource metadata document for another server, a redirect
//! with a forged `state` or another issuer's `iss`. Each is a typed error, and no token
//! reaches the MCP server (nor any secret another host).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{json, Value};
use typed_mcp::client::auth::{AuthError, AutoApprove, OAuthOptions};
use typed_mcp::client::{Client, ClientError, ClientOptions, VersionChoice};

/// How the fake authorization server misbehaves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    GarbageMetadata,
    MetadataRedirect,
    TokenForAnotherResource,
    InsecureTokenEndpoint,
    ResourceForAnotherServer,
    ForgedState,
    WrongIss,
    GarbageToken,
}

#[derive(Clone)]
struct Fake {
    mode: Mode,
    base: String,
    /// The `Authorization` headers the MCP endpoint received.
    mcp_authorizations: Arc<Mutex<Vec<String>>>,
    /// How many token requests were made.
    token_requests: Arc<Mutex<usize>>,
}

async fn mcp(State(fake): State<Fake>, headers: HeaderMap) -> Response {
    if let Some(value) = headers.get("authorization") {
        fake.mcp_authorizations
            .lock()
            .unwrap()
            .push(value.to_str().unwrap_or("?").to_owned());
    }
    let challenge = format!(
        r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
        fake.base
    );
    (
        StatusCode::UNAUTHORIZED,
        [("www-authenticate", challenge)],
        "",
    )
        .into_response()
}

async fn resource_metadata(State(fake): State<Fake>) -> Response {
    let resource = if fake.mode == Mode::ResourceForAnotherServer {
        "https://other.example.com/mcp".to_owned()
    } else {
        format!("{}/mcp", fake.base)
    };
    json_response(json!({"resource": resource, "authorization_servers": [fake.base]}))
        .into_response()
}

async fn server_metadata(State(fake): State<Fake>) -> Response {
    match fake.mode {
        Mode::GarbageMetadata => "<html>not json".into_response(),
        Mode::MetadataRedirect => {
            Redirect::temporary("https://attacker.example.com/metadata").into_response()
        }
        _ => {
            let token_endpoint = if fake.mode == Mode::InsecureTokenEndpoint {
                "http://as.example.com/token".to_owned()
            } else {
                format!("{}/token", fake.base)
            };
            json_response(json!({
                "issuer": fake.base,
                "authorization_endpoint": format!("{}/authorize", fake.base),
                "token_endpoint": token_endpoint,
                "registration_endpoint": format!("{}/register", fake.base),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
                "authorization_response_iss_parameter_supported": true,
            }))
            .into_response()
        }
    }
}

async fn register() -> Response {
    (
        StatusCode::CREATED,
        json_response(json!({"client_id": "registered", "token_endpoint_auth_method": "none"})),
    )
        .into_response()
}

async fn authorize(State(fake): State<Fake>, uri: axum::http::Uri) -> Response {
    let query: std::collections::HashMap<String, String> =
        url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    let state = if fake.mode == Mode::ForgedState {
        "forged".to_owned()
    } else {
        query.get("state").cloned().unwrap_or_default()
    };
    let iss = if fake.mode == Mode::WrongIss {
        "https://evil.example.com".to_owned()
    } else {
        fake.base.clone()
    };
    let mut target = url::Url::parse(&query["redirect_uri"]).unwrap();
    target
        .query_pairs_mut()
        .append_pair("code", "the-code")
        .append_pair("state", &state)
        .append_pair("iss", &iss);
    Redirect::to(target.as_str()).into_response()
}

async fn token(State(fake): State<Fake>) -> Response {
    *fake.token_requests.lock().unwrap() += 1;
    match fake.mode {
        Mode::TokenForAnotherResource => {
            let claims = json!({"aud": "https://other.example.com/mcp", "sub": "x"});
            let jwt = format!(
                "{}.{}.c2ln",
                URL_SAFE_NO_PAD.encode(r#"{"alg":"RS256","typ":"at+jwt"}"#),
                URL_SAFE_NO_PAD.encode(claims.to_string())
            );
            json_response(json!({"access_token": jwt, "token_type": "Bearer"})).into_response()
        }
        Mode::GarbageToken => json_response(json!({"token_type": "Bearer"})).into_response(),
        _ => json_response(json!({"access_token": "fine-token", "token_type": "Bearer"}))
            .into_response(),
    }
}

/// Runs the client against a fake in `mode`; returns the auth error and the fake.
async fn attempt(mode: Mode) -> (AuthError, Fake) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let fake = Fake {
        mode,
        base: base.clone(),
        mcp_authorizations: Arc::default(),
        token_requests: Arc::default(),
    };
    let app = Router::new()
        .route("/mcp", post(mcp))
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(server_metadata),
        )
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .route("/register", post(register))
        .with_state(fake.clone());
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let options = ClientOptions::new("hostile-as-test", "1.0.0")
        .version(VersionChoice::latest_legacy())
        .request_timeout(Duration::from_secs(20));
    let step = AutoApprove::new("http://127.0.0.1:9/callback", &options).unwrap();
    let options = options.oauth(OAuthOptions::authorization_code("hostile-as-test", step));
    let error = Client::connect_http(&format!("{base}/mcp"), options)
        .await
        .expect_err("the authorization must fail");
    server.abort();
    match error {
        ClientError::Auth { source, .. } => (source, fake),
        other => panic!("{mode:?}: expected ClientError::Auth, got {other:?}"),
    }
}

#[tokio::test]
async fn a_misbehaving_authorization_server_is_a_typed_error_and_no_token_is_sent() {
    for mode in [
        Mode::GarbageMetadata,
        Mode::MetadataRedirect,
        Mode::TokenForAnotherResource,
        Mode::InsecureTokenEndpoint,
        Mode::ResourceForAnotherServer,
        Mode::ForgedState,
        Mode::WrongIss,
        Mode::GarbageToken,
    ] {
        let (error, fake) = attempt(mode).await;
        let expected = match mode {
            Mode::GarbageMetadata | Mode::GarbageToken => {
                matches!(error, AuthError::Malformed { .. })
            }
            Mode::MetadataRedirect => matches!(error, AuthError::Status { status: 307, .. }),
            Mode::TokenForAnotherResource => matches!(error, AuthError::WrongAudience { .. }),
            Mode::InsecureTokenEndpoint => {
                matches!(&error, AuthError::InsecureUrl { host, .. } if host == "as.example.com")
            }
            Mode::ResourceForAnotherServer => matches!(error, AuthError::ResourceMismatch { .. }),
            Mode::ForgedState | Mode::WrongIss => {
                matches!(error, AuthError::AuthorizationResponse { .. })
            }
        };
        assert!(expected, "{mode:?}: unexpected {error:?}");
        let text = error.to_string();
        assert!(
            !text.contains("the-code") && !text.contains("fine-token"),
            "{text}"
        );
        let seen = fake.mcp_authorizations.lock().unwrap().clone();
        assert!(
            seen.is_empty(),
            "{mode:?}: the MCP server received {seen:?}"
        );
        let token_requests = *fake.token_requests.lock().unwrap();
        let may_reach_token = matches!(mode, Mode::TokenForAnotherResource | Mode::GarbageToken);
        assert!(
            may_reach_token || token_requests == 0,
            "{mode:?}: {token_requests} token requests"
        );
    }
}

/// A JSON body.
fn json_response(value: Value) -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}
