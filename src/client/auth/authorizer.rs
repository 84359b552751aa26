//! The state machine behind a client's OAuth: the token in use, what discovery found, the
//! identity registered with each issuer; and the two entry points the HTTP transport calls,
//! [`Authorizer::bearer`] before a request and [`Authorizer::challenge`] after a 401 or a
//! 403 `insufficient_scope`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hyper::header::HeaderValue;
use sha2::{Digest, Sha256};
use url::Url;

use super::discovery::{self, Challenge, ServerMetadata};
use super::identity;
use super::token::{self, AuthMethod, Identity, TokenRequest};
use super::{random_token, AuthError, Grant, OAuthOptions, StoredTokens};
use crate::client::connector::Http;

/// Tokens that expire within this margin are refreshed before use.
const EXPIRY_MARGIN: std::time::Duration = std::time::Duration::from_secs(30);

/// What one client knows about its authorization.
#[derive(Debug, Default)]
struct State {
    /// Whether the store was read.
    loaded: bool,
    /// The tokens in use.
    tokens: Option<StoredTokens>,
    /// The metadata of the issuer last used.
    metadata: Option<ServerMetadata>,
    /// A dynamic registration, with the issuer it belongs to.
    registered: Option<(String, Identity)>,
    /// The scope last asked for, with its issuer (kept for step-up unions).
    requested: Option<(String, String)>,
}

/// One client's OAuth.
#[derive(Debug)]
pub(crate) struct Authorizer {
    options: OAuthOptions,
    client: Http,
    /// The MCP server's URL (the store key, and what the resource must cover).
    server: Url,
    state: tokio::sync::Mutex<State>,
}

impl Authorizer {
    pub(crate) fn new(
        options: OAuthOptions,
        client: Http,
        server: &str,
    ) -> Result<Self, AuthError> {
        let mut server =
            Url::parse(server).map_err(|_| AuthError::InvalidUrl { what: "server URL" })?;
        server.set_fragment(None);
        Ok(Self {
            options,
            client,
            server,
            state: tokio::sync::Mutex::new(State::default()),
        })
    }

    /// How many authorizations one request may trigger.
    pub(crate) fn max_authorizations(&self) -> usize {
        self.options.max_authorizations
    }

    fn key(&self) -> &str {
        self.server.as_str()
    }

    /// The `Authorization` value for the next request: the stored token, refreshed first
    /// when it expired. `None` before any authorization (the server's 401 starts one).
    pub(crate) async fn bearer(&self) -> Option<HeaderValue> {
        let mut state = self.state.lock().await;
        if !state.loaded {
            state.loaded = true;
            match self.options.store.load(self.key()) {
                Ok(tokens) => state.tokens = tokens,
                Err(error) => tracing::warn!(%error, "reading the token store"),
            }
        }
        let tokens = state.tokens.clone()?;
        if tokens.expired(EXPIRY_MARGIN) {
            match self.refresh(&mut state, &tokens).await {
                Ok(fresh) => return bearer(&fresh),
                Err(error) => {
                    tracing::debug!(%error, "refreshing the expired token failed");
                    state.tokens = None;
                    return None;
                }
            }
        }
        bearer(&tokens)
    }

    /// Authorizes after the server refused a request with `status` (401, or 403
    /// `insufficient_scope`) and `www_authenticate`; `sent` is what the refused request
    /// carried. Returns the `Authorization` value to retry with.
    pub(crate) async fn challenge(
        &self,
        status: u16,
        www_authenticate: Option<&str>,
        sent: Option<&HeaderValue>,
    ) -> Result<HeaderValue, AuthError> {
        let challenge = Challenge::parse(www_authenticate.unwrap_or(""));
        let mut state = self.state.lock().await;
        if let Some(current) = state.tokens.as_ref().and_then(bearer) {
            if Some(&current) != sent {
                // Another request authorized meanwhile.
                return Ok(current);
            }
        }
        if status == 401 {
            if let Some(tokens) = state.tokens.take() {
                if tokens.refresh_token.is_some() {
                    match self.refresh(&mut state, &tokens).await {
                        Ok(fresh) => {
                            if let Some(value) = bearer(&fresh) {
                                return Ok(value);
                            }
                        }
                        Err(error) => tracing::debug!(%error, "refresh refused: authorizing anew"),
                    }
                }
            }
            if let Err(error) = self.options.store.clear(self.key()) {
                tracing::warn!(%error, "clearing the token store");
            }
        }
        let (resource, issuer, resource_scopes, legacy) = self.discover(&challenge).await?;
        if state
            .registered
            .as_ref()
            .is_some_and(|(owner, _)| *owner != issuer)
        {
            // Credentials are never presented to another authorization server.
            state.registered = None;
        }
        let metadata = discovery::server_metadata(&self.client, &issuer, legacy).await?;
        state.metadata = Some(metadata.clone());
        let scope = self.scope(
            &state,
            &issuer,
            &challenge,
            resource_scopes.as_deref(),
            &metadata,
        );
        let tokens = match &self.options.grant {
            Grant::AuthorizationCode(step) => {
                let redirect_uri = step.redirect_uri();
                let mut registered = state
                    .registered
                    .as_ref()
                    .map(|(_, identity)| identity.clone());
                let identity = identity::identity(
                    &self.client,
                    &self.options,
                    &metadata,
                    Some(&redirect_uri),
                    &mut registered,
                )
                .await?;
                if let Some(registered) = registered {
                    state.registered = Some((issuer.clone(), registered));
                }
                self.code_flow(
                    step.as_ref(),
                    &metadata,
                    &identity,
                    &resource,
                    scope.as_deref(),
                )
                .await?
            }
            Grant::ClientCredentials | Grant::ClientCredentialsJwt(_) => {
                let mut none = None;
                let identity =
                    identity::identity(&self.client, &self.options, &metadata, None, &mut none)
                        .await?;
                let request = TokenRequest {
                    endpoint: &metadata.token_endpoint,
                    issuer: &metadata.issuer,
                    identity: &identity,
                    grant: vec![("grant_type", "client_credentials".to_owned())],
                    resource: &resource,
                    scope: scope.as_deref(),
                };
                token::request(&self.client, request).await?
            }
        };
        let tokens = StoredTokens { resource, ..tokens };
        if let Some(scope) = &scope {
            state.requested = Some((issuer.clone(), scope.clone()));
        }
        let value = bearer(&tokens).ok_or(AuthError::UserStep {
            reason: "the access token is not a valid header value".to_owned(),
        })?;
        if let Err(error) = self.options.store.save(self.key(), &tokens) {
            tracing::warn!(%error, "saving the tokens");
        }
        state.tokens = Some(tokens);
        Ok(value)
    }

    /// The resource identifier, the authorization server, the resource's scopes, and
    /// whether the server is a 2025-03-26 one: from the protected resource metadata (checked
    /// to name this server), or for a server without one, the server's own URL and origin.
    async fn discover(
        &self,
        challenge: &Challenge,
    ) -> Result<(String, String, Option<Vec<String>>, bool), AuthError> {
        match discovery::resource_metadata(&self.client, &self.server, challenge).await? {
            Some(metadata) => {
                if !discovery::resource_covers(&metadata.resource, &self.server) {
                    return Err(AuthError::ResourceMismatch {
                        published: metadata.resource,
                        expected: self.server.to_string(),
                    });
                }
                let issuer = metadata
                    .authorization_servers
                    .first()
                    .cloned()
                    .ok_or_else(|| AuthError::NoAuthorizationServer {
                        resource: self.server.to_string(),
                    })?;
                Ok((metadata.resource, issuer, metadata.scopes_supported, false))
            }
            None => {
                let origin = self.server.origin().ascii_serialization();
                Ok((self.server.to_string(), origin, None, true))
            }
        }
    }

    /// The scope to ask for: the options' own; else the challenge's, joined with what was
    /// asked before from the same issuer (a step-up keeps earlier grants); else the
    /// resource's `scopes_supported`; else none. `offline_access` is added for the code
    /// flow when the authorization server lists it.
    fn scope(
        &self,
        state: &State,
        issuer: &str,
        challenge: &Challenge,
        resource_scopes: Option<&[String]>,
        metadata: &ServerMetadata,
    ) -> Option<String> {
        let mut scopes: Vec<String> = Vec::new();
        let add = |scopes: &mut Vec<String>, text: &str| {
            for scope in text.split_ascii_whitespace() {
                if !scopes.iter().any(|s| s == scope) {
                    scopes.push(scope.to_owned());
                }
            }
        };
        if let Some(own) = &self.options.scope {
            add(&mut scopes, own);
        } else if let Some(challenged) = &challenge.scope {
            if let Some((owner, before)) = &state.requested {
                if owner == issuer {
                    add(&mut scopes, before);
                }
            }
            add(&mut scopes, challenged);
        } else if let Some(supported) = resource_scopes {
            add(&mut scopes, &supported.join(" "));
        }
        let wants_refresh = self.options.offline_access
            && matches!(self.options.grant, Grant::AuthorizationCode(_))
            && metadata
                .scopes_supported
                .as_ref()
                .is_some_and(|s| s.iter().any(|s| s == "offline_access"));
        if wants_refresh && !scopes.is_empty() {
            add(&mut scopes, "offline_access");
        }
        (!scopes.is_empty()).then(|| scopes.join(" "))
    }

    async fn code_flow(
        &self,
        step: &dyn super::AuthorizationStep,
        metadata: &ServerMetadata,
        identity: &Identity,
        resource: &str,
        scope: Option<&str>,
    ) -> Result<StoredTokens, AuthError> {
        let endpoint =
            metadata
                .authorization_endpoint
                .as_ref()
                .ok_or(AuthError::NoAuthorizationServer {
                    resource: resource.to_owned(),
                })?;
        let s256 = metadata
            .code_challenge_methods_supported
            .as_ref()
            .is_some_and(|methods| methods.iter().any(|m| m == "S256"));
        if metadata.discovered && !s256 {
            return Err(AuthError::PkceUnsupported);
        }
        let verifier = random_token()?;
        let code_challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        let state = random_token()?;
        let redirect_uri = step.redirect_uri();
        let mut url = endpoint.clone();
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &identity.client_id)
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("code_challenge", &code_challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", resource);
            if let Some(scope) = scope {
                query.append_pair("scope", scope);
                if scope
                    .split_ascii_whitespace()
                    .any(|s| s == "offline_access")
                {
                    // OpenID providers grant offline access only with consent (OpenID
                    // Connect Core §11); other servers ignore the parameter.
                    query.append_pair("prompt", "consent");
                }
            }
        }
        let redirect = step.authorize(url.as_str()).await?;
        let code = check_redirect(&redirect, &state, metadata)?;
        let request = TokenRequest {
            endpoint: &metadata.token_endpoint,
            issuer: &metadata.issuer,
            identity,
            grant: vec![
                ("grant_type", "authorization_code".to_owned()),
                ("code", code),
                ("redirect_uri", redirect_uri),
                ("code_verifier", verifier),
            ],
            resource,
            scope: None,
        };
        let mut tokens = token::request(&self.client, request).await?;
        if tokens.scope.is_none() {
            tokens.scope = scope.map(str::to_owned);
        }
        Ok(tokens)
    }

    /// Exchanges the refresh token of `tokens` (same issuer, same client, same resource).
    async fn refresh(
        &self,
        state: &mut State,
        tokens: &StoredTokens,
    ) -> Result<StoredTokens, AuthError> {
        let refresh_token = tokens
            .refresh_token
            .clone()
            .ok_or(AuthError::TokenRefused {
                host: String::new(),
                error: "no_refresh_token".to_owned(),
            })?;
        let metadata = match &state.metadata {
            Some(metadata) if metadata.issuer == tokens.issuer => metadata.clone(),
            _ => discovery::server_metadata(&self.client, &tokens.issuer, true).await?,
        };
        let (method, key) = match &self.options.grant {
            Grant::ClientCredentialsJwt(key) => (AuthMethod::PrivateKeyJwt, Some(key.clone())),
            _ if tokens.client_secret.is_some() => (identity::secret_method(&metadata), None),
            _ => (AuthMethod::None, None),
        };
        let identity = Identity {
            client_id: tokens.client_id.clone(),
            secret: tokens.client_secret.clone(),
            method,
            key,
        };
        let request = TokenRequest {
            endpoint: &metadata.token_endpoint,
            issuer: &metadata.issuer,
            identity: &identity,
            grant: vec![
                ("grant_type", "refresh_token".to_owned()),
                ("refresh_token", refresh_token.expose().to_owned()),
            ],
            resource: &tokens.resource,
            scope: None,
        };
        let fresh = token::request(&self.client, request).await?;
        let fresh = StoredTokens {
            resource: tokens.resource.clone(),
            refresh_token: fresh.refresh_token.or(Some(refresh_token)),
            scope: fresh.scope.or_else(|| tokens.scope.clone()),
            ..fresh
        };
        if let Err(error) = self.options.store.save(self.key(), &fresh) {
            tracing::warn!(%error, "saving the refreshed tokens");
        }
        state.metadata = Some(metadata);
        state.tokens = Some(fresh.clone());
        Ok(fresh)
    }
}

/// `Bearer TOKEN`, marked sensitive.
fn bearer(tokens: &StoredTokens) -> Option<HeaderValue> {
    let mut value =
        HeaderValue::from_str(&format!("Bearer {}", tokens.access_token.expose())).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// The code of an authorization response, after its checks: the `state` matches, no
/// `error`, and `iss` (RFC 9207) present when the server advertises it and equal to the
/// issuer whenever present.
fn check_redirect(
    redirect: &str,
    state: &str,
    metadata: &ServerMetadata,
) -> Result<String, AuthError> {
    let refused = |reason| AuthError::AuthorizationResponse { reason };
    let url = Url::parse(redirect).map_err(|_| refused("the redirect is not a URL"))?;
    let mut code = None;
    let mut returned_state = None;
    let mut iss = None;
    let mut error = None;
    for (name, value) in url.query_pairs() {
        match name.as_ref() {
            "code" => code = Some(value.into_owned()),
            "state" => returned_state = Some(value.into_owned()),
            "iss" => iss = Some(value.into_owned()),
            "error" => error = Some(value.into_owned()),
            _ => {}
        }
    }
    match (&iss, metadata.iss_parameter_supported) {
        (None, true) => return Err(refused("the server advertises `iss` but sent none")),
        (Some(iss), _) if *iss != metadata.issuer => {
            return Err(refused("`iss` names another issuer"))
        }
        _ => {}
    }
    if returned_state.as_deref() != Some(state) {
        return Err(refused("`state` does not match"));
    }
    if let Some(error) = error {
        return Err(AuthError::AuthorizationDenied {
            error: token::error_code(&error),
        });
    }
    code.filter(|code| !code.is_empty())
        .ok_or(refused("no `code` came back"))
}
