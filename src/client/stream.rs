//! Newline-delimited JSON-RPC over any `AsyncRead`/`AsyncWrite` pair (a child's pipes, a
//! socket, an in-memory duplex): one writer task owns the output, one reader task reads
//! bounded lines and hands each to the [`Router`].

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::process::Child;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::framing::FrameReader;

use super::router::Router;
use super::ClientError;

/// Lines waiting for the writer before senders wait.
const WRITER_QUEUE: usize = 64;

/// How long [`StreamTransport::close`] lets a child exit on its own after its stdin closed.
const CHILD_EXIT_GRACE: Duration = Duration::from_secs(2);

/// The line transport of one connection.
pub(crate) struct StreamTransport {
    lines: mpsc::Sender<Vec<u8>>,
    reader: AbortHandle,
    writer: AbortHandle,
    child: Mutex<Option<Child>>,
    /// The child's process id, if there is a child.
    pub(crate) pid: Option<u32>,
}

impl std::fmt::Debug for StreamTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamTransport").finish_non_exhaustive()
    }
}

impl StreamTransport {
    /// Starts the reader and writer tasks. `child`, when given, is killed and reaped when
    /// the transport is dropped or closed.
    pub(crate) fn start<R, W>(
        input: R,
        output: W,
        router: Arc<Router>,
        max_line_bytes: usize,
        child: Option<Child>,
    ) -> Self
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (lines, queue) = mpsc::channel(WRITER_QUEUE);
        let writer = tokio::spawn(write_lines(output, queue, Arc::clone(&router))).abort_handle();
        let reader =
            tokio::spawn(read_lines(input, router, lines.clone(), max_line_bytes)).abort_handle();
        let pid = child.as_ref().and_then(Child::id);
        Self {
            lines,
            reader,
            writer,
            child: Mutex::new(child),
            pid,
        }
    }

    /// Queues one line (ending in `\n`).
    pub(crate) async fn send(&self, line: Vec<u8>) -> Result<(), ClientError> {
        self.lines.send(line).await.map_err(|_| ClientError::Closed)
    }

    /// Queues one line without waiting (for drop paths); dropped if the queue is full.
    pub(crate) fn send_now(&self, line: Vec<u8>) {
        if self.lines.try_send(line).is_err() {
            tracing::debug!("output queue full or closed, a notification was not sent");
        }
    }

    /// Stops writing (the server sees end of input), lets a child exit within a grace
    /// period, then kills and reaps it.
    pub(crate) async fn close(&self) {
        // Give queued lines a moment to reach the server before the writer goes.
        for _ in 0..50 {
            if self.lines.capacity() == self.lines.max_capacity() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.writer.abort();
        let child = self
            .child
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(mut child) = child {
            match tokio::time::timeout(CHILD_EXIT_GRACE, child.wait()).await {
                Ok(Ok(status)) => tracing::debug!(%status, "server process exited"),
                Ok(Err(error)) => tracing::warn!(%error, "waiting for the server process failed"),
                Err(_) => {
                    tracing::debug!("server process still running after its input closed: killed");
                    if let Err(error) = child.kill().await {
                        tracing::warn!(%error, "killing the server process failed");
                    }
                }
            }
        }
        self.reader.abort();
    }
}

impl Drop for StreamTransport {
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
        let child = self
            .child
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(child) = child {
            reap(child);
        }
    }
}

/// Kills a child and waits for it in the background (tokio's orphan queue reaps it if no
/// runtime is left to wait).
fn reap(mut child: Child) {
    if let Err(error) = child.start_kill() {
        tracing::debug!(%error, "the server process had already exited");
    }
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        drop(runtime.spawn(async move {
            match child.wait().await {
                Ok(status) => tracing::debug!(%status, "server process reaped"),
                Err(error) => tracing::warn!(%error, "reaping the server process failed"),
            }
        }));
    }
}

async fn write_lines<W>(mut output: W, mut queue: mpsc::Receiver<Vec<u8>>, router: Arc<Router>)
where
    W: AsyncWrite + Unpin,
{
    while let Some(line) = queue.recv().await {
        let written = async {
            output.write_all(&line).await?;
            output.flush().await
        };
        if let Err(error) = written.await {
            tracing::warn!(%error, "writing to the server failed");
            router.close();
            return;
        }
    }
}

async fn read_lines<R>(
    input: R,
    router: Arc<Router>,
    lines: mpsc::Sender<Vec<u8>>,
    max_line_bytes: usize,
) where
    R: AsyncRead + Unpin,
{
    let mut reader = FrameReader::new(input).with_max_line_bytes(max_line_bytes);
    while let Some(frame) = reader.next_frame().await {
        match frame {
            Ok(frame) => {
                if let Some(call) = router.deliver(frame, None) {
                    // The handler may take its time (a user, a model): the reading goes on.
                    let lines = lines.clone();
                    drop(tokio::spawn(async move {
                        if lines.send(call.await).await.is_err() {
                            tracing::debug!("the answer to a server request was not sent: closed");
                        }
                    }));
                }
            }
            Err(error) => router.framing_error(error),
        }
    }
    tracing::debug!("the server's output ended");
    router.close();
}
