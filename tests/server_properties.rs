//! Property test of the request loop: for any script of requests (with repeated ids),
//! cancellations, notifications and garbage, under any in-flight bound, every request gets at
//! most one answer, every request that was not cancelled gets exactly one, notifications get
//! none, and the report's counts add up.

mod server_support;

use std::collections::HashMap;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::Value;
use server_support::{start, Probe, IN_PLACE};
use typed_mcp::server::ServeOptions;

#[derive(Clone, Debug)]
enum Step {
    /// A request with a small id (so ids repeat), sleeping `ms` (0 = ping), started on the
    /// reading task when `in_place` (`Handler::runs_in_place`).
    Request { id: u8, ms: u16, in_place: bool },
    /// `notifications/cancelled` for an id.
    Cancel { id: u8 },
    /// Any other notification.
    Notify,
    /// A line that is not JSON.
    Garbage,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0u8..6, prop_oneof![Just(0u16), 1u16..50], any::<bool>())
            .prop_map(|(id, ms, in_place)| Step::Request { id, ms, in_place }),
        2 => (0u8..6).prop_map(|id| Step::Cancel { id }),
        1 => Just(Step::Notify),
        1 => Just(Step::Garbage),
    ]
}

fn line(step: &Step) -> String {
    match step {
        Step::Request { id, ms, in_place } => {
            let prefix = if *in_place { IN_PLACE } else { "" };
            if *ms == 0 {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{prefix}ping"}}"#)
            } else {
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"{prefix}sleep","params":{{"ms":{ms}}}}}"#
                )
            }
        }
        Step::Cancel { id } => format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
        ),
        Step::Notify => r#"{"jsonrpc":"2.0","method":"notifications/progress"}"#.to_owned(),
        Step::Garbage => "{oops".to_owned(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_request_is_answered_at_most_once_and_exactly_once_unless_cancelled(
        script in prop::collection::vec(step(), 1..40),
        max_in_flight in 1usize..5,
        max_queued in 1usize..4,
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        let (lines, report) = runtime.block_on(async {
            let options = ServeOptions::default()
                .max_in_flight(max_in_flight)
                .max_queued(max_queued);
            let mut client = start(Arc::new(Probe::default()), options);
            for step in &script {
                client.send(&line(step)).await;
            }
            client.finish().await
        });

        let requests = script.iter().filter(|s| matches!(s, Step::Request { .. })).count();
        let garbage = script.iter().filter(|s| matches!(s, Step::Garbage)).count();
        let mut answers: HashMap<u64, Vec<&Value>> = HashMap::new();
        let mut null_ids = 0;
        for line in &lines {
            match line["id"].as_u64() {
                Some(id) => answers.entry(id).or_default().push(line),
                None => {
                    prop_assert_eq!(&line["error"]["code"], -32700);
                    null_ids += 1;
                }
            }
        }
        prop_assert_eq!(null_ids, garbage, "one -32700 per garbage line, nothing else");

        for (id, got) in &answers {
            let sent = script
                .iter()
                .filter(|s| matches!(s, Step::Request { id: i, .. } if u64::from(*i) == *id))
                .count();
            prop_assert!(got.len() <= sent, "id {} answered {} times, sent {}", id, got.len(), sent);
        }
        // A request without any later cancel of its id is always answered.
        for (at, step) in script.iter().enumerate() {
            let Step::Request { id, .. } = step else { continue };
            let cancelled_later = script[at + 1..]
                .iter()
                .any(|s| matches!(s, Step::Cancel { id: c } if c == id));
            let answered = answers.get(&u64::from(*id)).map_or(0, Vec::len);
            if !cancelled_later {
                prop_assert!(answered >= 1, "request {} at step {} unanswered", id, at);
            }
        }
        // Every request is answered, rejected as a duplicate, or cancelled by the client.
        prop_assert_eq!(
            report.requests_answered + report.duplicate_ids + report.cancelled_by_client,
            requests as u64
        );
        prop_assert_eq!(
            lines.len() as u64,
            report.requests_answered + report.duplicate_ids + report.invalid_messages
        );
        prop_assert_eq!(report.cancelled_at_shutdown, 0);
        prop_assert_eq!(report.handler_panics, 0);
    }
}
