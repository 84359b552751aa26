//! A [`SessionStore`] on a Redis server (`http.sessionStore: redis`): every instance of a
//! cluster reads the same sessions, so any instance serves any session and a client resumes
//! its event stream on any instance.
//!
//! It speaks to Redis through the cache's client ([`RedisStore`]: one multiplexed,
//! reconnecting connection, `cache.redisUrl` with `rediss://` and Sentinel addressing,
//! `cache.redisTimeoutMs` per operation, a pause after a failure). Per session `ID`, under
//! `cache.redisKeyPrefix`:
//! - `session:ID`: the [`SessionRecord`] as JSON;
//! - `session:ID:seq`: the newest event id (`INCR`: ids grow by one whichever instance
//!   appends);
//! - `session:ID:log`: a sorted set of the kept events (score: the id; member: `ID:JSON`),
//!   the last `http.sseReplayEvents` of them;
//! - `session:ID:post:STREAM:seq` and `session:ID:post:STREAM:log`: the same for the event
//!   stream answering one POST (`STREAM`: its [`StreamId`]);
//! - `session:ID:posts`: a sorted set of the session's POST streams (score: the time of
//!   their last append, in ms), so that removing the session removes their logs too.
//!
//! Each key expires after `http.sessionIdleTimeoutMs` without use; an append or a load (an
//! instance rebuilding the session, or renewing it while the client uses it) starts that
//! again for the record and the GET stream's keys (a POST stream's keys, written while its
//! request runs, expire by themselves; the POST streams not appended to for that long leave
//! `session:ID:posts` at the next append). Removing a session (DELETE) removes all its keys
//! at once, the POST streams' logs included. An append is one Lua script, so an event is
//! numbered and stored at once: a reader never sees a later event without an earlier one.

use std::time::Duration;

use bytes::Bytes;

use crate::cache::{RedisStore, StoreError};
use crate::generated::limits::Limits;

use super::session_store::{
    replay_after, Replay, SessionFuture, SessionRecord, SessionStore, SessionStoreError, StreamId,
    GET_STREAM,
};
use super::sse::stream_event;

/// Numbers and stores one event; trims the log; renews the expiry. KEYS: seq, log, and
/// for a POST stream the session's set of POST streams; ARGV: the message's JSON, the number
/// of events kept, the expiry in ms, and for a POST stream its id and the time in ms.
const APPEND: &str = r"
local id = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], id, id .. ':' .. ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[2]) + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if KEYS[3] then
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. (tonumber(ARGV[5]) - tonumber(ARGV[3])))
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
end
return id
";

/// Removes a session: its record, its GET stream's log and the logs of the POST streams
/// its set names; how many of the first four keys existed. KEYS: record, seq, log, the set
/// of POST streams; ARGV: the prefix of a POST stream's keys (`...session:ID:post:`).
const REMOVE: &str = r"
local streams = redis.call('ZRANGE', KEYS[4], 0, -1)
for _, stream in ipairs(streams) do
  redis.call('DEL', ARGV[1] .. stream .. ':seq', ARGV[1] .. stream .. ':log')
end
return redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
";

/// The newest id, then the kept events after a cursor. KEYS: seq, log; ARGV: the cursor.
const AFTER: &str = r"
local events = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '+inf')
table.insert(events, 1, redis.call('GET', KEYS[1]) or '0')
return events
";

/// The record, renewing the expiry of the session's keys. KEYS: record, seq, log;
/// ARGV: the expiry in ms.
const LOAD: &str = r"
local record = redis.call('GET', KEYS[1])
if record then
  for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ARGV[1]) end
end
return record
";

/// Sessions on a Redis server; see the module's documentation.
#[derive(Debug)]
pub struct RedisSessionStore {
    redis: RedisStore,
    capacity: usize,
    ttl: Duration,
}

impl RedisSessionStore {
    /// A store on the Redis server of `limits.cache` (`redisUrl`, `redisKeyPrefix`,
    /// `redisTimeoutMs`) keeping `http.sseReplayEvents` events per session, each session
    /// expiring after `http.sessionIdleTimeoutMs` without use. Does not connect yet.
    ///
    /// # Errors
    ///
    /// [`SessionStoreError::Unavailable`] when `cache.redisUrl` is not a Redis URL.
    pub fn from_limits(limits: &Limits) -> Result<Self, SessionStoreError> {
        let redis = RedisStore::from_limits(&limits.cache).map_err(unavailable)?;
        let http = &limits.http;
        Ok(Self {
            redis,
            capacity: usize::try_from(http.sse_replay_events).unwrap_or(usize::MAX),
            ttl: Duration::from_millis(u64::try_from(http.session_idle_timeout_ms).unwrap_or(0)),
        })
    }

    fn key(&self, id: &str, suffix: &str) -> String {
        format!("{}session:{id}{suffix}", self.redis.key_prefix())
    }

    /// The sequence and log keys of session `id`'s stream `stream`.
    fn log_keys(&self, id: &str, stream: StreamId) -> [String; 2] {
        if stream == GET_STREAM {
            [self.key(id, ":seq"), self.key(id, ":log")]
        } else {
            [
                self.key(id, &format!(":post:{stream}:seq")),
                self.key(id, &format!(":post:{stream}:log")),
            ]
        }
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    fn script(&self, script: &str, keys: &[String]) -> redis::Cmd {
        let mut command = redis::cmd("EVAL");
        let _same: &mut redis::Cmd = command.arg(script).arg(keys.len()).arg(keys);
        command
    }
}

fn unavailable(error: StoreError) -> SessionStoreError {
    let StoreError::Backend { reason } = error else {
        return SessionStoreError::Unavailable {
            reason: "the Redis client failed".to_owned(),
        };
    };
    SessionStoreError::Unavailable { reason }
}

/// `ID:JSON` -> the id and the encoded event of stream `stream`.
fn decode_event(stream: StreamId, member: &[u8]) -> Result<(u64, Bytes), SessionStoreError> {
    let colon = member
        .iter()
        .position(|&b| b == b':')
        .ok_or(SessionStoreError::Malformed)?;
    let id = std::str::from_utf8(&member[..colon])
        .ok()
        .and_then(|id| id.parse::<u64>().ok())
        .ok_or(SessionStoreError::Malformed)?;
    Ok((id, stream_event(stream, id, &member[colon + 1..])))
}

/// Milliseconds since the Unix epoch (0 if the clock is before it): when a POST stream was
/// last appended to. Instances' clocks need only agree to well within the idle timeout.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

fn parse_u64(bytes: &[u8]) -> Result<u64, SessionStoreError> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| text.parse().ok())
        .ok_or(SessionStoreError::Malformed)
}

impl SessionStore for RedisSessionStore {
    fn is_shared(&self) -> bool {
        true
    }

    fn save(&self, id: &str, record: &SessionRecord) -> SessionFuture<()> {
        let json = match serde_json::to_vec(record) {
            Ok(json) => json,
            Err(_) => return Box::pin(std::future::ready(Err(SessionStoreError::Malformed))),
        };
        let mut command = redis::cmd("SET");
        let _same: &mut redis::Cmd = command
            .arg(self.key(id, ""))
            .arg(json)
            .arg("PX")
            .arg(self.ttl_ms());
        let query = self.redis.query::<()>(command);
        Box::pin(async move { query.await.map_err(unavailable) })
    }

    fn load(&self, id: &str) -> SessionFuture<Option<SessionRecord>> {
        let keys = [self.key(id, ""), self.key(id, ":seq"), self.key(id, ":log")];
        let mut command = self.script(LOAD, &keys);
        let _same: &mut redis::Cmd = command.arg(self.ttl_ms());
        let query = self.redis.query::<Option<Vec<u8>>>(command);
        Box::pin(async move {
            match query.await.map_err(unavailable)? {
                None => Ok(None),
                Some(json) => serde_json::from_slice(&json)
                    .map(Some)
                    .map_err(|_| SessionStoreError::Malformed),
            }
        })
    }

    fn remove(&self, id: &str) -> SessionFuture<bool> {
        let keys = [
            self.key(id, ""),
            self.key(id, ":seq"),
            self.key(id, ":log"),
            self.key(id, ":posts"),
        ];
        let mut command = self.script(REMOVE, &keys);
        let _same: &mut redis::Cmd = command.arg(self.key(id, ":post:"));
        let query = self.redis.query::<u64>(command);
        Box::pin(async move { Ok(query.await.map_err(unavailable)? > 0) })
    }

    fn forget(&self, _id: &str) {
        // Other instances may serve it: it expires on the Redis server by itself.
    }

    fn append(&self, id: &str, stream: StreamId, json: &[u8]) -> SessionFuture<u64> {
        let [seq, log] = self.log_keys(id, stream);
        let command = if stream == GET_STREAM {
            let mut command = self.script(APPEND, &[seq, log]);
            let _same: &mut redis::Cmd = command.arg(json).arg(self.capacity).arg(self.ttl_ms());
            command
        } else {
            let mut command = self.script(APPEND, &[seq, log, self.key(id, ":posts")]);
            let _same: &mut redis::Cmd = command
                .arg(json)
                .arg(self.capacity)
                .arg(self.ttl_ms())
                .arg(stream)
                .arg(now_ms());
            command
        };
        let query = self.redis.query::<u64>(command);
        Box::pin(async move { query.await.map_err(unavailable) })
    }

    fn after(&self, id: &str, stream: StreamId, cursor: u64) -> SessionFuture<Replay> {
        let keys = self.log_keys(id, stream);
        let mut command = self.script(AFTER, &keys);
        let _same: &mut redis::Cmd = command.arg(cursor);
        let query = self.redis.query::<Vec<Vec<u8>>>(command);
        Box::pin(async move {
            let answer = query.await.map_err(unavailable)?;
            let (latest, members) = answer.split_first().ok_or(SessionStoreError::Malformed)?;
            let latest = parse_u64(latest)?;
            let events = members
                .iter()
                .map(|member| decode_event(stream, member))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(replay_after(events.into_iter(), cursor, latest))
        })
    }

    fn latest(&self, id: &str, stream: StreamId) -> SessionFuture<u64> {
        let [seq, _log] = self.log_keys(id, stream);
        let mut command = redis::cmd("GET");
        let _same: &mut redis::Cmd = command.arg(seq);
        let query = self.redis.query::<Option<u64>>(command);
        Box::pin(async move { Ok(query.await.map_err(unavailable)?.unwrap_or(0)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_events_decode_to_their_id_and_event() {
        let (id, event) = decode_event(GET_STREAM, b"12:{\"a\":\"x:y\"}").unwrap();
        assert_eq!(id, 12);
        assert_eq!(
            &event[..],
            b"id: 12\nevent: message\ndata: {\"a\":\"x:y\"}\n\n"
        );
        let (id, event) = decode_event(5, b"2:{}").unwrap();
        assert_eq!(
            (id, &event[..]),
            (2, &b"id: 5-2\nevent: message\ndata: {}\n\n"[..])
        );
        assert!(matches!(
            decode_event(GET_STREAM, b"no colon"),
            Err(SessionStoreError::Malformed)
        ));
        assert!(matches!(
            decode_event(GET_STREAM, b"x:{}"),
            Err(SessionStoreError::Malformed)
        ));
    }
}
