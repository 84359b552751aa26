//! The server's secrets: the keys that seal the tokens it hands to clients (list cursors,
//! the `requestState` of `input_required` results), so that any instance of a cluster
//! accepts what another issued, and a restart keeps every token valid.
//!
//! - **A key set** ([`KeySet`]) is one signing key followed by older verification keys.
//!   Every key has an id, which the token carries (`<id>.<payload>.<tag>`, the tag an
//!   HMAC-SHA256 over the id, the token's purpose and the payload). Tokens are sealed with
//!   the first key and opened with whichever key their id names: a token whose key is not
//!   in the set, altered, truncated or issued for another purpose does not open.
//! - **Rotation.** Add the new key *after* the current one on every instance (it verifies
//!   only); once all run with it, move it first (it signs; the old key still verifies what
//!   was issued before); once those tokens no longer matter (a cursor is kept by a client
//!   for the length of a list walk, a `requestState` for one `input_required` round), drop
//!   the old key.
//! - **The document** (a file, an environment variable's text) is JSON:
//!   `{"keys": [{"id": "2026-11", "secret": "<base64 of at least 32 bytes>"}, ...]}`, the
//!   signing key first. Ids are 1–64 characters of `A-Z a-z 0-9 _ -`; secrets are base64
//!   (standard or URL-safe alphabet, padding optional) of 32 to 1024 bytes, e.g.
//!   `head -c 32 /dev/urandom | base64`.
//! - **Where a server gets it** ([`McpServerBuilder::build`]), first found wins: the set given
//!   to [`McpServerBuilder::keys`]; the environment variable [`KEYS_ENV`] (the document
//!   itself); the environment variable [`KEYS_FILE_ENV`] (a path); the limits member
//!   `secrets.keysFile` (a path: the limits document holds no secret, so it can be
//!   committed and printed). Without any, a random key is drawn from the operating system,
//!   valid for this process only (one instance, tokens lost on restart); when the OS has no
//!   randomness, building fails with [`KeyError::NoRandomness`].
//! - **Secrecy.** Secrets are never shown: `Debug` prints key ids only, errors name the file,
//!   variable and JSON pointer of a defect but quote nothing of the document.
//!
//! ```
//! use typed_mcp::secrets::KeySet;
//!
//! let keys = KeySet::parse(
//!     r#"{"keys": [{"id": "new", "secret": "bmV3LXNlY3JldC1vZi1hdC1sZWFzdC0zMi1ieXRlcyEh"},
//!                  {"id": "old", "secret": "b2xkLXNlY3JldC1vZi1hdC1sZWFzdC0zMi1ieXRlcyEh"}]}"#,
//! )
//! .unwrap();
//! assert_eq!(keys.signing_id(), "new");
//! assert_eq!(keys.ids().collect::<Vec<_>>(), ["new", "old"]);
//! assert!(!format!("{keys:?}").contains("bmV3"));
//! ```
//!
//! [`McpServerBuilder::build`]: crate::mcp::McpServerBuilder::build
//! [`McpServerBuilder::keys`]: crate::mcp::McpServerBuilder::keys

use std::fmt;
use std::path::{Path, PathBuf};

use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::Value;
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The environment variable holding a key set document (its text).
pub const KEYS_ENV: &str = "TYPED_MCP_SERVER_KEYS";

/// The environment variable holding the path of a key set document.
pub const KEYS_FILE_ENV: &str = "TYPED_MCP_SERVER_KEYS_FILE";

/// Fewest bytes of a secret: 256 bits, the size of an HMAC-SHA256 tag.
pub const MIN_SECRET_BYTES: usize = 32;

/// Most bytes of a secret.
pub const MAX_SECRET_BYTES: usize = 1024;

/// Most keys in a set.
pub const MAX_KEYS: usize = 64;

/// Largest key set document read, in bytes.
const MAX_DOCUMENT_BYTES: u64 = 1024 * 1024;

/// The encoding of tokens (URL-safe, no padding).
const B64: GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

const LENIENT: GeneralPurposeConfig = GeneralPurposeConfig::new()
    .with_decode_padding_mode(DecodePaddingMode::Indifferent)
    .with_decode_allow_trailing_bits(false);

/// Where a key set document came from, as errors name it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyOrigin {
    /// A file.
    File(PathBuf),
    /// An environment variable's text.
    Env(&'static str),
    /// Text given to [`KeySet::parse`].
    Text,
}

impl fmt::Display for KeyOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File(path) => write!(f, "key set file {}", path.display()),
            Self::Env(name) => write!(f, "key set in ${name}"),
            Self::Text => f.write_str("key set"),
        }
    }
}

/// Errors of setting up a key set. None quotes a secret or any text of the document.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The operating system gave no randomness for a fresh key (and none was configured).
    #[error(
        "no key set is configured and the operating system gave no randomness for one: {reason}"
    )]
    NoRandomness {
        /// The operating system's error.
        reason: String,
    },
    /// A key set file could not be read.
    #[error("cannot read key set file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why reading failed.
        #[source]
        source: std::io::Error,
    },
    /// A key set file is larger than a key set can be (1 MiB).
    #[error("key set file {} is larger than 1 MiB", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// An environment variable is set but is not Unicode text.
    #[error("${name} is not Unicode text")]
    NotUnicode {
        /// The variable.
        name: &'static str,
    },
    /// The document is not well-formed JSON.
    #[error("{origin}: malformed JSON at line {line}, column {column}")]
    Syntax {
        /// Where the document came from.
        origin: KeyOrigin,
        /// The 1-based line of the defect.
        line: usize,
        /// The 1-based column of the defect.
        column: usize,
    },
    /// The document is JSON but not a key set.
    #[error("{origin}: {pointer}: {reason}")]
    Invalid {
        /// Where the document came from.
        origin: KeyOrigin,
        /// JSON pointer of the defect (`/keys/1/secret`).
        pointer: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// Two keys of the set share an id.
    #[error("{origin}: two keys have the id {id:?}")]
    DuplicateId {
        /// Where the document came from.
        origin: KeyOrigin,
        /// The shared id.
        id: String,
    },
}

/// One key: an id (public, carried in tokens) and a secret (never shown).
#[derive(Clone)]
pub struct ServerKey {
    id: String,
    /// The HMAC keyed with the secret, ready to absorb a message (the secret itself is not
    /// kept).
    mac: HmacSha256,
}

impl fmt::Debug for ServerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerKey")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl ServerKey {
    /// A key called `id` with `secret`.
    ///
    /// # Errors
    ///
    /// [`KeyError::Invalid`] when the id is not 1–64 characters of `A-Z a-z 0-9 _ -`, or the
    /// secret is not 32 to 1024 bytes.
    pub fn new(id: impl Into<String>, secret: &[u8]) -> Result<Self, KeyError> {
        let id = id.into();
        let invalid = |pointer: &str, reason| KeyError::Invalid {
            origin: KeyOrigin::Text,
            pointer: pointer.to_owned(),
            reason,
        };
        if !valid_id(&id) {
            return Err(invalid(
                "/id",
                "an id is 1-64 characters of A-Z a-z 0-9 _ -",
            ));
        }
        if !(MIN_SECRET_BYTES..=MAX_SECRET_BYTES).contains(&secret.len()) {
            return Err(invalid("/secret", "a secret is 32 to 1024 bytes"));
        }
        let mac = <HmacSha256 as KeyInit>::new_from_slice(secret)
            .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
        Ok(Self { id, mac })
    }

    /// The key's id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// A fresh random key from the operating system, with a random id (`r` and 16 hex
    /// digits).
    ///
    /// # Errors
    ///
    /// [`KeyError::NoRandomness`] when the operating system gives no randomness.
    pub fn random() -> Result<Self, KeyError> {
        let mut secret = [0_u8; 32];
        let mut id = [0_u8; 8];
        let no_randomness = |error: getrandom::Error| KeyError::NoRandomness {
            reason: error.to_string(),
        };
        getrandom::fill(&mut secret).map_err(no_randomness)?;
        getrandom::fill(&mut id).map_err(no_randomness)?;
        let id: String = std::iter::once('r')
            .chain(id.iter().flat_map(|byte| {
                let hex = |nibble: u8| char::from_digit(u32::from(nibble), 16).unwrap_or('0');
                [hex(byte >> 4), hex(byte & 15)]
            }))
            .collect();
        let key = Self::new(id, &secret);
        secret.fill(0);
        key
    }

    fn tag(&self, scope: &str, payload: &[u8]) -> HmacSha256 {
        let mut mac = self.mac.clone();
        mac.update(self.id.as_bytes());
        mac.update(&[0]);
        mac.update(scope.as_bytes());
        mac.update(&[0]);
        mac.update(payload);
        mac
    }
}

fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// The keys of a server: the first signs, every one verifies (see the [module](self) docs).
#[derive(Clone)]
pub struct KeySet {
    /// Never empty; ids distinct.
    keys: Vec<ServerKey>,
}

impl fmt::Debug for KeySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeySet")
            .field("signing", &self.signing_id())
            .field(
                "verifying",
                &self.keys[1..].iter().map(ServerKey::id).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl KeySet {
    /// A set of one key, which signs.
    #[must_use]
    pub fn new(signing: ServerKey) -> Self {
        Self {
            keys: vec![signing],
        }
    }

    /// The set with `key` added as a verification key (after the others).
    ///
    /// # Errors
    ///
    /// [`KeyError::DuplicateId`] when the set has a key with the same id; [`KeyError::Invalid`]
    /// when the set already has [`MAX_KEYS`] keys.
    pub fn with_verification_key(mut self, key: ServerKey) -> Result<Self, KeyError> {
        if self.keys.iter().any(|known| known.id == key.id) {
            return Err(KeyError::DuplicateId {
                origin: KeyOrigin::Text,
                id: key.id,
            });
        }
        if self.keys.len() >= MAX_KEYS {
            return Err(KeyError::Invalid {
                origin: KeyOrigin::Text,
                pointer: String::new(),
                reason: "a key set has at most 64 keys",
            });
        }
        self.keys.push(key);
        Ok(self)
    }

    /// A set of one fresh random key ([`ServerKey::random`]): tokens it seals are valid in
    /// this process only.
    ///
    /// # Errors
    ///
    /// [`KeyError::NoRandomness`] when the operating system gives no randomness.
    pub fn random() -> Result<Self, KeyError> {
        ServerKey::random().map(Self::new)
    }

    /// The id of the signing key.
    #[must_use]
    pub fn signing_id(&self) -> &str {
        &self.keys[0].id
    }

    /// The ids of every key, the signing key first.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(ServerKey::id)
    }

    /// Parses a key set document (see the [module](self) docs).
    ///
    /// # Errors
    ///
    /// [`KeyError::Syntax`], [`KeyError::Invalid`] or [`KeyError::DuplicateId`], naming the
    /// defect's place but quoting nothing.
    pub fn parse(text: &str) -> Result<Self, KeyError> {
        Self::parse_from(text.as_bytes(), KeyOrigin::Text)
    }

    /// Reads and parses a key set file.
    ///
    /// # Errors
    ///
    /// [`KeyError::Read`] or [`KeyError::TooLarge`] for the file, else as [`KeySet::parse`].
    pub fn load(path: impl AsRef<Path>) -> Result<Self, KeyError> {
        use std::io::Read as _;
        let path = path.as_ref();
        let read = |source| KeyError::Read {
            path: path.to_path_buf(),
            source,
        };
        let mut bytes = Vec::new();
        let _read = std::fs::File::open(path)
            .map_err(read)?
            .take(MAX_DOCUMENT_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(read)?;
        if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
            return Err(KeyError::TooLarge {
                path: path.to_path_buf(),
            });
        }
        let parsed = Self::parse_from(&bytes, KeyOrigin::File(path.to_path_buf()));
        bytes.fill(0);
        parsed
    }

    /// The key set the environment gives: the document in [`KEYS_ENV`], else the file named
    /// by [`KEYS_FILE_ENV`]; `None` when neither is set.
    ///
    /// # Errors
    ///
    /// As [`KeySet::parse`] and [`KeySet::load`]; [`KeyError::NotUnicode`] for a variable
    /// that is not Unicode.
    pub fn from_env() -> Result<Option<Self>, KeyError> {
        if let Some(text) = env_text(KEYS_ENV)? {
            return Self::parse_from(text.as_bytes(), KeyOrigin::Env(KEYS_ENV)).map(Some);
        }
        match env_text(KEYS_FILE_ENV)? {
            Some(path) => Self::load(path).map(Some),
            None => Ok(None),
        }
    }

    /// The key set a server built with `limits` uses when none is given in code: from the
    /// environment ([`KeySet::from_env`]), else from the file of `secrets.keysFile`, else a
    /// fresh random one. Logs (at info) where it came from and the key ids.
    ///
    /// # Errors
    ///
    /// As [`KeySet::from_env`], [`KeySet::load`] and [`KeySet::random`].
    pub fn configured(limits: &crate::Limits) -> Result<Self, KeyError> {
        if let Some(keys) = Self::from_env()? {
            tracing::info!(
                signing = keys.signing_id(),
                count = keys.keys.len(),
                "server keys from the environment"
            );
            return Ok(keys);
        }
        if let Some(path) = &limits.secrets.keys_file {
            let keys = Self::load(path)?;
            tracing::info!(
                signing = keys.signing_id(),
                count = keys.keys.len(),
                "server keys from secrets.keysFile"
            );
            return Ok(keys);
        }
        let keys = Self::random()?;
        tracing::debug!("server keys: a random key for this process only");
        Ok(keys)
    }

    fn parse_from(bytes: &[u8], origin: KeyOrigin) -> Result<Self, KeyError> {
        let value: Value = serde_json::from_slice(bytes).map_err(|error| KeyError::Syntax {
            origin: origin.clone(),
            line: error.line(),
            column: error.column(),
        })?;
        let invalid = |pointer: String, reason| KeyError::Invalid {
            origin: origin.clone(),
            pointer,
            reason,
        };
        let Value::Object(document) = &value else {
            return Err(invalid(String::new(), "a key set is an object"));
        };
        if document.keys().any(|name| name != "keys") {
            return Err(invalid(String::new(), "a key set has only the member keys"));
        }
        let Some(Value::Array(entries)) = document.get("keys") else {
            return Err(invalid("/keys".to_owned(), "keys is an array of keys"));
        };
        if entries.is_empty() || entries.len() > MAX_KEYS {
            return Err(invalid("/keys".to_owned(), "keys holds 1 to 64 keys"));
        }
        let mut keys: Vec<ServerKey> = Vec::with_capacity(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            let at = |member: &str| format!("/keys/{index}{member}");
            let Value::Object(entry) = entry else {
                return Err(invalid(at(""), "a key is an object with id and secret"));
            };
            if entry.keys().any(|name| name != "id" && name != "secret") {
                return Err(invalid(at(""), "a key has only the members id and secret"));
            }
            let Some(Value::String(id)) = entry.get("id") else {
                return Err(invalid(at("/id"), "the id is a string"));
            };
            if !valid_id(id) {
                return Err(invalid(
                    at("/id"),
                    "an id is 1-64 characters of A-Z a-z 0-9 _ -",
                ));
            }
            let Some(Value::String(secret)) = entry.get("secret") else {
                return Err(invalid(at("/secret"), "the secret is a base64 string"));
            };
            let mut secret = decode_secret(secret)
                .ok_or_else(|| invalid(at("/secret"), "the secret is not base64"))?;
            let key = ServerKey::new(id.clone(), &secret)
                .map_err(|_| invalid(at("/secret"), "a secret is 32 to 1024 bytes"));
            secret.fill(0);
            let key = key?;
            if keys.iter().any(|known| known.id == key.id) {
                return Err(KeyError::DuplicateId { origin, id: key.id });
            }
            keys.push(key);
        }
        Ok(Self { keys })
    }

    /// `payload` sealed for `scope` with the signing key: `<id>.<payload>.<tag>`, each part
    /// base64url; readable but not forgeable.
    pub(crate) fn seal(&self, scope: &str, payload: &[u8]) -> String {
        let key = &self.keys[0];
        let tag = key.tag(scope, payload).finalize().into_bytes();
        format!("{}.{}.{}", key.id, B64.encode(payload), B64.encode(tag))
    }

    /// The payload of `token`, if it is intact, sealed for `scope` by a key of the set.
    pub(crate) fn open(&self, scope: &str, token: &str) -> Option<Vec<u8>> {
        let mut parts = token.splitn(3, '.');
        let (id, payload, tag) = (parts.next()?, parts.next()?, parts.next()?);
        let key = self.keys.iter().find(|key| key.id == id)?;
        let payload = B64.decode(payload).ok()?;
        let tag = B64.decode(tag).ok()?;
        key.tag(scope, &payload).verify_slice(&tag).ok()?;
        Some(payload)
    }
}

/// The text of environment variable `name`, `None` when unset or empty.
fn env_text(name: &'static str) -> Result<Option<String>, KeyError> {
    match std::env::var(name) {
        Ok(text) if text.trim().is_empty() => Ok(None),
        Ok(text) => Ok(Some(text)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(KeyError::NotUnicode { name }),
    }
}

/// A secret's bytes from base64, standard or URL-safe, padded or not.
fn decode_secret(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    GeneralPurpose::new(&base64::alphabet::STANDARD, LENIENT)
        .decode(text)
        .or_else(|_| GeneralPurpose::new(&base64::alphabet::URL_SAFE, LENIENT).decode(text))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE="; // 32 × 'a'
    const B: &str = "YmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmI"; // 32 × 'b', no padding

    fn set(keys: &[(&str, &str)]) -> KeySet {
        let keys: Vec<Value> = keys
            .iter()
            .map(|(id, secret)| serde_json::json!({"id": id, "secret": secret}))
            .collect();
        KeySet::parse(&serde_json::json!({ "keys": keys }).to_string()).expect("a key set")
    }

    #[test]
    fn rotation_keeps_old_tokens_until_their_key_is_removed() {
        let before = set(&[("k1", A)]);
        let token = before.seal("tools/list", b"item");
        assert!(token.starts_with("k1."), "the token names its key");
        // Step 1: the new key verifies only; nothing changes for tokens.
        let step1 = set(&[("k1", A), ("k2", B)]);
        assert_eq!(
            step1.open("tools/list", &token).as_deref(),
            Some(&b"item"[..])
        );
        assert!(step1.seal("tools/list", b"x").starts_with("k1."));
        // Step 2: the new key signs; the old one still opens what it sealed.
        let step2 = set(&[("k2", B), ("k1", A)]);
        assert_eq!(
            step2.open("tools/list", &token).as_deref(),
            Some(&b"item"[..])
        );
        let fresh = step2.seal("tools/list", b"item");
        assert!(fresh.starts_with("k2."));
        assert_eq!(
            step1.open("tools/list", &fresh).as_deref(),
            Some(&b"item"[..])
        );
        // Step 3: the old key is gone, and with it its tokens.
        let step3 = set(&[("k2", B)]);
        assert_eq!(step3.open("tools/list", &token), None);
        assert_eq!(
            step3.open("tools/list", &fresh).as_deref(),
            Some(&b"item"[..])
        );
    }

    #[test]
    fn unknown_ids_foreign_keys_and_tampering_do_not_open() {
        let keys = set(&[("k1", A)]);
        let token = keys.seal("scope", b"payload");
        assert_eq!(keys.open("scope", &token).as_deref(), Some(&b"payload"[..]));
        assert_eq!(keys.open("other", &token), None, "another purpose");
        // Same secret under another id, another secret under the same id.
        assert_eq!(set(&[("k9", A)]).open("scope", &token), None);
        assert_eq!(set(&[("k1", B)]).open("scope", &token), None);
        assert_eq!(KeySet::random().unwrap().open("scope", &token), None);
        // The id relabelled: the tag covers it.
        let relabelled = token.replacen("k1.", "k2.", 1);
        assert_eq!(set(&[("k2", A)]).open("scope", &relabelled), None);
        let (id_payload, tag) = token.rsplit_once('.').unwrap();
        let forged = format!("k1.{}.{tag}", B64.encode(b"payloaD"));
        assert_eq!(keys.open("scope", &forged), None);
        for broken in [
            String::new(),
            id_payload.to_owned(),
            format!("{token}A"),
            token[..token.len() - 2].to_owned(),
            format!("{token}.x"),
            format!(".{token}"),
            "k1..".to_owned(),
        ] {
            assert_eq!(keys.open("scope", &broken), None, "{broken:?}");
        }
    }

    #[test]
    fn random_keys_differ_and_have_fresh_ids() {
        let (one, two) = (KeySet::random().unwrap(), KeySet::random().unwrap());
        assert_ne!(one.signing_id(), two.signing_id());
        assert_eq!(one.signing_id().len(), 17);
        assert_eq!(two.open("s", &one.seal("s", b"x")), None);
    }

    #[test]
    fn bad_documents_are_refused_without_quoting_them() {
        let secret_text = "c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1hcHBlYXItaW4tZXJyb3Jz";
        let short = "c2hvcnQ"; // 5 bytes
        for (document, pointer) in [
            (r#"[]"#.to_owned(), ""),
            (r#"{"keys": []}"#.to_owned(), "/keys"),
            (
                format!(r#"{{"keys": [{{"id": "a.b", "secret": "{secret_text}"}}]}}"#),
                "/keys/0/id",
            ),
            (
                format!(r#"{{"keys": [{{"id": "{secret_text}!", "secret": "{A}"}}]}}"#),
                "/keys/0/id",
            ),
            (
                format!(r#"{{"keys": [{{"id": "k", "secret": "{short}"}}]}}"#),
                "/keys/0/secret",
            ),
            (
                r#"{"keys": [{"id": "k", "secret": "not base64 at all!"}]}"#.to_owned(),
                "/keys/0/secret",
            ),
            (
                format!(
                    r#"{{"keys": [{{"id": "k", "secret": "{A}", "extra": "{secret_text}"}}]}}"#
                ),
                "/keys/0",
            ),
            (
                format!(r#"{{"keys": [{{"id": "k", "secret": "{A}"}}], "{secret_text}": 1}}"#),
                "",
            ),
        ] {
            let error = KeySet::parse(&document).unwrap_err();
            let KeyError::Invalid { pointer: at, .. } = &error else {
                panic!("{error:?}")
            };
            assert_eq!(at, pointer, "{document}");
            for shown in [error.to_string(), format!("{error:?}")] {
                assert!(
                    !shown.contains(secret_text) && !shown.contains("c2VjcmV0"),
                    "{shown}"
                );
            }
        }
        let error = KeySet::parse(&format!(
            r#"{{"keys": [{{"id": "k", "secret": "{secret_text}"#
        ))
        .unwrap_err();
        assert!(matches!(error, KeyError::Syntax { .. }), "{error:?}");
        assert!(!error.to_string().contains(secret_text));
        let error = KeySet::parse(&format!(
            r#"{{"keys": [{{"id": "k", "secret": "{A}"}}, {{"id": "k", "secret": "{B}"}}]}}"#
        ))
        .unwrap_err();
        assert!(
            matches!(&error, KeyError::DuplicateId { id, .. } if id == "k"),
            "{error:?}"
        );
    }

    #[test]
    fn debug_shows_ids_only() {
        let keys = set(&[("k2", B), ("k1", A)]);
        let shown = format!("{keys:?}");
        assert_eq!(shown, r#"KeySet { signing: "k2", verifying: ["k1"] }"#);
        assert!(!format!("{:?}", keys.keys[0]).contains("YmJi"));
    }

    #[test]
    fn files_are_read_and_named_in_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.json");
        std::fs::write(
            &path,
            format!(r#"{{"keys": [{{"id": "f", "secret": "{A}"}}]}}"#),
        )
        .unwrap();
        assert_eq!(KeySet::load(&path).unwrap().signing_id(), "f");
        std::fs::write(&path, "{").unwrap();
        let error = KeySet::load(&path).unwrap_err();
        assert!(error.to_string().contains("keys.json"), "{error}");
        let error = KeySet::load(dir.path().join("absent.json")).unwrap_err();
        assert!(matches!(error, KeyError::Read { .. }), "{error:?}");
    }
}
