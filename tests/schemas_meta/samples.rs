//! Sample instances for every definition (each with at least one valid and one invalid
//! instance), and property tests of the invariants the schemas promise.

use std::sync::LazyLock;

use jsonschema::Validator;
use proptest::prelude::*;
use serde_json::{json, Value};

use super::{def_validator, defs, schema_file, schema_files};

/// Instances of one definition with the verdict each must get.
struct Samples {
    file: &'static str,
    def: &'static str,
    valid: Vec<Value>,
    invalid: Vec<Value>,
}

fn samples(
    file: &'static str,
    def: &'static str,
    valid: Vec<Value>,
    invalid: Vec<Value>,
) -> Samples {
    Samples {
        file,
        def,
        valid,
        invalid,
    }
}

fn request() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
}

fn notification() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

fn result_response() -> Value {
    json!({"jsonrpc": "2.0", "id": "a", "result": {}})
}

fn error_response() -> Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}})
}

fn tool_error() -> Value {
    json!({"code": "TOOL_TIMEOUT", "message": "timed out", "retryable": true})
}

fn jsonrpc_samples() -> Vec<Samples> {
    vec![
        samples(
            "jsonrpc.json",
            "RequestId",
            vec![
                json!("abc"),
                json!(7),
                json!(""),
                json!(-1),
                json!(i64::MAX),
            ],
            vec![json!(null), json!(1.5), json!(true), json!([1]), json!({})],
        ),
        samples(
            "jsonrpc.json",
            "Request",
            vec![
                request(),
                json!({"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "t"}}),
                json!({"jsonrpc": "2.0", "id": 2, "method": "sum", "params": [1, 2]}),
            ],
            vec![
                json!({"jsonrpc": "2.0", "method": "tools/list"}),
                json!({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}),
                json!({"jsonrpc": "2.0", "id": null, "method": "tools/list"}),
                json!({"jsonrpc": "2.0", "id": 1, "method": "m", "params": "text"}),
                json!({"jsonrpc": "2.0", "id": 1, "method": 5}),
                json!({"jsonrpc": "2.0", "id": 1, "method": "m", "result": {}}),
                json!([request()]),
            ],
        ),
        samples(
            "jsonrpc.json",
            "Notification",
            vec![
                notification(),
                json!({"jsonrpc": "2.0", "method": "n", "params": {}}),
            ],
            vec![
                json!({"jsonrpc": "2.0", "id": 1, "method": "n"}),
                json!({"jsonrpc": "2.0"}),
                json!({"method": "n"}),
                json!({"jsonrpc": "2.0", "method": "n", "params": 3}),
            ],
        ),
        samples(
            "jsonrpc.json",
            "ResultResponse",
            vec![
                result_response(),
                json!({"jsonrpc": "2.0", "id": 0, "result": {"tools": []}}),
            ],
            vec![
                json!({"jsonrpc": "2.0", "id": 1, "result": 42}),
                json!({"jsonrpc": "2.0", "id": 1, "result": null}),
                json!({"jsonrpc": "2.0", "result": {}}),
                json!({"jsonrpc": "2.0", "id": null, "result": {}}),
                json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}}),
            ],
        ),
        samples(
            "jsonrpc.json",
            "ErrorResponse",
            vec![
                error_response(),
                json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "m", "data": [1]}}),
            ],
            vec![
                json!({"jsonrpc": "2.0", "error": {"code": -32603, "message": "m"}}),
                json!({"jsonrpc": "2.0", "id": 1, "error": {"message": "m"}}),
                json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1.5, "message": "m"}}),
                json!({"jsonrpc": "2.0", "id": 1.5, "error": {"code": 1, "message": "m"}}),
                json!({"jsonrpc": "2.0", "id": true, "error": {"code": 1, "message": "m"}}),
                json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}}),
            ],
        ),
        samples(
            "jsonrpc.json",
            "ErrorObject",
            vec![
                json!({"code": -32603, "message": "Internal error"}),
                json!({"code": 42, "message": "custom", "data": {"why": "x"}}),
            ],
            vec![
                json!({"code": "-32603", "message": "m"}),
                json!({"code": -32603}),
                json!({"code": -32603, "message": "m", "details": {}}),
            ],
        ),
        samples(
            "jsonrpc.json",
            "Message",
            vec![
                request(),
                notification(),
                result_response(),
                error_response(),
            ],
            vec![
                json!({"jsonrpc": "2.0"}),
                json!({"jsonrpc": "2.0", "id": 1}),
                json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}}),
                json!([request()]),
            ],
        ),
        samples(
            "jsonrpc.json",
            "Batch",
            vec![json!([request()]), json!([request(), notification()])],
            vec![
                json!([]),
                json!([result_response()]),
                json!(request()),
                json!([1]),
            ],
        ),
        samples(
            "jsonrpc.json",
            "BatchResponse",
            vec![json!([result_response(), error_response()])],
            vec![json!([]), json!([request()]), json!(result_response())],
        ),
    ]
}

fn error_samples() -> Vec<Samples> {
    vec![
        samples(
            "errors.json",
            "JsonRpcErrorCode",
            vec![
                json!(-32700),
                json!(-32600),
                json!(-32601),
                json!(-32602),
                json!(-32603),
            ],
            vec![json!(-32000), json!(0), json!("-32700"), json!(-32020)],
        ),
        samples(
            "errors.json",
            "McpErrorCode",
            vec![json!(-32020), json!(-32021), json!(-32022), json!(-32002)],
            vec![json!(-32603), json!(-32023), json!("HEADER_MISMATCH")],
        ),
        samples(
            "errors.json",
            "UnsupportedProtocolVersionData",
            vec![json!({"requested": "1999-01-01", "supported": ["2026-07-28", "2025-11-25"]})],
            vec![
                json!({"requested": "x"}),
                json!({"requested": "x", "supported": "y"}),
                json!({"requested": "x", "supported": [1]}),
            ],
        ),
        samples(
            "errors.json",
            "MissingRequiredClientCapabilityData",
            vec![json!({"requiredCapabilities": {"sampling": {}}})],
            vec![json!({}), json!({"requiredCapabilities": true})],
        ),
        samples(
            "errors.json",
            "ToolErrorCode",
            vec![
                json!("TOOL_TIMEOUT"),
                json!("INTERNAL"),
                json!("VALIDATION_FAILED"),
            ],
            vec![json!("tool_timeout"), json!("INVALID_ARGUMENTS"), json!(1)],
        ),
        samples(
            "errors.json",
            "ValidationError",
            vec![
                json!({"path": "", "keyword": "type", "message": "expected an object"}),
                json!({"path": "/a~1b/m~0n/0", "schemaPath": "/properties/a/maxItems", "keyword": "maxItems",
                       "limit": 3, "actual": 5, "message": "too many items"}),
            ],
            vec![
                json!({"path": "a/b", "keyword": "type", "message": "m"}),
                json!({"path": "/a~2", "keyword": "type", "message": "m"}),
                json!({"path": "/a~", "keyword": "type", "message": "m"}),
                json!({"path": "", "message": "m"}),
                json!({"path": "", "keyword": "", "message": "m"}),
                json!({"path": "", "keyword": "type", "message": "m", "value": 1}),
            ],
        ),
        samples(
            "errors.json",
            "ToolError",
            vec![
                tool_error(),
                json!({"code": "VALIDATION_FAILED", "message": "bad", "retryable": false, "details": {},
                       "validationErrors": [{"path": "/x", "keyword": "type", "message": "m"}]}),
            ],
            vec![
                json!({"code": "NOPE", "message": "m", "retryable": false}),
                json!({"code": "INTERNAL", "message": "m"}),
                json!({"code": "INTERNAL", "message": "m", "retryable": false, "validationErrors": []}),
                json!({"code": "INTERNAL", "message": "m", "retryable": false, "details": "x"}),
                json!({"code": "INTERNAL", "message": "m", "retryable": "no"}),
                json!({"code": "INTERNAL", "message": "m", "retryable": false, "stack": "..."}),
            ],
        ),
        samples(
            "errors.json",
            "ResultMeta",
            vec![
                json!({"durationMs": 0}),
                json!({"durationMs": 12, "truncated": true, "cached": false, "originalSizeBytes": 2_000_000}),
            ],
            vec![
                json!({}),
                json!({"durationMs": -1}),
                json!({"durationMs": 1.5}),
                json!({"durationMs": 1, "originalSizeBytes": -3}),
                json!({"durationMs": 1, "cachedAt": 5}),
            ],
        ),
        samples(
            "errors.json",
            "ToolSuccess",
            vec![
                json!({"ok": true, "data": null}),
                json!({"ok": true, "data": [1], "meta": {"durationMs": 1}}),
            ],
            vec![
                json!({"ok": false, "data": 1}),
                json!({"ok": true}),
                json!({"ok": true, "data": 1, "meta": {}}),
            ],
        ),
        samples(
            "errors.json",
            "ToolFailure",
            vec![json!({"ok": false, "error": tool_error()})],
            vec![
                json!({"ok": true, "error": tool_error()}),
                json!({"ok": false}),
                json!({"ok": false, "error": {}}),
            ],
        ),
        samples(
            "errors.json",
            "ToolResultEnvelope",
            vec![
                json!({"ok": true, "data": {"n": 1}}),
                json!({"ok": false, "error": tool_error()}),
            ],
            vec![
                json!({"ok": true, "error": tool_error()}),
                json!({"ok": false, "data": 1}),
                json!({"ok": "true", "data": 1}),
                json!({"ok": true, "data": 1, "error": tool_error()}),
            ],
        ),
    ]
}

fn limits_samples() -> Vec<Samples> {
    vec![
        samples(
            "limits.json",
            "Limits",
            vec![
                json!({}),
                json!({"cache": {}, "timeouts": {}, "response": {}, "request": {}}),
                json!({"cache": {"ttlMs": 1000, "evictionPolicy": "fifo"}, "request": {"maxLineBytes": 16_777_216}}),
            ],
            vec![
                json!({"cache": {"ttlMs": -5}}),
                json!({"caches": {}}),
                json!({"cache": {"evictionPolicy": "random"}}),
                json!({"request": {"maxDepth": 500}}),
                json!({"timeouts": {"toolOverrides": {"slow_tool": 0}}}),
                json!({"timeouts": {"defaultTimeoutMs": 86_400_001}}),
                json!([]),
            ],
        ),
        samples(
            "limits.json",
            "CacheLimits",
            vec![
                json!({}),
                json!({"highWaterMark": 100, "maxEntries": 1, "maxSizeBytes": 1}),
                json!({"store": "redis", "redisUrl": "redis://user:pw@10.0.0.7:6380/2", "redisTimeoutMs": 10000, "redisKeyPrefix": ""}),
                json!({"store": "redis", "redisUrl": "rediss://cache.example:6380"}),
                json!({"store": "redis", "redisUrl": "redis+sentinel://10.0.0.7:26379,10.0.0.8:26379/mymaster/1"}),
            ],
            vec![
                json!({"store": "redis", "redisUrl": "http://127.0.0.1:6379"}),
                json!({"redisUrl": "redis://a b"}),
                json!({"redisUrl": "rediss+sentinel://10.0.0.7:26379/mymaster"}),
                json!({"redisTimeoutMs": 0}),
                json!({"redisTimeoutMs": 10001}),
                json!({"highWaterMark": 0}),
                json!({"highWaterMark": 101}),
                json!({"maxSizeBytes": 0}),
                json!({"ttlMs": 1.5}),
                json!({"cleanupIntervalMs": 0}),
            ],
        ),
        samples(
            "limits.json",
            "CacheStoreKind",
            vec![json!("memory"), json!("redis")],
            vec![json!("Redis"), json!("memcached"), json!(null)],
        ),
        samples(
            "limits.json",
            "TaskLimits",
            vec![
                json!({}),
                json!({"ttlMs": 1, "pollIntervalMs": 3_600_000}),
                json!({"store": "redis", "redisUrl": "redis+sentinel://10.0.0.7:26379/mymaster", "redisTimeoutMs": 10000, "redisKeyPrefix": ""}),
            ],
            vec![
                json!({"store": "redis", "redisUrl": "http://127.0.0.1:6379"}),
                json!({"ttlMs": 0}),
                json!({"ttlMs": 2_592_000_001_u64}),
                json!({"pollIntervalMs": 0}),
                json!({"redisTimeoutMs": 10001}),
                json!({"cleanupIntervalMs": 1000}),
            ],
        ),
        samples(
            "limits.json",
            "TaskStoreKind",
            vec![json!("memory"), json!("redis")],
            vec![json!("Redis"), json!("file"), json!(null)],
        ),
        samples(
            "limits.json",
            "SessionStoreKind",
            vec![json!("memory"), json!("redis")],
            vec![json!("Redis"), json!("sticky"), json!(null)],
        ),
        samples(
            "limits.json",
            "EvictionPolicy",
            vec![json!("lru"), json!("lfu"), json!("fifo")],
            vec![json!("LRU"), json!("random"), json!(null)],
        ),
        samples(
            "limits.json",
            "TimeoutLimits",
            vec![
                json!({"defaultTimeoutMs": 1, "toolTimeouts": {"io": 5000}, "toolCategories": {"read": "io"}}),
            ],
            vec![
                json!({"toolCategories": {"read": ""}}),
                json!({"toolCategories": {"read": 3}}),
                json!({"toolTimeouts": {"io": "5s"}}),
                json!({"defaultTimeoutMs": 0}),
            ],
        ),
        samples(
            "limits.json",
            "ResponseLimits",
            vec![
                json!({}),
                json!({"maxResponseBytes": 1024}),
                json!({"maxQueuedBytes": 65536}),
            ],
            vec![
                json!({"maxResponseBytes": 1023}),
                json!({"maxResponseBytes": 0}),
                json!({"maxQueuedBytes": 65535}),
                json!({"maxQueuedBytes": 1_073_741_825_u64}),
                json!({"maxBytes": 5}),
            ],
        ),
        samples(
            "limits.json",
            "RequestLimits",
            vec![json!({"maxLineBytes": 16_777_216, "maxDepth": 8, "toolArrayLimits": {"t": 1}})],
            vec![
                json!({"maxDepth": 7}),
                json!({"maxDepth": 129}),
                json!({"maxArraySize": 0}),
                json!({"toolArrayLimits": {"t": -1}}),
            ],
        ),
        samples(
            "limits.json",
            "HttpLimits",
            vec![
                json!({}),
                json!({"maxSessions": 1, "sessionIdleTimeoutMs": 1000, "sseReplayEvents": 0, "sseRetryMs": 1,
                       "allowedHosts": ["mcp.example:443"], "allowedOrigins": ["https://app.example"]}),
            ],
            vec![
                json!({"maxConcurrentRequests": 0}),
                json!({"sessionIdleTimeoutMs": 999}),
                json!({"sseKeepAliveMs": 99}),
                json!({"sseRetryMs": 0}),
                json!({"sseRetryMs": 600_001}),
                json!({"allowedHosts": [""]}),
                json!({"retryAfterSeconds": 3601}),
                json!({"unknown": 1}),
            ],
        ),
        samples(
            "limits.json",
            "ListLimits",
            vec![
                json!({}),
                json!({"pageSize": 1}),
                json!({"pageSize": 100_000}),
            ],
            vec![
                json!({"pageSize": 0}),
                json!({"pageSize": 100_001}),
                json!({"pageSize": "10"}),
                json!({"size": 10}),
            ],
        ),
        samples(
            "limits.json",
            "SecretLimits",
            vec![json!({}), json!({"keysFile": "/run/secrets/mcp-keys.json"})],
            vec![
                json!({"keysFile": ""}),
                json!({"keysFile": 1}),
                json!({"keys": [{"id": "k", "secret": "c2VjcmV0"}]}),
            ],
        ),
    ]
}

fn all_samples() -> Vec<Samples> {
    let mut all = jsonrpc_samples();
    all.extend(error_samples());
    all.extend(limits_samples());
    all
}

#[test]
fn every_definition_has_valid_and_invalid_samples() {
    let all = all_samples();
    let mut missing = Vec::new();
    for (file, root) in schema_files() {
        for def in defs(&root).keys() {
            let covered = all.iter().any(|s| {
                s.file == file && s.def == def && !s.valid.is_empty() && !s.invalid.is_empty()
            });
            if !covered {
                missing.push(format!("{file}#/$defs/{def}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "definitions without samples: {missing:?}"
    );
}

#[test]
fn samples_get_the_expected_verdict() {
    let mut wrong = Vec::new();
    for set in all_samples() {
        let validator = def_validator(set.file, set.def);
        for instance in &set.valid {
            if let Err(e) = validator.validate(instance) {
                wrong.push(format!("{}: {instance} should be valid: {e}", set.def));
            }
        }
        for instance in &set.invalid {
            if validator.is_valid(instance) {
                wrong.push(format!("{}: {instance} should be invalid", set.def));
            }
        }
    }
    assert!(wrong.is_empty(), "wrong verdicts:\n{}", wrong.join("\n"));
}

// ---- property tests -------------------------------------------------------------------------

static REQUEST_ID: LazyLock<Validator> =
    LazyLock::new(|| def_validator("jsonrpc.json", "RequestId"));
static VALIDATION_ERROR: LazyLock<Validator> =
    LazyLock::new(|| def_validator("errors.json", "ValidationError"));
static ENVELOPE: LazyLock<Validator> =
    LazyLock::new(|| def_validator("errors.json", "ToolResultEnvelope"));
static LIMITS: LazyLock<Validator> = LazyLock::new(|| def_validator("limits.json", "Limits"));
static MESSAGE: LazyLock<Validator> = LazyLock::new(|| def_validator("jsonrpc.json", "Message"));
static VARIANTS: LazyLock<Vec<(String, Validator)>> = LazyLock::new(|| {
    ["Request", "Notification", "ResultResponse", "ErrorResponse"]
        .iter()
        .map(|name| {
            (
                format!("#/$defs/{name}"),
                def_validator("jsonrpc.json", name),
            )
        })
        .collect()
});

/// The discriminator rules of `Message`: (members that must all be present, variant).
static MESSAGE_RULES: LazyLock<Vec<(Vec<String>, String)>> = LazyLock::new(|| {
    let root = schema_file("jsonrpc.json");
    defs(&root)["Message"]["x-discriminator"]["rules"]
        .as_array()
        .expect("Message declares discriminator rules")
        .iter()
        .map(|rule| {
            let has = rule["has"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect();
            (has, rule["variant"].as_str().unwrap().to_string())
        })
        .collect()
});

/// Escapes one token and joins it into a JSON Pointer.
fn pointer(tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// Any JSON value, small.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z]{0,4}".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3).prop_map(|m| json!(m)),
        ]
    })
}

/// An object made of any subset of the envelope members, each well-formed or not.
fn envelope_like() -> impl Strategy<Value = Value> {
    let member =
        |good: Value, bad: Value| prop_oneof![Just(None), Just(Some(good)), Just(Some(bad))];
    (
        member(json!("2.0"), json!("1.0")),
        member(json!(1), json!(1.5)),
        member(json!("tools/list"), json!(7)),
        member(json!({}), json!("p")),
        member(json!({}), json!(3)),
        member(
            json!({"code": -32600, "message": "m"}),
            json!({"code": "x"}),
        ),
    )
        .prop_map(|(jsonrpc, id, method, params, result, error)| {
            let mut object = serde_json::Map::new();
            let members = [
                ("jsonrpc", jsonrpc),
                ("id", id),
                ("method", method),
                ("params", params),
                ("result", result),
                ("error", error),
            ];
            for (key, value) in members {
                if let Some(value) = value {
                    object.insert(key.into(), value);
                }
            }
            Value::Object(object)
        })
}

proptest! {
    #[test]
    fn request_ids_accept_every_integer_and_string(n in any::<i64>(), s in ".*") {
        prop_assert!(REQUEST_ID.is_valid(&json!(n)));
        prop_assert!(REQUEST_ID.is_valid(&json!(s)));
    }

    #[test]
    fn request_ids_reject_fractions(f in any::<f64>().prop_filter("finite, not whole", |f| f.is_finite() && f.fract() != 0.0)) {
        prop_assert!(!REQUEST_ID.is_valid(&json!(f)));
    }

    #[test]
    fn escaped_pointers_are_valid_paths(tokens in prop::collection::vec(".*", 0..5)) {
        let error = json!({"path": pointer(&tokens), "keyword": "type", "message": "m"});
        prop_assert!(VALIDATION_ERROR.is_valid(&error));
    }

    #[test]
    fn paths_with_a_bad_escape_or_no_leading_slash_are_invalid(
        head in "[a-z]{0,3}", bad in "[^01]", tail in "[a-z/]{0,3}",
    ) {
        let bad_escape = json!({"path": format!("/{head}~{bad}{tail}"), "keyword": "k", "message": "m"});
        prop_assert!(!VALIDATION_ERROR.is_valid(&bad_escape));
        let relative = json!({"path": format!("x{head}/{tail}"), "keyword": "k", "message": "m"});
        prop_assert!(!VALIDATION_ERROR.is_valid(&relative));
    }

    #[test]
    fn tool_envelopes_are_discriminated_by_ok(ok in any::<bool>(), data in any_json()) {
        prop_assert_eq!(ENVELOPE.is_valid(&json!({"ok": ok, "data": data})), ok);
        let failure = json!({"ok": ok, "error": {"code": "INTERNAL", "message": "m", "retryable": false}});
        prop_assert_eq!(ENVELOPE.is_valid(&failure), !ok);
    }

    #[test]
    fn cache_ttl_is_valid_exactly_within_its_bounds(ttl in any::<i64>()) {
        let expected = (1..=2_592_000_000_i64).contains(&ttl);
        prop_assert_eq!(LIMITS.is_valid(&json!({"cache": {"ttlMs": ttl}})), expected);
    }

    #[test]
    fn message_variants_never_overlap_and_the_discriminator_finds_the_valid_one(object in envelope_like()) {
        let valid: Vec<&String> = VARIANTS.iter().filter(|(_, v)| v.is_valid(&object)).map(|(name, _)| name).collect();
        prop_assert!(valid.len() <= 1, "{} matches {:?}", object, valid);
        prop_assert_eq!(MESSAGE.is_valid(&object), valid.len() == 1);
        if let Some(only) = valid.first() {
            let chosen = MESSAGE_RULES
                .iter()
                .find(|(has, _)| has.iter().all(|m| object.get(m).is_some()))
                .map(|(_, variant)| variant);
            prop_assert_eq!(chosen, Some(*only), "discriminator picks the wrong variant for {}", object);
        }
    }
}
