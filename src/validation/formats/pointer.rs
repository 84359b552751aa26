//! `json-pointer` (RFC 6901) and `relative-json-pointer`.

/// `json-pointer`: the empty string, or `/`-prefixed reference tokens in which `~` appears
/// only as `~0` or `~1`.
pub fn is_json_pointer(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    if !s.starts_with('/') {
        return false;
    }
    let b = s.as_bytes();
    b.iter()
        .enumerate()
        .all(|(i, &c)| c != b'~' || matches!(b.get(i + 1), Some(b'0' | b'1')))
}

/// `relative-json-pointer`: a non-negative integer without leading zeros, an optional
/// index adjustment (`+N` / `-N`, N > 0), then `#` or a JSON Pointer.
pub fn is_relative_json_pointer(s: &str) -> bool {
    let b = s.as_bytes();
    let prefix = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if prefix == 0 || (prefix > 1 && b[0] == b'0') {
        return false;
    }
    let mut rest = &s[prefix..];
    if let Some(adjusted) = rest.strip_prefix(['+', '-']) {
        let digits = adjusted.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || adjusted.starts_with('0') {
            return false;
        }
        rest = &adjusted[digits..];
    }
    rest == "#" || is_json_pointer(rest)
}

#[cfg(test)]
mod tests {
    use super::{is_json_pointer, is_relative_json_pointer};

    #[test]
    fn pointers() {
        for ok in ["", "/", "/foo/0", "/a~1b", "/m~0n", "/ ", "//"] {
            assert!(is_json_pointer(ok), "{ok:?}");
        }
        for bad in ["a", "/~", "/~2", "#/a", "/a~"] {
            assert!(!is_json_pointer(bad), "{bad:?}");
        }
        for ok in [
            "1",
            "0#",
            "0/foo/bar",
            "2/0/baz/1/zip",
            "1+1/a",
            "0-1#",
            "120/x",
        ] {
            assert!(is_relative_json_pointer(ok), "{ok:?}");
        }
        for bad in [
            "", "/foo/bar", "-1/a", "01/a", "0##", "1+0", "+1/a", "0 /a", "#",
        ] {
            assert!(!is_relative_json_pointer(bad), "{bad:?}");
        }
    }
}
