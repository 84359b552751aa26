//! `Host` and `Origin` checks: the defence against DNS rebinding.

use axum::http::{header, HeaderMap, Uri};

use super::headers::single;
use super::options::HttpOptions;

/// The host names that mean "this machine".
const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

/// Why a request was refused before anything else was looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// `Host` missing, repeated, malformed or not allowed.
    Host,
    /// `Origin` repeated, malformed or not allowed.
    Origin,
}

impl Refusal {
    pub(crate) fn message(self) -> &'static str {
        match self {
            Self::Host => "the Host header is not allowed for this server",
            Self::Origin => "the Origin header is not allowed for this server",
        }
    }
}

/// Checks `Host` and `Origin` against the options' allow-lists. Without a `Host` header the
/// URI's authority stands for it (HTTP/2 sends `:authority` instead).
pub(crate) fn check(headers: &HeaderMap, uri: &Uri, options: &HttpOptions) -> Result<(), Refusal> {
    let host = match single(headers, &header::HOST) {
        Ok(Some(host)) => host,
        Ok(None) => uri
            .authority()
            .map(|authority| authority.as_str())
            .filter(|authority| !authority.contains('@'))
            .ok_or(Refusal::Host)?,
        Err(()) => return Err(Refusal::Host),
    };
    if !host_allowed(host, options) {
        return Err(Refusal::Host);
    }
    match single(headers, &header::ORIGIN) {
        Err(()) => Err(Refusal::Origin),
        Ok(None) => Ok(()),
        Ok(Some(origin)) if origin_allowed(origin, options) => Ok(()),
        Ok(Some(_)) => Err(Refusal::Origin),
    }
}

fn host_allowed(host: &str, options: &HttpOptions) -> bool {
    let allowed = options.limits.allowed_hosts.as_deref().unwrap_or_default();
    if !allowed.is_empty() {
        let name = host_name(host);
        return allowed.iter().any(|entry| {
            let entry = entry.as_str();
            entry.eq_ignore_ascii_case(host)
                || (host_name(entry).len() == entry.len() && entry.eq_ignore_ascii_case(name))
        });
    }
    !options.loopback_only || is_loopback(host_name(host))
}

fn origin_allowed(origin: &str, options: &HttpOptions) -> bool {
    let allowed = options
        .limits
        .allowed_origins
        .as_deref()
        .unwrap_or_default();
    if !allowed.is_empty() {
        let origin = origin.trim_end_matches('/');
        return allowed
            .iter()
            .any(|entry| entry.trim_end_matches('/').eq_ignore_ascii_case(origin));
    }
    if !options.loopback_only {
        return false;
    }
    let Some(authority) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let authority = authority.trim_end_matches('/');
    !authority.contains(['/', '@', '?', '#']) && is_loopback(host_name(authority))
}

/// The host part of `host[:port]` (an IPv6 literal keeps its brackets).
fn host_name(authority: &str) -> &str {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => &authority[..=end],
            None => authority,
        };
    }
    match authority.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => authority,
    }
}

fn is_loopback(name: &str) -> bool {
    LOOPBACK_HOSTS
        .iter()
        .any(|loopback| loopback.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> Uri {
        Uri::from_static("/mcp")
    }
    use crate::config::parse_limits;
    use axum::http::HeaderValue;

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        headers
    }

    #[test]
    fn loopback_default_accepts_local_forms_only() {
        let options = HttpOptions::default();
        for host in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:1",
            "[::1]:9",
            "LOCALHOST",
        ] {
            assert_eq!(
                check(&headers(host, None), &path(), &options),
                Ok(()),
                "{host}"
            );
        }
        for host in [
            "evil.example",
            "evil.example:8080",
            "127.0.0.1.evil",
            "localhost.evil:1",
        ] {
            assert_eq!(
                check(&headers(host, None), &path(), &options),
                Err(Refusal::Host),
                "{host}"
            );
        }
        assert_eq!(
            check(&HeaderMap::new(), &path(), &options),
            Err(Refusal::Host)
        );
        // HTTP/2: no Host header, the authority in the URI.
        let h2 = |authority: &str| Uri::try_from(format!("https://{authority}/mcp")).unwrap();
        assert_eq!(
            check(&HeaderMap::new(), &h2("127.0.0.1:8443"), &options),
            Ok(())
        );
        assert_eq!(
            check(&HeaderMap::new(), &h2("evil.example:8443"), &options),
            Err(Refusal::Host)
        );
        assert_eq!(
            check(&HeaderMap::new(), &h2("evil.example@127.0.0.1"), &options),
            Err(Refusal::Host)
        );
        let ok = headers("localhost:1", Some("http://localhost:3000"));
        assert_eq!(check(&ok, &path(), &options), Ok(()));
        for origin in [
            "http://evil.example",
            "null",
            "http://localhost@evil",
            "ftp://localhost",
        ] {
            let refused = headers("localhost:1", Some(origin));
            assert_eq!(
                check(&refused, &path(), &options),
                Err(Refusal::Origin),
                "{origin}"
            );
        }
    }

    #[test]
    fn explicit_lists_win() {
        let limits = parse_limits(
            r#"{"http": {"allowedHosts": ["mcp.example", "other.example:8443"],
                         "allowedOrigins": ["https://app.example"]}}"#,
        )
        .unwrap();
        let options = HttpOptions::from_limits(&limits).loopback_only(false);
        assert_eq!(
            check(&headers("mcp.example:443", None), &path(), &options),
            Ok(())
        );
        assert_eq!(
            check(&headers("other.example:8443", None), &path(), &options),
            Ok(())
        );
        assert_eq!(
            check(&headers("other.example:1", None), &path(), &options),
            Err(Refusal::Host)
        );
        assert_eq!(
            check(&headers("localhost", None), &path(), &options),
            Err(Refusal::Host)
        );
        let origin = headers("mcp.example", Some("https://app.example"));
        assert_eq!(check(&origin, &path(), &options), Ok(()));
        let origin = headers("mcp.example", Some("https://evil.example"));
        assert_eq!(check(&origin, &path(), &options), Err(Refusal::Origin));
    }

    #[test]
    fn public_default_accepts_any_host_and_no_origin() {
        let options = HttpOptions::default().loopback_only(false);
        assert_eq!(
            check(&headers("anything.example", None), &path(), &options),
            Ok(())
        );
        let origin = headers("anything.example", Some("https://anything.example"));
        assert_eq!(check(&origin, &path(), &options), Err(Refusal::Origin));
    }
}
