//! Token requests (authorization code, refresh, client credentials), the client's
//! authentication at the token endpoint, and the checks on what comes back.

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use hyper::header::HeaderValue;
use serde_json::Value;
use url::Url;

use super::fetch::{self, Answer};
use super::jwt::ClientKey;
use super::{AuthError, Secret, StoredTokens};
use crate::client::connector::Http;

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AuthMethod {
    /// HTTP Basic with the id and secret.
    Basic,
    /// The id and secret in the form.
    Post,
    /// A public client: the id only.
    None,
    /// A signed JWT assertion.
    PrivateKeyJwt,
}

impl AuthMethod {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Basic => "client_secret_basic",
            Self::Post => "client_secret_post",
            Self::None => "none",
            Self::PrivateKeyJwt => "private_key_jwt",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(Self::Basic),
            "client_secret_post" => Some(Self::Post),
            "none" => Some(Self::None),
            "private_key_jwt" => Some(Self::PrivateKeyJwt),
            _ => None,
        }
    }
}

/// Who the client is at one authorization server.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    pub(crate) client_id: String,
    pub(crate) secret: Option<Secret>,
    pub(crate) method: AuthMethod,
    pub(crate) key: Option<ClientKey>,
}

/// One token request.
pub(crate) struct TokenRequest<'a> {
    pub(crate) endpoint: &'a Url,
    pub(crate) issuer: &'a str,
    pub(crate) identity: &'a Identity,
    /// The grant's own parameters (`grant_type`, `code`, ...).
    pub(crate) grant: Vec<(&'static str, String)>,
    /// The resource (RFC 8707), sent with every token request.
    pub(crate) resource: &'a str,
    /// The scope asked for, if any.
    pub(crate) scope: Option<&'a str>,
}

/// Sends `request` and checks the answer; the tokens, with the identity, ready to store.
pub(crate) async fn request(
    client: &Http,
    request: TokenRequest<'_>,
) -> Result<StoredTokens, AuthError> {
    let identity = request.identity;
    let mut form: Vec<(&str, String)> = request.grant.clone();
    form.push(("resource", request.resource.to_owned()));
    if let Some(scope) = request.scope {
        form.push(("scope", scope.to_owned()));
    }
    let mut authorization = None;
    match identity.method {
        AuthMethod::Basic => {
            let secret = identity
                .secret
                .as_ref()
                .map(Secret::expose)
                .unwrap_or_default();
            let pair = format!(
                "{}:{}",
                form_encode(&identity.client_id),
                form_encode(secret)
            );
            let value = HeaderValue::from_str(&format!("Basic {}", STANDARD.encode(pair)))
                .map_err(|_| AuthError::InvalidUrl {
                    what: "client credentials",
                })?;
            authorization = Some(value);
        }
        AuthMethod::Post => {
            form.push(("client_id", identity.client_id.clone()));
            let secret = identity
                .secret
                .as_ref()
                .map(Secret::expose)
                .unwrap_or_default();
            form.push(("client_secret", secret.to_owned()));
        }
        AuthMethod::None => form.push(("client_id", identity.client_id.clone())),
        AuthMethod::PrivateKeyJwt => {
            let key = identity.key.as_ref().ok_or(AuthError::PrivateKey {
                reason: "private_key_jwt without a key",
            })?;
            let assertion = key.assertion(&identity.client_id, request.issuer)?;
            form.push(("client_id", identity.client_id.clone()));
            form.push((
                "client_assertion_type",
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
            ));
            form.push(("client_assertion", assertion.expose().to_owned()));
        }
    }
    let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let answer = fetch::post_form(
        client,
        request.endpoint,
        &pairs,
        authorization,
        "the token request",
    )
    .await?;
    let tokens = parse(&answer, request.issuer, identity, request.scope)?;
    check_audience(tokens.access_token.expose(), request.resource)?;
    Ok(tokens)
}

fn parse(
    answer: &Answer,
    issuer: &str,
    identity: &Identity,
    asked: Option<&str>,
) -> Result<StoredTokens, AuthError> {
    const DOCUMENT: &str = "token response";
    if !answer.status.is_success() {
        let error = answer
            .object(DOCUMENT)
            .ok()
            .and_then(|object| object.get("error").and_then(Value::as_str).map(error_code));
        return Err(match error {
            Some(error) if answer.status.is_client_error() => AuthError::TokenRefused {
                host: answer.host.clone(),
                error,
            },
            _ => answer.status_error("the token request"),
        });
    }
    let object = answer.object(DOCUMENT)?;
    let access_token = object
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|token| {
            !token.is_empty() && HeaderValue::from_str(&format!("Bearer {token}")).is_ok()
        })
        .ok_or_else(|| answer.malformed(DOCUMENT, "`access_token` is missing or unusable"))?;
    let token_type = object
        .get("token_type")
        .and_then(Value::as_str)
        .ok_or_else(|| answer.malformed(DOCUMENT, "`token_type` is missing"))?;
    if !token_type.eq_ignore_ascii_case("bearer") {
        return Err(answer.malformed(DOCUMENT, "`token_type` is not Bearer"));
    }
    let expires_in = match object.get("expires_in") {
        None | Some(Value::Null) => None,
        Some(value) => Some(
            value
                .as_u64()
                .ok_or_else(|| answer.malformed(DOCUMENT, "`expires_in` is not a whole number"))?,
        ),
    };
    let refresh_token = match object.get("refresh_token") {
        None | Some(Value::Null) => None,
        Some(Value::String(token)) => Some(Secret::new(token.clone())),
        Some(_) => return Err(answer.malformed(DOCUMENT, "`refresh_token` is not a string")),
    };
    let scope = object
        .get("scope")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| asked.map(str::to_owned));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    Ok(StoredTokens {
        resource: String::new(),
        issuer: issuer.to_owned(),
        client_id: identity.client_id.clone(),
        client_secret: identity.secret.clone(),
        access_token: Secret::new(access_token),
        refresh_token,
        expires_at: expires_in.map(|seconds| now.saturating_add(seconds)),
        scope,
    })
}

/// An access token that is a JWT naming audiences must name `resource` among them: a token
/// for another resource is refused, not sent. Opaque tokens are not inspected.
fn check_audience(token: &str, resource: &str) -> Result<(), AuthError> {
    let mut parts = token.split('.');
    let (Some(_), Some(payload), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Ok(());
    };
    let Some(claims) = URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
    else {
        return Ok(());
    };
    let same = |audience: &str| audience.trim_end_matches('/') == resource.trim_end_matches('/');
    let matches = match claims.get("aud") {
        None => return Ok(()),
        Some(Value::String(audience)) => same(audience),
        Some(Value::Array(audiences)) => audiences.iter().filter_map(Value::as_str).any(same),
        Some(_) => false,
    };
    if matches {
        Ok(())
    } else {
        Err(AuthError::WrongAudience {
            resource: resource.to_owned(),
        })
    }
}

/// An OAuth error code as reported: only its registered-looking characters, bounded.
pub(crate) fn error_code(text: &str) -> String {
    let code: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .take(64)
        .collect();
    if code.is_empty() {
        "unspecified".to_owned()
    } else {
        code
    }
}

/// `application/x-www-form-urlencoded` of one value (RFC 6749 §2.3.1 for Basic).
fn form_encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(claims: &Value) -> String {
        format!("e30.{}.c2ln", URL_SAFE_NO_PAD.encode(claims.to_string()))
    }

    #[test]
    fn a_jwt_for_another_audience_is_refused() {
        let resource = "https://mcp.example/mcp";
        let ours = jwt(&serde_json::json!({"aud": "https://mcp.example/mcp"}));
        let listed = jwt(&serde_json::json!({"aud": ["x", "https://mcp.example/mcp/"]}));
        let other = jwt(&serde_json::json!({"aud": "https://other.example/mcp"}));
        assert!(check_audience(&ours, resource).is_ok());
        assert!(check_audience(&listed, resource).is_ok());
        assert!(matches!(
            check_audience(&other, resource),
            Err(AuthError::WrongAudience { .. })
        ));
        assert!(check_audience("opaque-token", resource).is_ok());
    }

    #[test]
    fn error_codes_are_sanitized() {
        assert_eq!(error_code("invalid_grant"), "invalid_grant");
        assert_eq!(error_code("<script>"), "script");
        assert_eq!(error_code("\n"), "unspecified");
    }
}
