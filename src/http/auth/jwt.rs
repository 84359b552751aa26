//! JWT access tokens (RFC 9068) checked against the authorization server's JWKS, with the
//! `jsonwebtoken` crate (ring, like the `tls` feature's rustls).
//!
//! The server decides the algorithm, never the token: the header's `alg` must be in the
//! allow-list (asymmetric algorithms only, so never `none` and never an HMAC keyed with a
//! public key), and the key found by `kid` must be of that algorithm's family (and name the
//! same `alg` when it names one). `typ` must be `at+jwt`; `iss` the issuer; `aud` the resource
//! (RFC 8707: a token for another resource is refused); `exp` and `nbf` hold with a leeway
//! of at most [`MAX_LEEWAY`].
//!
//! A token that passed is remembered (by its SHA-256, at most [`MAX_REMEMBERED`] of them) for
//! at most a minute and never past its `exp`, and only while the JWKS still lists its key:
//! the next request with it skips the signature check, which costs tens of microseconds.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::fetch::{discover, FetchError, Fetcher};
use super::{BoxFuture, TokenError, TokenValidator};
use crate::server::AuthInfo;

/// The largest leeway accepted for `exp` and `nbf`.
pub const MAX_LEEWAY: Duration = Duration::from_secs(300);
/// The longest token looked at; a longer `Authorization` value is refused unread.
pub(crate) const MAX_TOKEN_BYTES: usize = 16 * 1024;
/// The most keys kept from one JWKS document.
const MAX_KEYS: usize = 32;
/// The most verified tokens remembered by one validator.
pub const MAX_REMEMBERED: usize = 4096;
/// How long a verified token is remembered at most.
const REMEMBER_FOR: Duration = Duration::from_secs(60);

/// Verified tokens by SHA-256: until when, the `kid` that verified them, and who they name.
type Remembered = HashMap<[u8; 32], (Instant, String, AuthInfo)>;

/// Validates JWT access tokens (RFC 9068) issued by one authorization server for one resource.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use typed_mcp::http::auth::JwtValidator;
///
/// // The JWKS found through the issuer's OpenID or RFC 8414 metadata.
/// let validator = JwtValidator::discover("http://127.0.0.1:4000", "http://127.0.0.1:8080/mcp").await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct JwtValidator {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    issuer: String,
    resource: String,
    jwks_uri: String,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    refetch_interval: Duration,
    max_age: Duration,
    fetcher: Fetcher,
    keys: RwLock<Keys>,
    remembered: std::sync::Mutex<Remembered>,
    /// Held while the JWKS is fetched: concurrent misses wait for one fetch.
    fetching: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Keys {
    by_kid: HashMap<String, (Jwk, Arc<DecodingKey>)>,
    fetched_at: Option<Instant>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys")
            .field("kids", &self.by_kid.keys().collect::<Vec<_>>())
            .field("fetched_at", &self.fetched_at)
            .finish()
    }
}

impl JwtValidator {
    /// A validator for tokens of `issuer` for `resource`, with the JWKS at `jwks_uri`.
    /// Defaults: RS256, PS256 and ES256 allowed; 30 s leeway; the JWKS fetched again on an
    /// unknown `kid` at most every 10 s, and at the latest after an hour.
    #[must_use]
    pub fn new(
        issuer: impl Into<String>,
        resource: impl Into<String>,
        jwks_uri: impl Into<String>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                issuer: issuer.into(),
                resource: resource.into(),
                jwks_uri: jwks_uri.into(),
                algorithms: vec![Algorithm::RS256, Algorithm::PS256, Algorithm::ES256],
                leeway: Duration::from_secs(30),
                refetch_interval: Duration::from_secs(10),
                max_age: Duration::from_secs(3600),
                fetcher: Fetcher::default(),
                keys: RwLock::new(Keys::default()),
                remembered: std::sync::Mutex::new(HashMap::new()),
                fetching: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// Finds the JWKS through the issuer's metadata (OpenID discovery, else RFC 8414), checks
    /// that the metadata names the same issuer, and fetches the keys once. Over `https://`
    /// (feature `tls`) the platform's root certificates are trusted; see
    /// [`discover_with`](Self::discover_with) for others.
    ///
    /// # Errors
    ///
    /// [`FetchError`] when the metadata or the JWKS cannot be read, or the metadata names
    /// another issuer or no `jwks_uri`.
    pub async fn discover(
        issuer: impl Into<String>,
        resource: impl Into<String>,
    ) -> Result<Self, FetchError> {
        Self::discover_by(Fetcher::default(), issuer.into(), resource.into()).await
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
        options: &super::FetchOptions,
    ) -> Result<Self, FetchError> {
        Self::discover_by(Fetcher::new(options)?, issuer.into(), resource.into()).await
    }

    async fn discover_by(
        fetcher: Fetcher,
        issuer: String,
        resource: String,
    ) -> Result<Self, FetchError> {
        let metadata = discover(&fetcher, &issuer).await?;
        let malformed = || FetchError::Malformed {
            url: issuer.clone(),
        };
        if metadata["issuer"].as_str() != Some(issuer.as_str()) {
            return Err(malformed());
        }
        let jwks_uri = metadata["jwks_uri"]
            .as_str()
            .ok_or_else(malformed)?
            .to_owned();
        let mut validator = Self::new(issuer, resource, jwks_uri);
        validator.inner_mut().fetcher = fetcher;
        validator.refresh().await?;
        Ok(validator)
    }

    /// Reaches the JWKS as `options` say (feature `tls`; for a validator made with
    /// [`new`](Self::new)).
    ///
    /// # Errors
    ///
    /// [`FetchError::InvalidCertificate`] when the options make no TLS configuration.
    #[cfg(feature = "tls")]
    pub fn fetch_options(mut self, options: &super::FetchOptions) -> Result<Self, FetchError> {
        self.inner_mut().fetcher = Fetcher::new(options)?;
        Ok(self)
    }

    /// The algorithms accepted (asymmetric ones only: HMAC algorithms are dropped).
    #[must_use]
    pub fn algorithms(mut self, algorithms: &[Algorithm]) -> Self {
        self.inner_mut().algorithms = algorithms
            .iter()
            .copied()
            .filter(|alg| key_kind(*alg).is_some())
            .collect();
        self
    }

    /// Leeway for `exp` and `nbf` (clock skew), at most [`MAX_LEEWAY`].
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.inner_mut().leeway = leeway.min(MAX_LEEWAY);
        self
    }

    /// The shortest time between two fetches of the JWKS caused by unknown `kid`s (a token
    /// with a made-up `kid` then costs no fetch).
    #[must_use]
    pub fn refetch_interval(mut self, interval: Duration) -> Self {
        self.inner_mut().refetch_interval = interval;
        self
    }

    fn inner_mut(&mut self) -> &mut Inner {
        Arc::get_mut(&mut self.inner).expect("configured before it is shared")
    }

    /// Fetches the JWKS now and replaces the cached keys.
    ///
    /// # Errors
    ///
    /// [`FetchError`] when the JWKS cannot be read; the cached keys are kept then.
    pub async fn refresh(&self) -> Result<(), FetchError> {
        let document = self.inner.fetcher.get_json(&self.inner.jwks_uri).await;
        let mut keys = self
            .inner
            .keys
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        keys.fetched_at = Some(Instant::now());
        let document = document?;
        let set: JwkSet = serde_json::from_value(document).map_err(|_| FetchError::Malformed {
            url: self.inner.jwks_uri.clone(),
        })?;
        keys.by_kid = set
            .keys
            .into_iter()
            .filter_map(|jwk| {
                let kid = jwk.common.key_id.clone()?;
                // Symmetric keys are never used to verify (`oct`): skipped.
                if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
                    return None;
                }
                let key = DecodingKey::from_jwk(&jwk).ok()?;
                Some((kid, (jwk, Arc::new(key))))
            })
            .take(MAX_KEYS)
            .collect();
        Ok(())
    }

    /// The key for `kid`: from the cache, else from a fetch of the JWKS when the last one is
    /// older than the refetch interval (or the cache older than its maximum age).
    async fn key(&self, kid: &str) -> Result<Option<(Jwk, Arc<DecodingKey>)>, FetchError> {
        let lookup = |this: &Self| {
            let keys = this
                .inner
                .keys
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            let fresh = keys
                .fetched_at
                .is_some_and(|at| at.elapsed() < this.inner.max_age);
            let may_refetch = keys
                .fetched_at
                .is_none_or(|at| at.elapsed() >= this.inner.refetch_interval);
            (
                fresh.then(|| keys.by_kid.get(kid).cloned()).flatten(),
                may_refetch,
            )
        };
        if let (Some(found), _) = lookup(self) {
            return Ok(Some(found));
        }
        let _fetching = self.inner.fetching.lock().await;
        // Another request may have fetched while this one waited.
        let (found, may_refetch) = lookup(self);
        if found.is_some() || !may_refetch {
            return Ok(found);
        }
        tracing::info!(kid, jwks = %self.inner.jwks_uri, "unknown key id: fetching the JWKS");
        self.refresh().await?;
        Ok(lookup(self).0)
    }

    async fn check(&self, token: &str) -> Result<AuthInfo, TokenError> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(known) = self.recall(&digest) {
            return Ok(known);
        }
        let (kid, auth) = self.verify(token).await?;
        self.remember(digest, kid, &auth);
        Ok(auth)
    }

    /// A token verified before, still within its time and its key still in the JWKS.
    fn recall(&self, digest: &[u8; 32]) -> Option<AuthInfo> {
        let remembered = self
            .inner
            .remembered
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (until, kid, auth) = remembered.get(digest)?;
        if *until <= Instant::now() {
            return None;
        }
        let keys = self
            .inner
            .keys
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        keys.by_kid.contains_key(kid).then(|| auth.clone())
    }

    fn remember(&self, digest: [u8; 32], kid: String, auth: &AuthInfo) {
        let now = Instant::now();
        let unix_now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        let left = auth.expires_at.map_or(Duration::ZERO, |exp| {
            Duration::from_secs(exp.saturating_sub(unix_now))
        });
        let keep = left.min(REMEMBER_FOR);
        if keep.is_zero() {
            return;
        }
        let mut remembered = self
            .inner
            .remembered
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if remembered.len() >= MAX_REMEMBERED {
            remembered.retain(|_, (until, _, _)| *until > now);
            if remembered.len() >= MAX_REMEMBERED {
                remembered.clear();
            }
        }
        let _previous = remembered.insert(digest, (now + keep, kid, auth.clone()));
    }

    /// The full check: header, key, signature and claims; the `kid` that verified it.
    async fn verify(&self, token: &str) -> Result<(String, AuthInfo), TokenError> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|_| TokenError::invalid("malformed JWT"))?;
        if !self.inner.algorithms.contains(&header.alg) {
            return Err(TokenError::invalid("algorithm not allowed"));
        }
        let typ_ok = header.typ.as_deref().is_some_and(|typ| {
            typ.eq_ignore_ascii_case("at+jwt") || typ.eq_ignore_ascii_case("application/at+jwt")
        });
        if !typ_ok {
            return Err(TokenError::invalid("typ is not at+jwt"));
        }
        let kid = header
            .kid
            .as_deref()
            .ok_or_else(|| TokenError::invalid("no kid"))?;
        let (jwk, key) = self
            .key(kid)
            .await
            .map_err(|error| TokenError::unavailable(error.to_string()))?
            .ok_or_else(|| TokenError::invalid("unknown kid"))?;
        if key_kind_of(&jwk.algorithm) != key_kind(header.alg) {
            return Err(TokenError::invalid("key type does not match alg"));
        }
        if let Some(named) = jwk.common.key_algorithm {
            if format!("{named:?}") != format!("{:?}", header.alg) {
                return Err(TokenError::invalid("key is for another alg"));
            }
        }
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.leeway = self.inner.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[self.inner.issuer.as_str()]);
        validation.set_audience(&[self.inner.resource.as_str()]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|error| TokenError::invalid(format!("{:?}", error.kind())))?;
        Ok((kid.to_owned(), AuthInfo::from_claims(data.claims)))
    }
}

impl TokenValidator for JwtValidator {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<AuthInfo, TokenError>> {
        Box::pin(self.check(token))
    }
}

/// The JWK key type an algorithm needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Rsa,
    Ec,
    Okp,
}

fn key_kind(alg: Algorithm) -> Option<KeyKind> {
    match alg {
        Algorithm::RS256
        | Algorithm::RS384
        | Algorithm::RS512
        | Algorithm::PS256
        | Algorithm::PS384
        | Algorithm::PS512 => Some(KeyKind::Rsa),
        Algorithm::ES256 | Algorithm::ES384 => Some(KeyKind::Ec),
        Algorithm::EdDSA => Some(KeyKind::Okp),
        Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => None,
    }
}

fn key_kind_of(parameters: &AlgorithmParameters) -> Option<KeyKind> {
    match parameters {
        AlgorithmParameters::RSA(_) => Some(KeyKind::Rsa),
        AlgorithmParameters::EllipticCurve(_) => Some(KeyKind::Ec),
        AlgorithmParameters::OctetKeyPair(_) => Some(KeyKind::Okp),
        AlgorithmParameters::OctetKey(_) => None,
    }
}
