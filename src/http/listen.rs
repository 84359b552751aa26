//! `serve_http`: a listener that serves an [`McpHttpService`] at [`MCP_PATH`] with hyper,
//! with header read timeouts and graceful shutdown.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{Request, StatusCode};
use axum::response::Response as HttpResponse;
use futures_util::future::{Either, Ready};

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use super::repoll::Repoll;
use super::{HttpError, McpHttpService, MCP_PATH};

/// How long open connections get to finish after shutdown was asked for.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

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

    /// Stops accepting, lets open connections finish (a few seconds at most), and waits.
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
    let streams = service.clone();
    let router = McpRoute(service);
    let task = tokio::spawn(accept_loop(
        Listener {
            listener,
            tls,
            header_timeout,
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
}

async fn accept_loop(
    Listener {
        listener,
        tls,
        header_timeout,
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
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            Some(_finished) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = listener.accept() => accepted,
        };
        let (socket, peer) = match accepted {
            Ok(accepted) => {
                consecutive_errors = 0;
                accepted
            }
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
                header_timeout,
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
            drive(connection, peer, stop, |connection| {
                connection.graceful_shutdown();
            })
            .await;
        });
    }
    drop(listener);
    streams.close_streams();
    drain.cancel();
    while connections.join_next().await.is_some() {}
    tracing::info!("HTTP server stopped");
    Ok(())
}

/// Drives one connection until it ends, or until `stop`: then asks it to finish (with
/// `graceful_shutdown`) and gives it [`SHUTDOWN_GRACE`].
async fn drive<C, E>(
    connection: C,
    peer: SocketAddr,
    stop: CancellationToken,
    graceful_shutdown: impl FnOnce(std::pin::Pin<&mut C>),
) where
    C: std::future::Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    let mut connection = Repoll::new(connection);
    tokio::select! {
        result = &mut connection => {
            if let Err(error) = result {
                tracing::debug!(%error, %peer, "HTTP connection ended with an error");
            }
        }
        () = stop.cancelled() => {
            graceful_shutdown(connection.inner_mut());
            match tokio::time::timeout(SHUTDOWN_GRACE, connection).await {
                Ok(Ok(())) => {}
                Ok(Err(error)) => tracing::debug!(%error, %peer, "HTTP connection ended with an error"),
                Err(_elapsed) => tracing::debug!(%peer, "HTTP connection cut at shutdown"),
            }
        }
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
    header_timeout: Duration,
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
    drive(connection, peer, stop, |connection| {
        connection.graceful_shutdown();
    })
    .await;
}

/// The one route of [`start`]'s server: requests for [`MCP_PATH`] go to the service, any
/// other path gets an empty `404`. It stands where an `axum::Router` with that one route
/// would, without its per-request routing work (path matching, URL parameters, a boxed
/// clone of the route's service).
#[derive(Clone)]
struct McpRoute(McpHttpService);

impl<B> tower::Service<Request<B>> for McpRoute
where
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = Either<
        <McpHttpService as tower::Service<Request<B>>>::Future,
        Ready<Result<HttpResponse, Infallible>>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        tower::Service::<Request<B>>::poll_ready(&mut self.0, cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        if request.uri().path() == MCP_PATH {
            return Either::Left(self.0.call(request));
        }
        let mut response = HttpResponse::new(axum::body::Body::empty());
        *response.status_mut() = StatusCode::NOT_FOUND;
        Either::Right(futures_util::future::ready(Ok(response)))
    }
}
