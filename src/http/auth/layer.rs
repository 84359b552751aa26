//! The resource server's `tower` layer: bearer token → verified identity, or the spec's
//! 401 / 403 / 503 with its `WWW-Authenticate` challenge; the metadata document; sessions
//! bound to the identity that opened them.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::Body;
use axum::http::{header, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Limited};

use super::{BoxFuture, ResourceServer, TokenError};
use crate::http::MCP_SESSION_ID;
use crate::server::AuthInfo;

/// The `tower::Layer` of a [`ResourceServer`]: wraps a service (an
/// [`McpHttpService`](crate::http::McpHttpService) or any other) in an [`AuthService`].
#[derive(Clone, Debug)]
pub struct AuthLayer {
    server: ResourceServer,
    sessions: Arc<Bindings>,
}

impl AuthLayer {
    pub(super) fn new(server: ResourceServer) -> Self {
        let bound = server.inner.max_bound_sessions;
        Self {
            server,
            sessions: Arc::new(Bindings::new(bound)),
        }
    }

    /// The layer around `inner` (what `tower::Layer::layer` does).
    pub fn into_service<S>(&self, inner: S) -> AuthService<S> {
        AuthService {
            inner,
            server: self.server.clone(),
            sessions: Arc::clone(&self.sessions),
        }
    }
}

impl<S> tower::Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> AuthService<S> {
        self.into_service(inner)
    }
}

/// A service behind the resource server: only requests with a valid token reach it, each
/// with its [`AuthInfo`] in the request's extensions (as `Arc<AuthInfo>`).
#[derive(Clone, Debug)]
pub struct AuthService<S> {
    inner: S,
    server: ResourceServer,
    sessions: Arc<Bindings>,
}

impl<S, B> tower::Service<Request<B>> for AuthService<S>
where
    S: tower::Service<Request<Body>, Response = Response<Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response<Body>, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        // The clone that was made ready is the one called (tower's rule); a fresh clone waits.
        let fresh = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, fresh);
        let server = self.server.clone();
        let sessions = Arc::clone(&self.sessions);
        Box::pin(async move { Ok(guard(inner, server, sessions, request.map(Body::new)).await) })
    }
}

async fn guard<S>(
    mut inner: S,
    server: ResourceServer,
    sessions: Arc<Bindings>,
    request: Request<Body>,
) -> Response<Body>
where
    S: tower::Service<Request<Body>, Response = Response<Body>, Error = Infallible>,
{
    if request.method() == Method::GET
        && server
            .metadata_paths()
            .iter()
            .any(|path| path == request.uri().path())
    {
        return metadata_response(&server);
    }
    let auth = match bearer(&request) {
        Err(reason) => {
            tracing::info!(reason, "request refused: no usable bearer token");
            let error = (reason != "no Authorization header").then_some("invalid_token");
            return challenge(&server, StatusCode::UNAUTHORIZED, error, None);
        }
        Ok(token) => server.inner.validator.validate(token).await,
    };
    let auth = match auth {
        Ok(auth) => Arc::new(auth),
        Err(TokenError::Invalid(reason)) => {
            tracing::info!(%reason, "request refused: invalid token");
            return challenge(
                &server,
                StatusCode::UNAUTHORIZED,
                Some("invalid_token"),
                None,
            );
        }
        Err(TokenError::Unavailable(reason)) => {
            tracing::warn!(%reason, "request refused: the authorization server could not be asked");
            let mut response = empty(StatusCode::SERVICE_UNAVAILABLE);
            let _previous = response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            return response;
        }
    };
    let (mut parts, body) = request.into_parts();
    let rules = &server.inner.rules;
    let (read, body) = if rules.need_body() && parts.method == Method::POST {
        match Limited::new(body, server.inner.max_body_bytes)
            .collect()
            .await
        {
            Ok(collected) => {
                let bytes = collected.to_bytes();
                (Some(bytes.clone()), Body::from(bytes))
            }
            Err(_) => return empty(StatusCode::PAYLOAD_TOO_LARGE),
        }
    } else {
        (None, body)
    };
    let missing = rules.missing(&auth, read.as_deref());
    if !missing.is_empty() {
        tracing::info!(subject = ?auth.subject, missing = ?missing, "request refused: insufficient scope");
        return challenge(
            &server,
            StatusCode::FORBIDDEN,
            Some("insufficient_scope"),
            Some(&missing.join(" ")),
        );
    }
    let session = parts
        .headers
        .get(&MCP_SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(session) = &session {
        if !sessions.allows(session, &auth) {
            tracing::info!(subject = ?auth.subject, "request refused: the session belongs to another principal");
            return empty(StatusCode::NOT_FOUND);
        }
    }
    let _previous = parts.extensions.insert(Arc::clone(&auth));
    let response = match inner.call(Request::from_parts(parts, body)).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    if session.is_none() {
        if let Some(opened) = response
            .headers()
            .get(&MCP_SESSION_ID)
            .and_then(|v| v.to_str().ok())
        {
            sessions.bind(opened, &auth);
        }
    }
    response
}

/// The token of the one `Authorization: Bearer …` header, or why there is none.
fn bearer<B>(request: &Request<B>) -> Result<&str, &'static str> {
    let mut values = request.headers().get_all(header::AUTHORIZATION).iter();
    let value = values.next().ok_or("no Authorization header")?;
    if values.next().is_some() {
        return Err("more than one Authorization header");
    }
    let value = value
        .to_str()
        .map_err(|_| "Authorization is not visible ASCII")?;
    if value.len() > super::jwt::MAX_TOKEN_BYTES {
        return Err("Authorization is too long");
    }
    let (scheme, token) = value.split_once(' ').ok_or("Authorization has no scheme")?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err("Authorization is not Bearer");
    }
    let token = token.trim_start_matches(' ');
    // RFC 6750 b64token: ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/", then "=" padding.
    let body = token.trim_end_matches('=');
    let valid = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if valid {
        Ok(token)
    } else {
        Err("the bearer token is not a b64token")
    }
}

fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = status;
    response
}

/// 401 or 403 with `WWW-Authenticate: Bearer …` and an OAuth error body (the code only).
fn challenge(
    server: &ResourceServer,
    status: StatusCode,
    error: Option<&str>,
    scope: Option<&str>,
) -> Response<Body> {
    let mut value = format!("Bearer resource_metadata=\"{}\"", server.metadata_url());
    if let Some(error) = error {
        value.push_str(&format!(", error=\"{error}\""));
    }
    let supported = server.inner.scopes_supported.join(" ");
    let scope = scope.or((!supported.is_empty()).then_some(supported.as_str()));
    if let Some(scope) = scope {
        value.push_str(&format!(", scope=\"{scope}\""));
    }
    let body = match error {
        Some(error) => serde_json::json!({ "error": error }).to_string(),
        None => String::new(),
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&value) {
        let _previous = headers.insert(header::WWW_AUTHENTICATE, value);
    }
    if error.is_some() {
        let _previous = headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    response
}

fn metadata_response(server: &ResourceServer) -> Response<Body> {
    let mut response = Response::new(Body::from(server.metadata().to_string()));
    let _previous = response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Serves the protected resource metadata (GET; other methods get 405).
#[derive(Clone, Debug)]
pub struct MetadataService {
    server: ResourceServer,
}

impl MetadataService {
    pub(super) fn new(server: &ResourceServer) -> Self {
        Self {
            server: server.clone(),
        }
    }
}

impl<B> tower::Service<Request<B>> for MetadataService {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Response<Body>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        std::future::ready(Ok(if request.method() == Method::GET {
            metadata_response(&self.server)
        } else {
            empty(StatusCode::METHOD_NOT_ALLOWED)
        }))
    }
}

/// Sessions and the principal that opened each: the oldest forgotten past the bound (a
/// forgotten session is then open to any valid token, as before binding: the session store
/// expires idle sessions long before 65,536 newer ones are opened by default).
#[derive(Debug)]
struct Bindings {
    bound: usize,
    state: Mutex<(HashMap<String, Principal>, VecDeque<String>)>,
}

/// Who opened a session.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Principal {
    issuer: Option<String>,
    subject: Option<String>,
    client_id: Option<String>,
}

impl Principal {
    fn of(auth: &AuthInfo) -> Self {
        Self {
            issuer: auth.issuer.clone(),
            subject: auth.subject.clone(),
            client_id: auth.client_id.clone(),
        }
    }
}

impl Bindings {
    fn new(bound: usize) -> Self {
        Self {
            bound,
            state: Mutex::new((HashMap::new(), VecDeque::new())),
        }
    }

    fn bind(&self, session: &str, auth: &AuthInfo) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (map, order) = &mut *state;
        if map
            .insert(session.to_owned(), Principal::of(auth))
            .is_none()
        {
            order.push_back(session.to_owned());
        }
        while order.len() > self.bound {
            if let Some(oldest) = order.pop_front() {
                let _forgotten = map.remove(&oldest);
            }
        }
    }

    fn allows(&self, session: &str, auth: &AuthInfo) -> bool {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .0
            .get(session)
            .is_none_or(|owner| *owner == Principal::of(auth))
    }
}
