//! The handshake: which protocol version a connection speaks, and what the server said
//! about itself.

use serde_json::{Map, Value};

use crate::generated::protocol::{validate, DiscoverResult, InitializeResult};
use crate::jsonrpc::ErrorCode;
use crate::mcp::era::{LATEST_LEGACY_VERSION, LEGACY_VERSIONS, MODERN_VERSION, MODERN_VERSIONS};

use super::call::{decode, Call};
use super::{
    Client, ClientError, Negotiated, RequestOptions, ServerDescription, VersionChoice, Versioned,
};

impl Client {
    pub(super) async fn negotiate(&self) -> Result<(), ClientError> {
        match self.inner.options.choice.clone() {
            VersionChoice::Auto => {
                self.set_negotiated(modern(MODERN_VERSION, None));
                match self.discover_retrying().await {
                    Ok(result)
                        if result
                            .supported_versions
                            .iter()
                            .any(|v| v == MODERN_VERSION) =>
                    {
                        self.set_negotiated(modern(MODERN_VERSION, Some(result)));
                        Ok(())
                    }
                    // An error, a 4xx, or an answer that is no `DiscoverResult` (a 2025
                    // server answering an unknown method with a generic result): the server
                    // does not speak 2026-07-28.
                    Ok(_)
                    | Err(
                        ClientError::Rpc { .. }
                        | ClientError::HttpStatus { .. }
                        | ClientError::InvalidMessage { .. },
                    ) => {
                        tracing::debug!("the server does not speak 2026-07-28: initialize");
                        self.initialize(LATEST_LEGACY_VERSION, false).await
                    }
                    Err(error) => Err(error),
                }
            }
            VersionChoice::Legacy(version) => self.initialize(&version, false).await,
            VersionChoice::Pin(version) if MODERN_VERSIONS.contains(&version.as_str()) => {
                self.set_negotiated(modern(&version, None));
                let result = self.discover_retrying().await?;
                if !result.supported_versions.contains(&version) {
                    return Err(ClientError::UnsupportedVersion {
                        reason: format!("the server does not list {version} in supportedVersions"),
                    });
                }
                self.set_negotiated(modern(&version, Some(result)));
                Ok(())
            }
            VersionChoice::Pin(version) => self.initialize(&version, true).await,
        }
    }

    /// `server/discover`; when it is refused with `-32022` and the error's
    /// `data.supported` lists a 2026-07-28 version this client speaks, once more with it.
    async fn discover_retrying(&self) -> Result<DiscoverResult, ClientError> {
        let error = match self.discover().await {
            Ok(result) => return Ok(result),
            Err(error) => error,
        };
        let ClientError::Rpc {
            code: ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            data: Some(data),
            ..
        } = &error
        else {
            return Err(error);
        };
        let mut data = data.clone();
        if super::call::validate_received(
            &mut data,
            validate::unsupported_protocol_version_data,
            "UnsupportedProtocolVersionData",
        )
        .is_err()
        {
            return Err(error);
        }
        let supported = data["supported"].as_array().cloned().unwrap_or_default();
        let Some(version) = MODERN_VERSIONS
            .iter()
            .find(|ours| supported.iter().any(|v| v.as_str() == Some(**ours)))
        else {
            return Err(error);
        };
        tracing::debug!(
            version,
            "server/discover refused with -32022: retrying once"
        );
        self.set_negotiated(modern(version, None));
        self.discover().await
    }

    async fn initialize(&self, offer: &str, exact: bool) -> Result<(), ClientError> {
        self.set_negotiated(Negotiated {
            version: String::new(),
            modern: false,
            server: None,
        });
        let mut params = Map::new();
        params.insert("protocolVersion".to_owned(), Value::from(offer));
        params.insert(
            "capabilities".to_owned(),
            self.inner.options.capabilities.clone(),
        );
        params.insert("clientInfo".to_owned(), self.inner.options.client_info());
        let call = Call {
            method: "initialize",
            params,
            name: None,
            validator: validate::initialize_request,
            modern_meta: None,
            headers: Vec::new(),
        };
        let raw = self.inner.request(call, &RequestOptions::new()).await?;
        let result: InitializeResult = decode(
            "initialize",
            &raw,
            validate::initialize_result,
            "InitializeResult",
        )?;
        let answered = result.protocol_version.clone();
        let Some(version) = LEGACY_VERSIONS.iter().find(|v| **v == answered) else {
            return Err(ClientError::UnsupportedVersion {
                reason: "the server answered initialize with a version this client does not speak"
                    .to_owned(),
            });
        };
        if exact && *version != offer {
            return Err(ClientError::UnsupportedVersion {
                reason: format!("{offer} was pinned, the server answered {version}"),
            });
        }
        self.set_negotiated(Negotiated {
            version: (*version).to_owned(),
            modern: false,
            server: Some(Versioned::Legacy(result)),
        });
        self.inner
            .notify("notifications/initialized", Value::Object(Map::new()))
            .await?;
        if self.inner.options.has_handler() {
            self.inner.transport.start_listening().await;
        }
        Ok(())
    }
}

fn modern(version: &str, server: Option<DiscoverResult>) -> Negotiated {
    Negotiated {
        version: version.to_owned(),
        modern: true,
        server: server.map(ServerDescription::Modern),
    }
}
