//! URL-mode elicitation (MCP 2025-11-25 and 2026-07-28): the client shows the user a message
//! and a URL to open out of band (a sign-in, a payment, an API key typed into the server's own
//! page), and answers only whether the user accepted, declined or dismissed it; what the user
//! enters there never travels through the client.
//!
//! One request for both eras, asked with
//! [`ToolContext::elicit_url`](super::ToolContext::elicit_url) or
//! [`PromptContext::elicit_url`](crate::mcp::PromptContext::elicit_url):
//!
//! - **2025-11-25**: an `elicitation/create` request on the connection with `mode: "url"`,
//!   `message`, `url` and `elicitationId`.
//! - **2026-07-28**: an entry of the `input_required` result's `inputRequests`, keyed by the
//!   elicitation id (the 2026-07-28 request has no `elicitationId` member: the key plays its
//!   role); the client's retry carries the answer under the same key.
//! - **Completion**: in 2025-11-25 the server may tell the client that the out-of-band step
//!   is done (`notifications/elicitation/complete` with the `elicitationId`,
//!   [`ToolContext::elicitation_complete`](super::ToolContext::elicitation_complete)), so it
//!   can retry what waited for it; 2026-07-28 has no such notification (nothing is sent).
//! - **Capabilities**: the client must have declared `elicitation.url`; otherwise the
//!   handler gets [`ClientRequestError::MissingCapability`]`("elicitation.url")` and nothing
//!   is sent. A tool that cannot work without it declares
//!   [`requires_client_capability("elicitation.url")`](crate::mcp::ToolDefinition::requires_client_capability)
//!   and such a client's call is refused with `-32021` before the handler runs.

use serde_json::{json, Value};

use super::client::{ClientRequest, ClientRequestError, ClientRequester};
use crate::generated::protocol::{validate, ElicitResult};

/// The method of every elicitation, form or URL mode.
pub(crate) const ELICIT_METHOD: &str = "elicitation/create";

/// The 2025-11-25 notification that a URL-mode elicitation's out-of-band step is done.
pub(crate) const COMPLETE_METHOD: &str = "notifications/elicitation/complete";

/// A URL-mode elicitation, as a handler asks it.
///
/// ```
/// use typed_mcp::tools::UrlElicitation;
///
/// let request = UrlElicitation::new(
///     "link-github-7",
///     "Sign in to GitHub to let the server read your repositories.",
///     "https://example.com/connect/github?session=7",
/// );
/// assert_eq!(request.params()["mode"], "url");
/// assert_eq!(request.params()["elicitationId"], "link-github-7");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct UrlElicitation {
    /// Identifies the elicitation: the 2025-11-25 `elicitationId` (unique within the server)
    /// and the 2026-07-28 `inputRequests` key. A handler runs again on every 2026-07-28
    /// retry, so it must give the same id each time it asks the same question (derive it
    /// from the arguments or the session, not from a random source).
    pub elicitation_id: String,
    /// Why the user should open the URL.
    pub message: String,
    /// The URL the user should open: an absolute URI.
    pub url: String,
}

impl UrlElicitation {
    /// An elicitation asking the user to open `url`, explained by `message`.
    #[must_use]
    pub fn new(
        elicitation_id: impl Into<String>,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Self {
        Self {
            elicitation_id: elicitation_id.into(),
            message: message.into(),
            url: url.into(),
        }
    }

    /// The 2025-11-25 `elicitation/create` params (`mode: "url"`); the 2026-07-28
    /// `inputRequests` entry is the same without `elicitationId`.
    #[must_use]
    pub fn params(&self) -> Value {
        json!({
            "mode": "url",
            "message": self.message,
            "url": self.url,
            "elicitationId": self.elicitation_id,
        })
    }

    /// The request to the client, keyed by the elicitation id; refused (nothing sent) when
    /// the id is empty or the URL is not an absolute URI.
    pub(crate) fn request(&self) -> Result<ClientRequest, ClientRequestError> {
        if self.elicitation_id.is_empty() {
            return Err(ClientRequestError::InvalidRequest(
                "a URL-mode elicitation needs a non-empty elicitation id",
            ));
        }
        if !crate::validation::formats::is_uri(&self.url) {
            return Err(ClientRequestError::InvalidRequest(
                "a URL-mode elicitation's url must be an absolute URI",
            ));
        }
        Ok(ClientRequest {
            key: Some(self.elicitation_id.clone()),
            method: ELICIT_METHOD,
            params: self.params(),
        })
    }
}

/// Asks `request` through `client` (none: [`ClientRequestError::Unavailable`] saying
/// `unavailable`) and types the answer.
pub(crate) async fn ask_url(
    client: Option<&ClientRequester>,
    request: &UrlElicitation,
    unavailable: &'static str,
) -> Result<ElicitResult, ClientRequestError> {
    let request = request.request()?;
    let Some(client) = client else {
        return Err(ClientRequestError::Unavailable(unavailable));
    };
    elicit_result(client(request).await?)
}

/// Sends `notifications/elicitation/complete` for `elicitation_id` through `client`;
/// whether it was sent (not in 2026-07-28, not to a client without `elicitation.url`, not on
/// a closed connection).
pub(crate) async fn complete(client: Option<&ClientRequester>, elicitation_id: &str) -> bool {
    let Some(client) = client else {
        return false;
    };
    let request = ClientRequest {
        key: None,
        method: COMPLETE_METHOD,
        params: json!({ "elicitationId": elicitation_id }),
    };
    client(request).await.is_ok()
}

/// Whether `params` ask for a URL-mode elicitation.
pub(crate) fn is_url_mode(params: &Value) -> bool {
    params.get("mode").and_then(Value::as_str) == Some("url")
}

/// The client's answer to an elicitation, checked against `ElicitResult`.
pub(crate) fn elicit_result(answer: Value) -> Result<ElicitResult, ClientRequestError> {
    if validate::elicit_result(&answer).is_err() {
        return Err(ClientRequestError::Malformed(
            "the answer is not an ElicitResult".to_owned(),
        ));
    }
    serde_json::from_value(answer)
        .map_err(|_| ClientRequestError::Malformed("the answer is not an ElicitResult".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::protocol::ElicitResultAction;

    #[test]
    fn a_request_is_keyed_by_its_id_and_checked_before_it_is_sent() {
        let request = UrlElicitation::new("e-1", "Open it", "https://example.com/a?b=c")
            .request()
            .unwrap();
        assert_eq!(request.key.as_deref(), Some("e-1"));
        assert_eq!(request.method, "elicitation/create");
        assert_eq!(
            request.params,
            json!({"mode": "url", "message": "Open it", "url": "https://example.com/a?b=c", "elicitationId": "e-1"})
        );
        assert!(matches!(
            UrlElicitation::new("", "m", "https://example.com").request(),
            Err(ClientRequestError::InvalidRequest(_))
        ));
        assert!(matches!(
            UrlElicitation::new("e", "m", "/relative/path").request(),
            Err(ClientRequestError::InvalidRequest(_))
        ));
    }

    #[test]
    fn answers_are_typed_or_malformed() {
        let accepted = elicit_result(json!({"action": "accept"})).unwrap();
        assert_eq!(accepted.action, ElicitResultAction::Accept);
        assert!(accepted.content.is_none());
        assert!(matches!(
            elicit_result(json!({"action": "maybe"})),
            Err(ClientRequestError::Malformed(_))
        ));
        assert!(matches!(
            elicit_result(json!({})),
            Err(ClientRequestError::Malformed(_))
        ));
    }
}
