//! `email`: an RFC 5321 mailbox (`local-part "@" domain`), ASCII only; `idn-email`: its
//! RFC 6531 internationalised form.

use std::net::{Ipv4Addr, Ipv6Addr};

fn is_atext(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'!' | b'#'
                | b'$'
                | b'%'
                | b'&'
                | b'\''
                | b'*'
                | b'+'
                | b'-'
                | b'/'
                | b'='
                | b'?'
                | b'^'
                | b'_'
                | b'`'
                | b'{'
                | b'|'
                | b'}'
                | b'~'
        )
}

fn is_local_part(local: &[u8], intl: bool) -> bool {
    if local.is_empty() || local.len() > 64 {
        return false;
    }
    if let Some(inner) = local
        .strip_prefix(b"\"")
        .and_then(|l| l.strip_suffix(b"\""))
    {
        // quoted-string: printable ASCII, with `"` and `\` only escaped.
        let mut i = 0;
        while i < inner.len() {
            match inner[i] {
                b'\\' => {
                    if !inner.get(i + 1).is_some_and(|b| (0x20..=0x7e).contains(b)) {
                        return false;
                    }
                    i += 2;
                }
                b'"' => return false,
                0x20..=0x7e => i += 1,
                0x80.. if intl => i += 1,
                _ => return false,
            }
        }
        return true;
    }
    // dot-string: atoms separated by single dots.
    local
        .split(|&b| b == b'.')
        .all(|atom| !atom.is_empty() && atom.iter().all(|&b| is_atext(b) || (intl && b >= 0x80)))
}

fn is_domain(domain: &[u8]) -> bool {
    if let Some(literal) = domain.strip_prefix(b"[").and_then(|d| d.strip_suffix(b"]")) {
        let Ok(literal) = std::str::from_utf8(literal) else {
            return false;
        };
        return match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => {
                literal[5..].parse::<Ipv6Addr>().is_ok()
            }
            _ => literal.parse::<Ipv4Addr>().is_ok(),
        };
    }
    if domain.is_empty() || domain.len() > 253 {
        return false;
    }
    domain.split(|&b| b == b'.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'-')
            && label.first() != Some(&b'-')
            && label.last() != Some(&b'-')
    })
}

/// `true` for `local-part@domain`: a dot-string or quoted local part of at most 64 bytes, and
/// a host name (labels of letters, digits and inner hyphens) or an address literal
/// (`[192.0.2.1]`, `[IPv6:2001:db8::1]`).
pub fn is_email(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(at) = b.iter().rposition(|&c| c == b'@') else {
        return false;
    };
    is_local_part(&b[..at], false) && is_domain(&b[at + 1..])
}

/// `true` for an internationalised mailbox (RFC 6531): as `email`, with non-ASCII characters
/// allowed in the local part and an internationalised host name (`idn-hostname`) as domain.
pub fn is_idn_email(s: &str) -> bool {
    let Some(at) = s.rfind('@') else {
        return false;
    };
    let (local, domain) = (&s.as_bytes()[..at], &s[at + 1..]);
    is_local_part(local, true)
        && (is_domain(domain.as_bytes()) || super::net::is_idn_hostname(domain))
}

#[cfg(test)]
mod tests {
    use super::is_email;

    #[test]
    fn mailboxes() {
        for ok in [
            "a@example.com",
            "first.last+tag@sub.example.org",
            "\"quoted @ name\"@example.com",
            "x@[192.0.2.1]",
            "x@[IPv6:2001:db8::1]",
            "x@localhost",
        ] {
            assert!(is_email(ok), "{ok} should be accepted");
        }
        for bad in [
            "",
            "no-at-sign",
            "@example.com",
            "a@",
            "a..b@example.com",
            ".a@example.com",
            "a@-example.com",
            "a@exa_mple.com",
            "a b@example.com",
            "a@[300.1.1.1]",
        ] {
            assert!(!is_email(bad), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn internationalised_mailboxes() {
        use super::is_idn_email;
        for ok in [
            "실례@실례.테스트",
            "joe.bloggs@example.com",
            "\"é x\"@example.com",
        ] {
            assert!(is_idn_email(ok), "{ok}");
        }
        for bad in ["2962", "실례@-실례.테스트", "a@", "@b.c"] {
            assert!(!is_idn_email(bad), "{bad}");
        }
        assert!(!super::is_email("실례@실례.테스트"));
    }
}
