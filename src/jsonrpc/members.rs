//! A few named members of a JSON object, found by walking its structure instead of parsing
//! it: strings are skipped with `memchr` past their first bytes ([`string_end`]), so a long
//! member the caller does not want (a tool's 64 KiB argument) costs a look, not a parse.
//!
//! The input must be well-formed JSON (a parsed message's raw `params`): the walk does not
//! validate what it skips.

use std::borrow::Cow;

use super::encode::{quote_or_backslash, string_end};

/// The raw JSON of the top-level members of `object` named in `names` (in that order; `None`
/// for an absent one), or `None` when `object` is not a JSON object (an array too, which a
/// `serde` derive would read by position: MCP params are objects) or one of the named
/// members occurs twice (as a `serde` derive refuses a repeated field). Member names are
/// compared after decoding their escapes (a name that cannot be decoded, a lone surrogate
/// escape, gives `None`, as it fails `serde`). Other members, repeated or not, are skipped.
#[cfg(feature = "http")]
pub(crate) fn find_members<'a, const N: usize>(
    object: &'a str,
    names: [&str; N],
) -> Option<[Option<&'a str>; N]> {
    let mut found = [None; N];
    for_each_member(object, |name, value| {
        if let Some(slot) = names.iter().position(|wanted| name == *wanted) {
            if found[slot].replace(value).is_some() {
                return None;
            }
        }
        Some(())
    })?;
    Some(found)
}

/// The raw JSON of the last top-level member of `object` named `name` (`Some(None)` when
/// there is none): the member a `serde_json::Value` keeps when a name repeats, so the one a
/// request read into a `Value` acts on. `None` when `object` is not a JSON object, or a
/// member name cannot be decoded (as [`find_members`]).
pub(crate) fn last_member<'a>(object: &'a str, name: &str) -> Option<Option<&'a str>> {
    let mut last = None;
    for_each_member(object, |member, value| {
        if member == name {
            last = Some(value);
        }
        Some(())
    })?;
    Some(last)
}

/// Walks the top-level members of `object`, calling `each` with every member's decoded name
/// and raw value, in order; `None` when `object` is not a JSON object, a member name cannot
/// be decoded, or `each` returns `None`.
pub(crate) fn for_each_member<'a>(
    object: &'a str,
    mut each: impl FnMut(&str, &'a str) -> Option<()>,
) -> Option<()> {
    let bytes = object.as_bytes();
    walk_object(object, 0, |name, start| {
        let end = value_end(bytes, start)?;
        each(name, object.get(start..end)?)?;
        Some(end)
    })
    .map(|_end| ())
}

/// Walks the members of the object that starts at `at` in `text` (after whitespace), calling
/// `each` with every member's decoded name and the index where its value starts; `each`
/// returns the index just past that value, found by [`value_end`] or by a walk of its own
/// over it (a nested object read as it is delimited, so its bytes are looked at once).
/// Returns the index just past the object's `}`; `None` when no object starts at `at`, a
/// member name cannot be decoded, or `each` returns `None`.
pub(crate) fn walk_object(
    text: &str,
    at: usize,
    each: impl FnMut(&str, usize) -> Option<usize>,
) -> Option<usize> {
    let mut each = each;
    walk_object_expecting(text, at, &[], |_known, name, start| each(name, start))
}

/// [`walk_object`], told the names its members usually have: a name written exactly as one
/// of `expected` (its bytes, then the closing quote) is taken without looking for the
/// string's end, which costs a comparison instead of a scan of the name (a 42-byte `_meta`
/// key). Every name in `expected` must be free of `"` and `\`, so a match is the whole
/// string, unescaped. Other names are read as [`walk_object`] reads them. `each` is also
/// given the name's index in `expected` (`None` for another name), so it need not compare
/// the name again; a name written with escapes that decodes to one of `expected` gets its
/// index too.
pub(crate) fn walk_object_expecting(
    text: &str,
    at: usize,
    expected: &[&str],
    mut each: impl FnMut(Option<usize>, &str, usize) -> Option<usize>,
) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = skip_whitespace(bytes, at);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_whitespace(bytes, at + 1);
    if bytes.get(at) == Some(&b'}') {
        return Some(at + 1);
    }
    loop {
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let (known, name, name_end) = match expected_name(text, at + 1, expected) {
            Some(found) => found,
            None => {
                let (name, end) = member_name(text, at + 1)?;
                let known = expected.iter().position(|wanted| *wanted == name);
                (known, name, end)
            }
        };
        at = skip_whitespace(bytes, name_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let value_end = each(known, &name, skip_whitespace(bytes, at + 1))?;
        at = skip_whitespace(bytes, value_end);
        match bytes.get(at) {
            Some(b',') => at = skip_whitespace(bytes, at + 1),
            Some(b'}') => return Some(at + 1),
            _ => return None,
        }
    }
}

/// The index in `expected` of the name written at `from` (past its opening quote) and
/// followed by the closing quote, the name, and the index past that quote.
fn expected_name<'a>(
    text: &'a str,
    from: usize,
    expected: &[&str],
) -> Option<(Option<usize>, Cow<'a, str>, usize)> {
    let rest = text.as_bytes().get(from..)?;
    expected.iter().enumerate().find_map(|(index, name)| {
        let len = name.len();
        if rest.get(len) != Some(&b'"') || rest.get(..len) != Some(name.as_bytes()) {
            return None;
        }
        let name = Cow::Borrowed(text.get(from..from + len)?);
        Some((Some(index), name, from + len + 1))
    })
}

/// The name whose text starts at `from` (past its opening quote), decoded (borrowed when it
/// has no escape; `None` when `serde_json` cannot decode it, a lone surrogate escape), and
/// the index past its closing quote.
fn member_name(text: &str, from: usize) -> Option<(Cow<'_, str>, usize)> {
    let bytes = text.as_bytes();
    let first = quote_or_backslash(bytes, from)?;
    if bytes[first] == b'"' {
        return Some((Cow::Borrowed(text.get(from..first)?), first + 1));
    }
    let end = string_end(bytes, first);
    let name = serde_json::from_str::<String>(text.get(from - 1..end)?).ok()?;
    Some((Cow::Owned(name), end))
}

/// The text of the JSON string value starting at `at` (its opening quote) when it has no
/// escape, borrowed, and the index past its closing quote; `None` for any other value.
pub(crate) fn unescaped_string_at(text: &str, at: usize) -> Option<(&str, usize)> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let close = quote_or_backslash(bytes, at + 1)?;
    (bytes[close] == b'"').then_some((text.get(at + 1..close)?, close + 1))
}

/// Where the value starting at `at` ends (one past its last byte).
pub(crate) fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => Some(string_end(bytes, at + 1)),
        b'{' | b'[' => {
            let mut depth = 0_usize;
            let mut at = at;
            while let Some(&byte) = bytes.get(at) {
                at += 1;
                match byte {
                    b'"' => at = string_end(bytes, at),
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at);
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        _ => {
            let rest = bytes.get(at..)?;
            let length = rest
                .iter()
                .position(|byte| matches!(byte, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(rest.len());
            Some(at + length)
        }
    }
}

/// The index of the first byte from `at` on that is not JSON whitespace.
pub(crate) fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use proptest::prelude::*;
    use serde_json::value::RawValue;

    use super::*;

    /// What a `serde` derive with these three optional fields reads (the reference).
    fn by_serde(object: &str) -> Option<[Option<String>; 3]> {
        /// A present member, `null` included (a plain `Option` reads `null` as absent).
        fn present<'de, D: serde::Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<&'de RawValue>, D::Error> {
            <&RawValue as serde::Deserialize>::deserialize(deserializer).map(Some)
        }
        #[derive(serde::Deserialize)]
        struct Shape<'a> {
            #[serde(borrow, default, deserialize_with = "present")]
            a: Option<&'a RawValue>,
            #[serde(borrow, default, deserialize_with = "present", rename = "_meta")]
            meta: Option<&'a RawValue>,
            #[serde(borrow, default, deserialize_with = "present", rename = "n\"m")]
            quoted: Option<&'a RawValue>,
        }
        let shape: Shape<'_> = serde_json::from_str(object).ok()?;
        let get = |raw: Option<&RawValue>| raw.map(|raw| raw.get().to_owned());
        Some([get(shape.a), get(shape.meta), get(shape.quoted)])
    }

    fn by_walk(object: &str) -> Option<[Option<String>; 3]> {
        let found = find_members(object, ["a", "_meta", "n\"m"])?;
        Some(found.map(|raw| raw.map(str::to_owned)))
    }

    #[test]
    fn named_members_are_found_past_anything_else() {
        let object = r#" { "x" : "}\"]" , "a" : [1, {"b": "]"}] , "_meta":{"p":1},"n\"m":null } "#;
        assert_eq!(
            by_walk(object),
            Some([
                Some(r#"[1, {"b": "]"}]"#.to_owned()),
                Some(r#"{"p":1}"#.to_owned()),
                Some("null".to_owned())
            ])
        );
        let long = format!(
            r#"{{"arguments":{{"text":"{}"}},"a":-1.5e3}}"#,
            "x".repeat(70_000)
        );
        assert_eq!(
            by_walk(&long),
            Some([Some("-1.5e3".to_owned()), None, None])
        );
        assert_eq!(by_walk("{}"), Some([None, None, None]));
        assert_eq!(
            by_walk(r#"{"\u0061":true}"#),
            Some([Some("true".to_owned()), None, None])
        );
        assert_eq!(by_walk(r#"{"a":1,"a":2}"#), None, "a named member twice");
        assert_eq!(by_walk(r#"{"x":1,"x":2}"#), Some([None, None, None]));
        assert_eq!(by_walk(r#"{"\ud800":1,"a":2}"#), None, "as serde");
        assert_eq!(by_serde(r#"{"\ud800":1,"a":2}"#), None);
        assert_eq!(by_walk("[1]"), None);
        assert_eq!(
            by_walk(r#"[null,"echo",null]"#),
            None,
            "no members by position"
        );
        assert_eq!(by_walk(r#""a""#), None);
    }

    /// JSON values of a few levels, with the names the walk looks for among others.
    fn value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<f64>()
                .prop_filter("finite", |number| number.is_finite())
                .prop_map(serde_json::Value::from),
            "[a-z\"\\\\{}\\[\\],:\u{1} é]{0,12}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::from),
                prop::collection::btree_map(name(), inner, 0..5).prop_map(|members| {
                    serde_json::Value::Object(members.into_iter().collect())
                }),
            ]
        })
    }

    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("a".to_owned()),
            Just("_meta".to_owned()),
            Just("n\"m".to_owned()),
            "[a-z_\"\\\\]{0,6}",
        ]
    }

    proptest! {
        #[test]
        fn the_walk_reads_what_serde_reads(
            members in prop::collection::vec((name(), value()), 0..6),
            pretty in any::<bool>(),
            escape_names in any::<bool>(),
        ) {
            // Written by hand so that names may repeat; pretty or compact; names with a
            // letter escaped or not.
            let separator = if pretty { " ,\n " } else { "," };
            let colon = if pretty { " : " } else { ":" };
            let body: Vec<String> = members
                .iter()
                .map(|(name, value)| {
                    let mut name = serde_json::to_string(name).unwrap();
                    if escape_names {
                        name = name.replacen('a', "\\u0061", 1);
                    }
                    let value = if pretty {
                        serde_json::to_string_pretty(value).unwrap()
                    } else {
                        value.to_string()
                    };
                    format!("{name}{colon}{value}")
                })
                .collect();
            let object = format!("{{{}}}", body.join(separator));
            prop_assert_eq!(by_walk(&object), by_serde(&object), "{}", object);
            // The walk ends past the object's `}`, with each value delimited as the
            // values are written (a value's own walk may take the place of `value_end`).
            let bytes = object.as_bytes();
            let mut values = Vec::new();
            let end = walk_object(&object, 0, |_name, start| {
                let end = value_end(bytes, start)?;
                values.push(object.get(start..end)?.to_owned());
                Some(end)
            });
            if by_serde(&object).is_some() {
                prop_assert_eq!(end, Some(object.len()), "{}", object);
                let written: Vec<String> = members
                    .iter()
                    .map(|(_, value)| {
                        if pretty {
                            serde_json::to_string_pretty(value).unwrap()
                        } else {
                            value.to_string()
                        }
                    })
                    .collect();
                prop_assert_eq!(values, written);
                // Told the usual names, the walk reads the same names, values and end.
                let mut told = Vec::new();
                let usual = ["_meta", "a", "ab", "n"];
                let end_told = walk_object_expecting(&object, 0, &usual, |known, name, start| {
                    let end = value_end(bytes, start)?;
                    // The index given is the name's in the usual names, whatever its spelling.
                    assert_eq!(known, usual.iter().position(|usual| *usual == name));
                    told.push((name.to_owned(), object.get(start..end)?.to_owned()));
                    Some(end)
                });
                let mut plain = Vec::new();
                let _end = walk_object(&object, 0, |name, start| {
                    let end = value_end(bytes, start)?;
                    plain.push((name.to_owned(), object.get(start..end)?.to_owned()));
                    Some(end)
                });
                prop_assert_eq!(end_told, end, "{}", object);
                prop_assert_eq!(told, plain, "{}", object);
            }
        }
    }
}
