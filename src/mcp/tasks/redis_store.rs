//! [`RedisTaskStore`]: tasks on a Redis server, so that every instance of a cluster answers
//! `tasks/get`, `tasks/update` and `tasks/cancel` for a task another instance runs.
//!
//! - **Records.** A task is the hash `redisKeyPrefix` + id, with the record's JSON
//!   (`record`) and whether it has ended (`ended`), expiring at the record's
//!   `expires_at_ms` (`PEXPIREAT`: Redis removes it at the end of its TTL, on the Redis
//!   server's clock). A write is one Lua script that refuses to replace an ended record, so
//!   an end written late by the instance running the task never overwrites a `cancelled`
//!   written by another, whichever instance comes first.
//! - **Answers** that a `tasks/update` on another instance brings are a list
//!   (`<key>:answers`, same expiry) that the running instance takes, in order, every poll
//!   interval.
//! - **Connection.** The result cache's Redis connection code: `redis://`, `rediss://`,
//!   `redis+sentinel://` (see [`RedisStore`](crate::cache::RedisStore)), one multiplexed
//!   connection per store, each command bounded by `redisTimeoutMs`, and a pause of ten
//!   timeouts after a connection failure or a timeout, during which the tasks methods
//!   answer `-32603` at once.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::store::{TaskRecord, TaskStore, TaskStoreError, TaskStoreFuture};
use crate::cache::redis_link::RedisLink;
use crate::cache::{RedisCounters, StoreError};
use crate::generated::limits::TaskLimits;

/// Stores a record unless the stored one has ended: `KEYS[1]` the record's key, `ARGV[1]`
/// its JSON, `ARGV[2]` `1` when it has ended, `ARGV[3]` its expiry (ms since the epoch).
const PUT: &str = "if redis.call('HGET', KEYS[1], 'ended') == '1' then return 0 end \
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'ended', ARGV[2]) \
redis.call('PEXPIREAT', KEYS[1], ARGV[3]) return 1";

/// Appends answers: `KEYS[1]` the list, `ARGV[1]` their JSON, `ARGV[2]` the expiry.
const SEND: &str = "redis.call('RPUSH', KEYS[1], ARGV[1]) \
redis.call('PEXPIREAT', KEYS[1], ARGV[2]) return 1";

/// Takes every answer of the list `KEYS[1]`, oldest first.
const TAKE: &str = "local answers = redis.call('LRANGE', KEYS[1], 0, -1) \
redis.call('DEL', KEYS[1]) return answers";

/// A [`TaskStore`] on a Redis server, shared by every instance. Build with
/// [`RedisTaskStore::from_limits`] (or `tasks.store: redis` in the limits); the connection
/// is made on first use, within a tokio runtime, and remade after a failure.
pub struct RedisTaskStore {
    shared: Arc<Shared>,
}

struct Shared {
    link: RedisLink,
    prefix: String,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold a password: show only the prefix and the timeout.
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.shared.prefix)
            .field("timeout", &self.shared.link.timeout())
            .finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    /// A store on the Redis server at `limits.redisUrl`, with its key prefix and timeout.
    /// Does not connect yet.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::Setup`] when the URL is not a Redis URL (the URL is not quoted).
    pub fn from_limits(limits: &TaskLimits) -> Result<Self, TaskStoreError> {
        Self::build(limits, None)
    }

    /// As [`from_limits`](Self::from_limits), trusting only the certificates of `root_pem`
    /// (PEM) instead of the platform's roots for a `rediss://` URL.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError::Setup`] when the URL is not a Redis URL.
    pub fn from_limits_with_root_pem(
        limits: &TaskLimits,
        root_pem: &[u8],
    ) -> Result<Self, TaskStoreError> {
        Self::build(limits, Some(root_pem))
    }

    fn build(limits: &TaskLimits, root_pem: Option<&[u8]>) -> Result<Self, TaskStoreError> {
        let link = RedisLink::new(
            limits.redis_url.as_str(),
            root_pem,
            Duration::from_millis(limits.redis_timeout_ms.get()),
            "tasks",
        )
        .map_err(|error| TaskStoreError::Setup(reason(error)))?;
        Ok(Self {
            shared: Arc::new(Shared {
                link,
                prefix: limits.redis_key_prefix.clone(),
            }),
        })
    }

    /// The store's counters (connections, failures, timeouts).
    #[must_use]
    pub fn counters(&self) -> Arc<RedisCounters> {
        self.shared.link.counters()
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.shared.prefix)
    }
}

fn reason(error: StoreError) -> String {
    match error {
        StoreError::Backend { reason } => reason,
        other => other.to_string(),
    }
}

fn unavailable(error: StoreError) -> TaskStoreError {
    TaskStoreError::Unavailable(reason(error))
}

/// `EVAL script 1 key args...`.
fn eval(script: &str, key: String, args: &[&[u8]]) -> redis::Cmd {
    let mut command = redis::cmd("EVAL");
    let _same: &mut redis::Cmd = command.arg(script).arg(1).arg(key);
    for arg in args {
        let _same: &mut redis::Cmd = command.arg(*arg);
    }
    command
}

impl TaskStore for RedisTaskStore {
    fn put(&self, record: &TaskRecord) -> TaskStoreFuture<bool> {
        let json = match serde_json::to_vec(record) {
            Ok(json) => json,
            Err(_) => return Box::pin(std::future::ready(Err(TaskStoreError::Corrupt))),
        };
        let ended: &[u8] = if record.is_terminal() { b"1" } else { b"0" };
        let expiry = record.expires_at_ms.to_string();
        let command = eval(
            PUT,
            self.key(&record.id),
            &[&json, ended, expiry.as_bytes()],
        );
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let stored: i64 = shared.link.run(command).await.map_err(unavailable)?;
            Ok(stored == 1)
        })
    }

    fn get(&self, id: &str, now_ms: u64) -> TaskStoreFuture<Option<TaskRecord>> {
        let mut command = redis::cmd("HGET");
        let _same: &mut redis::Cmd = command.arg(self.key(id)).arg("record");
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let stored: Option<Vec<u8>> = shared.link.run(command).await.map_err(unavailable)?;
            let Some(bytes) = stored else {
                return Ok(None);
            };
            let record: TaskRecord =
                serde_json::from_slice(&bytes).map_err(|_| TaskStoreError::Corrupt)?;
            Ok((record.expires_at_ms > now_ms).then_some(record))
        })
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn send_answers(
        &self,
        id: &str,
        answers: &Map<String, Value>,
        expires_at_ms: u64,
    ) -> TaskStoreFuture<()> {
        let json = match serde_json::to_vec(answers) {
            Ok(json) => json,
            Err(_) => return Box::pin(std::future::ready(Err(TaskStoreError::Corrupt))),
        };
        let expiry = expires_at_ms.to_string();
        let key = format!("{}:answers", self.key(id));
        let command = eval(SEND, key, &[&json, expiry.as_bytes()]);
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let _sent: i64 = shared.link.run(command).await.map_err(unavailable)?;
            Ok(())
        })
    }

    fn take_answers(&self, id: &str) -> TaskStoreFuture<Vec<Map<String, Value>>> {
        let key = format!("{}:answers", self.key(id));
        let command = eval(TAKE, key, &[]);
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            let taken: Vec<Vec<u8>> = shared.link.run(command).await.map_err(unavailable)?;
            taken
                .iter()
                .map(|bytes| serde_json::from_slice(bytes).map_err(|_| TaskStoreError::Corrupt))
                .collect()
        })
    }
}
