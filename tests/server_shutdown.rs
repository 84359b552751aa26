//! XC-003 graceful shutdown: on end of input, SIGTERM or a stop request the loop stops
//! reading, lets in-flight requests finish (or cancels them at the grace period), flushes
//! every answer and ends cleanly. In memory on a paused clock, and for real with the
//! `echo_server` example.

mod echo_support;

mod server_support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use server_support::{settle, start, Event, Probe, PATIENCE};
use tokio_util::sync::CancellationToken;
use typed_mcp::server::{ServeOptions, ShutdownReason};

#[tokio::test(start_paused = true)]
async fn xc_003_end_of_input_lets_in_flight_requests_finish() {
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default().max_in_flight(4);
    let mut client = start(Arc::clone(&probe), options);
    for id in 0..20 {
        client
            .send(&format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"sleep","params":{{"ms":{}}}}}"#,
                100 * (20 - id)
            ))
            .await;
    }
    let (lines, report) = client.finish().await;
    let mut ids: Vec<u64> = lines.iter().map(|l| l["id"].as_u64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..20).collect::<Vec<_>>());
    assert!(lines.iter().all(|l| l["result"] == "slept"));
    assert_eq!(report.reason, ShutdownReason::InputClosed);
    assert_eq!(report.requests_answered, 20);
    assert_eq!(report.cancelled_at_shutdown, 0);
    assert_eq!(probe.shutdown_calls.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn xc_003_grace_period_cancels_and_answers_what_is_left() {
    let probe = Arc::new(Probe::default());
    let options = ServeOptions::default()
        .max_in_flight(1)
        .grace_period(Duration::from_secs(5));
    let mut client = start(Arc::clone(&probe), options);
    // One running (never released), two queued behind it.
    client.request("1", "block").await;
    client.request("2", "block").await;
    client.request("3", "ping").await;
    settle().await;
    let started = tokio::time::Instant::now();
    let (lines, report) = client.finish().await;
    assert!(
        started.elapsed() >= Duration::from_secs(5),
        "the grace period was given"
    );
    let mut by_id: BTreeMap<u64, &Value> = BTreeMap::new();
    for line in &lines {
        assert!(by_id.insert(line["id"].as_u64().unwrap(), line).is_none());
    }
    assert_eq!(by_id.keys().copied().collect::<Vec<_>>(), [1, 2, 3]);
    for line in by_id.values() {
        assert_eq!(line["error"]["code"], -32603, "{line}");
        assert_eq!(line["error"]["data"], json!({"reason": "shutdown"}));
    }
    assert_eq!(report.cancelled_at_shutdown, 3);
    assert_eq!(report.requests_answered, 3);
    assert!(probe.token("1").is_cancelled());
    assert_eq!(
        probe.events(),
        [Event::Started("1".into()), Event::Dropped("1".into())]
    );
    assert_eq!(probe.shutdown_calls.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn xc_003_stop_token_drains_while_the_input_stays_open() {
    let probe = Arc::new(Probe::default());
    let stop = CancellationToken::new();
    let options = ServeOptions::default().stop_token(stop.clone());
    let mut client = start(Arc::clone(&probe), options);
    client.request("1", "block").await;
    settle().await;
    stop.cancel();
    settle().await;
    // Stopped reading: this request is never read, so never answered.
    client.request("2", "ping").await;
    probe.gate.add_permits(1);
    assert_eq!(client.next().await.unwrap()["id"], 1);
    assert!(
        client.next().await.is_none(),
        "output closed after the drain"
    );
    let report = tokio::time::timeout(PATIENCE, client.server)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(report.reason, ShutdownReason::Requested);
    assert_eq!(report.requests_answered, 1);
}

/// Requests for the echo binary: every 10th sleeps `slow_ms`, the others alternate between
/// `ping` and `echo`.
fn echo_requests(count: usize, slow_ms: u64) -> Vec<u8> {
    let mut input = Vec::new();
    for id in 0..count {
        let line = match id % 10 {
            0 => json!({"jsonrpc": "2.0", "id": id, "method": "sleep", "params": {"ms": slow_ms}}),
            n if n.is_multiple_of(2) => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            _ => json!({"jsonrpc": "2.0", "id": id, "method": "echo", "params": [id]}),
        };
        input.extend_from_slice(line.to_string().as_bytes());
        input.push(b'\n');
    }
    input
}

/// Checks that every id in `0..count` was answered exactly once, as its method says.
fn assert_all_answered(lines: &[Value], count: usize) {
    let mut by_id: BTreeMap<u64, &Value> = BTreeMap::new();
    for line in lines {
        let Some(id) = line["id"].as_u64() else {
            continue;
        };
        assert!(by_id.insert(id, line).is_none(), "answered twice: {line}");
    }
    let missing: Vec<usize> = (0..count)
        .filter(|id| !by_id.contains_key(&(*id as u64)))
        .collect();
    assert!(missing.is_empty(), "unanswered requests: {missing:?}");
    for (id, line) in by_id {
        let expected = match id % 10 {
            0 => json!({"slept": 50}),
            n if n.is_multiple_of(2) => json!({}),
            _ => json!([id]),
        };
        assert_eq!(line["result"], expected, "{line}");
    }
}

#[test]
fn xc_003_all_responses_arrive_before_exit_when_stdin_closes() {
    const COUNT: usize = 1000;
    let mut child = Command::new(echo_support::echo_server())
        .args(["--max-in-flight", "16"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("echo binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = echo_requests(COUNT, 50);
    // Write everything and close stdin at once, from another thread so a full stdout pipe
    // cannot deadlock the test.
    let feeder = std::thread::spawn(move || {
        stdin.write_all(&input).unwrap();
        drop(stdin);
    });
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert!(output.status.success(), "exit status {:?}", output.status);
    let lines: Vec<Value> = output
        .stdout
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), COUNT);
    assert_all_answered(&lines, COUNT);
}

#[test]
fn xc_003_sigterm_mid_stream_answers_every_accepted_request() {
    const COUNT: usize = 300;
    let mut child = Command::new(echo_support::echo_server())
        .args(["--max-in-flight", "1000", "--grace-ms", "1000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("echo binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut input = echo_requests(COUNT, 50);
    // A request that would outlive the grace period, then a marker: once the marker is
    // answered, every request before it has been read (reading is in order).
    let stuck =
        json!({"jsonrpc": "2.0", "id": "stuck", "method": "sleep", "params": {"ms": 3_600_000}});
    let marker = json!({"jsonrpc": "2.0", "id": "marker", "method": "ping"});
    input.extend_from_slice(format!("{stuck}\n{marker}\n").as_bytes());
    stdin.write_all(&input).unwrap();
    stdin.flush().unwrap();
    // stdin stays open: the server must stop on the signal, not on end of input.

    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        assert_ne!(
            stdout.read_line(&mut line).unwrap(),
            0,
            "output ended early"
        );
        let value: Value = serde_json::from_str(&line).unwrap();
        let is_marker = value["id"] == "marker";
        lines.push(value);
        if is_marker {
            break;
        }
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    loop {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        lines.push(serde_json::from_str(&line).unwrap());
    }
    let exit = child.wait().unwrap();
    drop(stdin);
    assert!(exit.success(), "exit status {exit:?}");
    assert_all_answered(&lines, COUNT);
    let stuck_answer = lines.iter().find(|l| l["id"] == "stuck").expect("answered");
    assert_eq!(stuck_answer["error"]["code"], -32603);
    assert_eq!(stuck_answer["error"]["data"]["reason"], "shutdown");
    assert_eq!(lines.len(), COUNT + 2, "nothing else was written");
}

#[test]
fn xc_003_a_second_sigterm_cancels_what_the_grace_period_would_still_wait_for() {
    // A grace period far longer than the test: only the second signal can end the drain
    // early (should it be lost, the grace period ends it after a minute, and the log says so,
    // not "second signal": the test fails rather than hangs).
    let mut child = Command::new(echo_support::echo_server())
        .args(["--grace-ms", "60000"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("echo binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let stuck =
        json!({"jsonrpc": "2.0", "id": "stuck", "method": "sleep", "params": {"ms": 3_600_000}});
    let marker = json!({"jsonrpc": "2.0", "id": "marker", "method": "ping"});
    stdin
        .write_all(format!("{stuck}\n{marker}\n").as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    assert_ne!(
        stdout.read_line(&mut line).unwrap(),
        0,
        "output ended early"
    );
    let first: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        first["id"], "marker",
        "the ping is answered while the sleep runs"
    );
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let term = || {
        let status = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    };
    // Two signals sent before the server has seen the first are one signal to it (the kernel
    // and tokio merge a pending signal with the next): the second is sent once the server
    // says it is shutting down, i.e. once it has taken the first.
    term();
    let mut logged = String::new();
    loop {
        let before = logged.len();
        let read = stderr.read_line(&mut logged).unwrap();
        assert_ne!(read, 0, "the log ended before the shutdown began: {logged}");
        if logged[before..].contains("shutting down") {
            break;
        }
    }
    term();
    let mut rest = Vec::new();
    loop {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        rest.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    let exit = child.wait().unwrap();
    drop(stdin);
    assert!(exit.success(), "exit status {exit:?}");
    assert_eq!(rest.len(), 1, "only the stuck request is left: {rest:?}");
    assert_eq!(rest[0]["id"], "stuck");
    assert_eq!(rest[0]["error"]["data"]["reason"], "shutdown");
    std::io::Read::read_to_string(&mut stderr, &mut logged).unwrap();
    assert!(
        logged.contains("second signal"),
        "the drain ended on the second signal: {logged}"
    );
}
