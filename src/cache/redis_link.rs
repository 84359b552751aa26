//! One Redis connection as the stores on Redis use it (the result cache's
//! [`RedisStore`](super::RedisStore), the task store of the Tasks extension): where it goes
//! ([`Target`]), one multiplexed `aio::ConnectionManager` made on first use, every command
//! bounded by a timeout, and a pause of ten timeouts after a connection failure or a
//! timeout, during which commands fail at once.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use redis::aio::ConnectionManager;

use super::redis_target::Target;
use super::store::StoreError;

/// How many timeouts the link pauses after a connection failure or a timeout.
const PAUSE_TIMEOUTS: u32 = 10;

/// A connection to Redis, shared by every call of one store.
pub(crate) struct RedisLink {
    target: Target,
    timeout: Duration,
    /// Who uses the link, for the log (`cache`, `tasks`).
    what: &'static str,
    /// The connection (a cheap clone per call); `None` before the first call and after a
    /// failure that asks for a new one.
    connection: Mutex<Option<ConnectionManager>>,
    /// No call goes to Redis before this instant (after a connection failure or timeout).
    paused_until: Mutex<Option<Instant>>,
    counters: Arc<RedisCounters>,
}

impl RedisLink {
    /// A link to the Redis a `redisUrl` names (`root_pem` replaces the platform's roots for
    /// `rediss://`), each command bounded by `timeout`. Does not connect yet.
    pub(crate) fn new(
        url: &str,
        root_pem: Option<&[u8]>,
        timeout: Duration,
        what: &'static str,
    ) -> Result<Self, StoreError> {
        Ok(Self {
            target: Target::parse(url, root_pem)?,
            timeout,
            what,
            connection: Mutex::default(),
            paused_until: Mutex::default(),
            counters: Arc::default(),
        })
    }

    /// The bound of each command.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The link's counters.
    pub(crate) fn counters(&self) -> Arc<RedisCounters> {
        Arc::clone(&self.counters)
    }
}

/// Counters of a Redis connection (the cache's [`RedisStore`](super::RedisStore), the
/// Redis task store), shared with their `counters()`.
#[derive(Debug, Default)]
pub struct RedisCounters {
    connects: AtomicU64,
    connect_failures: AtomicU64,
    command_failures: AtomicU64,
    timeouts: AtomicU64,
    skipped: AtomicU64,
}

impl RedisCounters {
    /// Connections set up (the first one, and each after a failure that dropped the last).
    pub fn connects(&self) -> u64 {
        self.connects.load(Ordering::Relaxed)
    }

    /// Connection attempts that failed (refused, unreachable, no master from the
    /// Sentinels).
    pub fn connect_failures(&self) -> u64 {
        self.connect_failures.load(Ordering::Relaxed)
    }

    /// Commands that failed (an error of Redis or of the connection, an answer that is not
    /// RESP), timeouts not included.
    pub fn command_failures(&self) -> u64 {
        self.command_failures.load(Ordering::Relaxed)
    }

    /// Operations that took longer than `redisTimeoutMs` and were given up.
    pub fn timeouts(&self) -> u64 {
        self.timeouts.load(Ordering::Relaxed)
    }

    /// Operations not sent to Redis because the store was pausing after a failure.
    pub fn skipped(&self) -> u64 {
        self.skipped.load(Ordering::Relaxed)
    }
}

fn bump(counter: &AtomicU64) {
    let _previous = counter.fetch_add(1, Ordering::Relaxed);
}

impl RedisLink {
    fn paused(&self) -> bool {
        let until = *self
            .paused_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        until.is_some_and(|until| Instant::now() < until)
    }

    fn pause(&self) {
        let until = Instant::now() + self.timeout * PAUSE_TIMEOUTS;
        *self
            .paused_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(until);
    }

    fn resume(&self) {
        let mut until = self
            .paused_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if until.is_some() {
            *until = None;
        }
    }

    fn drop_connection(&self) {
        *self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// The shared connection, set up first if there is none.
    async fn connection(&self) -> Result<ConnectionManager, StoreError> {
        let current = self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(connection) = current {
            return Ok(connection);
        }
        match self.target.connect(self.timeout).await {
            Ok(connection) => {
                bump(&self.counters.connects);
                tracing::info!(store = self.what, "connected to Redis");
                let mut slot = self
                    .connection
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                // Another call may have set one up meanwhile: keep the first.
                Ok(slot.get_or_insert(connection).clone())
            }
            Err(error) => {
                bump(&self.counters.connect_failures);
                self.pause();
                Err(StoreError::Backend {
                    reason: format!("cannot connect to redis ({:?})", error.kind()),
                })
            }
        }
    }

    /// Runs `command`, bounded by the timeout; on failure counts it, and pauses or drops
    /// the connection as the failure asks.
    pub(crate) async fn run<T: redis::FromRedisValue>(
        &self,
        command: redis::Cmd,
    ) -> Result<T, StoreError> {
        if self.paused() {
            bump(&self.counters.skipped);
            return Err(unavailable("pausing after a failure"));
        }
        let attempt = async {
            let mut connection = self.connection().await?;
            command
                .query_async::<T>(&mut connection)
                .await
                .map_err(|error| self.failed(&error))
        };
        match tokio::time::timeout(self.timeout, attempt).await {
            Ok(Ok(value)) => {
                self.resume();
                Ok(value)
            }
            Ok(Err(error)) => Err(error),
            Err(_elapsed) => {
                bump(&self.counters.timeouts);
                self.pause();
                Err(unavailable("no answer within redisTimeoutMs"))
            }
        }
    }

    fn failed(&self, error: &redis::RedisError) -> StoreError {
        if error.is_timeout() {
            // The connection's own response timeout (the same bound) fired first.
            bump(&self.counters.timeouts);
        } else {
            bump(&self.counters.command_failures);
        }
        let connection_lost = error.is_io_error()
            || error.is_timeout()
            || error.is_connection_dropped()
            || error.is_connection_refusal();
        if connection_lost {
            self.pause();
        }
        // A Sentinel-addressed master is looked up again; an answer that was not RESP
        // leaves the connection in an unknown state: both take a new connection.
        if (connection_lost && self.target.follows_failover())
            || error.is_unrecoverable_error()
            || error.kind() == redis::ErrorKind::Parse
        {
            self.drop_connection();
        }
        StoreError::Backend {
            reason: format!("redis command failed ({:?})", error.kind()),
        }
    }
}

pub(crate) fn unavailable(why: &str) -> StoreError {
    StoreError::Backend {
        reason: format!("redis unavailable: {why}"),
    }
}
