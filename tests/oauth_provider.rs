//! The auth tests' OpenID provider (tests/oauth/provider.mjs over npm `oidc-provider`) does
//! what the other auth tests rely on: discovery, JWT access tokens for a resource (RFC 9068,
//! `aud` = the resource), short-lived tokens, key rotation, introspection of opaque tokens.

mod oauth_support;

use base64::Engine;
use oauth_support::{Provider, RS_CLIENT, RS_SECRET};
use serde_json::Value;

const RESOURCE: &str = "http://127.0.0.1:9/mcp";

fn jwt_part(token: &str, index: usize) -> Value {
    let part = token.split('.').nth(index).expect("a JWT part");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part)
        .expect("base64url");
    serde_json::from_slice(&bytes).expect("JSON")
}

#[tokio::test]
async fn provider_issues_resource_jwts_rotates_and_introspects() {
    let Some(provider) = Provider::start() else {
        return;
    };
    let discovery = provider.get_json("/.well-known/openid-configuration").await;
    assert_eq!(discovery["issuer"], provider.issuer.as_str());
    let rfc8414 = provider
        .get_json("/.well-known/oauth-authorization-server")
        .await;
    assert_eq!(rfc8414["jwks_uri"], discovery["jwks_uri"]);

    let token = provider
        .access_token("mcp-cc", RESOURCE, "notes:read")
        .await;
    let header = jwt_part(&token, 0);
    let claims = jwt_part(&token, 1);
    assert_eq!(header["typ"], "at+jwt");
    assert_eq!(header["alg"], "RS256");
    assert_eq!(claims["aud"], RESOURCE);
    assert_eq!(claims["iss"], provider.issuer.as_str());
    assert_eq!(claims["scope"], "notes:read");
    assert_eq!(claims["client_id"], "mcp-cc");

    let short = provider
        .client_credentials("mcp-cc-short", RESOURCE, "notes:read")
        .await;
    assert_eq!(short["expires_in"], 1);
    let es = provider
        .access_token("mcp-cc-es256", RESOURCE, "notes:read")
        .await;
    assert_eq!(jwt_part(&es, 0)["alg"], "ES256");

    let old_kid = header["kid"].as_str().expect("a kid").to_owned();
    let kids = provider.rotate_keys().await;
    assert!(!kids.contains(&old_kid), "{kids:?} still lists {old_kid}");
    let jwks = provider.get_json("/jwks").await;
    let listed: Vec<&str> = jwks["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .filter_map(|key| key["kid"].as_str())
        .collect();
    assert_eq!(listed, kids);
    let after = provider
        .access_token("mcp-cc", RESOURCE, "notes:read")
        .await;
    assert!(kids
        .iter()
        .any(|kid| jwt_part(&after, 0)["kid"] == kid.as_str()));

    let opaque = provider
        .access_token("mcp-cc-opaque", RESOURCE, "notes:read notes:write")
        .await;
    assert_eq!(opaque.split('.').count(), 1, "an opaque token: {opaque}");
    let introspection = reqwest::Client::new()
        .post(format!("{}/token/introspection", provider.issuer))
        .basic_auth(RS_CLIENT, Some(RS_SECRET))
        .form(&[("token", opaque.as_str())])
        .send()
        .await
        .expect("introspection answers")
        .text()
        .await
        .expect("a body");
    let introspection: Value = serde_json::from_str(&introspection).expect("JSON");
    assert_eq!(introspection["active"], true, "{introspection}");
    assert_eq!(introspection["aud"], RESOURCE);
    assert_eq!(introspection["scope"], "notes:read notes:write");
}
