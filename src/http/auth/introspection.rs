//! Token introspection (RFC 7662): the authorization server says whether a token is active
//! and whose it is. Answers are cached for a short time, keyed by a hash of the token (the
//! token itself is never kept).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use sha2::{Digest, Sha256};

use super::fetch::{discover, FetchError, Fetcher};
use super::{BoxFuture, TokenError, TokenValidator};
use crate::server::AuthInfo;

/// The most answers kept.
const MAX_CACHED: usize = 4096;

/// Validates tokens by asking the authorization server's introspection endpoint, as the
/// client `client_id` (HTTP Basic). An active token must name this resource in `aud`
/// (RFC 8707) and the issuer in `iss` when the answer carries them.
#[derive(Clone, Debug)]
pub struct IntrospectionValidator {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    endpoint: String,
    issuer: String,
    resource: String,
    authorization: String,
    cache_for: Duration,
    fetcher: Fetcher,
    cache: Mutex<Answers>,
}

/// Answers by SHA-256 of the token: until when each may be reused, and what it was.
type Answers = HashMap<[u8; 32], (Instant, Result<AuthInfo, TokenError>)>;

impl IntrospectionValidator {
    /// Introspection at `endpoint` for tokens of `issuer` meant for `resource`; answers
    /// cached 30 s (never past a token's `exp`).
    #[must_use]
    pub fn new(
        endpoint: impl Into<String>,
        issuer: impl Into<String>,
        resource: impl Into<String>,
        client_id: &str,
        client_secret: &str,
    ) -> Self {
        let credentials = base64::engine::general_purpose::STANDARD.encode(format!(
            "{}:{}",
            form_encode(client_id),
            form_encode(client_secret)
        ));
        Self {
            inner: Arc::new(Inner {
                endpoint: endpoint.into(),
                issuer: issuer.into(),
                resource: resource.into(),
                authorization: format!("Basic {credentials}"),
                cache_for: Duration::from_secs(30),
                fetcher: Fetcher::default(),
                cache: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Finds the introspection endpoint in the issuer's metadata. Over `https://` (feature
    /// `tls`) the platform's root certificates are trusted; see
    /// [`discover_with`](Self::discover_with) for others.
    ///
    /// # Errors
    ///
    /// [`FetchError`] when the metadata cannot be read or names no introspection endpoint.
    pub async fn discover(
        issuer: impl Into<String>,
        resource: impl Into<String>,
        client_id: &str,
        client_secret: &str,
    ) -> Result<Self, FetchError> {
        let credentials = (client_id, client_secret);
        Self::discover_by(
            Fetcher::default(),
            issuer.into(),
            resource.into(),
            credentials,
        )
        .await
    }

    /// As [`discover`](Self::discover), reaching the authorization server as `options` say
    /// (feature `tls`).
    ///
    /// # Errors
    ///
    /// As [`discover`](Self::discover).
    #[cfg(feature = "tls")]
    pub async fn discover_with(
        issuer: impl Into<String>,
        resource: impl Into<String>,
        client_id: &str,
        client_secret: &str,
        options: &super::FetchOptions,
    ) -> Result<Self, FetchError> {
        let fetcher = Fetcher::new(options)?;
        let credentials = (client_id, client_secret);
        Self::discover_by(fetcher, issuer.into(), resource.into(), credentials).await
    }

    async fn discover_by(
        fetcher: Fetcher,
        issuer: String,
        resource: String,
        (client_id, client_secret): (&str, &str),
    ) -> Result<Self, FetchError> {
        let metadata = discover(&fetcher, &issuer).await?;
        let endpoint = metadata["introspection_endpoint"]
            .as_str()
            .ok_or_else(|| FetchError::Malformed {
                url: issuer.clone(),
            })?
            .to_owned();
        let mut validator = Self::new(endpoint, issuer, resource, client_id, client_secret);
        if let Some(inner) = Arc::get_mut(&mut validator.inner) {
            inner.fetcher = fetcher;
        }
        Ok(validator)
    }

    /// Reaches the introspection endpoint as `options` say (feature `tls`; for a validator
    /// made with [`new`](Self::new)).
    ///
    /// # Errors
    ///
    /// [`FetchError::InvalidCertificate`] when the options make no TLS configuration.
    #[cfg(feature = "tls")]
    pub fn fetch_options(mut self, options: &super::FetchOptions) -> Result<Self, FetchError> {
        let fetcher = Fetcher::new(options)?;
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.fetcher = fetcher;
        }
        Ok(self)
    }

    /// How long an answer is reused (30 s by default; zero turns the cache off).
    #[must_use]
    pub fn cache_for(mut self, duration: Duration) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.cache_for = duration;
        }
        self
    }

    async fn check(&self, token: &str) -> Result<AuthInfo, TokenError> {
        let key: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        let now = Instant::now();
        if let Some((until, answer)) = self.cache().get(&key) {
            if *until > now {
                return answer.clone();
            }
        }
        let answer = self.ask(token).await;
        if matches!(answer, Err(TokenError::Unavailable(_))) {
            return answer;
        }
        let mut until = now + self.inner.cache_for;
        if let Ok(Some(exp)) = answer.as_ref().map(|auth| auth.expires_at) {
            let unix_now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            until = until.min(now + Duration::from_secs(exp.saturating_sub(unix_now)));
        }
        let mut cache = self.cache();
        if cache.len() >= MAX_CACHED {
            cache.retain(|_, (expires, _)| *expires > now);
            if cache.len() >= MAX_CACHED {
                cache.clear();
            }
        }
        let _previous = cache.insert(key, (until, answer.clone()));
        answer
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Answers> {
        self.inner
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    async fn ask(&self, token: &str) -> Result<AuthInfo, TokenError> {
        let form = format!("token={}&token_type_hint=access_token", form_encode(token));
        let answer = self
            .inner
            .fetcher
            .post_form(&self.inner.endpoint, Some(&self.inner.authorization), form)
            .await
            .map_err(|error| TokenError::unavailable(error.to_string()))?;
        let serde_json::Value::Object(claims) = answer else {
            return Err(TokenError::unavailable(
                "introspection answer is not an object",
            ));
        };
        if claims.get("active") != Some(&serde_json::Value::Bool(true)) {
            return Err(TokenError::invalid("inactive"));
        }
        let audience_ok = match claims.get("aud") {
            Some(serde_json::Value::String(aud)) => *aud == self.inner.resource,
            Some(serde_json::Value::Array(auds)) => auds
                .iter()
                .any(|aud| aud.as_str() == Some(self.inner.resource.as_str())),
            _ => false,
        };
        if !audience_ok {
            return Err(TokenError::invalid("for another resource"));
        }
        if let Some(iss) = claims.get("iss").and_then(|v| v.as_str()) {
            if iss != self.inner.issuer {
                return Err(TokenError::invalid("another issuer"));
            }
        }
        Ok(AuthInfo::from_claims(claims))
    }
}

impl TokenValidator for IntrospectionValidator {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, TokenError>> {
        Box::pin(self.check(token))
    }
}

/// `application/x-www-form-urlencoded` encoding of one value.
fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
