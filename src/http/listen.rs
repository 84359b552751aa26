//! `serve_http`: a listener that serves an [`McpHttpService`] at [`MCP_PATH`] with hyper,
//! with header read timeouts and graceful shutdown.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{Request, StatusCode};
use axum::response::Response as HttpResponse;
use futures_util::future::{Either, FutureExt as _, MapOk, Ready};
use futures_util::TryFutureExt as _;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use super::repoll::Repoll;
use super::{HttpError, McpHttpService, MCP_PATH};

/// What a stopping server gives its connections (`http.shutdownLingerMs`,
/// `http.shutdownGraceMs`).
#[derive(Clone, Copy, Debug)]
struct Shutdown {
    /// How long a connection stays open for its peer to close it, every response now
    /// saying `Connection: close`.
    linger: Duration,
    /// How long a request in flight then gets to finish.
    grace: Duration,
}

/// A running HTTP server: its address, and the handle that stops it.
#[derive(Debug)]
pub struct RunningHttpServer {
    local_addr: SocketAddr,
    scheme: &'static str,
    stop: CancellationToken,
    task: JoinHandle<Result<(), HttpError>>,
}

impl RunningHttpServer {
    /// The address bound (with the port the OS chose for port 0).
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint URL, `http://ADDR/mcp` (`https://` with TLS).
    #[must_use]
    pub fn url(&self) -> String {
        format!("{}://{}{MCP_PATH}", self.scheme, self.local_addr)
    }

    /// A token that stops the server when cancelled (e.g. from a signal handler).
    #[must_use]
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Stops accepting and waits until every connection is closed: for up to
    /// `http.shutdownLingerMs` (default 0) peers may go on sending requests on the open
    /// connections, each answered with `Connection: close`, and close them themselves (so a
    /// load balancer never sends a request on a connection the server is closing); then idle
    /// connections close and requests in flight get up to `http.shutdownGraceMs` (default
    /// 5 s) to finish.
    ///
    /// # Errors
    ///
    /// As [`wait`](Self::wait).
    pub async fn shutdown(self) -> Result<(), HttpError> {
        self.stop.cancel();
        self.wait().await
    }

    /// Serves until SIGTERM or SIGINT (Ctrl-C elsewhere), then shuts down gracefully: the
    /// usual end of a `main` that serves HTTP.
    ///
    /// # Errors
    ///
    /// [`HttpError::Signal`] when the signal handlers cannot be installed (the server is
    /// stopped then), else as [`wait`](Self::wait).
    pub async fn shutdown_on_signal(self) -> Result<(), HttpError> {
        if let Err(error) = wait_for_signal().await {
            self.stop.cancel();
            let _stopped = self.wait().await;
            return Err(HttpError::Signal(error));
        }
        self.shutdown().await
    }

    /// Waits until the server stops (after [`stop_token`](Self::stop_token) is cancelled,
    /// or a fatal accept error).
    ///
    /// # Errors
    ///
    /// [`HttpError::Accept`] when accepting failed for good, [`HttpError::ListenerFailed`]
    /// when the listener task panicked.
    pub async fn wait(self) -> Result<(), HttpError> {
        match self.task.await {
            Ok(result) => result,
            Err(error) => {
                tracing::error!(%error, "the HTTP listener task failed");
                Err(HttpError::ListenerFailed)
            }
        }
    }
}

#[cfg(unix)]
async fn wait_for_signal() -> std::io::Result<()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    tokio::select! {
        _ = term.recv() => tracing::info!("SIGTERM: stopping the HTTP server"),
        _ = int.recv() => tracing::info!("SIGINT: stopping the HTTP server"),
    }
    Ok(())
}

#[cfg(not(unix))]
async fn wait_for_signal() -> std::io::Result<()> {
    tokio::signal::ctrl_c().await
}

/// Binds `addr` and serves `service` at [`MCP_PATH`] (other paths: 404).
pub(crate) async fn start(
    addr: SocketAddr,
    service: McpHttpService,
) -> Result<RunningHttpServer, HttpError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| HttpError::Bind { addr, source })?;
    let local_addr = listener
        .local_addr()
        .map_err(|source| HttpError::Bind { addr, source })?;
    let header_timeout = service.options().header_read_timeout();
    let stop = CancellationToken::new();
    #[cfg(feature = "tls")]
    let tls = service.options().tls.clone().map(|tls| {
        tls.spawn_reloader(stop.clone());
        tls.acceptor()
    });
    #[cfg(not(feature = "tls"))]
    let tls = None;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let shutdown = Shutdown {
        linger: service.options().shutdown_linger(),
        grace: service.options().shutdown_grace(),
    };
    let streams = service.clone();
    let router = McpRoute::new(service);
    let task = tokio::spawn(accept_loop(
        Listener {
            listener,
            tls,
            header_timeout,
            shutdown,
        },
        router,
        stop.clone(),
        streams,
    ));
    tracing::info!(%local_addr, scheme, "serving MCP over HTTP");
    Ok(RunningHttpServer {
        local_addr,
        scheme,
        stop,
        task,
    })
}

/// The bound socket, and how its connections are spoken to.
struct Listener {
    listener: TcpListener,
    #[cfg(feature = "tls")]
    tls: Option<tokio_rustls::TlsAcceptor>,
    #[cfg(not(feature = "tls"))]
    tls: Option<std::convert::Infallible>,
    header_timeout: Duration,
    shutdown: Shutdown,
}

async fn accept_loop(
    Listener {
        listener,
        tls,
        header_timeout,
        shutdown,
    }: Listener,
    router: McpRoute,
    stop: CancellationToken,
    streams: McpHttpService,
) -> Result<(), HttpError> {
    // Connections drain only after the listen streams were told to end, so that their
    // closing results are among the responses a graceful shutdown lets finish.
    let drain = CancellationToken::new();
    let mut connections = JoinSet::new();
    let mut consecutive_errors = 0_u32;
    let mut stopping = false;
    loop {
        let accepted = if stopping {
            // Connections the kernel completed but nobody accepted yet would be reset when
            // the listener closes, after a load balancer sent them a request: they are
            // served too.
            match listener.accept().now_or_never() {
                Some(accepted) => accepted,
                None => break,
            }
        } else {
            tokio::select! {
                () = stop.cancelled() => {
                    stopping = true;
                    continue;
                }
                Some(_finished) = connections.join_next(), if !connections.is_empty() => continue,
                accepted = listener.accept() => accepted,
            }
        };
        let (socket, peer) = match accepted {
            Ok(accepted) => {
                consecutive_errors = 0;
                accepted
            }
            Err(_) if stopping => break,
            Err(error) => {
                // Out of file descriptors and the like: back off, give up if it persists.
                consecutive_errors += 1;
                tracing::warn!(%error, "accepting a connection failed");
                if consecutive_errors > 100 {
                    return Err(HttpError::Accept(error));
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if let Err(error) = socket.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set");
        }
        let service = TowerToHyperService::new(router.clone());
        let stop = drain.clone();
        #[cfg(feature = "tls")]
        if let Some(acceptor) = &tls {
            let _abort = connections.spawn(serve_tls(
                acceptor.clone(),
                socket,
                peer,
                service,
                (header_timeout, shutdown),
                stop,
            ));
            continue;
        }
        #[cfg(not(feature = "tls"))]
        let _no_tls = &tls;
        let _abort = connections.spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .keep_alive(true)
                .serve_connection(TokioIo::new(socket), service);
            drive(connection, peer, stop, shutdown, |connection| {
                connection.graceful_shutdown();
            })
            .await;
        });
    }
    drop(listener);
    // From here every response says `Connection: close`.
    router.draining.store(true, Ordering::Release);
    streams.close_streams();
    drain.cancel();
    while connections.join_next().await.is_some() {}
    tracing::info!("HTTP server stopped");
    Ok(())
}

/// Drives one connection until it ends, or until `stop`. Then, for up to
/// `shutdown.linger`, the peer may go on sending requests (each answered with `Connection:
/// close`) and close the connection itself, so that a load balancer's pool never sends a
/// request on a connection the server is closing; after that the connection is asked to
/// finish (`graceful_shutdown`: at once when idle) and gets `shutdown.grace`.
async fn drive<C, E>(
    connection: C,
    peer: SocketAddr,
    stop: CancellationToken,
    shutdown: Shutdown,
    graceful_shutdown: impl FnOnce(std::pin::Pin<&mut C>),
) where
    C: std::future::Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    let ended = |result: Result<(), E>| {
        if let Err(error) = result {
            tracing::debug!(%error, %peer, "HTTP connection ended with an error");
        }
    };
    let mut connection = Repoll::new(connection);
    tokio::select! {
        result = &mut connection => return ended(result),
        () = stop.cancelled() => {}
    }
    if !shutdown.linger.is_zero() {
        if let Ok(result) = tokio::time::timeout(shutdown.linger, &mut connection).await {
            return ended(result);
        }
    }
    graceful_shutdown(connection.inner_mut());
    match tokio::time::timeout(shutdown.grace, connection).await {
        Ok(result) => ended(result),
        Err(_elapsed) => tracing::debug!(%peer, "HTTP connection cut at shutdown"),
    }
}

/// One TLS connection: the handshake (within the header read timeout), then HTTP/2 or
/// HTTP/1.1, as ALPN (or the client's first bytes) chose.
#[cfg(feature = "tls")]
async fn serve_tls(
    acceptor: tokio_rustls::TlsAcceptor,
    socket: tokio::net::TcpStream,
    peer: SocketAddr,
    service: TowerToHyperService<McpRoute>,
    (header_timeout, shutdown): (Duration, Shutdown),
    stop: CancellationToken,
) {
    let stream = match tokio::time::timeout(header_timeout, acceptor.accept(socket)).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(error)) => {
            tracing::debug!(%error, %peer, "TLS handshake failed");
            return;
        }
        Err(_elapsed) => {
            tracing::debug!(%peer, "TLS handshake timed out");
            return;
        }
    };
    let mut builder =
        hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout)
        .keep_alive(true);
    builder.http2().timer(TokioTimer::new());
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    drive(connection, peer, stop, shutdown, |connection| {
        connection.graceful_shutdown();
    })
    .await;
}

/// The one route of [`start`]'s server: requests for [`MCP_PATH`] go to the service, any
/// other path gets an empty `404`. It stands where an `axum::Router` with that one route
/// would, without its per-request routing work (path matching, URL parameters, a boxed
/// clone of the route's service).
#[derive(Clone)]
struct McpRoute {
    service: McpHttpService,
    /// Set once the server stops: HTTP/1 responses then carry `Connection: close`, so that
    /// the peer (a load balancer's connection pool) sends nothing more on the connection.
    draining: Arc<AtomicBool>,
    /// With a resource server: `/mcp` and the metadata paths go through its layer.
    #[cfg(feature = "auth")]
    auth: Option<(super::auth::AuthService<McpHttpService>, Vec<String>)>,
}

impl McpRoute {
    fn new(service: McpHttpService) -> Self {
        #[cfg(feature = "auth")]
        let auth = service.options().auth.clone().map(|server| {
            let paths = server.metadata_paths();
            (server.layer().into_service(service.clone()), paths)
        });
        Self {
            service,
            draining: Arc::new(AtomicBool::new(false)),
            #[cfg(feature = "auth")]
            auth,
        }
    }
}

#[cfg(feature = "auth")]
type AuthFuture = super::auth::BoxFuture<'static, Result<HttpResponse, Infallible>>;
#[cfg(not(feature = "auth"))]
type AuthFuture = futures_util::future::Pending<Result<HttpResponse, Infallible>>;

/// A response as it is.
fn unchanged(response: HttpResponse) -> HttpResponse {
    response
}

/// A response that closes its HTTP/1 connection (HTTP/2 drops the header; its connections
/// end with GOAWAY).
fn closing(mut response: HttpResponse) -> HttpResponse {
    let _previous = response.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
}

impl<B> tower::Service<Request<B>> for McpRoute
where
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = Either<
        MapOk<
            Either<<McpHttpService as tower::Service<Request<B>>>::Future, AuthFuture>,
            fn(HttpResponse) -> HttpResponse,
        >,
        Ready<Result<HttpResponse, Infallible>>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        tower::Service::<Request<B>>::poll_ready(&mut self.service, cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let finish: fn(HttpResponse) -> HttpResponse = if self.draining.load(Ordering::Acquire) {
            closing
        } else {
            unchanged
        };
        #[cfg(feature = "auth")]
        if let Some((auth, paths)) = &mut self.auth {
            let path = request.uri().path();
            if path == MCP_PATH || paths.iter().any(|p| p == path) {
                return Either::Left(Either::Right(auth.call(request)).map_ok(finish));
            }
        }
        if request.uri().path() == MCP_PATH {
            return Either::Left(Either::Left(self.service.call(request)).map_ok(finish));
        }
        let mut response = HttpResponse::new(axum::body::Body::empty());
        *response.status_mut() = StatusCode::NOT_FOUND;
        Either::Right(futures_util::future::ready(Ok(finish(response))))
    }
}
