//! `uri`, `uri-reference`, `iri` and `iri-reference`: RFC 3986 URIs and relative references
//! (sections 3 and 4.2), and their RFC 3987 internationalised forms, where any non-ASCII
//! character may stand wherever an unreserved character may.

use std::net::Ipv6Addr;

/// Which of the four grammars is checked.
#[derive(Clone, Copy)]
struct Syntax {
    /// Non-ASCII characters allowed (`iri`, `iri-reference`).
    iri: bool,
    /// A scheme is required (`uri`, `iri`); otherwise a relative reference is allowed too.
    absolute: bool,
}

impl Syntax {
    fn unreserved(self, b: u8) -> bool {
        b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~')
            || (self.iri && b >= 0x80)
    }

    fn pchar(self, b: u8) -> bool {
        self.unreserved(b) || is_sub_delim(b) || matches!(b, b':' | b'@')
    }
}

fn is_sub_delim(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

/// Checks that every byte of `part` is allowed by `allowed` or starts a `%XX` escape.
fn all_allowed(part: &[u8], allowed: impl Fn(u8) -> bool) -> bool {
    let mut i = 0;
    while i < part.len() {
        let b = part[i];
        if b == b'%' {
            let hex = |j: usize| part.get(j).is_some_and(u8::is_ascii_hexdigit);
            if !(hex(i + 1) && hex(i + 2)) {
                return false;
            }
            i += 3;
        } else if allowed(b) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

fn is_host(host: &[u8], syntax: Syntax) -> bool {
    if let Some(inner) = host.strip_prefix(b"[").and_then(|h| h.strip_suffix(b"]")) {
        if let Some(future) = inner
            .strip_prefix(b"v")
            .or_else(|| inner.strip_prefix(b"V"))
        {
            // IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
            let Some(dot) = future.iter().position(|&b| b == b'.') else {
                return false;
            };
            let (version, rest) = (&future[..dot], &future[dot + 1..]);
            let ascii = Syntax {
                iri: false,
                ..syntax
            };
            return !version.is_empty()
                && version.iter().all(u8::is_ascii_hexdigit)
                && !rest.is_empty()
                && rest
                    .iter()
                    .all(|&b| ascii.unreserved(b) || is_sub_delim(b) || b == b':');
        }
        return std::str::from_utf8(inner).is_ok_and(|s| s.parse::<Ipv6Addr>().is_ok());
    }
    // reg-name (which also covers IPv4address).
    all_allowed(host, |b| syntax.unreserved(b) || is_sub_delim(b))
}

fn is_authority(authority: &[u8], syntax: Syntax) -> bool {
    let (userinfo, host_port) = match authority.iter().position(|&b| b == b'@') {
        Some(at) => (Some(&authority[..at]), &authority[at + 1..]),
        None => (None, authority),
    };
    if let Some(userinfo) = userinfo {
        if !all_allowed(userinfo, |b| {
            syntax.unreserved(b) || is_sub_delim(b) || b == b':'
        }) {
            return false;
        }
    }
    // The port starts at the last ':' that is not inside an IP literal.
    let host_end = if host_port.first() == Some(&b'[') {
        match host_port.iter().position(|&b| b == b']') {
            Some(close) => close + 1,
            None => return false,
        }
    } else {
        host_port
            .iter()
            .position(|&b| b == b':')
            .unwrap_or(host_port.len())
    };
    let (host, port) = host_port.split_at(host_end);
    let port_ok = match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    };
    port_ok && is_host(host, syntax)
}

fn is_reference(s: &str, syntax: Syntax) -> bool {
    let b = s.as_bytes();
    // A scheme ends at the first ':' that comes before any '/', '?' or '#'.
    let first_delimiter = b
        .iter()
        .position(|&c| matches!(c, b':' | b'/' | b'?' | b'#'));
    let rest = match first_delimiter {
        Some(colon) if b[colon] == b':' => {
            let scheme = &b[..colon];
            let scheme_ok = scheme.first().is_some_and(u8::is_ascii_alphabetic)
                && scheme
                    .iter()
                    .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'));
            // Without a valid scheme the ':' would sit in a relative path's first
            // segment, which RFC 3986 section 4.2 forbids.
            if !scheme_ok {
                return false;
            }
            &b[colon + 1..]
        }
        _ if syntax.absolute => return false,
        _ => b,
    };
    let (before_fragment, fragment) = match rest.iter().position(|&c| c == b'#') {
        Some(hash) => (&rest[..hash], Some(&rest[hash + 1..])),
        None => (rest, None),
    };
    let (hier, query) = match before_fragment.iter().position(|&c| c == b'?') {
        Some(q) => (&before_fragment[..q], Some(&before_fragment[q + 1..])),
        None => (before_fragment, None),
    };
    let query_char = |c: u8| syntax.pchar(c) || matches!(c, b'/' | b'?');
    if !query.is_none_or(|q| all_allowed(q, query_char))
        || !fragment.is_none_or(|f| all_allowed(f, query_char))
    {
        return false;
    }
    let path = if let Some(after) = hier.strip_prefix(b"//") {
        let end = after.iter().position(|&c| c == b'/').unwrap_or(after.len());
        if !is_authority(&after[..end], syntax) {
            return false;
        }
        &after[end..]
    } else {
        hier
    };
    all_allowed(path, |c| syntax.pchar(c) || c == b'/')
}

/// `true` for an absolute URI (a scheme is required; a fragment is allowed), ASCII only.
pub fn is_uri(s: &str) -> bool {
    is_reference(
        s,
        Syntax {
            iri: false,
            absolute: true,
        },
    )
}

/// `true` for a URI or a relative reference (`../a?b#c`, `//host/p`, the empty string),
/// ASCII only.
pub fn is_uri_reference(s: &str) -> bool {
    is_reference(
        s,
        Syntax {
            iri: false,
            absolute: false,
        },
    )
}

/// `true` for an absolute IRI: a URI in which non-ASCII characters may also appear.
pub fn is_iri(s: &str) -> bool {
    is_reference(
        s,
        Syntax {
            iri: true,
            absolute: true,
        },
    )
}

/// `true` for an IRI or a relative IRI reference.
pub fn is_iri_reference(s: &str) -> bool {
    is_reference(
        s,
        Syntax {
            iri: true,
            absolute: false,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::{is_iri, is_iri_reference, is_uri, is_uri_reference};

    #[test]
    fn absolute_uris() {
        for ok in [
            "https://example.com/a/b?c=d#e",
            "file:///tmp/x.txt",
            "urn:isbn:0451450523",
            "mailto:a@b.c",
            "http://user:pw@[::1]:8080/",
            "http://[v1.fe]/",
            "data:text/plain;base64,SGk=",
            "x:",
            "http://h/%20",
        ] {
            assert!(is_uri(ok), "{ok} should be accepted");
        }
        for bad in [
            "",
            "/relative/path",
            "example.com",
            "1http://x",
            "http://exa mple.com",
            "http://h/%2",
            "http://[::1/",
            "http://h:port/",
            "http://h/#a#b",
            "http://h/é",
            "http://a@b@c/",
        ] {
            assert!(!is_uri(bad), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn relative_references_and_iris() {
        for ok in [
            "",
            "../a/b?c#d",
            "//host/p",
            "a/b:c",
            "?q",
            "#f",
            "/abs",
            "x:y",
        ] {
            assert!(is_uri_reference(ok), "{ok:?} should be a uri-reference");
        }
        for bad in [
            "a:b:c\\",
            "1a:b",
            "\\\\WINDOWS\\share",
            "#a#b",
            "http://h/é",
            "%zz",
        ] {
            assert!(
                !is_uri_reference(bad),
                "{bad:?} should not be a uri-reference"
            );
        }
        assert!(is_iri("http://ƒøø.ßår/?∂éœ=πîx#πîüx"));
        assert!(!is_iri("/relative/é"));
        assert!(is_iri_reference("/relative/é"));
        assert!(!is_iri("http://[::1é]/"));
        assert!(!is_iri_reference("\\\\WINDOWS\\filëßåré"));
        assert!(!is_uri_reference("http://h/é"));
    }
}
