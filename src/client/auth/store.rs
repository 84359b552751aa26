//! Where tokens live between requests and runs: a [`TokenStore`]. The in-memory store is the
//! default; [`FileTokenStore`] keeps them in a JSON file readable by its owner only (0600),
//! for command-line tools.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{AuthError, Secret};

/// The tokens of one resource from one authorization server, and the client identity they
/// were obtained with.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredTokens {
    /// The resource they are for (RFC 8707), as the protected resource metadata names it.
    pub resource: String,
    /// The issuer that granted them (credentials are never reused with another).
    pub issuer: String,
    /// The client id used.
    pub client_id: String,
    /// The client secret, when the authorization server issued one.
    pub client_secret: Option<Secret>,
    /// The access token.
    pub access_token: Secret,
    /// The refresh token, if any.
    pub refresh_token: Option<Secret>,
    /// When the access token expires, in seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// The scopes granted (space-separated), as the token endpoint said or as asked.
    pub scope: Option<String>,
}

impl StoredTokens {
    /// Whether the access token expired (or expires within `margin`).
    #[must_use]
    pub fn expired(&self, margin: Duration) -> bool {
        let Some(expires_at) = self.expires_at else {
            return false;
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        now.saturating_add(margin.as_secs()) >= expires_at
    }
}

/// Keeps tokens per resource (the key is the resource identifier).
pub trait TokenStore: Send + Sync + std::fmt::Debug + 'static {
    /// The tokens stored for `resource`.
    ///
    /// # Errors
    ///
    /// [`AuthError::Store`] when the store cannot be read.
    fn load(&self, resource: &str) -> Result<Option<StoredTokens>, AuthError>;
    /// Stores `tokens` for `resource`, replacing what was there.
    ///
    /// # Errors
    ///
    /// [`AuthError::Store`] when the store cannot be written.
    fn save(&self, resource: &str, tokens: &StoredTokens) -> Result<(), AuthError>;
    /// Forgets the tokens of `resource`.
    ///
    /// # Errors
    ///
    /// [`AuthError::Store`] when the store cannot be written.
    fn clear(&self, resource: &str) -> Result<(), AuthError>;
}

/// Tokens in memory, for the life of the process.
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, StoredTokens>>,
}

impl MemoryTokenStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, StoredTokens>> {
        self.tokens
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, resource: &str) -> Result<Option<StoredTokens>, AuthError> {
        Ok(self.map().get(resource).cloned())
    }

    fn save(&self, resource: &str, tokens: &StoredTokens) -> Result<(), AuthError> {
        self.map().insert(resource.to_owned(), tokens.clone());
        Ok(())
    }

    fn clear(&self, resource: &str) -> Result<(), AuthError> {
        self.map().remove(resource);
        Ok(())
    }
}

/// Tokens in a JSON file created with mode 0600 (owner read/write only, on Unix), written
/// whole to a temporary file and renamed over the old one.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    lock: Mutex<()>,
}

impl FileTokenStore {
    /// A store in the file at `path` (created on the first save).
    #[must_use]
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    fn read(&self) -> Result<HashMap<String, StoredTokens>, AuthError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|_| AuthError::Store {
                reason: format!("{} is not a token file", self.path.display()),
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(HashMap::new()),
            Err(error) => Err(self.io_error(&error)),
        }
    }

    fn write(&self, map: &HashMap<String, StoredTokens>) -> Result<(), AuthError> {
        let bytes = serde_json::to_vec_pretty(map).map_err(|_| AuthError::Store {
            reason: "the tokens cannot be serialized".to_owned(),
        })?;
        let temporary = self.path.with_extension("tmp");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let written = options.open(&temporary).and_then(|mut file| {
            use std::io::Write;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            }
            file.write_all(&bytes)?;
            file.sync_all()
        });
        written
            .and_then(|()| std::fs::rename(&temporary, &self.path))
            .map_err(|error| self.io_error(&error))
    }

    fn io_error(&self, error: &std::io::Error) -> AuthError {
        AuthError::Store {
            reason: format!("{}: {error}", self.path.display()),
        }
    }

    fn guard(&self) -> std::sync::MutexGuard<'_, ()> {
        self.lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, resource: &str) -> Result<Option<StoredTokens>, AuthError> {
        let _guard = self.guard();
        Ok(self.read()?.remove(resource))
    }

    fn save(&self, resource: &str, tokens: &StoredTokens) -> Result<(), AuthError> {
        let _guard = self.guard();
        let mut map = self.read()?;
        map.insert(resource.to_owned(), tokens.clone());
        self.write(&map)
    }

    fn clear(&self, resource: &str) -> Result<(), AuthError> {
        let _guard = self.guard();
        let mut map = self.read()?;
        if map.remove(resource).is_some() {
            self.write(&map)?;
        }
        Ok(())
    }
}
