//! Properties of the MCP server over arbitrary input (proptest):
//! - any `arguments` for any demo tool: the answer is a valid `CallToolResult`, and the tool
//!   reports `VALIDATION_FAILED` exactly when its generated validator rejects the arguments;
//! - any `params` for any method: the answer is a well-formed response to that request,
//!   never an internal error, and every result passes its generated validator.

mod mcp_server_support;

use std::sync::Mutex;

use mcp_server_support::demo::arguments::{
    AddArguments, BigArguments, EchoArguments, LookupArguments, SleepArguments, SpinArguments,
    SumArguments,
};
use mcp_server_support::{demo_server, legacy_client, limits, TestClient};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Map, Value};
use typed_mcp::generated::protocol::validate;
use typed_mcp::validation::SchemaValidate;

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        (-1.0e6f64..1.0e6).prop_map(Value::from),
        "[a-z]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Values of the kinds the demo tools take (small non-negative integers, numbers, short
/// strings, arrays of numbers), or anything.
fn plausible_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        2 => (0u64..40).prop_map(Value::from),
        1 => (-100.0f64..100.0).prop_map(Value::from),
        2 => "[a-z]{0,8}".prop_map(Value::from),
        2 => prop::collection::vec(-50i64..50, 0..6).prop_map(Value::from),
        2 => arbitrary_json(),
    ]
}

/// Arguments that are often right: each of the tool's members present most of the time,
/// with a plausible value, and now and then an unknown member.
fn arguments_for(names: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let members: Vec<_> = names
        .iter()
        .map(|name| prop::option::weighted(0.85, plausible_value()).prop_map(move |v| (*name, v)))
        .collect();
    let extra = prop_oneof![
        3 => Just(Vec::new()),
        1 => prop::collection::vec(("[a-z]{1,4}", arbitrary_json()), 1..3),
    ];
    (members, extra).prop_map(|(members, extra)| {
        let mut map: Map<String, Value> = extra.into_iter().collect();
        for (name, value) in members {
            if let Some(value) = value {
                map.insert(name.to_owned(), value);
            }
        }
        Value::Object(map)
    })
}

/// Whether the generated validator of `tool`'s argument type accepts `arguments`.
fn accepted(tool: &str, arguments: &Value) -> bool {
    match tool {
        "echo" => EchoArguments::validate_value(arguments).is_ok(),
        "add" => AddArguments::validate_value(arguments).is_ok(),
        "sleep" => SleepArguments::validate_value(arguments).is_ok(),
        "spin" => SpinArguments::validate_value(arguments).is_ok(),
        "big" => BigArguments::validate_value(arguments).is_ok(),
        "sum" => SumArguments::validate_value(arguments).is_ok(),
        "lookup" => LookupArguments::validate_value(arguments).is_ok(),
        _ => unreachable!("a demo tool"),
    }
}

fn tool_call() -> impl Strategy<Value = (&'static str, Value)> {
    prop_oneof![
        arguments_for(&["text"]).prop_map(|a| ("echo", a)),
        arguments_for(&["a", "b"]).prop_map(|a| ("add", a)),
        arguments_for(&["ms"]).prop_map(|a| ("sleep", a)),
        arguments_for(&["ms"]).prop_map(|a| ("spin", a)),
        arguments_for(&["bytes"]).prop_map(|a| ("big", a)),
        arguments_for(&["values"]).prop_map(|a| ("sum", a)),
        arguments_for(&["key"]).prop_map(|a| ("lookup", a)),
    ]
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

#[test]
fn a_tool_runs_exactly_when_its_generated_validator_accepts_the_arguments() {
    let rt = runtime();
    // Small limits keep arbitrary `ms` and `bytes` cheap: the calls time out or truncate.
    let limits = limits(json!({
        "timeouts": {"toolTimeouts": {"slow": 20}, "toolOverrides": {"spin": 20}},
        "response": {"maxResponseBytes": 2048}
    }));
    let client = Mutex::new(rt.block_on(legacy_client(demo_server(limits), "2025-11-25")));
    let mut runner = TestRunner::new(Config::with_cases(192));
    runner
        .run(&tool_call(), |(tool, arguments)| {
            let mut client = client.lock().unwrap();
            let params = json!({"name": tool, "arguments": arguments});
            let result = rt.block_on(client.result(json!("c"), "tools/call", Some(params)));
            prop_assert!(
                validate::legacy_call_tool_result(&result).is_ok(),
                "{}",
                result
            );
            let code = result["structuredContent"]["error"]["code"].as_str();
            let rejected = code == Some("VALIDATION_FAILED");
            prop_assert_eq!(rejected, !accepted(tool, &arguments), "{} {}", tool, result);
            if rejected {
                let violations = &result["structuredContent"]["error"]["validationErrors"];
                prop_assert!(violations.as_array().is_some_and(|v| !v.is_empty()));
            }
            Ok(())
        })
        .unwrap();
}

const METHODS: &[&str] = &[
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "server/discover",
    "completion/complete",
];

#[test]
fn any_params_get_a_well_formed_answer_and_never_an_internal_error() {
    let rt = runtime();
    let legacy = rt.block_on(legacy_client(demo_server(Default::default()), "2025-06-18"));
    let modern = {
        let _inside = rt.enter();
        TestClient::start(demo_server(Default::default()))
    };
    let clients = Mutex::new((legacy, modern));
    let strategy = (
        prop::sample::select(METHODS),
        prop::option::of(prop::collection::btree_map(
            "[a-z_]{1,6}",
            arbitrary_json(),
            0..3,
        )),
        any::<bool>(),
    );
    let mut runner = TestRunner::new(Config::with_cases(128));
    runner
        .run(&strategy, |(method, params, use_modern)| {
            let mut guard = clients.lock().unwrap();
            let (legacy, modern) = &mut *guard;
            let mut params = params.map(|p| Value::Object(p.into_iter().collect()));
            let client = if use_modern {
                if let Some(Value::Object(map)) = &mut params {
                    map.insert("_meta".to_owned(), mcp_server_support::modern_meta());
                }
                modern
            } else {
                legacy
            };
            let response = rt.block_on(client.request(json!(1), method, params));
            prop_assert_eq!(&response["jsonrpc"], "2.0");
            if let Some(error) = response.get("error") {
                let code = error["code"].as_i64().unwrap_or_default();
                prop_assert!(
                    [-32600, -32601, -32602, -32002].contains(&code),
                    "{} -> {}",
                    method,
                    response
                );
            } else {
                prop_assert!(response["result"].is_object(), "{}", response);
            }
            Ok(())
        })
        .unwrap();
}
