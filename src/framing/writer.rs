//! The single task that owns the output stream.

use std::borrow::Cow;
use std::io::IoSlice;
use std::sync::Arc;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::jsonrpc::{
    encode_batch_line, Message, Notification, Request, Response, ResponsePayload, RESULT_LINE_END,
    UNCOPIED_RESULT_BYTES,
};

use super::budget::OutputBudget;
use super::lazy_queue::{lazy_channel, LazyReceiver, LazySender};
use super::FramingError;

/// Default number of messages that may wait for the writer before senders are held back.
///
/// The queue is bounded by count, so its memory is this many times the largest answer: 64
/// matches the request loop's default in-flight bound (a larger queue only holds more
/// finished answers in memory; with 1,024, 64 KiB answers held ~134 MB).
pub const DEFAULT_WRITER_QUEUE: usize = 64;

/// Write in pieces of about this size when many messages are queued.
const WRITE_THRESHOLD_BYTES: usize = 64 * 1024;

/// The encode buffer's capacity: the threshold plus room for the message that crosses it, so
/// a small message crossing the threshold does not double the buffer (to 128 KiB, kept).
const BUFFER_CAPACITY_BYTES: usize = WRITE_THRESHOLD_BYTES + 16 * 1024;

/// The reused encode buffer is given back to the allocator when it grew beyond this size.
const RETAINED_BUFFER_BYTES: usize = 1024 * 1024;

/// Something the writer puts on the wire as one line.
#[derive(Debug)]
pub enum Outbound {
    /// One message.
    Message(Message<'static>),
    /// The answer to a batch: the responses as one JSON array. An empty batch writes nothing.
    Batch(Vec<Response<'static>>),
}

impl From<Message<'static>> for Outbound {
    fn from(message: Message<'static>) -> Self {
        Self::Message(message)
    }
}

impl From<Response<'static>> for Outbound {
    fn from(response: Response<'static>) -> Self {
        Self::Message(Message::Response(response))
    }
}

impl From<Request<'static>> for Outbound {
    fn from(request: Request<'static>) -> Self {
        Self::Message(Message::Request(request))
    }
}

impl From<Notification<'static>> for Outbound {
    fn from(notification: Notification<'static>) -> Self {
        Self::Message(Message::Notification(notification))
    }
}

impl Outbound {
    /// About how many bytes the message takes on the wire (its raw JSON parts, plus a
    /// little for the envelope): what the output budget counts.
    fn wire_size(&self) -> usize {
        /// The envelope around the raw parts: `{"jsonrpc":"2.0","id":…,"result":…}` and
        /// the newline, with a short id.
        const ENVELOPE: usize = 48;
        fn raw(part: Option<&serde_json::value::RawValue>) -> usize {
            part.map_or(0, |raw| raw.get().len())
        }
        fn response(response: &Response<'_>) -> usize {
            ENVELOPE
                + match &response.payload {
                    crate::jsonrpc::ResponsePayload::Result(result) => result.get().len(),
                    crate::jsonrpc::ResponsePayload::Error(error) => {
                        error.message.len() + raw(error.data.as_deref())
                    }
                }
        }
        match self {
            Self::Message(Message::Response(answer)) => response(answer),
            Self::Message(Message::Request(request)) => {
                ENVELOPE + request.method.len() + raw(request.params.as_deref())
            }
            Self::Message(Message::Notification(notification)) => {
                ENVELOPE + notification.method.len() + raw(notification.params.as_deref())
            }
            Self::Batch(responses) => responses.iter().map(response).sum(),
        }
    }

    /// Whether the message answers requests (and so tells the budget how large answers are).
    fn is_answer(&self) -> bool {
        matches!(self, Self::Message(Message::Response(_)) | Self::Batch(_))
    }
}

pub(super) enum Command {
    /// A message and the bytes the budget counted for it (0 without a budget).
    Write(Outbound, usize),
    Shutdown,
}

/// Sends messages to the writer task. Cheap to clone; all clones feed one bounded queue, so
/// lines never interleave and a slow output holds senders back instead of growing memory.
#[derive(Clone)]
pub struct WriterHandle {
    route: Route,
    /// Counts the bytes waiting to be written (the request loop's writer only).
    budget: Option<Arc<OutputBudget>>,
}

/// Where a [`WriterHandle`]'s messages go.
#[derive(Clone)]
enum Route {
    /// The queue of a writer task.
    Queue(mpsc::Sender<Command>),
    /// The queue of a [`message_channel`], made on its first message.
    Lazy(LazySender),
}

impl WriterHandle {
    /// Queues a message, waiting while the queue is full.
    ///
    /// # Errors
    ///
    /// [`FramingError::WriterClosed`] once the writer has shut down or failed; the failure
    /// itself is returned by [`WriterTask::shutdown`].
    pub async fn send(&self, message: impl Into<Outbound>) -> Result<(), FramingError> {
        let message = message.into();
        let counted = match &self.budget {
            Some(budget) => {
                let bytes = message.wire_size();
                budget.queue(bytes, message.is_answer());
                bytes
            }
            None => 0,
        };
        let command = Command::Write(message, counted);
        let sent = match &self.route {
            Route::Queue(sender) => sender.send(command).await.is_ok(),
            // Boxed: a writer task's handles (every answer of the request loop) then carry a
            // future no larger than before the lazy queue, and drop it as cheaply.
            Route::Lazy(lazy) => Box::pin(lazy.send(command)).await,
        };
        if !sent {
            if let Some(budget) = &self.budget {
                budget.written(counted);
            }
            return Err(FramingError::WriterClosed);
        }
        Ok(())
    }

    /// Whether the writer no longer accepts messages.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        match &self.route {
            Route::Queue(sender) => sender.is_closed(),
            Route::Lazy(lazy) => lazy.is_closed(),
        }
    }
}

/// The receiving end of [`message_channel`]: the messages handlers send, for a transport
/// that frames them itself (each HTTP response, each event stream).
pub struct MessageReceiver {
    receiver: LazyReceiver,
}

impl std::fmt::Debug for MessageReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageReceiver")
            .field("queued", &self.receiver.len())
            .finish()
    }
}

impl MessageReceiver {
    /// The next message, or `None` once every [`WriterHandle`] of the channel is gone.
    pub async fn recv(&mut self) -> Option<Outbound> {
        loop {
            match self.receiver.recv().await? {
                Command::Write(outbound, _) => return Some(outbound),
                Command::Shutdown => self.receiver.close(),
            }
        }
    }

    /// Stops accepting messages; those already queued can still be received.
    pub fn close(&mut self) {
        self.receiver.close();
    }
}

/// A bounded queue of outbound messages with no writer task behind it: handlers send
/// through the [`WriterHandle`] as usual, and the caller takes the messages from the
/// [`MessageReceiver`] and frames them for its transport. `capacity` is at least 1.
///
/// The queue itself is made when the first message is sent: a channel nothing is sent
/// through (an HTTP request whose handler sends no notification) costs one small allocation.
///
/// ```
/// use std::borrow::Cow;
/// use typed_mcp::framing::{message_channel, Outbound};
/// use typed_mcp::jsonrpc::Notification;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let (handle, mut receiver) = message_channel(4);
/// handle.send(Notification::new("notifications/progress", None)).await.unwrap();
/// drop(handle);
/// assert!(matches!(receiver.recv().await, Some(Outbound::Message(_))));
/// assert!(receiver.recv().await.is_none());
/// # });
/// ```
#[must_use]
pub fn message_channel(capacity: usize) -> (WriterHandle, MessageReceiver) {
    let (sender, receiver) = lazy_channel(capacity);
    let handle = WriterHandle {
        route: Route::Lazy(sender),
        budget: None,
    };
    (handle, MessageReceiver { receiver })
}

/// The running writer task; [`shutdown`](Self::shutdown) stops it and returns the output.
///
/// Dropping it without shutting down leaves the task running until every
/// [`WriterHandle`] is gone; it then writes what is queued and ends.
pub struct WriterTask<W> {
    sender: mpsc::Sender<Command>,
    join: JoinHandle<Result<W, FramingError>>,
}

/// Starts the task that owns `output` and writes every queued message as one line.
///
/// Messages are encoded into one reused buffer; the output is flushed whenever the queue
/// runs empty, not after every message. `queue_capacity` (at least 1) bounds the number of
/// waiting messages. Must be called within a Tokio runtime.
///
/// # Examples
///
/// ```
/// use typed_mcp::framing::spawn_writer;
/// use typed_mcp::jsonrpc::{Id, Response};
/// use serde_json::value::RawValue;
/// use std::borrow::Cow;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let (handle, task) = spawn_writer(Vec::new(), 16);
/// let result = RawValue::from_string("{}".to_owned()).unwrap();
/// let response = Response::result(Id::from_u64(1), Cow::Owned(result));
/// handle.send(response).await.unwrap();
/// let output = task.shutdown().await.unwrap();
/// assert_eq!(output, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
/// # });
/// ```
pub fn spawn_writer<W>(output: W, queue_capacity: usize) -> (WriterHandle, WriterTask<W>)
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    spawn_budgeted_writer(output, queue_capacity, None)
}

/// [`spawn_writer`], counting every message's bytes in `budget` until it is written.
pub(crate) fn spawn_budgeted_writer<W>(
    output: W,
    queue_capacity: usize,
    budget: Option<Arc<OutputBudget>>,
) -> (WriterHandle, WriterTask<W>)
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (sender, receiver) = mpsc::channel(queue_capacity.max(1));
    let join = tokio::spawn(run(output, receiver, budget.clone()));
    let handle = WriterHandle {
        route: Route::Queue(sender.clone()),
        budget,
    };
    (handle, WriterTask { sender, join })
}

impl<W> WriterTask<W> {
    /// Stops accepting messages, writes and flushes everything queued before, and returns
    /// the output stream.
    ///
    /// # Errors
    ///
    /// The first write or flush error ([`FramingError::Io`]), whenever it happened, or
    /// [`FramingError::WriterTaskFailed`] if the task panicked or was cancelled.
    pub async fn shutdown(self) -> Result<W, FramingError> {
        if self.sender.send(Command::Shutdown).await.is_err() {
            tracing::debug!("writer already stopped before shutdown");
        }
        drop(self.sender);
        match self.join.await {
            Ok(result) => result,
            Err(error) => {
                tracing::error!(%error, "writer task failed");
                Err(FramingError::WriterTaskFailed)
            }
        }
    }
}

async fn run<W>(
    output: W,
    mut receiver: mpsc::Receiver<Command>,
    budget: Option<Arc<OutputBudget>>,
) -> Result<W, FramingError>
where
    W: AsyncWrite + Unpin,
{
    let mut writer = BudgetedOutput {
        output,
        budget,
        counted: 0,
    };
    let written = write_all_queued(&mut writer, &mut receiver).await;
    if written.is_err() {
        // Nothing more will be written: what is queued no longer counts against the budget.
        receiver.close();
        while let Some(command) = receiver.recv().await {
            if let Command::Write(_, counted) = command {
                writer.counted += counted;
            }
        }
        writer.release();
    }
    written?;
    Ok(writer.output)
}

/// The output, and the budget's bytes of the messages encoded but not yet written.
struct BudgetedOutput<W> {
    output: W,
    budget: Option<Arc<OutputBudget>>,
    counted: usize,
}

impl<W> BudgetedOutput<W> {
    /// The messages encoded so far are written (or will never be): they leave the budget.
    fn release(&mut self) {
        if let Some(budget) = &self.budget {
            budget.written(self.counted);
        }
        self.counted = 0;
    }
}

async fn write_all_queued<W>(
    writer: &mut BudgetedOutput<W>,
    receiver: &mut mpsc::Receiver<Command>,
) -> Result<(), FramingError>
where
    W: AsyncWrite + Unpin,
{
    let mut buffer = Vec::with_capacity(BUFFER_CAPACITY_BYTES);
    while let Some(first) = receiver.recv().await {
        let mut next = Some(first);
        while let Some(command) = next {
            match command {
                Command::Write(Outbound::Message(Message::Response(response)), counted) => {
                    writer.counted += counted;
                    // An output without vectored writes would take the pieces one call
                    // each: a copy costs less than two more writes.
                    let uncopied = if writer.output.is_write_vectored() {
                        UNCOPIED_RESULT_BYTES
                    } else {
                        usize::MAX
                    };
                    if let Some(result) = response.encode_line_around_result(&mut buffer, uncopied)
                    {
                        write_parts(&mut writer.output, [&buffer, result, RESULT_LINE_END]).await?;
                        buffer.clear();
                        writer.release();
                        // Written from its own allocation: kept for the next long answer.
                        if let ResponsePayload::Result(Cow::Owned(result)) = response.payload {
                            crate::long_strings::recycle_raw(result);
                        }
                    }
                }
                Command::Write(Outbound::Message(message), counted) => {
                    message.encode_line(&mut buffer);
                    writer.counted += counted;
                }
                Command::Write(Outbound::Batch(responses), counted) => {
                    encode_batch_line(&responses, &mut buffer);
                    writer.counted += counted;
                }
                Command::Shutdown => {
                    tracing::debug!("writer shutting down");
                    receiver.close();
                }
            }
            if buffer.len() >= WRITE_THRESHOLD_BYTES {
                write(&mut writer.output, &buffer).await?;
                buffer.clear();
                writer.release();
            }
            next = receiver.try_recv().ok();
        }
        // The queue ran empty: put everything on the wire.
        write(&mut writer.output, &buffer).await?;
        buffer.clear();
        writer.release();
        flush(&mut writer.output).await?;
        if buffer.capacity() > RETAINED_BUFFER_BYTES {
            buffer = Vec::with_capacity(BUFFER_CAPACITY_BYTES);
        }
    }
    flush(&mut writer.output).await?;
    tracing::debug!("writer stopped");
    Ok(())
}

async fn write<W: AsyncWrite + Unpin>(output: &mut W, bytes: &[u8]) -> Result<(), FramingError> {
    if bytes.is_empty() {
        return Ok(());
    }
    tracing::trace!(bytes = bytes.len(), "writing output");
    output.write_all(bytes).await.map_err(|error| {
        tracing::error!(%error, "writing output failed");
        FramingError::Io(error)
    })
}

/// Writes `parts` one after the other, in as few vectored writes as the output takes.
async fn write_parts<W: AsyncWrite + Unpin>(
    output: &mut W,
    mut parts: [&[u8]; 3],
) -> Result<(), FramingError> {
    tracing::trace!(
        bytes = parts.iter().map(|part| part.len()).sum::<usize>(),
        "writing output"
    );
    let mut first = 0;
    loop {
        while parts.get(first).is_some_and(|part| part.is_empty()) {
            first += 1;
        }
        if first == parts.len() {
            return Ok(());
        }
        let slices = parts.map(IoSlice::new);
        let mut written = match output.write_vectored(&slices[first..]).await {
            Ok(0) => Err(std::io::Error::from(std::io::ErrorKind::WriteZero)),
            written => written,
        }
        .map_err(|error| {
            tracing::error!(%error, "writing output failed");
            FramingError::Io(error)
        })?;
        while written > 0 && first < parts.len() {
            let taken = written.min(parts[first].len());
            parts[first] = &parts[first][taken..];
            written -= taken;
            if parts[first].is_empty() {
                first += 1;
            }
        }
    }
}

async fn flush<W: AsyncWrite + Unpin>(output: &mut W) -> Result<(), FramingError> {
    output.flush().await.map_err(|error| {
        tracing::error!(%error, "flushing output failed");
        FramingError::Io(error)
    })
}
