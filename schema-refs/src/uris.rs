//! JSON Pointers and RFC 3986 reference resolution.

use serde_json::Value;

/// The schema at JSON Pointer `pointer` (unescaped `~1` and `~0`, not percent-decoded) below
/// `root` (whose base URI is `base`), with the base URI in force at the schema's parent (every
/// `$id` on the way resolved); `None` when the pointer leads nowhere.
///
/// ```
/// use serde_json::json;
///
/// let root = json!({ "$id": "http://x/a/", "items": { "$id": "b/", "not": true } });
/// let (schema, base) = typed_mcp_schema_refs::walk_pointer(&root, "file:///s.json", "/items/not")
///     .expect("a schema");
/// assert_eq!((schema, base.as_str()), (&json!(true), "http://x/a/b/"));
/// ```
pub fn walk_pointer<'v>(root: &'v Value, base: &str, pointer: &str) -> Option<(&'v Value, String)> {
    let mut node = root;
    let mut base = base.to_string();
    if pointer.is_empty() {
        return Some((node, base));
    }
    for token in pointer.strip_prefix('/')?.split('/') {
        if let Some(Value::String(id)) = node.get("$id") {
            base = strip_fragment(&resolve(&base, id));
        }
        let token = token.replace("~1", "/").replace("~0", "~");
        node = match node {
            Value::Object(map) => map.get(&token)?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some((node, base))
}

/// `uri` without its fragment (`#...`).
pub fn strip_fragment(uri: &str) -> String {
    uri.split_once('#').map_or(uri, |(u, _)| u).to_string()
}

/// `text` with every `%XX` escape (two hexadecimal digits) decoded (a fragment, before it is
/// used as a JSON Pointer or an anchor name); any other `%` stays as it is, and bytes that are
/// not UTF-8 become U+FFFD.
pub(crate) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if let (b'%', Some(&high), Some(&low)) = (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            if let (Some(high), Some(low)) = (hex_digit(high), hex_digit(low)) {
                out.push(high << 4 | low);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The value of the hexadecimal digit `byte`.
fn hex_digit(byte: u8) -> Option<u8> {
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'a'..=b'f' => Some(byte - b'a' + 10),
        b'A'..=b'F' => Some(byte - b'A' + 10),
        _ => None,
    }
}

/// The parts of a URI reference (RFC 3986): scheme, authority, path, query, fragment.
fn split(uri: &str) -> (Option<&str>, Option<&str>, &str, Option<&str>, Option<&str>) {
    let (rest, fragment) = match uri.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (uri, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let scheme_end = rest.find(':').filter(|&i| {
        i > 0 && !rest[..i].contains('/') && rest[..1].chars().all(|c| c.is_ascii_alphabetic())
    });
    let (scheme, rest) = match scheme_end {
        Some(i) => (Some(&rest[..i]), &rest[i + 1..]),
        None => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(&after[..end]), &after[end..])
        }
        None => (None, rest),
    };
    (scheme, authority, path, query, fragment)
}

/// `reference` resolved against `base` (RFC 3986, section 5.2).
///
/// ```
/// use typed_mcp_schema_refs::resolve;
///
/// assert_eq!(resolve("http://x/a/b.json", "../c.json#/$defs/d"), "http://x/c.json#/$defs/d");
/// assert_eq!(resolve("http://x/a/b.json", "#e"), "http://x/a/b.json#e");
/// ```
pub fn resolve(base: &str, reference: &str) -> String {
    let (rs, ra, rp, rq, rf) = split(reference);
    let (bs, ba, bp, bq, _) = split(base);
    let (scheme, authority, path, query);
    if rs.is_some() {
        (scheme, authority, path, query) = (rs, ra, remove_dots(rp), rq);
    } else if ra.is_some() {
        (scheme, authority, path, query) = (bs, ra, remove_dots(rp), rq);
    } else if rp.is_empty() {
        (scheme, authority, path, query) = (bs, ba, bp.to_string(), rq.or(bq));
    } else if rp.starts_with('/') {
        (scheme, authority, path, query) = (bs, ba, remove_dots(rp), rq);
    } else {
        let merged = if ba.is_some() && bp.is_empty() {
            format!("/{rp}")
        } else {
            match bp.rfind('/') {
                Some(i) => format!("{}{rp}", &bp[..=i]),
                None => rp.to_string(),
            }
        };
        (scheme, authority, path, query) = (bs, ba, remove_dots(&merged), rq);
    }
    let mut out = String::new();
    if let Some(s) = scheme {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = authority {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(&path);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = rf {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// `path` with its `.` and `..` segments removed (RFC 3986, section 5.2.4).
fn remove_dots(path: &str) -> String {
    if !path.contains("./") && !path.ends_with("/.") && !path.ends_with("/..") {
        return path.to_string();
    }
    let mut out: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > usize::from(absolute) {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    out.join("/")
}
