//! Who the client is at an authorization server, in the MCP spec's order: pre-registered
//! credentials, then a client ID metadata document URL when the server supports them, then
//! dynamic client registration (RFC 7591).

use serde_json::{json, Value};

use super::discovery::ServerMetadata;
use super::fetch;
use super::token::{AuthMethod, Identity};
use super::{AuthError, Grant, OAuthOptions, Secret};
use crate::client::connector::Http;

/// The identity to use with `metadata`'s server; `registered` caches a dynamic
/// registration made earlier with the same issuer.
pub(crate) async fn identity(
    client: &Http,
    options: &OAuthOptions,
    metadata: &ServerMetadata,
    redirect_uri: Option<&str>,
    registered: &mut Option<Identity>,
) -> Result<Identity, AuthError> {
    if let Some(client_id) = &options.client_id {
        let method = if matches!(options.grant, Grant::ClientCredentialsJwt(_)) {
            AuthMethod::PrivateKeyJwt
        } else if options.client_secret.is_some() {
            secret_method(metadata)
        } else {
            AuthMethod::None
        };
        let key = match &options.grant {
            Grant::ClientCredentialsJwt(key) => Some(key.clone()),
            _ => None,
        };
        return Ok(Identity {
            client_id: client_id.clone(),
            secret: options.client_secret.clone(),
            method,
            key,
        });
    }
    if let (Some(url), true) = (&options.metadata_url, metadata.cimd_supported) {
        return Ok(Identity {
            client_id: url.clone(),
            secret: None,
            method: AuthMethod::None,
            key: None,
        });
    }
    if let Some(identity) = registered {
        return Ok(identity.clone());
    }
    let (Some(endpoint), true) = (
        &metadata.registration_endpoint,
        options.dynamic_registration,
    ) else {
        return Err(AuthError::NoClientIdentity {
            issuer: metadata.issuer.clone(),
        });
    };
    let wanted = preferred_method(metadata);
    let mut document = json!({
        "client_name": options.client_name,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": wanted.name(),
        "application_type": "native",
    });
    if let Some(redirect) = redirect_uri {
        document["redirect_uris"] = json!([redirect]);
    }
    let answer =
        fetch::post_json(client, endpoint, &document, "dynamic client registration").await?;
    if !answer.status.is_success() {
        return Err(answer.status_error("dynamic client registration"));
    }
    const DOCUMENT: &str = "client registration response";
    let object = answer.object(DOCUMENT)?;
    let client_id = object
        .get("client_id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .ok_or_else(|| answer.malformed(DOCUMENT, "`client_id` is missing or empty"))?
        .to_owned();
    let secret = object
        .get("client_secret")
        .and_then(Value::as_str)
        .map(Secret::from);
    let method = match object
        .get("token_endpoint_auth_method")
        .and_then(Value::as_str)
    {
        Some(name) => AuthMethod::parse(name)
            .filter(|method| *method != AuthMethod::PrivateKeyJwt)
            .ok_or_else(|| {
                answer.malformed(
                    DOCUMENT,
                    "`token_endpoint_auth_method` is not one this client uses",
                )
            })?,
        None if secret.is_some() => secret_method(metadata),
        None => AuthMethod::None,
    };
    if matches!(method, AuthMethod::Basic | AuthMethod::Post) && secret.is_none() {
        return Err(answer.malformed(DOCUMENT, "a secret-based method without `client_secret`"));
    }
    let identity = Identity {
        client_id,
        secret,
        method,
        key: None,
    };
    *registered = Some(identity.clone());
    Ok(identity)
}

/// For a client with a secret: Basic unless the server lists only `client_secret_post`.
pub(crate) fn secret_method(metadata: &ServerMetadata) -> AuthMethod {
    match &metadata.token_endpoint_auth_methods_supported {
        Some(methods)
            if !methods.iter().any(|m| m == "client_secret_basic")
                && methods.iter().any(|m| m == "client_secret_post") =>
        {
            AuthMethod::Post
        }
        _ => AuthMethod::Basic,
    }
}

/// What a registering public client asks for: `none` unless the server does not allow it.
fn preferred_method(metadata: &ServerMetadata) -> AuthMethod {
    match &metadata.token_endpoint_auth_methods_supported {
        None => AuthMethod::None,
        Some(methods) if methods.iter().any(|m| m == "none") => AuthMethod::None,
        Some(methods) if methods.iter().any(|m| m == "client_secret_basic") => AuthMethod::Basic,
        Some(methods) if methods.iter().any(|m| m == "client_secret_post") => AuthMethod::Post,
        Some(_) => AuthMethod::None,
    }
}
