//! Where tasks are kept: the [`TaskStore`] trait, the [`TaskRecord`] it stores, and the
//! in-memory [`MemoryTaskStore`].

use std::collections::HashMap;
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
}

/// Keeps tasks for their TTL. Implementations are shared by every connection of a server
/// (and, for a shared backend, by every instance of a cluster): a task created on one is
/// read on another.
pub trait TaskStore: Send + Sync + std::fmt::Debug + 'static {
    /// Stores `record`, replacing any record of the same id. A record is kept at least until
    /// its `expires_at_ms`.
    ///
    /// # Errors
    ///
    /// [`TaskStoreError`] when the backend fails.
    fn put(&self, record: &TaskRecord) -> Result<(), TaskStoreError>;

    /// The record of `id`, unless there is none or it expired (`now_ms` is past its
    /// `expires_at_ms`).
    ///
    /// # Errors
    ///
    /// [`TaskStoreError`] when the backend fails.
    fn get(&self, id: &str, now_ms: u64) -> Result<Option<TaskRecord>, TaskStoreError>;
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
    fn put(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        let now = super::now_ms();
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        records.retain(|_, kept| kept.expires_at_ms > now);
        let _previous = records.insert(record.id.clone(), record.clone());
        Ok(())
    }

    fn get(&self, id: &str, now_ms: u64) -> Result<Option<TaskRecord>, TaskStoreError> {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(records
            .get(id)
            .filter(|record| record.expires_at_ms > now_ms)
            .cloned())
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

    #[test]
    fn a_record_is_read_until_it_expires() {
        let store = MemoryTaskStore::new();
        let now = super::super::now_ms();
        store.put(&record("a", now + 60_000)).unwrap();
        assert_eq!(store.get("a", now).unwrap().unwrap().id, "a");
        assert!(store.get("a", now + 60_000).unwrap().is_none());
        assert!(store.get("b", now).unwrap().is_none());
    }

    #[test]
    fn expired_records_are_dropped_on_put() {
        let store = MemoryTaskStore::new();
        let now = super::super::now_ms();
        store.put(&record("old", 1)).unwrap();
        store.put(&record("new", now + 60_000)).unwrap();
        assert_eq!(store.len(), 1);
        assert!(store.get("new", now).unwrap().is_some());
    }
}
