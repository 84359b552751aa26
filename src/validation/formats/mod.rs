//! The `format` checks generated validators run when format assertion is on: every format of
//! JSON Schema 2020-12 (`date-time`, `date`, `time`, `duration`, `email`, `idn-email`,
//! `hostname`, `idn-hostname`, `ipv4`, `ipv6`, `uri`, `uri-reference`, `iri`,
//! `iri-reference`, `uuid`, `uri-template`, `json-pointer`, `relative-json-pointer`,
//! `regex`) and OpenAPI's `byte`. Each is a pure syntax check.

mod date_time;
mod email;
mod net;
mod pointer;
mod uri;
mod uri_template;

pub use date_time::{is_date, is_date_time, is_duration, is_time};
pub use email::{is_email, is_idn_email};
pub use net::{is_hostname, is_idn_hostname, is_ipv4, is_ipv6};
pub use pointer::{is_json_pointer, is_relative_json_pointer};
pub use uri::{is_iri, is_iri_reference, is_uri, is_uri_reference};
pub use uri_template::is_uri_template;

/// `uuid`: RFC 4122 text form, `8-4-4-4-12` hexadecimal digits (either case).
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// `regex`: an ECMA-262 regular expression, as the runtime compiles `pattern` (Unicode
/// mode).
pub fn is_regex(s: &str) -> bool {
    !quantifies_an_assertion(s) && regress::Regex::with_flags(s, "u").is_ok()
}

/// Whether `s` puts a quantifier right after an assertion (`^`, `$`, `\b`, `\B`) outside a
/// character class: a syntax error in ECMA-262's Unicode mode that `regress` accepts (found by
/// the format property test against `jsonschema`: `\b?`).
fn quantifies_an_assertion(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut at = 0;
    let mut in_class = false;
    while at < bytes.len() {
        let assertion_end = match bytes[at] {
            b'\\' => {
                let escaped = bytes.get(at + 1).copied();
                at += 2;
                (!in_class && matches!(escaped, Some(b'b' | b'B'))).then_some(at)
            }
            b'[' if !in_class => {
                in_class = true;
                at += 1;
                None
            }
            b']' if in_class => {
                in_class = false;
                at += 1;
                None
            }
            b'^' | b'$' if !in_class => {
                at += 1;
                Some(at)
            }
            _ => {
                at += 1;
                None
            }
        };
        if let Some(end) = assertion_end {
            if matches!(bytes.get(end), Some(b'*' | b'+' | b'?' | b'{')) {
                return true;
            }
        }
    }
    false
}

/// `byte`: standard base64 (RFC 4648 section 4, `+` and `/`) with `=` padding to a multiple of
/// four characters, and zero bits in the unused part of the last character (the canonical
/// encoding). No whitespace, no line breaks. The empty string encodes zero bytes.
pub fn is_byte(s: &str) -> bool {
    fn sextet(b: u8) -> Option<u8> {
        match b {
            b'A'..=b'Z' => Some(b - b'A'),
            b'a'..=b'z' => Some(b - b'a' + 26),
            b'0'..=b'9' => Some(b - b'0' + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let bytes = s.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return false;
    }
    let padding = bytes.iter().rev().take_while(|&&b| b == b'=').count();
    if padding > 2 {
        return false;
    }
    let data = &bytes[..bytes.len() - padding];
    let mut last = 0;
    for &b in data {
        match sextet(b) {
            Some(v) => last = v,
            None => return false,
        }
    }
    match padding {
        // One `=`: the last character carries 2 unused bits; two `=`: 4 unused bits.
        1 => last & 0b11 == 0,
        2 => last & 0b1111 == 0,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::{is_byte, is_regex, is_uuid};

    #[test]
    fn uuids_and_regexes() {
        assert!(is_uuid("2EB8AA08-AA98-11EA-B4AA-73B441D16380"));
        assert!(is_uuid("00000000-0000-0000-0000-000000000000"));
        for bad in [
            "2eb8aa08-aa98-11ea-b4aa-73b441d1638",
            "2eb8aa08aa9811eab4aa73b441d16380",
            "2eb8-aa08-aa98-11ea-b4aa73b441d16380",
            "2eb8aa08-aa98-11ea-b4aa-73b441d1638g",
        ] {
            assert!(!is_uuid(bad), "{bad}");
        }
        assert!(is_regex("([abc])+\\s+$"));
        assert!(is_regex("\\p{Letter}"));
        assert!(!is_regex("^(abc]"));
        assert!(!is_regex("\\a"));
        // Quantified assertions are syntax errors in Unicode mode; `\b` in a class is a
        // backspace, and an escaped `^` is a character.
        for bad in ["\\b?", "\\B*", "^+", "a$?", "^{2}"] {
            assert!(!is_regex(bad), "{bad}");
        }
        for good in ["[\\b]?", "\\^?", "[$]+", "\\bword\\b", "^a?$", "a{2}$"] {
            assert!(is_regex(good), "{good}");
        }
    }

    #[test]
    fn base64_needs_padding_and_the_standard_alphabet() {
        for ok in ["", "Zg==", "Zm8=", "Zm9v", "AAECAwQ=", "+/+/"] {
            assert!(is_byte(ok), "{ok} should be accepted");
        }
        for bad in [
            "Zg", "Zg=", "Zh==", "Zm9=", "Zm9v\n", "-_-_", "Z===", "Zm 9v", "====",
        ] {
            assert!(!is_byte(bad), "{bad:?} should be rejected");
        }
    }
}
