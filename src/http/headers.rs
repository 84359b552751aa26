//! The MCP header names, and reading a header as text.

use axum::http::{HeaderMap, HeaderName};

/// The session id a 2025-era server assigns in its `initialize` answer.
pub const MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// The protocol version of the request (from 2025-06-18 on).
pub const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// The JSON-RPC method of a 2026-07-28 request.
pub const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// The tool or prompt name, or the resource URI, of a 2026-07-28 request.
pub const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
/// The last event a client resuming an event stream received.
pub const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

/// A header's value as text: `Ok(None)` when absent, `Err(())` when present more than once
/// or not visible ASCII.
pub(crate) fn single<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Result<Option<&'h str>, ()> {
    let mut values = headers.get_all(name).iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(());
    }
    first.to_str().map(|text| Some(text.trim())).map_err(|_| ())
}

/// Whether a comma-separated `Accept` header lists `media` (or a wildcard covering it).
///
/// Compared byte by byte (media types are ASCII): an item with other bytes matches nothing,
/// and leaves the header's other items as they are.
pub(crate) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let media = media.as_bytes();
    accept_items(headers).any(|item| covers(item, media))
}

/// Which of the two media types an MCP `POST` may be answered with the `Accept` header
/// allows, read in one pass over its items (as [`accepts`] reads them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Accepted {
    /// `application/json`.
    pub(crate) json: bool,
    /// `text/event-stream`.
    pub(crate) event_stream: bool,
}

/// What the `Accept` header allows of JSON and event streams.
pub(crate) fn accepted(headers: &HeaderMap) -> Accepted {
    let mut accepted = Accepted::default();
    for item in accept_items(headers) {
        accepted.json |= covers(item, b"application/json");
        accepted.event_stream |= covers(item, b"text/event-stream");
        if accepted.json && accepted.event_stream {
            break;
        }
    }
    accepted
}

/// The media ranges of every `Accept` header, without their parameters or spaces.
fn accept_items(headers: &HeaderMap) -> impl Iterator<Item = &[u8]> {
    headers
        .get_all(axum::http::header::ACCEPT)
        .iter()
        .flat_map(|value| value.as_bytes().split(|&byte| byte == b','))
        .map(|item| {
            let end = item
                .iter()
                .position(|&byte| byte == b';')
                .unwrap_or(item.len());
            item[..end].trim_ascii()
        })
}

/// Whether the media range `item` covers `media` (itself, `*/*`, or its type with `/*`).
fn covers(item: &[u8], media: &[u8]) -> bool {
    let kind = media
        .iter()
        .position(|&byte| byte == b'/')
        .map_or(media, |slash| &media[..slash]);
    item.eq_ignore_ascii_case(media)
        || item == b"*/*"
        || item
            .strip_suffix(b"/*")
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case(kind))
}

/// Whether `Content-Type` is `application/json` (parameters such as `charset` allowed).
pub(crate) fn is_json_content(headers: &HeaderMap) -> bool {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn accept_lists_and_wildcards() {
        let mut headers = HeaderMap::new();
        headers.insert(
            axum::http::header::ACCEPT,
            HeaderValue::from_static("application/json;q=0.9, text/event-stream"),
        );
        assert!(accepts(&headers, "application/json"));
        assert!(accepts(&headers, "text/event-stream"));
        assert!(!accepts(&headers, "text/html"));
        headers.insert(
            axum::http::header::ACCEPT,
            HeaderValue::from_static("text/*"),
        );
        assert!(accepts(&headers, "text/event-stream"));
        assert!(!accepts(&headers, "application/json"));
        headers.insert(
            axum::http::header::ACCEPT,
            HeaderValue::from_static("*/*;q=0.1"),
        );
        assert!(accepts(&headers, "application/json"));
    }

    #[test]
    fn accept_items_compare_case_blind_and_other_bytes_match_nothing() {
        let mut headers = HeaderMap::new();
        let value = HeaderValue::from_bytes(b"text/\xe9v\xe9nements ,  APPLICATION/Json ").unwrap();
        headers.insert(axum::http::header::ACCEPT, value);
        assert!(accepts(&headers, "application/json"));
        assert!(!accepts(&headers, "text/event-stream"));
        headers.append(
            axum::http::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        assert!(
            accepts(&headers, "text/event-stream"),
            "every Accept header counts"
        );
    }

    #[test]
    fn one_pass_agrees_with_asking_for_each_media_type() {
        let values: [&[u8]; 9] = [
            b"application/json, text/event-stream",
            b"text/event-stream",
            b"application/json;q=0.5",
            b"*/*",
            b"text/*, application/xml",
            b"application/*",
            b"TEXT/EVENT-STREAM ; q=1 ,APPLICATION/JSON",
            b"text/html",
            b"",
        ];
        for (index, first) in values.iter().enumerate() {
            for second in [None, Some(values[(index + 3) % values.len()])] {
                let mut headers = HeaderMap::new();
                headers.append(
                    axum::http::header::ACCEPT,
                    HeaderValue::from_bytes(first).unwrap(),
                );
                if let Some(second) = second {
                    headers.append(
                        axum::http::header::ACCEPT,
                        HeaderValue::from_bytes(second).unwrap(),
                    );
                }
                let expected = Accepted {
                    json: accepts(&headers, "application/json"),
                    event_stream: accepts(&headers, "text/event-stream"),
                };
                assert_eq!(accepted(&headers), expected, "{first:?} then {second:?}");
            }
        }
        assert_eq!(accepted(&HeaderMap::new()), Accepted::default());
    }

    #[test]
    fn a_repeated_header_is_refused() {
        let mut headers = HeaderMap::new();
        headers.append(MCP_METHOD, HeaderValue::from_static("a"));
        assert_eq!(single(&headers, &MCP_METHOD), Ok(Some("a")));
        headers.append(MCP_METHOD, HeaderValue::from_static("b"));
        assert_eq!(single(&headers, &MCP_METHOD), Err(()));
        assert_eq!(single(&headers, &MCP_NAME), Ok(None));
    }
}
