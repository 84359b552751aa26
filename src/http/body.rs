//! Reading a request body within the size and time limits.

use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use futures_util::StreamExt as _;

/// How much of an oversized body is still read (and discarded) so the connection can serve
/// the next request; past this the connection is closed after the answer.
const DRAIN_LIMIT_BYTES: usize = 64 * 1024 * 1024;

/// The largest buffer reserved ahead of a body's chunks, from its `Content-Length`; a longer
/// body's buffer grows as its chunks come.
const PRESIZE_LIMIT_BYTES: usize = 1024 * 1024;

/// Why a body was not read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BodyError {
    /// Longer than the limit.
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// Not complete within the read timeout.
    Timeout,
    /// The connection failed while reading.
    Read,
}

/// Reads the whole body: at most `limit` bytes, within `timeout`.
pub(crate) async fn read(
    body: Body,
    declared_length: Option<u64>,
    limit: usize,
    timeout: Duration,
) -> Result<Bytes, BodyError> {
    let reading = async move {
        let mut stream = body.into_data_stream();
        let too_long = declared_length.is_some_and(|length| length > limit as u64);
        // The buffer of a body in several chunks is sized by what the client declares, up to
        // PRESIZE_LIMIT_BYTES: a client declaring the limit and sending little does not get
        // that much reserved.
        let declared = declared_length.map_or(0, |length| {
            usize::try_from(length).map_or(0, |length| length.min(PRESIZE_LIMIT_BYTES))
        });
        let mut collected = Collected::Nothing;
        let mut seen = 0_usize;
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|error| {
                tracing::debug!(%error, "reading the request body failed");
                BodyError::Read
            })?;
            seen = seen.saturating_add(chunk.len());
            if too_long || seen > limit {
                if seen > DRAIN_LIMIT_BYTES {
                    break;
                }
                collected = Collected::Nothing;
                continue;
            }
            if !chunk.is_empty() {
                collected = collected.with(chunk, declared);
            }
        }
        if too_long || seen > limit {
            return Err(BodyError::TooLarge { limit });
        }
        Ok(collected.into_bytes())
    };
    match tokio::time::timeout(timeout, reading).await {
        Ok(result) => result,
        Err(_elapsed) => Err(BodyError::Timeout),
    }
}

/// The body read so far: a body that arrives as one chunk is kept as it came, not copied.
enum Collected {
    Nothing,
    One(Bytes),
    Many(Vec<u8>),
}

impl Collected {
    /// Adds `chunk`; `declared` (the `Content-Length`, within the limit) sizes the buffer of a
    /// body in several chunks, so it is not grown as they come.
    fn with(self, chunk: Bytes, declared: usize) -> Self {
        match self {
            Self::Nothing => Self::One(chunk),
            Self::One(first) => {
                let mut all = Vec::with_capacity(declared.max(first.len() + chunk.len()));
                all.extend_from_slice(&first);
                all.extend_from_slice(&chunk);
                Self::Many(all)
            }
            Self::Many(mut all) => {
                all.extend_from_slice(&chunk);
                Self::Many(all)
            }
        }
    }

    fn into_bytes(self) -> Bytes {
        match self {
            Self::Nothing => Bytes::new(),
            Self::One(bytes) => bytes,
            Self::Many(all) => Bytes::from(all),
        }
    }
}

/// The `Content-Length` a request declares, if any.
pub(crate) fn declared_length(headers: &axum::http::HeaderMap) -> Option<u64> {
    headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn body_of(chunks: &[&'static [u8]]) -> Body {
        let chunks: Vec<Result<Bytes, std::io::Error>> = chunks
            .iter()
            .map(|chunk| Ok(Bytes::from_static(chunk)))
            .collect();
        Body::from_stream(futures_util::stream::iter(chunks))
    }

    #[tokio::test]
    async fn a_body_is_read_whole_in_one_chunk_or_many() {
        const TIME: Duration = Duration::from_secs(60);
        let one: &'static [u8] = b"{\"jsonrpc\":\"2.0\"}";
        let read_one = read(body_of(&[one]), Some(17), 100, TIME).await.unwrap();
        assert_eq!(read_one, one);
        assert_eq!(read_one.as_ptr(), one.as_ptr(), "one chunk is not copied");
        for declared in [None, Some(3), Some(12), Some(40)] {
            let many = read(body_of(&[b"ab", b"", b"cdef", b"g"]), declared, 100, TIME);
            assert_eq!(many.await.unwrap(), &b"abcdefg"[..], "{declared:?}");
        }
        let after_empty = read(body_of(&[b"", one]), Some(17), 100, TIME)
            .await
            .unwrap();
        assert_eq!(
            after_empty.as_ptr(),
            one.as_ptr(),
            "an empty chunk first is not kept"
        );
        assert_eq!(read(body_of(&[]), None, 100, TIME).await.unwrap(), &b""[..]);
        let over = read(body_of(&[b"abc", b"def"]), None, 5, TIME).await;
        assert_eq!(over, Err(BodyError::TooLarge { limit: 5 }));
    }
}
