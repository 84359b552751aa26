//! The queue behind [`message_channel`](super::message_channel), made when its first message
//! is sent.
//!
//! Every HTTP request gets a channel for the notifications its handler may send, and most
//! handlers send none. A tokio `mpsc` channel costs a cache-aligned allocation (through
//! `posix_memalign`) and a block of 32 slots when it is made, about 2,200 instructions of a
//! 16-byte HTTP call with its polls and drops (BENCHMARKS.md, "Issue 12, stop 26"). Here the
//! two ends share a small record until a message comes; the `mpsc` queue is made then, and
//! from there on every message goes through it as before.
//!
//! What the ends see is what an `mpsc` channel gives them: sends wait while `capacity`
//! messages are queued, fail once the receiver closed; the receiver gets every message in
//! order, then `None` once it closed or every handle is gone.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use tokio::sync::mpsc;

use super::writer::Command;

/// What the two ends of a channel share.
#[derive(Debug)]
struct Shared {
    capacity: usize,
    inner: Mutex<Inner>,
    /// The [`LazySender`]s alive.
    senders: AtomicUsize,
}

#[derive(Debug)]
struct Inner {
    state: State,
    /// The receiver waiting for the queue to be made or the last handle to go (woken, and
    /// cleared, by either).
    waiting: Option<Waker>,
}

#[derive(Debug)]
enum State {
    /// No message was sent yet.
    Empty,
    /// The queue exists. `sender` is the one every send clones (dropped with the last
    /// handle, so the queue ends then); `receiver` waits here until the receiving end takes it.
    Open {
        sender: Option<mpsc::Sender<Command>>,
        receiver: Option<mpsc::Receiver<Command>>,
    },
    /// The receiver closed before any message was sent: nothing is accepted.
    Closed,
}

impl Shared {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        // No code panics while holding the lock; a poisoned one still holds a valid state.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A new channel's two ends (`capacity` at least 1).
pub(super) fn lazy_channel(capacity: usize) -> (LazySender, LazyReceiver) {
    let shared = Arc::new(Shared {
        capacity: capacity.max(1),
        inner: Mutex::new(Inner {
            state: State::Empty,
            waiting: None,
        }),
        senders: AtomicUsize::new(1),
    });
    let sender = LazySender {
        shared: Arc::clone(&shared),
    };
    (
        sender,
        LazyReceiver {
            shared,
            receiver: None,
        },
    )
}

/// A sending end: cloned with each `WriterHandle`, counted so that the receiver knows when
/// the last one is gone.
#[derive(Debug)]
pub(super) struct LazySender {
    shared: Arc<Shared>,
}

impl Clone for LazySender {
    fn clone(&self) -> Self {
        self.shared.senders.fetch_add(1, Ordering::Relaxed);
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl Drop for LazySender {
    fn drop(&mut self) {
        if self.shared.senders.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        // The last handle: the queue (if made) ends once the sends under way are done.
        let waiting = {
            let mut inner = self.shared.inner();
            if let State::Open { sender, .. } = &mut inner.state {
                *sender = None;
            }
            inner.waiting.take()
        };
        if let Some(waiting) = waiting {
            waiting.wake();
        }
    }
}

impl LazySender {
    /// The queue's sender, the queue made now if this is the first message; `None` once the
    /// receiver closed.
    fn sender(&self) -> Option<mpsc::Sender<Command>> {
        let mut inner = self.shared.inner();
        match &mut inner.state {
            State::Open { sender, .. } => sender.clone(),
            State::Closed => None,
            State::Empty => {
                let (sender, receiver) = mpsc::channel(self.shared.capacity);
                inner.state = State::Open {
                    sender: Some(sender.clone()),
                    receiver: Some(receiver),
                };
                let waiting = inner.waiting.take();
                drop(inner);
                if let Some(waiting) = waiting {
                    waiting.wake();
                }
                Some(sender)
            }
        }
    }

    /// Queues `command`, waiting while the queue is full; `false` once the receiver closed.
    pub(super) async fn send(&self, command: Command) -> bool {
        match self.sender() {
            Some(sender) => sender.send(command).await.is_ok(),
            None => false,
        }
    }

    /// Whether the receiver closed (dropping it closes it).
    pub(super) fn is_closed(&self) -> bool {
        match &self.shared.inner().state {
            State::Empty => false,
            State::Open { sender, .. } => sender.as_ref().is_none_or(mpsc::Sender::is_closed),
            State::Closed => true,
        }
    }
}

/// The receiving end.
#[derive(Debug)]
pub(super) struct LazyReceiver {
    shared: Arc<Shared>,
    /// The queue, once made and taken from the shared state.
    receiver: Option<mpsc::Receiver<Command>>,
}

impl Drop for LazyReceiver {
    fn drop(&mut self) {
        self.close();
    }
}

impl LazyReceiver {
    /// The next command, or `None` once the channel closed or every sender is gone (after
    /// every message queued before).
    pub(super) async fn recv(&mut self) -> Option<Command> {
        if self.receiver.is_none() && !std::future::poll_fn(|cx| self.poll_queue(cx)).await {
            return None;
        }
        self.receiver.as_mut()?.recv().await
    }

    /// Waits for the queue to be made (`true`, the queue taken into `self.receiver`) or for
    /// the channel to end without one (`false`). The state is read and the waker left under
    /// one lock, the one every change takes: no change is missed in between.
    fn poll_queue(&mut self, cx: &mut Context<'_>) -> Poll<bool> {
        let mut inner = self.shared.inner();
        match &mut inner.state {
            State::Open { receiver, .. } => {
                // Taken only here and in `close`, which leaves it in `self`.
                self.receiver = receiver.take();
                Poll::Ready(self.receiver.is_some())
            }
            State::Closed => Poll::Ready(false),
            State::Empty if self.shared.senders.load(Ordering::Acquire) == 0 => Poll::Ready(false),
            State::Empty => {
                match &mut inner.waiting {
                    Some(waiting) if waiting.will_wake(cx.waker()) => {}
                    waiting => *waiting = Some(cx.waker().clone()),
                }
                Poll::Pending
            }
        }
    }

    /// Stops accepting messages; those already queued can still be received.
    pub(super) fn close(&mut self) {
        if self.receiver.is_none() {
            let mut inner = self.shared.inner();
            match &mut inner.state {
                State::Empty => inner.state = State::Closed,
                State::Open { receiver, .. } => self.receiver = receiver.take(),
                State::Closed => {}
            }
        }
        if let Some(receiver) = self.receiver.as_mut() {
            receiver.close();
        }
    }

    /// How many messages wait in the queue.
    pub(super) fn len(&self) -> usize {
        match (&self.receiver, &self.shared.inner().state) {
            (Some(receiver), _) => receiver.len(),
            (
                None,
                State::Open {
                    receiver: Some(receiver),
                    ..
                },
            ) => receiver.len(),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::framing::{message_channel, FramingError, MessageReceiver, Outbound, WriterHandle};
    use crate::jsonrpc::{Message, Notification};

    fn note(index: usize) -> Notification<'static> {
        Notification::new(format!("n/{index}"), None)
    }

    fn method(outbound: Option<Outbound>) -> Option<String> {
        match outbound {
            Some(Outbound::Message(Message::Notification(notification))) => {
                Some(notification.method.into_owned())
            }
            Some(other) => panic!("not a notification: {other:?}"),
            None => None,
        }
    }

    async fn next(receiver: &mut MessageReceiver) -> Option<String> {
        let received = tokio::time::timeout(Duration::from_secs(5), receiver.recv()).await;
        method(received.expect("recv ended or went on waiting"))
    }

    #[tokio::test]
    async fn a_channel_nothing_was_sent_through_ends_with_its_last_handle() {
        let (handle, mut receiver) = message_channel(4);
        let second = handle.clone();
        drop(handle);
        assert!(!second.is_closed());
        drop(second);
        assert_eq!(next(&mut receiver).await, None);
        assert!(format!("{receiver:?}").contains("queued: 0"));
    }

    #[tokio::test]
    async fn messages_come_in_order_then_none_once_every_handle_is_gone() {
        let (handle, mut receiver) = message_channel(8);
        let clone = handle.clone();
        handle.send(note(1)).await.unwrap();
        clone.send(note(2)).await.unwrap();
        handle.send(note(3)).await.unwrap();
        assert!(
            format!("{receiver:?}").contains("queued: 3"),
            "{receiver:?}"
        );
        drop(handle);
        assert_eq!(next(&mut receiver).await.as_deref(), Some("n/1"));
        drop(clone);
        assert_eq!(next(&mut receiver).await.as_deref(), Some("n/2"));
        assert_eq!(next(&mut receiver).await.as_deref(), Some("n/3"));
        assert_eq!(next(&mut receiver).await, None);
    }

    #[tokio::test]
    async fn a_receiver_waiting_before_the_first_message_gets_it() {
        let (handle, mut receiver) = message_channel(1);
        let waiting = tokio::spawn(async move {
            let first = next(&mut receiver).await;
            let end = next(&mut receiver).await;
            (first, end)
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        handle.send(note(7)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(handle);
        let (first, end) = waiting.await.unwrap();
        assert_eq!(first.as_deref(), Some("n/7"));
        assert_eq!(end, None);
    }

    #[tokio::test]
    async fn a_receiver_waiting_is_told_when_the_last_handle_goes_unused() {
        let (handle, mut receiver) = message_channel(1);
        let waiting = tokio::spawn(async move { next(&mut receiver).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(handle);
        assert_eq!(waiting.await.unwrap(), None);
    }

    #[tokio::test]
    async fn closed_before_any_message_refuses_every_send() {
        let (handle, mut receiver) = message_channel(4);
        receiver.close();
        assert!(handle.is_closed());
        assert!(matches!(
            handle.send(note(1)).await,
            Err(FramingError::WriterClosed)
        ));
        assert_eq!(next(&mut receiver).await, None);
    }

    #[tokio::test]
    async fn closed_after_messages_keeps_them_and_refuses_more() {
        let (handle, mut receiver) = message_channel(4);
        handle.send(note(1)).await.unwrap();
        handle.send(note(2)).await.unwrap();
        receiver.close();
        assert!(handle.is_closed());
        assert!(matches!(
            handle.send(note(3)).await,
            Err(FramingError::WriterClosed)
        ));
        assert_eq!(next(&mut receiver).await.as_deref(), Some("n/1"));
        assert_eq!(next(&mut receiver).await.as_deref(), Some("n/2"));
        assert_eq!(next(&mut receiver).await, None);
    }

    #[tokio::test]
    async fn a_dropped_receiver_closes_the_channel() {
        let (handle, receiver) = message_channel(4);
        drop(receiver);
        assert!(handle.is_closed());
        assert!(handle.send(note(1)).await.is_err());
        let (handle, receiver) = message_channel(4);
        handle.send(note(1)).await.unwrap();
        drop(receiver);
        assert!(handle.is_closed());
        assert!(handle.send(note(2)).await.is_err());
    }

    #[tokio::test]
    async fn a_full_queue_holds_the_sender_back_until_a_message_is_taken() {
        let (handle, mut receiver) = message_channel(1);
        handle.send(note(1)).await.unwrap();
        let sender: WriterHandle = handle.clone();
        let mut second = tokio::spawn(async move { sender.send(note(2)).await });
        assert!(
            tokio::time::timeout(Duration::from_millis(50), &mut second)
                .await
                .is_err(),
            "the second send waits while the queue is full"
        );
        assert_eq!(next(&mut receiver).await.as_deref(), Some("n/1"));
        second.await.unwrap().unwrap();
        assert_eq!(next(&mut receiver).await.as_deref(), Some("n/2"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn senders_on_other_threads_lose_nothing() {
        for round in 0..50 {
            let (handle, mut receiver) = message_channel(2);
            let senders: Vec<_> = (0..4)
                .map(|sender| {
                    let handle = handle.clone();
                    tokio::spawn(async move {
                        for index in 0..10 {
                            handle.send(note(sender * 100 + index)).await.unwrap();
                        }
                    })
                })
                .collect();
            drop(handle);
            let mut received = Vec::new();
            while let Some(method) = next(&mut receiver).await {
                received.push(method);
            }
            for sender in senders {
                sender.await.unwrap();
            }
            assert_eq!(received.len(), 40, "round {round}");
            for sender in 0..4 {
                let own: Vec<usize> = received
                    .iter()
                    .filter_map(|method| method.strip_prefix("n/")?.parse::<usize>().ok())
                    .filter(|number| number / 100 == sender)
                    .map(|number| number % 100)
                    .collect();
                let expected: Vec<usize> = (0..10).collect();
                assert_eq!(
                    own, expected,
                    "round {round}: sender {sender}'s order is kept"
                );
            }
        }
    }
}
