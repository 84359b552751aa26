//! `ipv4`, `ipv6`, `hostname` and `idn-hostname`.

use std::net::{Ipv4Addr, Ipv6Addr};

/// `ipv4`: RFC 2673 dotted-quad, four decimal octets 0-255 without leading zeros.
pub fn is_ipv4(s: &str) -> bool {
    // The standard library's parser takes exactly this syntax (no leading zeros, no
    // shortened forms, ASCII digits only).
    s.parse::<Ipv4Addr>().is_ok()
}

/// `ipv6`: RFC 4291 text form, including `::` compression and a trailing dotted quad; no
/// zone identifier, no brackets, no surrounding white space.
pub fn is_ipv6(s: &str) -> bool {
    s.parse::<Ipv6Addr>().is_ok()
}

/// `hostname`: RFC 1123 host name: dot-separated labels of 1-63 ASCII letters, digits and
/// hyphens, not starting or ending with a hyphen, 253 characters at most. A label with
/// hyphens in its third and fourth places is reserved (RFC 5890 section 2.3.1) unless it is
/// an A-label (`xn--`) that decodes to a valid internationalised label.
pub fn is_hostname(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            if !is_ldh_label(label) {
                return false;
            }
            if label.get(2..4) != Some("--") {
                return true;
            }
            label[..2].eq_ignore_ascii_case("xn") && idna::domain_to_unicode(label).1.is_ok()
        })
}

fn is_ldh_label(label: &str) -> bool {
    !label.is_empty()
        && label.len() <= 63
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !label.starts_with('-')
        && !label.ends_with('-')
}

/// `idn-hostname`: RFC 5890 internationalised host name, checked with the `idna` crate's
/// strict UTS #46 processing (which maps, validates each label and its bidirectional and
/// joiner rules); the ASCII form must then be a valid `hostname`.
pub fn is_idn_hostname(s: &str) -> bool {
    if s.is_empty() {
        return false;
    }
    // UTS #46 treats the ideographic and fullwidth full stops as label separators.
    match idna::domain_to_ascii_strict(s) {
        Ok(ascii) => is_hostname(&ascii),
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{is_hostname, is_idn_hostname, is_ipv4, is_ipv6};

    #[test]
    fn addresses() {
        for ok in ["192.168.0.1", "0.0.0.0", "255.255.255.255"] {
            assert!(is_ipv4(ok), "{ok}");
        }
        for bad in [
            "256.0.0.1",
            "087.10.0.1",
            "1.2.3",
            "1.2.3.4.5",
            "0x7f000001",
            "1.2.3.4\n",
            "১২৭.0.0.1",
        ] {
            assert!(!is_ipv4(bad), "{bad}");
        }
        for ok in [
            "::1",
            "::",
            "1:2:3:4:5:6:7:8",
            "::ffff:192.168.0.1",
            "fe80::1",
        ] {
            assert!(is_ipv6(ok), "{ok}");
        }
        for bad in [
            "12345::",
            "1:2:3:4:5:6:7:8:9",
            "::1%eth0",
            "[::1]",
            " ::1",
            ":::",
            "1::2::3",
        ] {
            assert!(!is_ipv6(bad), "{bad}");
        }
    }

    #[test]
    fn host_names() {
        for ok in [
            "example.com",
            "a-b.c",
            "xn--4gbwdl.xn--wgbh1c",
            "localhost",
            "123.example",
        ] {
            assert!(is_hostname(ok), "{ok}");
        }
        let long_label = "a".repeat(64);
        for bad in [
            "",
            "-a.com",
            "a-.com",
            "a..b",
            "a_b.com",
            "ex ample",
            long_label.as_str(),
            "xn--X",
            "é.com",
            "ab--c.com",
        ] {
            assert!(!is_hostname(bad), "{bad:?}");
        }
        for ok in ["실례.테스트", "example.com", "xn--ihqwcrb4cv8a8dqg056pqjye"] {
            assert!(is_idn_hostname(ok), "{ok}");
        }
        for bad in ["", "〮실례.테스트", "-> $1.00 <-", "a..b", "ab--cd.com"] {
            assert!(!is_idn_hostname(bad), "{bad:?}");
        }
    }
}
