//! Discovery: the `WWW-Authenticate` challenge, the protected resource metadata (RFC 9728),
//! and the authorization server metadata (RFC 8414 and OpenID Connect discovery), each
//! looked up where the MCP authorization spec says, in its order.

use serde_json::{Map, Value};
use url::Url;

use super::fetch::{self, Answer};
use super::AuthError;
use crate::client::connector::Http;

/// The parameters of a `Bearer` challenge.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// `resource_metadata`: where the protected resource metadata is.
    pub(crate) resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs.
    pub(crate) scope: Option<String>,
    /// `error` (`invalid_token`, `insufficient_scope`).
    pub(crate) error: Option<String>,
}

impl Challenge {
    /// Parses the `Bearer` challenge of a `WWW-Authenticate` value (auth-params, quoted or
    /// not; other schemes are skipped).
    pub(crate) fn parse(header: &str) -> Self {
        let mut challenge = Self::default();
        let mut rest = header.trim();
        let mut in_bearer = false;
        while !rest.is_empty() {
            // A scheme name starts a challenge: a token not followed by `=`.
            let token_end = rest
                .find(|c: char| c == '=' || c == ',' || c.is_whitespace())
                .unwrap_or(rest.len());
            let token = &rest[..token_end];
            let after = rest[token_end..].trim_start();
            if !after.starts_with('=') {
                if !token.is_empty() {
                    in_bearer = token.eq_ignore_ascii_case("bearer");
                }
                rest = after.trim_start_matches(',').trim_start();
                continue;
            }
            let after = after[1..].trim_start();
            let (value, remaining) = if let Some(quoted) = after.strip_prefix('"') {
                let mut value = String::new();
                let mut chars = quoted.char_indices();
                let mut end = quoted.len();
                while let Some((i, c)) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some((_, next)) = chars.next() {
                                value.push(next);
                            }
                        }
                        '"' => {
                            end = i + 1;
                            break;
                        }
                        other => value.push(other),
                    }
                }
                (value, &quoted[end.min(quoted.len())..])
            } else {
                let end = after.find(',').unwrap_or(after.len());
                (after[..end].trim().to_owned(), &after[end..])
            };
            if in_bearer {
                match token.to_ascii_lowercase().as_str() {
                    "resource_metadata" => challenge.resource_metadata = Some(value),
                    "scope" => challenge.scope = Some(value),
                    "error" => challenge.error = Some(value),
                    _ => {}
                }
            }
            rest = remaining.trim_start().trim_start_matches(',').trim_start();
        }
        challenge
    }
}

/// What the protected resource metadata says.
#[derive(Debug, Clone)]
pub(crate) struct ResourceMetadata {
    /// The resource identifier, exactly as published (sent as `resource`).
    pub(crate) resource: String,
    /// The authorization servers (issuer URLs).
    pub(crate) authorization_servers: Vec<String>,
    /// The scopes the resource uses.
    pub(crate) scopes_supported: Option<Vec<String>>,
}

/// Fetches the protected resource metadata of `server`: from the challenge's
/// `resource_metadata` URL, else `/.well-known/oauth-protected-resource` with the server's
/// path inserted, else at the root. `None` when no location has it (a 2025-03-26 server).
pub(crate) async fn resource_metadata(
    client: &Http,
    server: &Url,
    challenge: &Challenge,
) -> Result<Option<ResourceMetadata>, AuthError> {
    let mut candidates = Vec::new();
    if let Some(url) = &challenge.resource_metadata {
        candidates.push(fetch::secure_url(url, "protected resource metadata URL")?);
    } else {
        let path = server.path().trim_end_matches('/');
        if !path.is_empty() {
            candidates.push(well_known(server, "oauth-protected-resource", path));
        }
        candidates.push(well_known(server, "oauth-protected-resource", ""));
    }
    for candidate in candidates {
        let answer = fetch::get(
            client,
            &candidate,
            "fetching the protected resource metadata",
        )
        .await?;
        if answer.status.is_client_error() {
            tracing::debug!(status = %answer.status, url = %candidate, "no protected resource metadata here");
            continue;
        }
        if !answer.status.is_success() {
            // A redirect is never followed, a server error is not "absent".
            return Err(answer.status_error("fetching the protected resource metadata"));
        }
        return parse_resource_metadata(&answer).map(Some);
    }
    Ok(None)
}

fn parse_resource_metadata(answer: &Answer) -> Result<ResourceMetadata, AuthError> {
    const DOCUMENT: &str = "protected resource metadata";
    let object = answer.object(DOCUMENT)?;
    let resource = object
        .get("resource")
        .and_then(Value::as_str)
        .ok_or_else(|| answer.malformed(DOCUMENT, "`resource` is missing or not a string"))?
        .to_owned();
    let authorization_servers = strings(&object, "authorization_servers")
        .map_err(|reason| answer.malformed(DOCUMENT, reason))?
        .unwrap_or_default();
    let scopes_supported = strings(&object, "scopes_supported")
        .map_err(|reason| answer.malformed(DOCUMENT, reason))?;
    Ok(ResourceMetadata {
        resource,
        authorization_servers,
        scopes_supported,
    })
}

/// Whether the published `resource` covers `server`: same scheme, host and port, and the
/// server's path is the resource's path or below it.
pub(crate) fn resource_covers(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.scheme() != server.scheme()
        || resource.host_str().map(str::to_ascii_lowercase)
            != server.host_str().map(str::to_ascii_lowercase)
        || resource.port_or_known_default() != server.port_or_known_default()
        || resource.fragment().is_some()
    {
        return false;
    }
    let base = resource.path().trim_end_matches('/');
    let path = server.path();
    path == base || path.starts_with(&format!("{base}/")) || base.is_empty()
}

/// What the authorization server metadata says (the members this client uses).
#[derive(Debug, Clone)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: Option<Url>,
    pub(crate) token_endpoint: Url,
    pub(crate) registration_endpoint: Option<Url>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) code_challenge_methods_supported: Option<Vec<String>>,
    pub(crate) token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// RFC 9207: the redirect carries `iss`.
    pub(crate) iss_parameter_supported: bool,
    /// A client ID metadata document URL may be the `client_id`.
    pub(crate) cimd_supported: bool,
    /// Whether the document was found (false: the 2025-03-26 default endpoints).
    pub(crate) discovered: bool,
}

/// The metadata URLs of `issuer`, in the spec's order: with a path, OAuth then OpenID
/// path insertion, then OpenID path appending; without one, OAuth then OpenID.
pub(crate) fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            well_known(issuer, "oauth-authorization-server", ""),
            well_known(issuer, "openid-configuration", ""),
        ]
    } else {
        let mut appended = issuer.clone();
        appended.set_path(&format!("{path}/.well-known/openid-configuration"));
        appended.set_query(None);
        vec![
            well_known(issuer, "oauth-authorization-server", path),
            well_known(issuer, "openid-configuration", path),
            appended,
        ]
    }
}

/// Fetches the metadata of `issuer` and checks its `issuer` member. Without any document
/// and when `defaults` allows it (a 2025-03-26 server, which has no protected resource
/// metadata), the defaults `/authorize`, `/token`, `/register` at the issuer's origin.
pub(crate) async fn server_metadata(
    client: &Http,
    issuer: &str,
    defaults: bool,
) -> Result<ServerMetadata, AuthError> {
    const STEP: &str = "fetching the authorization server metadata";
    let issuer_url = fetch::secure_url(issuer, "authorization server URL")?;
    for candidate in metadata_urls(&issuer_url) {
        let answer = fetch::get(client, &candidate, STEP).await?;
        if answer.status.is_success() {
            return parse_server_metadata(&answer, issuer);
        }
        if !answer.status.is_client_error() {
            // A redirect is never followed, a server error is not "absent".
            return Err(answer.status_error(STEP));
        }
        tracing::debug!(status = %answer.status, url = %candidate, "no authorization server metadata here");
    }
    if !defaults {
        return Err(AuthError::NoAuthorizationServer {
            resource: issuer.to_owned(),
        });
    }
    let endpoint = |path: &str| {
        let mut url = issuer_url.clone();
        url.set_path(path);
        url.set_query(None);
        url
    };
    Ok(ServerMetadata {
        issuer: issuer.to_owned(),
        authorization_endpoint: Some(endpoint("/authorize")),
        token_endpoint: endpoint("/token"),
        registration_endpoint: Some(endpoint("/register")),
        scopes_supported: None,
        code_challenge_methods_supported: None,
        token_endpoint_auth_methods_supported: None,
        iss_parameter_supported: false,
        cimd_supported: false,
        discovered: false,
    })
}

fn parse_server_metadata(answer: &Answer, issuer: &str) -> Result<ServerMetadata, AuthError> {
    const DOCUMENT: &str = "authorization server metadata";
    let object = answer.object(DOCUMENT)?;
    let published = object
        .get("issuer")
        .and_then(Value::as_str)
        .ok_or_else(|| answer.malformed(DOCUMENT, "`issuer` is missing or not a string"))?;
    if published != issuer {
        return Err(AuthError::IssuerMismatch {
            published: published.to_owned(),
            expected: issuer.to_owned(),
        });
    }
    let url = |name: &'static str| -> Result<Option<Url>, AuthError> {
        match object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => fetch::secure_url(text, name).map(Some),
            Some(_) => Err(answer.malformed(DOCUMENT, &format!("`{name}` is not a string"))),
        }
    };
    let list = |name: &'static str| {
        strings(&object, name).map_err(|reason| answer.malformed(DOCUMENT, reason))
    };
    let flag = |name: &str| object.get(name).and_then(Value::as_bool).unwrap_or(false);
    Ok(ServerMetadata {
        issuer: issuer.to_owned(),
        authorization_endpoint: url("authorization_endpoint")?,
        token_endpoint: url("token_endpoint")?
            .ok_or_else(|| answer.malformed(DOCUMENT, "`token_endpoint` is missing"))?,
        registration_endpoint: url("registration_endpoint")?,
        scopes_supported: list("scopes_supported")?,
        code_challenge_methods_supported: list("code_challenge_methods_supported")?,
        token_endpoint_auth_methods_supported: list("token_endpoint_auth_methods_supported")?,
        iss_parameter_supported: flag("authorization_response_iss_parameter_supported"),
        cimd_supported: flag("client_id_metadata_document_supported"),
        discovered: true,
    })
}

/// `scheme://host[:port]/.well-known/NAME{path}`.
fn well_known(base: &Url, name: &str, path: &str) -> Url {
    let mut url = base.clone();
    url.set_path(&format!("/.well-known/{name}{path}"));
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// An optional array of strings.
fn strings(object: &Map<String, Value>, name: &str) -> Result<Option<Vec<String>>, &'static str> {
    match object.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or("a list holds a non-string")
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err("a member that must be a list is not one"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_parse_quoted_and_bare_parameters() {
        let parsed = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(parsed.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(parsed.scope.as_deref(), Some("a b"));
        assert_eq!(
            parsed.resource_metadata.as_deref(),
            Some("https://x/.well-known/oauth-protected-resource/mcp")
        );
        let bare = Challenge::parse("Basic realm=\"x\", Bearer scope=read, error=invalid_token");
        assert_eq!(bare.scope.as_deref(), Some("read"));
        assert_eq!(bare.error.as_deref(), Some("invalid_token"));
        let other = Challenge::parse("Basic realm=\"x\", scope=\"nope\"");
        assert_eq!(other, Challenge::default());
        assert_eq!(Challenge::parse("Bearer"), Challenge::default());
        let escaped = Challenge::parse(r#"Bearer scope="a\"b""#);
        assert_eq!(escaped.scope.as_deref(), Some("a\"b"));
    }

    #[test]
    fn metadata_urls_follow_the_spec_order() {
        let with_path = Url::parse("https://as.example/tenant1").unwrap();
        let urls: Vec<String> = metadata_urls(&with_path)
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            urls,
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant1",
                "https://as.example/.well-known/openid-configuration/tenant1",
                "https://as.example/tenant1/.well-known/openid-configuration",
            ]
        );
        let root = Url::parse("https://as.example").unwrap();
        let urls: Vec<String> = metadata_urls(&root).iter().map(Url::to_string).collect();
        assert_eq!(
            urls,
            [
                "https://as.example/.well-known/oauth-authorization-server",
                "https://as.example/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn a_resource_covers_its_own_url_and_paths_below_it() {
        let server = Url::parse("https://mcp.example/mcp").unwrap();
        assert!(resource_covers("https://mcp.example/mcp", &server));
        assert!(resource_covers("https://mcp.example", &server));
        assert!(resource_covers("https://mcp.example/", &server));
        assert!(!resource_covers("https://evil.example.com/mcp", &server));
        assert!(!resource_covers("https://mcp.example/other", &server));
        assert!(!resource_covers("https://mcp.example/mc", &server));
        assert!(!resource_covers("http://mcp.example/mcp", &server));
        assert!(!resource_covers("https://mcp.example:8443/mcp", &server));
        assert!(!resource_covers("not a url", &server));
    }
}
