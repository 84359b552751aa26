//! A future that is polled again at once when it wakes itself while being polled.
//!
//! hyper's HTTP/1 server wakes its own connection task in the middle of every request that
//! has a body: the body is read only once the service asks for it, and asking wakes the
//! connection, which is the task asking. tokio answers a task woken during its own poll by
//! putting it back in the queue *and waking an idle worker thread* to share the load
//! (`yield_now` in the multi-thread scheduler): a `futex` call, and a thread that wakes,
//! finds nothing and sleeps again, for each request (BENCHMARKS.md, "Issue 12, stop 32").
//!
//! [`Repoll`] keeps such wake-ups inside the task: it polls its future with a waker of its
//! own, notes a wake that comes while the future is being polled, and polls again right
//! away. A wake that comes at any other time (the socket became readable, a handler
//! finished on another thread) goes straight to the task's waker, as before. After
//! [`MAX_REPOLLS`] polls in a row it yields to the scheduler the usual way, so a future that
//! keeps waking itself cannot hold a worker.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use futures_util::task::AtomicWaker;

/// How many polls in a row one [`Repoll::poll`] may make before it yields.
const MAX_REPOLLS: usize = 4;

/// The future is not being polled.
const IDLE: u8 = 0;
/// The future is being polled.
const POLLING: u8 = 1;
/// A wake came since the flag was last cleared.
const NOTIFIED: u8 = 2;

/// See the module's documentation.
pub(crate) struct Repoll<F> {
    inner: Pin<Box<F>>,
    signal: Arc<Signal>,
    waker: Waker,
}

/// What the inner future's waker does: remember a wake during a poll, pass on any other.
struct Signal {
    state: AtomicU8,
    task: AtomicWaker,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let before = self.state.fetch_or(NOTIFIED, Ordering::AcqRel);
        if before & POLLING == 0 {
            self.task.wake();
        }
    }
}

impl<F: Future> Repoll<F> {
    /// Wraps `inner`.
    pub(crate) fn new(inner: F) -> Self {
        let signal = Arc::new(Signal {
            state: AtomicU8::new(IDLE),
            task: AtomicWaker::new(),
        });
        let waker = Waker::from(Arc::clone(&signal));
        Self {
            inner: Box::pin(inner),
            signal,
            waker,
        }
    }

    /// The wrapped future, to act on it between polls.
    pub(crate) fn inner_mut(&mut self) -> Pin<&mut F> {
        self.inner.as_mut()
    }
}

impl<F: Future> Future for Repoll<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.get_mut();
        this.signal.task.register(cx.waker());
        let mut inner_cx = Context::from_waker(&this.waker);
        for _ in 0..MAX_REPOLLS {
            // Clears a wake noted before: this poll is what it asked for.
            this.signal.state.store(POLLING, Ordering::Release);
            if let Poll::Ready(output) = this.inner.as_mut().poll(&mut inner_cx) {
                this.signal.state.store(IDLE, Ordering::Release);
                return Poll::Ready(output);
            }
            // No wake during the poll: from now on a wake goes to the task's waker.
            if this
                .signal
                .state
                .compare_exchange(POLLING, IDLE, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Poll::Pending;
            }
        }
        // Woken during each of its polls: yield, and be polled again after the others.
        this.signal.state.store(IDLE, Ordering::Release);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// Counts the wakes it gets.
    #[derive(Default)]
    struct Counter(AtomicUsize);

    impl Wake for Counter {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    impl Counter {
        /// A task's waker that counts its wakes, and the count.
        fn task() -> (Arc<Self>, Waker) {
            let counter = Arc::new(Self::default());
            let waker = Waker::from(Arc::clone(&counter));
            (counter, waker)
        }

        fn count(&self) -> usize {
            self.0.load(Ordering::SeqCst)
        }
    }

    /// Wakes itself during each of its first `wakes` polls, and is ready after them.
    struct SelfWaking {
        wakes: usize,
        polls: usize,
    }

    impl Future for SelfWaking {
        type Output = usize;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            self.polls += 1;
            if self.polls > self.wakes {
                return Poll::Ready(self.polls);
            }
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    #[test]
    fn a_wake_during_its_own_poll_is_a_poll_again_not_a_wake_of_the_task() {
        let (task, waker) = Counter::task();
        let mut cx = Context::from_waker(&waker);
        let mut future = Repoll::new(SelfWaking {
            wakes: MAX_REPOLLS - 1,
            polls: 0,
        });
        assert_eq!(
            Pin::new(&mut future).poll(&mut cx),
            Poll::Ready(MAX_REPOLLS)
        );
        assert_eq!(task.count(), 0, "the task was never woken");
    }

    #[test]
    fn a_future_that_keeps_waking_itself_yields_and_is_woken() {
        let (task, waker) = Counter::task();
        let mut cx = Context::from_waker(&waker);
        let mut future = Repoll::new(SelfWaking {
            wakes: MAX_REPOLLS + 1,
            polls: 0,
        });
        assert_eq!(Pin::new(&mut future).poll(&mut cx), Poll::Pending);
        assert_eq!(future.inner.polls, MAX_REPOLLS);
        assert_eq!(
            task.count(),
            1,
            "a yield wakes the task, or it would never run again"
        );
        assert_eq!(
            Pin::new(&mut future).poll(&mut cx),
            Poll::Ready(MAX_REPOLLS + 2)
        );
    }

    /// Pending until `ready` is set; keeps the waker it was last polled with.
    struct External {
        ready: Arc<std::sync::atomic::AtomicBool>,
        waker: Arc<std::sync::Mutex<Option<Waker>>>,
    }

    impl Future for External {
        type Output = ();

        fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            *self.waker.lock().unwrap() = Some(cx.waker().clone());
            if self.ready.load(Ordering::SeqCst) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }
    }

    #[test]
    fn a_wake_after_the_poll_reaches_the_task_every_time() {
        let (task, waker) = Counter::task();
        let mut cx = Context::from_waker(&waker);
        let ready = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let inner_waker = Arc::new(std::sync::Mutex::new(None::<Waker>));
        let mut future = Repoll::new(External {
            ready: Arc::clone(&ready),
            waker: Arc::clone(&inner_waker),
        });
        for round in 1..=3 {
            assert_eq!(Pin::new(&mut future).poll(&mut cx), Poll::Pending);
            let stored = inner_waker.lock().unwrap().clone().unwrap();
            std::thread::spawn(move || stored.wake()).join().unwrap();
            assert_eq!(
                task.count(),
                round,
                "the wake from another thread reached the task"
            );
        }
        ready.store(true, Ordering::SeqCst);
        assert_eq!(Pin::new(&mut future).poll(&mut cx), Poll::Ready(()));
    }

    /// Woken from another thread at a random moment, poll or no poll, no wake is lost: the
    /// future below only finishes if the last wake made it run again.
    #[test]
    fn no_wake_is_lost_when_it_races_the_poll() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            for _ in 0..200 {
                let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<u32>();
                let task = tokio::spawn(Repoll::new(async move {
                    let mut sum = 0;
                    while let Some(value) = receiver.recv().await {
                        sum += value;
                    }
                    sum
                }));
                let feeder = std::thread::spawn(move || {
                    for value in 1..=50 {
                        sender.send(value).unwrap();
                        if value.is_multiple_of(7) {
                            std::thread::yield_now();
                        }
                    }
                });
                feeder.join().unwrap();
                let sum = tokio::time::timeout(std::time::Duration::from_secs(10), task)
                    .await
                    .expect("a lost wake leaves the task waiting")
                    .unwrap();
                assert_eq!(sum, 50 * 51 / 2);
            }
        });
    }
}
