//! The one error type of the client.

use std::time::Duration;

use crate::jsonrpc::ErrorCode;
use crate::validation::ValidationError;

/// Everything that can go wrong when talking to a server. No variant quotes what the server
/// sent: a malformed message is described by where and how it broke, never echoed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// Spawning the server process or using its pipes failed.
    #[error("cannot start the server process `{program}`")]
    Spawn {
        /// The program that was run.
        program: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// Reading from or writing to the server failed.
    #[error("I/O with the server failed")]
    Io(#[source] std::io::Error),
    /// An HTTP exchange failed before any answer arrived (connection refused, reset, bad
    /// URL).
    #[error("HTTP {step} to {url} failed: {reason}")]
    Http {
        /// The URL of the server.
        url: String,
        /// Which step failed (`POST`, `DELETE`, `reading the body`).
        step: &'static str,
        /// What went wrong, as reported by the HTTP stack.
        reason: String,
    },
    /// A header given to [`ClientOptions::header`](super::ClientOptions::header) or
    /// [`ClientOptions::bearer_token`](super::ClientOptions::bearer_token) was refused when
    /// the options were built (its value is never quoted).
    #[error("the header {} cannot be sent: {reason}", name.as_deref().unwrap_or("(invalid name)"))]
    InvalidHeader {
        /// The header's name, when it is a valid one.
        name: Option<String>,
        /// Why it was refused.
        reason: &'static str,
    },
    /// A root certificate given to the options does not parse.
    #[error("the root certificate cannot be used: {reason}")]
    InvalidCertificate {
        /// Why it was refused.
        reason: String,
    },
    /// The TLS handshake with `host` failed: most often its certificate does not verify
    /// (unknown issuer, expired, issued for another name). The client never falls back to
    /// plain HTTP.
    #[error("TLS with {host} failed: {reason}")]
    Tls {
        /// The host whose handshake failed.
        host: String,
        /// What rustls reported (e.g. `invalid peer certificate: UnknownIssuer`).
        reason: String,
    },
    /// Authorizing with the server's authorization server failed (OAuth): discovery, a
    /// check on what it sent, the user step, or the retry limit.
    #[cfg(feature = "tls")]
    #[error("authorizing with {url} failed: {source}")]
    Auth {
        /// The MCP server's URL.
        url: String,
        /// What failed.
        #[source]
        source: super::auth::AuthError,
    },
    /// The server answered an HTTP request with a status that carries no JSON-RPC answer.
    #[error("HTTP {method} to {url} answered with status {status}")]
    HttpStatus {
        /// The URL of the server.
        url: String,
        /// The JSON-RPC method of the request.
        method: String,
        /// The HTTP status code.
        status: u16,
    },
    /// The connection closed (the process exited, the stream or event stream ended) before
    /// the answer arrived.
    #[error("the connection to the server closed before `{method}` was answered")]
    ConnectionClosed {
        /// The JSON-RPC method that was waiting.
        method: String,
    },
    /// The client is closed, or its connection ended earlier; no request can be sent.
    #[error("the client is closed")]
    Closed,
    /// No answer came within the request's timeout (or, with progress, within the idle
    /// timeout since the last progress, or the maximum total). The request was cancelled.
    #[error("`{method}` timed out after {elapsed:?}")]
    Timeout {
        /// The JSON-RPC method.
        method: String,
        /// How long the client waited.
        elapsed: Duration,
    },
    /// The server sent a line longer than the client's limit. It cannot be attributed to
    /// one request, so every request in flight fails with this error.
    #[error(
        "the server sent a line of at least {actual_at_least} bytes, over the limit of {limit}"
    )]
    LineTooLong {
        /// The limit, in bytes.
        limit: usize,
        /// How many bytes had arrived when the line was discarded.
        actual_at_least: usize,
    },
    /// The server sent something that is not a JSON-RPC 2.0 message.
    #[error("the server sent a malformed message: {reason}")]
    MalformedMessage {
        /// Which rule it broke (never quoting it).
        reason: String,
    },
    /// The server answered with an id the client never used for a request in flight (a
    /// wrong id, or a second answer to a finished request).
    #[error("the server answered an unknown request id ({kind})")]
    UnexpectedResponse {
        /// `"wrong id"` or `"duplicate response"`.
        kind: &'static str,
    },
    /// A message from the server broke the protocol schema. `errors` holds every
    /// violation, each with its JSON Pointer (`path`) inside `what`.
    #[error(
        "the server's {what} breaks the schema `{definition}`: {}",
        summary(errors)
    )]
    InvalidMessage {
        /// What was validated (`tools/call result`, `notifications/progress`).
        what: String,
        /// The schema definition it was validated against.
        definition: &'static str,
        /// Every violation.
        errors: Vec<ValidationError>,
    },
    /// A request the client was asked to send breaks the schema (e.g. tool arguments that
    /// are not an object); nothing was sent.
    #[error("the `{method}` request breaks the schema: {}", summary(errors))]
    InvalidRequest {
        /// The JSON-RPC method.
        method: String,
        /// Every violation.
        errors: Vec<ValidationError>,
    },
    /// The server answered with a JSON-RPC error.
    #[error("the server answered `{method}` with error {code}: {message}")]
    Rpc {
        /// The JSON-RPC method.
        method: String,
        /// The error code.
        code: ErrorCode,
        /// The server's message.
        message: String,
        /// The error's `data` member, if any.
        data: Option<serde_json::Value>,
    },
    /// No protocol version both sides speak.
    #[error("no common protocol version: {reason}")]
    UnsupportedVersion {
        /// What was offered and what came back.
        reason: String,
    },
    /// The method does not exist in the protocol era of this connection (e.g. `ping` in
    /// 2026-07-28, `server/discover` in a 2025 session).
    #[error("`{method}` does not exist in protocol version {version}")]
    NotInEra {
        /// The JSON-RPC method.
        method: &'static str,
        /// The connection's protocol version.
        version: String,
    },
    /// The tool of [`Client::call_tool_typed`](super::Client::call_tool_typed) reported a
    /// failure (`isError: true`); its result is kept for inspection.
    #[error("the tool `{tool}` reported a failure")]
    ToolFailed {
        /// The tool's name.
        tool: String,
        /// What the tool answered.
        result: Box<super::ToolReply>,
    },
    /// A request needs a protocol extension the client did not declare
    /// ([`ClientOptions::extension`](super::ClientOptions::extension)); nothing was sent.
    #[error("the client did not declare the extension {id} (ClientOptions::extension)")]
    ExtensionNotDeclared {
        /// The extension's identifier.
        id: &'static str,
    },
    /// A request needs a protocol extension the server did not declare (the Skills
    /// extension: `Client::list_skills`, feature `skills`); nothing was sent.
    #[error("the server did not declare the extension {id}")]
    ServerExtensionMissing {
        /// The extension's identifier.
        id: &'static str,
    },
    /// A skill could not be loaded, or one of its files read, because what the server gave
    /// does not match the skill's entry (`Client::load_skill`, `Client::read_skill_file`,
    /// feature `skills`): the content must not be used, and a skill whose `SKILL.md` failed
    /// is not loaded (so none of its other files is read). The skill may have changed since
    /// its entry was fetched: `Client::get_skill` gives the current one.
    #[error("skill verification failed for {uri}: {mismatch}")]
    SkillVerification {
        /// The URI of the file (or, for [`SkillMismatch::Dynamic`], of the skill's
        /// `SKILL.md`), as the host asked for it.
        uri: String,
        /// What did not match (quoting nothing the server sent).
        mismatch: SkillMismatch,
    },
    /// The task of [`Client::call_tool_as_task`](super::Client::call_tool_as_task) was
    /// cancelled (by [`TaskWait::cancel_on`](super::TaskWait::cancel_on), or by anyone else
    /// with `tasks/cancel`).
    #[error("the task of the tool `{tool}` was cancelled")]
    TaskCancelled {
        /// The tool's name.
        tool: String,
    },
    /// A 2026-07-28 result asked for input (`resultType: "input_required"`) that the
    /// client's handler refused or could not give, or the rounds did not end.
    #[error("the server asked for input to answer `{method}`, which the client could not provide")]
    InputRequired {
        /// The JSON-RPC method.
        method: String,
    },
}

/// How a skill file failed verification against the skill's entry ([`ClientError::SkillVerification`]).
/// Each is, by the Skills extension, a failure equivalent to a digest mismatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillMismatch {
    /// The skill's `resources` is `dynamic`: there is no manifest to verify against, so it is
    /// not loaded (the extension lets a host decline such skills). Nothing was sent.
    #[error("the skill's content is dynamic: there is no manifest to verify it against")]
    Dynamic,
    /// The file is not in the manifest of the entry the host holds. Nothing was sent.
    #[error("the file is not in the skill's manifest")]
    Unlisted,
    /// The read did not return exactly one content, or a blob's base64 does not decode.
    #[error("the read did not return exactly one decodable content")]
    Contents,
    /// The file's byte length differs from the manifest's `size` (checked before the digest).
    #[error("the file's size differs from the manifest's")]
    Size,
    /// The SHA-256 digest of the file's bytes differs from the manifest's `digest`.
    #[error("the file's digest differs from the manifest's")]
    Digest,
    /// The `SKILL.md` is not UTF-8, does not begin with a `---` delimited block, or its
    /// block is not a YAML mapping with string keys and JSON-representable values.
    #[error("the SKILL.md frontmatter cannot be read as a YAML mapping")]
    FrontmatterUnreadable,
    /// The `SKILL.md` frontmatter, parsed, is not equal field by field to the entry's
    /// `frontmatter` (a field missing, added or with another value), even though the file's
    /// size and digest match the manifest.
    #[error("the SKILL.md frontmatter differs from the entry's frontmatter")]
    Frontmatter,
}

impl ClientError {
    /// The JSON-RPC error code, when the server answered with an error.
    #[must_use]
    pub fn rpc_code(&self) -> Option<ErrorCode> {
        match self {
            Self::Rpc { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The schema violations, when a message broke the schema.
    #[must_use]
    pub fn violations(&self) -> &[ValidationError] {
        match self {
            Self::InvalidMessage { errors, .. } | Self::InvalidRequest { errors, .. } => errors,
            _ => &[],
        }
    }

    /// A copy for reporting the same unattributable failure to several waiting requests.
    pub(crate) fn duplicate(&self) -> Self {
        match self {
            Self::LineTooLong {
                limit,
                actual_at_least,
            } => Self::LineTooLong {
                limit: *limit,
                actual_at_least: *actual_at_least,
            },
            Self::MalformedMessage { reason } => Self::MalformedMessage {
                reason: reason.clone(),
            },
            Self::UnexpectedResponse { kind } => Self::UnexpectedResponse { kind },
            _ => Self::Closed,
        }
    }
}

/// The first violation and how many others, for `Display`.
fn summary(errors: &[ValidationError]) -> String {
    match errors {
        [] => "no details".to_owned(),
        [only] => only.to_string(),
        [first, rest @ ..] => format!("{first} (and {} more)", rest.len()),
    }
}
