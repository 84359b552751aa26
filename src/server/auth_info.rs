//! The caller's verified identity, as a transport's authentication established it.

use std::sync::Arc;

/// Who made a request, as verified by the transport's authentication (for HTTP, the resource
/// server layer of `typed_mcp::http::auth` after checking the bearer token). Handlers read
/// it from [`RequestContext::auth`](super::RequestContext::auth) and
/// [`ToolContext::auth`](crate::tools::ToolContext::auth); it is absent on stdio and on an
/// unprotected HTTP server.
///
/// It never holds the token itself.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct AuthInfo {
    /// The token's subject (`sub`): the user, or the client for a client-credentials token.
    pub subject: Option<String>,
    /// The OAuth client the token was issued to (`client_id`, or `azp`).
    pub client_id: Option<String>,
    /// The scopes granted (`scope`, split on spaces).
    pub scopes: Vec<String>,
    /// The issuer (`iss`).
    pub issuer: Option<String>,
    /// When the token expires (`exp`, seconds since the Unix epoch).
    pub expires_at: Option<u64>,
    /// Every claim of the token (or of the introspection answer), as JSON.
    pub claims: serde_json::Map<String, serde_json::Value>,
}

impl AuthInfo {
    /// An identity from a token's (or introspection answer's) claims: `sub`, `client_id`
    /// (else `azp`), `scope`, `iss` and `exp` are read from them.
    #[must_use]
    pub fn from_claims(claims: serde_json::Map<String, serde_json::Value>) -> Self {
        let text = |name: &str| claims.get(name).and_then(|v| v.as_str()).map(str::to_owned);
        Self {
            subject: text("sub"),
            client_id: text("client_id").or_else(|| text("azp")),
            scopes: claims
                .get("scope")
                .and_then(|v| v.as_str())
                .map(|scope| scope.split_whitespace().map(str::to_owned).collect())
                .unwrap_or_default(),
            issuer: text("iss"),
            expires_at: claims.get("exp").and_then(serde_json::Value::as_u64),
            claims,
        }
    }

    /// Whether `scope` was granted.
    #[must_use]
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }

    /// Whether this identity and `other` are the same principal (issuer, subject and client).
    #[must_use]
    pub fn same_principal(&self, other: &Self) -> bool {
        self.issuer == other.issuer
            && self.subject == other.subject
            && self.client_id == other.client_id
    }
}

/// What a request carries of its caller: shared, cheap to clone.
pub(crate) type SharedAuth = Option<Arc<AuthInfo>>;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claims_are_read_into_the_fields() {
        let claims = json!({"sub": "alice", "azp": "app", "scope": "a  b", "iss": "https://as",
                            "exp": 5, "extra": true});
        let serde_json::Value::Object(claims) = claims else {
            unreachable!()
        };
        let info = AuthInfo::from_claims(claims);
        assert_eq!(info.subject.as_deref(), Some("alice"));
        assert_eq!(info.client_id.as_deref(), Some("app"));
        assert_eq!(info.scopes, ["a", "b"]);
        assert!(info.has_scope("b") && !info.has_scope("c"));
        assert_eq!(info.expires_at, Some(5));
        assert_eq!(info.claims["extra"], true);
        let mut other = info.clone();
        assert!(info.same_principal(&other));
        other.subject = Some("bob".into());
        assert!(!info.same_principal(&other));
    }
}
