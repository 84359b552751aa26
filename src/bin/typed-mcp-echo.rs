//! `typed-mcp-echo`: a tiny JSON-RPC 2.0 server over stdio, built from the framing and
//! JSON-RPC layers alone.
//!
//! - `ping` is answered with `{}`; `echo` with its `params` (or `null`);
//! - any other request gets `-32601`; notifications and responses are never answered;
//! - malformed frames get `-32700` / `-32600` as the JSON-RPC layer decides; oversize lines
//!   get `-32600` with `id: null`.
//!
//! Options: `--max-line-bytes N` (default 16 MiB) and `--protocol-version V`, which decides
//! whether batches are accepted (default: the latest version, which rejects them). Logs go to
//! stderr only (`RUST_LOG` sets the filter, default `info`).

use std::borrow::Cow;
use std::process::ExitCode;

use serde_json::value::RawValue;
use tracing::level_filters::LevelFilter;
use typed_mcp::framing::{spawn_writer, FrameReader, Outbound, DEFAULT_MAX_LINE_BYTES};
use typed_mcp::jsonrpc::{
    parse_frame, BatchPolicy, ErrorCode, ErrorObject, Frame, Message, ParseError, Response,
};

/// The protocol version assumed when none is given.
const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// Command-line options.
struct Options {
    max_line_bytes: usize,
    batch_policy: BatchPolicy,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        batch_policy: BatchPolicy::for_protocol_version(LATEST_PROTOCOL_VERSION),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--max-line-bytes" => {
                options.max_line_bytes = value
                    .parse()
                    .map_err(|_| "--max-line-bytes needs a number".to_owned())?;
            }
            "--protocol-version" => {
                options.batch_policy = BatchPolicy::for_protocol_version(&value);
            }
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(options)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    if let Err(error) = typed_mcp::logging::init_stderr(LevelFilter::INFO) {
        eprintln!("typed-mcp-echo: {error}");
    }
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            tracing::error!("{message}");
            return ExitCode::from(2);
        }
    };
    tracing::info!(
        max_line_bytes = options.max_line_bytes,
        batch_policy = ?options.batch_policy,
        "echo server starting"
    );
    let mut reader =
        FrameReader::new(tokio::io::stdin()).with_max_line_bytes(options.max_line_bytes);
    let (writer, writer_task) = spawn_writer(tokio::io::stdout(), 64);

    while let Some(item) = reader.next_frame().await {
        let outbound = match item {
            Ok(frame) => {
                tracing::trace!(bytes = frame.len(), "frame received");
                answer_frame(parse_frame(frame, options.batch_policy))
            }
            Err(error) => match error.to_error_response() {
                Some(response) => {
                    tracing::warn!(%error, "rejecting frame");
                    Some(Outbound::from(response))
                }
                None => {
                    tracing::error!(%error, "stopping: input failed");
                    break;
                }
            },
        };
        if let Some(outbound) = outbound {
            if let Err(error) = writer.send(outbound).await {
                tracing::error!(%error, "stopping: output failed");
                break;
            }
        }
    }

    tracing::debug!("input finished, flushing output");
    drop(writer);
    match writer_task.shutdown().await {
        Ok(_) => {
            tracing::info!("echo server done");
            ExitCode::SUCCESS
        }
        Err(error) => {
            tracing::error!(%error, "output failed");
            ExitCode::FAILURE
        }
    }
}

fn answer_frame(frame: Frame<'_>) -> Option<Outbound> {
    match frame {
        Frame::Single(parsed) => answer(parsed).map(Outbound::from),
        Frame::Batch(members) => {
            tracing::trace!(members = members.len(), "batch received");
            let responses: Vec<_> = members.into_iter().filter_map(answer).collect();
            (!responses.is_empty()).then_some(Outbound::Batch(responses))
        }
    }
}

fn answer(parsed: Result<Message<'_>, ParseError>) -> Option<Response<'static>> {
    let request = match parsed {
        Ok(Message::Request(request)) => request,
        Ok(Message::Notification(notification)) => {
            tracing::trace!(method = %notification.method, "notification, not answered");
            return None;
        }
        Ok(Message::Response(response)) => {
            tracing::trace!(id = ?response.id, "response, ignored");
            return None;
        }
        Err(error) => {
            tracing::debug!(?error, "invalid message");
            return Some(error.to_error_response());
        }
    };
    tracing::trace!(method = %request.method, id = %request.id, "request");
    let id = request.id.into_owned();
    Some(match &*request.method {
        "ping" => Response::result(id, Cow::Owned(raw("{}"))),
        "echo" => {
            let params = request.params.map_or_else(|| raw("null"), Cow::into_owned);
            Response::result(id, Cow::Owned(params))
        }
        _ => Response::error(
            Some(id),
            ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, "method not found"),
        ),
    })
}

fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_owned()).expect("a constant valid JSON text")
}
