//! The MCP client: typed requests to any MCP server, on the same generated protocol types
//! and validators as the server.
//!
//! - **Transports.** A child process over stdio ([`Client::connect_stdio`]: its stderr goes
//!   to the log, it is killed and reaped when the client goes), any
//!   `AsyncRead`/`AsyncWrite` pair ([`Client::connect_io`]), and Streamable HTTP
//!   ([`Client::connect_http`], feature `http`): stateless 2026-07-28 with the
//!   `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, or a 2025 session with
//!   `Mcp-Session-Id`, ended by DELETE on [`Client::close`].
//! - **Versions.** [`VersionChoice::Auto`] tries `server/discover` and falls back to
//!   `initialize` when the server answers it with an error; `Legacy` and `Pin` choose.
//! - **Strict on input.** Every answer is checked by the generated validator of its
//!   definition before it is decoded: a result that breaks the schema is
//!   [`ClientError::InvalidMessage`] with each violation's JSON Pointer. Malformed lines,
//!   oversized lines, answers with ids never used, and the end of the connection are typed
//!   errors of the requests in flight; a server that never answers is a
//!   [`ClientError::Timeout`]. Nothing the server sends is echoed in an error.
//! - **Strict on output.** Every request is checked by its generated validator before it is
//!   sent ([`ClientError::InvalidRequest`]).
//! - **Subscriptions.** [`Client::listen`] opens a 2026-07-28 `subscriptions/listen`
//!   stream ([`Subscription`], ended by dropping it); [`Client::subscribe`] is the 2025
//!   equivalent, whose notifications go to the handler.
//! - **Cancellation and progress.** Dropping a request's future (or its timeout) sends
//!   `notifications/cancelled`; [`RequestOptions::on_progress`] asks for progress and
//!   restarts the timeout with every report, up to a maximum total.
//!
//! ```no_run
//! # async fn run() -> Result<(), typed_mcp::client::ClientError> {
//! use typed_mcp::client::{Client, ClientOptions, ServerCommand};
//!
//! let server = ServerCommand::new("cargo").args(["run", "--example", "demo_server"]);
//! let client = Client::connect_stdio(server, ClientOptions::new("my-agent", "1.0.0")).await?;
//! for tool in client.list_tools().await? {
//!     println!("{}", tool.name);
//! }
//! let answer = client.call_tool("add", serde_json::json!({"a": 2, "b": 3})).await?;
//! println!("{:?}", answer.structured_content());
//! client.close().await;
//! # Ok(()) }
//! ```

#[cfg(feature = "tls")]
pub mod auth;
mod call;
mod child;
#[cfg(feature = "http")]
mod connector;
mod error;
pub(crate) mod generated_calls;
mod handler;
mod handshake;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
mod http_options;
mod listen;
mod methods;
mod more_requests;
mod options;
#[cfg(feature = "http")]
mod param_headers;
mod prune;
mod results;
mod router;
#[cfg(feature = "skills")]
mod skills;
#[cfg(feature = "http")]
mod sse;
mod stream;
mod tasks;
mod typed_call;

use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncRead, AsyncWrite};

use crate::generated::protocol::LoggingLevel;

pub use child::ServerCommand;
pub use error::{ClientError, SkillMismatch};
pub use handler::{ClientHandler, HandlerError, HandlerFuture};
pub use listen::{ListenNotification, Subscription};
pub use more_requests::CompletionTarget;
pub use options::{ClientOptions, Progress, ProgressCallback, RequestOptions, VersionChoice};
pub use results::{PromptResult, ResourceResult, ServerDescription, ToolReply, Versioned};
#[cfg(feature = "skills")]
pub use skills::LoadedSkill;
pub use tasks::{TaskCallback, TaskUpdate, TaskWait};

use router::Router;
use stream::StreamTransport;

/// A connection to one MCP server. Cheap to clone: clones share the connection, and
/// requests from several tasks run concurrently.
#[derive(Debug, Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

/// What was negotiated.
#[derive(Debug, Clone)]
struct Negotiated {
    version: String,
    modern: bool,
    server: Option<ServerDescription>,
}

#[derive(Debug)]
struct Inner {
    router: Arc<Router>,
    transport: Transport,
    options: ClientOptions,
    negotiated: Mutex<Negotiated>,
    /// The log level asked for with [`Client::set_log_level`]; in 2026-07-28 it travels in
    /// every request's `_meta`.
    log_level: Mutex<Option<LoggingLevel>>,
    /// The `outputSchema` of each tool listed (for [`Client::call_tool_typed`]).
    #[cfg(feature = "output-schema")]
    output_schemas: Mutex<typed_call::OutputSchemas>,
    /// The `x-mcp-header` annotations of the tools listed (HTTP only).
    #[cfg(feature = "http")]
    param_headers: Mutex<param_headers::ParamHeaders>,
}

#[derive(Debug)]
enum Transport {
    Stream(Box<StreamTransport>),
    #[cfg(feature = "http")]
    Http(Arc<http::HttpTransport>),
}

impl Drop for Inner {
    fn drop(&mut self) {
        #[cfg(feature = "http")]
        if let Transport::Http(http) = &self.transport {
            http.stop_listening();
        }
    }
}

impl Transport {
    /// Sends one request (over HTTP: the whole exchange, its answer routed).
    async fn send(
        &self,
        id: u64,
        method: &str,
        name: Option<&str>,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> Result<(), ClientError> {
        match self {
            // The line carries everything; the id, method, name and headers are for HTTP.
            Self::Stream(stream) => {
                let _: (u64, &str, Option<&str>, &[(String, String)]) = (id, method, name, headers);
                stream.send(body).await
            }
            #[cfg(feature = "http")]
            Self::Http(http) => {
                let outgoing = http::Outgoing {
                    id: Some(id),
                    method,
                    name,
                    headers,
                    body,
                };
                http.post(outgoing).await
            }
        }
    }

    async fn notify(&self, method: &str, body: Vec<u8>) -> Result<(), ClientError> {
        match self {
            // The method is for HTTP's `Mcp-Method`.
            Self::Stream(stream) => {
                let _: &str = method;
                stream.send(body).await
            }
            #[cfg(feature = "http")]
            Self::Http(http) => {
                let outgoing = http::Outgoing {
                    id: None,
                    method,
                    name: None,
                    headers: &[],
                    body,
                };
                http.post(outgoing).await
            }
        }
    }

    /// Starts reading the server's own messages, where the transport needs it (the GET
    /// stream of a 2025 HTTP session; opened only when the client has a handler for them).
    async fn start_listening(&self) {
        #[cfg(feature = "http")]
        if let Self::Http(http) = self {
            http.start_listening().await;
        }
    }

    /// The version headers of later HTTP requests (`None` before a handshake).
    fn set_version(&self, version: Option<&str>, modern: bool) {
        let _: (Option<&str>, bool) = (version, modern);
        match self {
            Self::Stream(_) => {}
            #[cfg(feature = "http")]
            Self::Http(http) => match version {
                // 2025-03-26 predates the header.
                Some(version) if version != "2025-03-26" => http.set_version(version, modern),
                _ => http.clear_version(),
            },
        }
    }
}

impl Client {
    /// Starts `command` as a child process and speaks MCP over its stdin/stdout; negotiates
    /// the version before returning.
    ///
    /// # Errors
    ///
    /// [`ClientError::Spawn`] if the process cannot start; any error of the handshake.
    pub async fn connect_stdio(
        command: ServerCommand,
        options: ClientOptions,
    ) -> Result<Self, ClientError> {
        let (child, stdin, stdout) = command.spawn()?;
        let router = Arc::new(Router::new(options.handler_arc()));
        let stream = StreamTransport::start(
            stdout,
            stdin,
            Arc::clone(&router),
            options.max_line_bytes,
            Some(child),
        );
        Self::handshake(router, Transport::Stream(Box::new(stream)), options).await
    }

    /// Speaks MCP over newline-delimited JSON on `input`/`output` (a socket, a pipe, an
    /// in-memory duplex); negotiates the version before returning.
    ///
    /// # Errors
    ///
    /// Any error of the handshake.
    pub async fn connect_io<R, W>(
        input: R,
        output: W,
        options: ClientOptions,
    ) -> Result<Self, ClientError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let router = Arc::new(Router::new(options.handler_arc()));
        let stream = StreamTransport::start(
            input,
            output,
            Arc::clone(&router),
            options.max_line_bytes,
            None,
        );
        Self::handshake(router, Transport::Stream(Box::new(stream)), options).await
    }

    /// Speaks MCP over Streamable HTTP to `url` (e.g. `http://127.0.0.1:8080/mcp` or
    /// `https://mcp.example.com/mcp`); negotiates the version before returning. Every
    /// request carries the headers and bearer token of the options; `https://` trusts the
    /// platform's roots and those of `ClientOptions::root_certificates_pem` (feature `tls`), and speaks
    /// HTTP/2 when the server offers it by ALPN.
    ///
    /// # Errors
    ///
    /// [`ClientError::Http`] for a URL that is not `http://` or `https://` (the latter needs
    /// feature `tls`); [`ClientError::Tls`] when the server's certificate does not verify;
    /// any error of the handshake.
    #[cfg(feature = "http")]
    pub async fn connect_http(url: &str, options: ClientOptions) -> Result<Self, ClientError> {
        let router = Arc::new(Router::new(options.handler_arc()));
        let transport = http::HttpTransport::new(
            url,
            Arc::clone(&router),
            options.max_line_bytes,
            &options.http,
        )?;
        Self::handshake(router, Transport::Http(Arc::new(transport)), options).await
    }

    async fn handshake(
        router: Arc<Router>,
        transport: Transport,
        options: ClientOptions,
    ) -> Result<Self, ClientError> {
        let inner = Arc::new(Inner {
            router,
            transport,
            options,
            negotiated: Mutex::new(Negotiated {
                version: String::new(),
                modern: false,
                server: None,
            }),
            log_level: Mutex::new(None),
            #[cfg(feature = "output-schema")]
            output_schemas: Mutex::new(typed_call::OutputSchemas::new()),
            #[cfg(feature = "http")]
            param_headers: Mutex::new(param_headers::ParamHeaders::default()),
        });
        let client = Self { inner };
        client.negotiate().await?;
        Ok(client)
    }

    /// The protocol version spoken.
    #[must_use]
    pub fn protocol_version(&self) -> String {
        self.negotiated().version
    }

    /// Whether the connection speaks 2026-07-28.
    #[must_use]
    pub fn is_modern(&self) -> bool {
        self.negotiated().modern
    }

    /// What the handshake told about the server.
    #[must_use]
    pub fn server(&self) -> Option<ServerDescription> {
        self.negotiated().server
    }

    /// How many answers arrived for requests that were already answered (each is logged
    /// and otherwise ignored).
    #[must_use]
    pub fn duplicate_responses(&self) -> u64 {
        self.inner.router.duplicate_responses()
    }

    /// The process id of the server started by [`Client::connect_stdio`].
    #[must_use]
    pub fn server_pid(&self) -> Option<u32> {
        match &self.inner.transport {
            Transport::Stream(stream) => stream.pid,
            #[cfg(feature = "http")]
            Transport::Http(_) => None,
        }
    }

    /// Whether the connection has ended (the server exited or closed the stream).
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.inner.router.is_closed()
    }

    /// Ends the connection: a 2025 HTTP session is deleted; a child process gets the end
    /// of its input, a short grace period to exit, then is killed and reaped. Requests
    /// still in flight fail with [`ClientError::ConnectionClosed`].
    pub async fn close(&self) {
        match &self.inner.transport {
            Transport::Stream(stream) => stream.close().await,
            #[cfg(feature = "http")]
            Transport::Http(http) => {
                http.stop_listening();
                http.close().await;
            }
        }
        self.inner.router.close();
    }

    fn negotiated(&self) -> Negotiated {
        self.inner
            .negotiated
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_negotiated(&self, negotiated: Negotiated) {
        let version = (!negotiated.version.is_empty()).then_some(negotiated.version.as_str());
        self.inner.transport.set_version(version, negotiated.modern);
        *self
            .inner
            .negotiated
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = negotiated;
    }
}
