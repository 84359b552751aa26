//! The OpenID provider of the auth tests: npm `oidc-provider` (installed by
//! `tests/oauth/setup.sh`, which `tests/setup.sh` runs), started by `tests/oauth/provider.mjs`
//! on 127.0.0.1 with an ephemeral port. See that script's header for its clients, the
//! resource indicators it accepts, its login/consent pages and its test-only key rotation.
//!
//! [`Provider::start`] returns `None` (with a printed reason) when node or the package is
//! missing on a user's machine, and panics when `CI` is set.

#![allow(dead_code, unreachable_pub)]

#[path = "../reference_data.rs"]
pub(crate) mod reference_data;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// How long the provider may take to print its ready line (a hang guard).
const READY_GUARD: Duration = Duration::from_secs(60);

/// The secret of the client-credentials clients (`mcp-cc`, `mcp-cc-short`, `mcp-cc-es256`,
/// `mcp-cc-opaque`).
pub const CC_SECRET: &str = "cc-secret";
/// The introspecting client of the resource server.
pub const RS_CLIENT: &str = "mcp-rs";
/// Its secret.
pub const RS_SECRET: &str = "rs-secret";

/// A running provider; killed on drop.
pub struct Provider {
    child: Child,
    /// `http://127.0.0.1:PORT`, the issuer of its tokens.
    pub issuer: String,
    http: reqwest::Client,
}

/// The folder of the provider's script and packages.
pub fn oauth_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oauth")
}

impl Provider {
    /// Starts the provider, or `None` when it is not installed and `CI` is unset.
    pub fn start() -> Option<Self> {
        Self::start_with(&[], None)
    }

    /// Starts the provider over HTTPS with the certificate and key at `cert` and `key` (PEM
    /// files), its own requests trusting the root certificate `ca_pem`.
    pub fn start_tls(cert: &std::path::Path, key: &std::path::Path, ca_pem: &[u8]) -> Option<Self> {
        let args = [
            std::ffi::OsStr::new("--tls"),
            cert.as_os_str(),
            key.as_os_str(),
        ];
        Self::start_with(&args, Some(ca_pem))
    }

    fn start_with(args: &[&std::ffi::OsStr], ca_pem: Option<&[u8]>) -> Option<Self> {
        let dir = oauth_dir();
        if !dir.join("node_modules/oidc-provider/package.json").exists() {
            let reason = "oidc-provider is not installed (run tests/oauth/setup.sh)";
            assert!(!reference_data::in_ci(), "{reason}");
            eprintln!("skipped: {reason}");
            return None;
        }
        let mut child = Command::new("node")
            .arg("provider.mjs")
            .args(args)
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node starts (tests/oauth/setup.sh checks it is installed)");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, receiver) = mpsc::channel();
        // The reader keeps draining stdout after the ready line for as long as the provider
        // runs: a closed pipe would make node's next write to stdout fail with EPIPE, an
        // unhandled error that kills the provider in the middle of a test.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let read = reader.read_line(&mut line);
            let _sent = sender.send(read.map(|_| line));
            let mut rest = String::new();
            while reader.read_line(&mut rest).is_ok_and(|n| n > 0) {
                eprint!("provider stdout: {rest}");
                rest.clear();
            }
        });
        let line = match receiver.recv_timeout(READY_GUARD) {
            Ok(Ok(line)) => line,
            other => {
                let _killed = child.kill();
                panic!("the provider printed no ready line: {other:?}");
            }
        };
        let ready: Value = serde_json::from_str(&line)
            .unwrap_or_else(|error| panic!("ready line is not JSON ({error}): {line}"));
        let issuer = ready["issuer"]
            .as_str()
            .unwrap_or_else(|| panic!("no issuer in the ready line: {line}"))
            .to_owned();
        let mut http = reqwest::Client::builder().timeout(READY_GUARD);
        if let Some(pem) = ca_pem {
            http = http.add_root_certificate(
                reqwest::Certificate::from_pem(pem).expect("the test CA parses"),
            );
        }
        let http = http.build().expect("a reqwest client");
        Some(Self {
            child,
            issuer,
            http,
        })
    }

    /// A client-credentials access token from `client` (secret [`CC_SECRET`]) for
    /// `resource` with `scope`: the token endpoint's JSON answer, which must be a success.
    pub async fn client_credentials(&self, client: &str, resource: &str, scope: &str) -> Value {
        let answer = self
            .http
            .post(format!("{}/token", self.issuer))
            .basic_auth(client, Some(CC_SECRET))
            .form(&[
                ("grant_type", "client_credentials"),
                ("resource", resource),
                ("scope", scope),
            ])
            .send()
            .await
            .expect("the token endpoint answers");
        let status = answer.status();
        let body = answer.text().await.expect("a token response body");
        assert!(status.is_success(), "token endpoint said {status}: {body}");
        serde_json::from_str(&body).expect("the token response is JSON")
    }

    /// [`client_credentials`](Self::client_credentials)' `access_token`.
    pub async fn access_token(&self, client: &str, resource: &str, scope: &str) -> String {
        let answer = self.client_credentials(client, resource, scope).await;
        answer["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no access_token: {answer}"))
            .to_owned()
    }

    /// Rotates the provider's signing keys; returns the new kids.
    pub async fn rotate_keys(&self) -> Vec<String> {
        let answer: Value = self
            .get_json_post(&format!("{}/__test/rotate", self.issuer))
            .await;
        answer["kids"]
            .as_array()
            .expect("kids")
            .iter()
            .map(|kid| kid.as_str().expect("a kid").to_owned())
            .collect()
    }

    /// A GET of `path` (from the issuer), as JSON.
    pub async fn get_json(&self, path: &str) -> Value {
        let answer = self
            .http
            .get(format!("{}{path}", self.issuer))
            .send()
            .await
            .expect("the provider answers");
        assert!(
            answer.status().is_success(),
            "GET {path}: {}",
            answer.status()
        );
        serde_json::from_str(&answer.text().await.expect("a body")).expect("JSON")
    }

    async fn get_json_post(&self, url: &str) -> Value {
        let answer = self
            .http
            .post(url)
            .send()
            .await
            .expect("the provider answers");
        assert!(
            answer.status().is_success(),
            "POST {url}: {}",
            answer.status()
        );
        serde_json::from_str(&answer.text().await.expect("a body")).expect("JSON")
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _killed = self.child.kill();
        let _reaped = self.child.wait();
    }
}
