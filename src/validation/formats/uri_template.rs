//! `uri-template`: RFC 6570 section 2 syntax (any level).

/// Literal characters outside expressions (RFC 6570 section 2.1), besides `%XX` escapes.
fn is_literal_char(c: char) -> bool {
    match c {
        '\u{21}' | '\u{23}'..='\u{24}' | '\u{26}' | '\u{28}'..='\u{3B}' | '\u{3D}' => true,
        '\u{3F}'..='\u{5B}' | '\u{5D}' | '\u{5F}' | '\u{61}'..='\u{7A}' | '\u{7E}' => true,
        // ucschar
        '\u{A0}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFEF}' => true,
        // iprivate
        '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{FFFFD}' | '\u{100000}'..='\u{10FFFD}' => true,
        c if c > '\u{FFFF}' => {
            // The remaining ucschar planes: U+x0000..U+xFFFD for x in 1..=14.
            let low = u32::from(c) & 0xFFFF;
            u32::from(c) < 0xF0000 && low <= 0xFFFD
        }
        _ => false,
    }
}

fn is_pct(b: &[u8], i: usize) -> bool {
    b[i] == b'%'
        && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// Parses one `varspec` starting at `i`; returns the index after it.
fn varspec(b: &[u8], mut i: usize) -> Option<usize> {
    let mut need_char = true;
    loop {
        match b.get(i) {
            Some(c) if c.is_ascii_alphanumeric() || *c == b'_' => i += 1,
            Some(b'%') if is_pct(b, i) => i += 3,
            Some(b'.') if !need_char => {
                i += 1;
                need_char = true;
                continue;
            }
            _ => break,
        }
        need_char = false;
    }
    if need_char {
        return None;
    }
    match b.get(i) {
        Some(b'*') => Some(i + 1),
        Some(b':') => {
            let start = i + 1;
            let mut end = start;
            while end < b.len() && b[end].is_ascii_digit() && end - start < 4 {
                end += 1;
            }
            (end > start && b[start] != b'0').then_some(end)
        }
        _ => Some(i),
    }
}

/// `true` for a syntactically valid URI Template: literals and `{` expressions `}` with an
/// optional operator (`+ # . / ; ? &`, or the reserved `= , ! @ |`), comma-separated variable
/// names (letters, digits, `_`, `%XX`, inner dots) and `:N` (1..=9999) or `*` modifiers.
pub fn is_uri_template(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => {
                i += 1;
                if matches!(
                    b.get(i),
                    Some(
                        b'+' | b'#'
                            | b'.'
                            | b'/'
                            | b';'
                            | b'?'
                            | b'&'
                            | b'='
                            | b','
                            | b'!'
                            | b'@'
                            | b'|'
                    )
                ) {
                    i += 1;
                }
                loop {
                    let Some(next) = varspec(b, i) else {
                        return false;
                    };
                    i = next;
                    match b.get(i) {
                        Some(b',') => i += 1,
                        Some(b'}') => {
                            i += 1;
                            break;
                        }
                        _ => return false,
                    }
                }
            }
            b'%' => {
                if !is_pct(b, i) {
                    return false;
                }
                i += 3;
            }
            _ => {
                let Some(c) = s[i..].chars().next() else {
                    return false;
                };
                if !is_literal_char(c) {
                    return false;
                }
                i += c.len_utf8();
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::is_uri_template;

    #[test]
    fn templates() {
        for ok in [
            "",
            "file:///{path}",
            "http://example.com/{+base}{/segments*}{?q,lang:2}{#frag}",
            "{var.name}",
            "{%41b}",
            "caf\u{e9}/{x}",
        ] {
            assert!(is_uri_template(ok), "{ok} should be accepted");
        }
        for bad in [
            "{",
            "}",
            "{}",
            "{a",
            "{a b}",
            "{a:0}",
            "{a:10000}",
            "a b",
            "{.}",
            "{a.}",
            "%zz",
            "{a**}",
            "<{a}>",
        ] {
            assert!(!is_uri_template(bad), "{bad:?} should be rejected");
        }
    }
}
