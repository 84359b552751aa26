//! Where the Redis store connects: one server (`redis://`, `rediss://` with TLS) or the
//! master a set of Sentinels names (`redis+sentinel://`), and the connection set-up for each.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::sentinel::{Sentinel, SentinelNodeConnectionInfo};
use redis::RedisConnectionInfo;

use super::store::StoreError;

/// The scheme of Sentinel addressing.
const SENTINEL_SCHEME: &str = "redis+sentinel://";

/// Where the store's connection goes.
pub(super) enum Target {
    /// One server: the connection manager reconnects to it by itself.
    Direct(redis::Client),
    /// The master of `service`, as the Sentinels tell it; asked again after a connection
    /// failure, so a failover is followed.
    Sentinel {
        /// The Sentinels (one lock: resolution asks them in turn, on their cached
        /// connections).
        sentinels: tokio::sync::Mutex<Sentinel>,
        /// The master's name in the Sentinels' configuration.
        service: String,
        /// Credentials and database for the master.
        node: SentinelNodeConnectionInfo,
    },
}

impl Target {
    /// The target a `redisUrl` names; `root_pem` replaces the platform's roots for
    /// `rediss://`.
    ///
    /// `redis+sentinel://[user:password@]host:port[,host:port...]/service[/db]`: the
    /// Sentinels at the listed addresses, the master named `service`; the credentials and
    /// database are the master's.
    pub(super) fn parse(url: &str, root_pem: Option<&[u8]>) -> Result<Self, StoreError> {
        if let Some(rest) = url.strip_prefix(SENTINEL_SCHEME) {
            return Self::sentinel(rest);
        }
        let client = match root_pem {
            Some(pem) if url.starts_with("rediss://") => redis::Client::build_with_tls(
                url,
                redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(pem.to_vec()),
                },
            ),
            _ => redis::Client::open(url),
        }
        .map_err(|error| invalid(&format!("{:?}", error.kind())))?;
        if url.starts_with("rediss://") {
            install_crypto_provider();
        }
        Ok(Self::Direct(client))
    }

    fn sentinel(rest: &str) -> Result<Self, StoreError> {
        let (authority, path) = rest
            .split_once('/')
            .ok_or_else(|| invalid("a Sentinel URL names its master: /service"))?;
        let (credentials, hosts) = match authority.rsplit_once('@') {
            Some((credentials, hosts)) => (Some(credentials), hosts),
            None => (None, authority),
        };
        let nodes: Vec<String> = hosts
            .split(',')
            .filter(|host| !host.is_empty())
            .map(|host| format!("redis://{host}"))
            .collect();
        if nodes.is_empty() {
            return Err(invalid("a Sentinel URL lists at least one Sentinel"));
        }
        let (service, db) = match path.split_once('/') {
            Some((service, db)) => {
                let db = db
                    .parse::<i64>()
                    .map_err(|_| invalid("the database of a Sentinel URL is a number"))?;
                (service, db)
            }
            None => (path, 0),
        };
        if service.is_empty() {
            return Err(invalid("a Sentinel URL names its master: /service"));
        }
        let mut info = RedisConnectionInfo::default().set_db(db);
        if let Some(credentials) = credentials {
            match credentials.split_once(':') {
                Some((user, password)) => {
                    if !user.is_empty() {
                        info = info.set_username(user);
                    }
                    info = info.set_password(password);
                }
                None => info = info.set_username(credentials),
            }
        }
        let sentinels =
            Sentinel::build(nodes).map_err(|error| invalid(&format!("{:?}", error.kind())))?;
        Ok(Self::Sentinel {
            sentinels: tokio::sync::Mutex::new(sentinels),
            service: service.to_owned(),
            node: SentinelNodeConnectionInfo::default().set_redis_connection_info(info),
        })
    }

    /// Whether a connection failure should drop the connection so that the next call
    /// resolves the master again.
    pub(super) fn follows_failover(&self) -> bool {
        matches!(self, Self::Sentinel { .. })
    }

    /// A new connection manager (lazy: it connects on first use), for the master the
    /// Sentinels name now in Sentinel mode.
    pub(super) async fn connect(&self, timeout: Duration) -> redis::RedisResult<ConnectionManager> {
        // One connection attempt per call: the store's own pause after a failure is the
        // backoff, and each call is bounded by the timeout.
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(0);
        let client = match self {
            Self::Direct(client) => client.clone(),
            Self::Sentinel {
                sentinels,
                service,
                node,
            } => {
                sentinels
                    .lock()
                    .await
                    .async_master_for(service, Some(node))
                    .await?
            }
        };
        ConnectionManager::new_lazy_with_config(client, config)
    }
}

/// rustls needs a process-wide crypto provider when more than one is compiled in; the
/// crate's is ring. Installed only when none is yet (an application's choice stands).
fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Another thread may install one first: theirs stands, which is as good.
        let _installed_or_not: Result<(), _> =
            rustls::crypto::ring::default_provider().install_default();
    }
}

fn invalid(why: &str) -> StoreError {
    // The URL may hold a password: it is never quoted.
    StoreError::Backend {
        reason: format!("invalid redisUrl ({why})"),
    }
}
