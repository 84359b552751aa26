//! The `format` checks generated validators run: `uri`, `byte`, `uri-template`, `date-time`
//! and `email`. Each is a pure, allocation-free syntax check.

mod date_time;
mod email;
mod uri;
mod uri_template;

pub use date_time::is_date_time;
pub use email::is_email;
pub use uri::is_uri;
pub use uri_template::is_uri_template;

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
    if bytes.len() % 4 != 0 {
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
    use super::is_byte;

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
