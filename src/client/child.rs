//! A server run as a child process: its stdin and stdout carry the protocol, its stderr
//! goes to our log (target `typed_mcp::client::server_stderr`, one event per line).

use std::ffi::OsString;
use std::process::Stdio;

use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use crate::framing::FrameReader;

use super::ClientError;

/// Longest stderr line forwarded whole; longer ones are reported by length only.
const MAX_STDERR_LINE: usize = 64 * 1024;

/// The command that starts a server.
///
/// ```
/// use typed_mcp::client::ServerCommand;
///
/// let command = ServerCommand::new("python3").arg("server.py").env("LOG_LEVEL", "debug");
/// assert_eq!(command.program(), "python3");
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ServerCommand {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
}

impl ServerCommand {
    /// Runs `program` (looked up in `PATH` like a shell would).
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
        }
    }

    /// Appends one argument.
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Appends arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable of the child (the rest is inherited).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The program, as given.
    #[must_use]
    pub fn program(&self) -> &str {
        self.program.to_str().unwrap_or("<non-UTF-8 program>")
    }

    /// Starts the child with piped stdin/stdout, stderr forwarded to the log, killed on
    /// drop.
    pub(crate) fn spawn(&self) -> Result<(Child, ChildStdin, ChildStdout), ClientError> {
        let spawn_error = |source| ClientError::Spawn {
            program: self.program().to_owned(),
            source,
        };
        let mut child = Command::new(&self.program)
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(spawn_error)?;
        let missing = || spawn_error(std::io::Error::other("a pipe of the child is missing"));
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        if let Some(stderr) = child.stderr.take() {
            drop(tokio::spawn(forward_stderr(stderr, child.id())));
        }
        Ok((child, stdin, stdout))
    }
}

async fn forward_stderr(stderr: ChildStderr, pid: Option<u32>) {
    let mut reader = FrameReader::new(stderr).with_max_line_bytes(MAX_STDERR_LINE);
    while let Some(line) = reader.next_frame().await {
        match line {
            Ok(line) => {
                let text = String::from_utf8_lossy(line);
                tracing::info!(target: "typed_mcp::client::server_stderr", pid, "{text}");
            }
            Err(error) => {
                tracing::info!(target: "typed_mcp::client::server_stderr", pid, %error, "stderr line skipped");
            }
        }
    }
}
