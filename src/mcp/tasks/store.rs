//! Where tasks are kept: the [`TaskStore`] trait, the [`TaskRecord`] it stores, and the
//! in-memory [`MemoryTaskStore`] (the Redis one is `RedisTaskStore`, feature `redis`).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::generated::tasks::TaskStatus;

/// One task as the store keeps it: what `tasks/get` answers, who may see it, and when it
/// expires. Serializable, so a shared store (e.g. Redis) can hold it for every instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's identifier (128 random bits, hex).
    pub id: String,
    /// Who may see the task: the caller's verified identity when the server is protected,
    /// `None` otherwise (then the unguessable id is the only key).
    pub owner: Option<String>,
    /// The task's status.
    pub status: TaskStatus,
    /// A short human-readable note on the status.
    pub status_message: Option<String>,
    /// When the task was created (RFC 3339).
    pub created_at: String,
    /// When the task last changed (RFC 3339).
    pub last_updated_at: String,
    /// How long after its creation the task is kept, in milliseconds.
    pub ttl_ms: u64,
    /// How often the client should poll, in milliseconds.
    pub poll_interval_ms: u64,
    /// When the task expires, in milliseconds since the Unix epoch.
    pub expires_at_ms: u64,
    /// The tool's result (`completed`).
    pub result: Option<Value>,
    /// The JSON-RPC error the task ended with (`failed`).
    pub error: Option<Value>,
    /// The questions the task waits for, by key (`input_required`).
    pub input_requests: Option<Map<String, Value>>,
}

impl TaskRecord {
    /// Whether the task has ended (`completed`, `failed`, `cancelled`): it never changes
    /// again.
    #[must_use]
    pub fn is_terminal(&self) -> bool {
        matches!(
            self.status,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// Why a task store failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store's backend could not be reached or answered with an error.
    #[error("the task store is unavailable: {0}")]
    Unavailable(String),
    /// A stored record could not be read back.
    #[error("a stored task could not be decoded")]
    Corrupt,
    /// The store could not be set up from the limits (`tasks.store: redis` with a
    /// `redisUrl` that is not a Redis URL, or a crate built without the `redis` feature).
    #[error("the task store cannot be set up: {0}")]
    Setup(String),
}

/// What a [`TaskStore`] answers, later: the store may wait on I/O (a Redis round trip)
/// without holding a tokio worker.
pub type TaskStoreFuture<T> = Pin<Box<dyn Future<Output = Result<T, TaskStoreError>> + Send>>;

/// Keeps tasks for their TTL. Implementations are shared by every connection of a server
/// (and, for a shared backend, by every instance of a cluster): a task created on one is
/// read, cancelled and answered on another. Every method is asynchronous: an implementation
/// on a network store awaits its I/O, and one in memory answers a ready future.
pub trait TaskStore: Send + Sync + std::fmt::Debug + 'static {
    /// Stores `record`, unless the stored record of its id has ended ([`TaskRecord::is_terminal`]):
    /// an ended task never changes again, so a late end never overwrites `cancelled`. `true`
    /// when stored; `false` when the stored record had ended. A record is kept at least
    /// until its `expires_at_ms`.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError`] when the backend fails.
    fn put(&self, record: &TaskRecord) -> TaskStoreFuture<bool>;

    /// The record of `id`, unless there is none or it expired (`now_ms` is past its
    /// `expires_at_ms`).
    ///
    /// # Errors
    ///
    /// [`TaskStoreError`] when the backend fails.
    fn get(&self, id: &str, now_ms: u64) -> TaskStoreFuture<Option<TaskRecord>>;

    /// Whether the store is shared by other instances: then the instance running a task
    /// looks every poll interval for a cancel and for answers sent to another instance
    /// ([`send_answers`](Self::send_answers)).
    fn is_shared(&self) -> bool {
        false
    }

    /// Keeps `answers` (a `tasks/update`'s `inputResponses`) for the instance that runs
    /// task `id`, until it [takes](Self::take_answers) them or `expires_at_ms`. Only a
    /// [shared](Self::is_shared) store is asked.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError`] when the backend fails, or the store is not shared.
    fn send_answers(
        &self,
        id: &str,
        answers: &Map<String, Value>,
        expires_at_ms: u64,
    ) -> TaskStoreFuture<()> {
        let _unused = (id, answers, expires_at_ms);
        Box::pin(std::future::ready(Err(TaskStoreError::Unavailable(
            "this store keeps no answers for other instances".to_owned(),
        ))))
    }

    /// The answers sent to task `id` by other instances, oldest first, removed from the
    /// store.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError`] when the backend fails.
    fn take_answers(&self, id: &str) -> TaskStoreFuture<Vec<Map<String, Value>>> {
        let _unused = id;
        Box::pin(std::future::ready(Ok(Vec::new())))
    }
}

/// A [`TaskStore`] in the server's memory: tasks live as long as the process, for one
/// instance. Expired records are dropped on the next `put`.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    records: Mutex<HashMap<String, TaskRecord>>,
}

impl MemoryTaskStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// How many records are held (expired ones included until the next `put`).
    #[must_use]
    pub fn len(&self) -> usize {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether no record is held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl TaskStore for MemoryTaskStore {
    fn put(&self, record: &TaskRecord) -> TaskStoreFuture<bool> {
        let now = super::now_ms();
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        records.retain(|_, kept| kept.expires_at_ms > now);
        let ended = records.get(&record.id).is_some_and(TaskRecord::is_terminal);
        if !ended {
            let _previous = records.insert(record.id.clone(), record.clone());
        }
        Box::pin(std::future::ready(Ok(!ended)))
    }

    fn get(&self, id: &str, now_ms: u64) -> TaskStoreFuture<Option<TaskRecord>> {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let found = records
            .get(id)
            .filter(|record| record.expires_at_ms > now_ms)
            .cloned();
        Box::pin(std::future::ready(Ok(found)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str, expires_at_ms: u64) -> TaskRecord {
        TaskRecord {
            id: id.to_owned(),
            owner: None,
            status: TaskStatus::Working,
            status_message: None,
            created_at: "2026-11-28T09:00:00Z".to_owned(),
            last_updated_at: "2026-11-28T09:00:00Z".to_owned(),
            ttl_ms: 1,
            poll_interval_ms: 1,
            expires_at_ms,
            result: None,
            error: None,
            input_requests: None,
        }
    }

    #[tokio::test]
    async fn a_record_is_read_until_it_expires() {
        let store = MemoryTaskStore::new();
        let now = super::super::now_ms();
        assert!(store.put(&record("a", now + 60_000)).await.unwrap());
        assert_eq!(store.get("a", now).await.unwrap().unwrap().id, "a");
        assert!(store.get("a", now + 60_000).await.unwrap().is_none());
        assert!(store.get("b", now).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn expired_records_are_dropped_on_put() {
        let store = MemoryTaskStore::new();
        let now = super::super::now_ms();
        assert!(store.put(&record("old", 1)).await.unwrap());
        assert!(store.put(&record("new", now + 60_000)).await.unwrap());
        assert_eq!(store.len(), 1);
        assert!(store.get("new", now).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn an_ended_record_is_never_replaced() {
        let store = MemoryTaskStore::new();
        let now = super::super::now_ms();
        let mut ended = record("a", now + 60_000);
        ended.status = TaskStatus::Cancelled;
        assert!(store.put(&ended).await.unwrap());
        let late = record("a", now + 60_000);
        assert!(!store.put(&late).await.unwrap());
        let kept = store.get("a", now).await.unwrap().unwrap();
        assert_eq!(kept.status, TaskStatus::Cancelled);
    }
}
