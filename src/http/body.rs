//! Reading a request body within the size and time limits.

use std::time::Duration;

use axum::body::Body;
use bytes::Bytes;
use futures_util::StreamExt as _;

/// How much of an oversized body is still read (and discarded) so the connection can serve
/// the next request; past this the connection is closed after the answer.
const DRAIN_LIMIT_BYTES: usize = 64 * 1024 * 1024;

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
        let mut collected = Vec::new();
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
                collected = Vec::new();
                continue;
            }
            collected.extend_from_slice(&chunk);
        }
        if too_long || seen > limit {
            return Err(BodyError::TooLarge { limit });
        }
        Ok(Bytes::from(collected))
    };
    match tokio::time::timeout(timeout, reading).await {
        Ok(result) => result,
        Err(_elapsed) => Err(BodyError::Timeout),
    }
}

/// The `Content-Length` a request declares, if any.
pub(crate) fn declared_length(headers: &axum::http::HeaderMap) -> Option<u64> {
    headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse().ok())
}
