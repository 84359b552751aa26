//! The params of `tools/call`, taken apart by hand once validated.
//!
//! [`decode_owned`](super::params::decode_owned) hands the validated value to the generated
//! type's `Deserialize`; for `tools/call` that rebuilds the `arguments` map entry by entry
//! (serde visits the map and inserts every member into a new one) and walks the `extra`
//! members through serde's flatten buffer. Here the value has already passed the generated
//! validator, so `name` is a string and `arguments`, when present, an object: both are moved
//! out as they are, and only `_meta` goes through serde. Anything else (a value the
//! validator let through in another shape) takes the generic decode, so the result is
//! always what `Deserialize` gives (a test checks both agree).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::era::PROTOCOL_VERSION_KEY;
use super::params::{decode_owned, decode_validated, validate, Validator};
use crate::generated::protocol::{
    CallToolRequestParams, LegacyCallToolRequestParams, LegacyRequestMeta, LoggingLevel,
    ProgressToken, RequestMeta,
};
use crate::jsonrpc::ErrorObject;

/// A `tools/call` params type built from its parts.
pub(crate) trait CallParams: serde::de::DeserializeOwned {
    /// The type of its `_meta`.
    type Meta;

    /// The `_meta` member decoded (read, not taken: on `None` the members are unchanged and
    /// the caller takes the generic decode).
    fn meta(members: &Map<String, Value>) -> Option<Self::Meta>;

    /// The params from their parts; `rest` holds the other members (`_meta` removed).
    fn assemble(
        name: String,
        arguments: Option<Map<String, Value>>,
        meta: Self::Meta,
        rest: Map<String, Value>,
    ) -> Self;
}

impl CallParams for LegacyCallToolRequestParams {
    type Meta = Option<LegacyRequestMeta>;

    fn meta(members: &Map<String, Value>) -> Option<Self::Meta> {
        match members.get("_meta") {
            None => Some(None),
            Some(meta) => LegacyRequestMeta::deserialize(meta).ok().map(Some),
        }
    }

    fn assemble(
        name: String,
        arguments: Option<Map<String, Value>>,
        meta: Self::Meta,
        rest: Map<String, Value>,
    ) -> Self {
        // Every field named: a member added to the schema does not compile until taken here.
        Self {
            arguments,
            meta,
            name,
            extra: rest,
        }
    }
}

impl CallParams for CallToolRequestParams {
    type Meta = RequestMeta;

    fn meta(members: &Map<String, Value>) -> Option<Self::Meta> {
        RequestMeta::deserialize(members.get("_meta")?).ok()
    }

    fn assemble(
        name: String,
        arguments: Option<Map<String, Value>>,
        meta: Self::Meta,
        rest: Map<String, Value>,
    ) -> Self {
        Self {
            arguments,
            meta,
            name,
            extra: rest,
        }
    }
}

/// Validates `tools/call` params with `validator`, then takes them apart by hand (see the
/// module's comment); the same errors and the same value as
/// [`decode_owned`](super::params::decode_owned).
pub(crate) fn decode_call<T: CallParams>(
    method: &str,
    params: Option<Value>,
    validator: Validator,
) -> Result<T, ErrorObject<'static>> {
    let Some(value) = params else {
        return decode_owned(method, None, validator);
    };
    validate(method, &value, validator)?;
    decode_call_validated(method, value)
}

/// [`decode_call`] of params that passed their validator.
fn decode_call_validated<T: CallParams>(
    method: &str,
    value: Value,
) -> Result<T, ErrorObject<'static>> {
    // Any other shape (the validator has run: not decoded twice) takes the generic decode.
    let Value::Object(members) = value else {
        return decode_validated(method, value);
    };
    let shaped = matches!(members.get("name"), Some(Value::String(_)))
        && matches!(members.get("arguments"), None | Some(Value::Object(_)));
    let meta = if shaped { T::meta(&members) } else { None };
    let Some(meta) = meta else {
        return decode_validated(method, Value::Object(members));
    };
    // One pass over the members by value: `name` and `arguments` moved out, `_meta`
    // (decoded above) set aside, the rest kept. Cheaper than removing the three (a search, a
    // rebalance and a key's free each: 758 instructions a call, against ~400).
    let mut name = None;
    let mut arguments = None;
    let mut meta_member = None;
    let mut rest = Map::new();
    for (key, value) in members {
        match (key.as_str(), value) {
            ("name", Value::String(text)) => name = Some(text),
            ("arguments", Value::Object(map)) => arguments = Some(map),
            ("_meta", value) => meta_member = Some(value),
            (_, value) => {
                let _absent = rest.insert(key, value);
            }
        }
    }
    let Some(name) = name else {
        // Not a string after all (checked above): put back and decoded generically.
        if let Some(map) = arguments {
            let _absent = rest.insert("arguments".to_owned(), Value::Object(map));
        }
        if let Some(value) = meta_member {
            let _absent = rest.insert("_meta".to_owned(), value);
        }
        return decode_validated(method, Value::Object(rest));
    };
    Ok(T::assemble(name, arguments, meta, rest))
}

/// What the dispatcher uses of a 2026-07-28 `tools/call`: the tool, its arguments, the
/// members of `_meta` that steer the call, and the other members (`inputResponses`,
/// `requestState`). The name is borrowed from the params' text when the scan reads it there
/// (`'a`), owned when it comes from a `Value`.
#[derive(Debug, PartialEq)]
pub(crate) struct ModernCall<'a> {
    /// `name`.
    pub(crate) name: Cow<'a, str>,
    /// `arguments`, when present.
    pub(crate) arguments: Option<Map<String, Value>>,
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]`, as the typed
    /// [`ClientCapabilities`](crate::generated::protocol::ClientCapabilities) serializes it.
    pub(crate) capabilities: Value,
    /// `_meta["io.modelcontextprotocol/logLevel"]`.
    pub(crate) log_level: Option<LoggingLevel>,
    /// `_meta.progressToken`.
    pub(crate) progress_token: Option<ProgressToken>,
    /// Every other member of the params.
    pub(crate) extra: Map<String, Value>,
}

impl ModernCall<'static> {
    /// From the generated type (the reference the hand path agrees with).
    fn from_typed(params: CallToolRequestParams) -> Self {
        let meta = params.meta;
        Self {
            name: Cow::Owned(params.name),
            arguments: params.arguments,
            capabilities: serde_json::to_value(&meta.io_modelcontextprotocol_client_capabilities)
                .unwrap_or_default(),
            log_level: meta.io_modelcontextprotocol_log_level,
            progress_token: meta.progress_token,
            extra: params.extra,
        }
    }
}

/// Validates 2026-07-28 `tools/call` params, then takes them apart by value in one pass over
/// their members and one over `_meta`'s: the client capabilities are moved out as the client
/// sent them (the validator has checked them against their schema, so they are what the
/// typed value serializes to), nothing of `_meta` is copied, and `clientInfo` and the
/// version (which the era gate has read) are dropped. Params of any other shape take the
/// typed decode, so the result is always [`ModernCall::from_typed`]'s (a property test checks
/// both agree).
pub(crate) fn decode_modern_call(
    method: &str,
    params: Option<Value>,
    validator: Validator,
) -> Result<ModernCall<'static>, ErrorObject<'static>> {
    let Some(value) = params else {
        return decode_call(method, None, validator).map(ModernCall::from_typed);
    };
    validate(method, &value, validator)?;
    match take_apart(value) {
        Ok(call) => Ok(call),
        Err(value) => decode_call_validated(method, value).map(ModernCall::from_typed),
    }
}

/// The members of `_meta` whose shape the hand path checks before moving anything.
fn meta_shaped(meta: &Map<String, Value>) -> bool {
    let token_shaped = match meta.get("progressToken") {
        None | Some(Value::String(_)) => true,
        Some(Value::Number(number)) => number.as_i64().is_some(),
        Some(_) => false,
    };
    token_shaped
        && matches!(meta.get(PROTOCOL_VERSION_KEY), Some(Value::String(_)))
        && matches!(meta.get(CAPABILITIES_KEY), Some(Value::Object(_)))
        && meta
            .get(LOG_LEVEL_KEY)
            .is_none_or(|level| LoggingLevel::deserialize(level).is_ok())
}

const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// The hand path of [`decode_modern_call`]; the value back when its shape is not the usual
/// one.
fn take_apart(value: Value) -> Result<ModernCall<'static>, Value> {
    let Value::Object(members) = value else {
        return Err(value);
    };
    let shaped = matches!(members.get("name"), Some(Value::String(_)))
        && matches!(members.get("arguments"), None | Some(Value::Object(_)))
        && matches!(members.get("_meta"), Some(Value::Object(meta)) if meta_shaped(meta));
    if !shaped {
        return Err(Value::Object(members));
    }
    let mut name = String::new();
    let mut arguments = None;
    let mut meta = Map::new();
    let mut extra = Map::new();
    for (key, value) in members {
        match (key.as_str(), value) {
            ("name", Value::String(text)) => name = text,
            ("arguments", Value::Object(map)) => arguments = Some(map),
            ("_meta", Value::Object(map)) => meta = map,
            (_, value) => {
                let _absent = extra.insert(key, value);
            }
        }
    }
    let mut capabilities = Value::Null;
    let mut log_level = None;
    let mut progress_token = None;
    for (key, value) in meta {
        match (key.as_str(), value) {
            (CAPABILITIES_KEY, value) => capabilities = value,
            (LOG_LEVEL_KEY, value) => log_level = LoggingLevel::deserialize(&value).ok(),
            ("progressToken", Value::String(token)) => {
                progress_token = Some(ProgressToken::String(token));
            }
            ("progressToken", Value::Number(number)) => {
                progress_token = number.as_i64().map(ProgressToken::Integer);
            }
            _ => {}
        }
    }
    Ok(ModernCall {
        name: Cow::Owned(name),
        arguments,
        capabilities,
        log_level,
        progress_token,
        extra,
    })
}

pub(crate) mod scan;

#[cfg(test)]
mod one_pass_tests;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::generated::protocol::validate;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(|n| json!(n)),
            "\\PC{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z_]{0,4}", inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    /// A member that is usually well formed, sometimes of another type, sometimes absent.
    fn member(good: BoxedStrategy<Value>) -> impl Strategy<Value = Option<Value>> {
        prop_oneof![
            6 => good.prop_map(Some),
            1 => json_value().prop_map(Some),
            1 => Just(None),
        ]
    }

    fn legacy_meta() -> BoxedStrategy<Value> {
        (
            prop::option::of(prop_oneof![
                "\\PC{0,6}".prop_map(Value::from),
                any::<i64>().prop_map(Value::from),
                Just(json!(1.5)),
            ]),
            prop::collection::btree_map("[a-z]{1,3}", json_value(), 0..3),
        )
            .prop_map(|(token, extra)| {
                let mut meta: Map<String, Value> = extra.into_iter().collect();
                if let Some(token) = token {
                    let _absent = meta.insert("progressToken".to_owned(), token);
                }
                Value::Object(meta)
            })
            .boxed()
    }

    fn modern_meta() -> BoxedStrategy<Value> {
        (
            prop::option::of(prop_oneof![Just(json!("debug")), Just(json!("loud"))]),
            prop::option::of(Just(json!({"name": "c", "version": "1"}))),
            prop_oneof![
                Just(json!({})),
                Just(json!({"sampling": {}})),
                Just(json!(3))
            ],
            prop_oneof![Just(json!("2026-07-28")), Just(json!(7))],
            legacy_meta(),
        )
            .prop_map(|(level, info, capabilities, version, base)| {
                let Value::Object(mut meta) = base else {
                    return base;
                };
                let mut put = |key: &str, value: Option<Value>| {
                    if let Some(value) = value {
                        let _previous = meta.insert(key.to_owned(), value);
                    }
                };
                put("io.modelcontextprotocol/logLevel", level);
                put("io.modelcontextprotocol/clientInfo", info);
                put(
                    "io.modelcontextprotocol/clientCapabilities",
                    Some(capabilities),
                );
                put("io.modelcontextprotocol/protocolVersion", Some(version));
                Value::Object(meta)
            })
            .boxed()
    }

    fn params(meta: BoxedStrategy<Value>) -> impl Strategy<Value = Option<Value>> {
        let arguments = prop::collection::btree_map("[a-z]{0,3}", json_value(), 0..4)
            .prop_map(|map| Value::Object(map.into_iter().collect()))
            .boxed();
        let members = (
            member("\\PC{0,6}".prop_map(Value::from).boxed()),
            member(arguments),
            member(meta),
            prop::collection::btree_map("[a-z]{1,3}", json_value(), 0..3),
        )
            .prop_map(|(name, arguments, meta, extra)| {
                let mut params: Map<String, Value> = extra.into_iter().collect();
                for (key, value) in [("name", name), ("arguments", arguments), ("_meta", meta)] {
                    if let Some(value) = value {
                        let _previous = params.insert(key.to_owned(), value);
                    }
                }
                Value::Object(params)
            });
        prop_oneof![
            10 => members.prop_map(Some),
            1 => json_value().prop_map(Some),
            1 => Just(None),
        ]
    }

    /// `decode_call` and the generic decode give equal values, or equal errors.
    fn agree<T: CallParams + PartialEq + std::fmt::Debug>(
        params: Option<Value>,
        validator: Validator,
    ) -> Result<(), TestCaseError> {
        let by_hand = decode_call::<T>("tools/call", params.clone(), validator);
        let generic = decode_owned::<T>("tools/call", params, validator);
        match (by_hand, generic) {
            (Ok(by_hand), Ok(generic)) => prop_assert_eq!(by_hand, generic),
            (Err(by_hand), Err(generic)) => {
                prop_assert_eq!(by_hand.code, generic.code);
                prop_assert_eq!(by_hand.message, generic.message);
                let text = |data: Option<std::borrow::Cow<'_, serde_json::value::RawValue>>| {
                    data.map(|data| data.get().to_owned())
                };
                prop_assert_eq!(text(by_hand.data), text(generic.data));
            }
            (by_hand, generic) => {
                prop_assert!(false, "by hand {by_hand:?}, generic {generic:?}");
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn legacy_params_decode_as_serde_decodes_them(params in params(legacy_meta())) {
            agree::<LegacyCallToolRequestParams>(
                params,
                validate::legacy_call_tool_request_params,
            )?;
        }

        #[test]
        fn modern_params_decode_as_serde_decodes_them(params in params(modern_meta())) {
            agree::<CallToolRequestParams>(params, validate::call_tool_request_params)?;
        }
    }

    #[test]
    fn the_arguments_and_the_other_members_are_kept() {
        let params = json!({
            "name": "echo",
            "arguments": {"text": "hi", "n": [1, 2]},
            "_meta": {"progressToken": 7, "x": true},
            "other": {"k": null}
        });
        let decoded: LegacyCallToolRequestParams = decode_call(
            "tools/call",
            Some(params),
            validate::legacy_call_tool_request_params,
        )
        .unwrap();
        assert_eq!(decoded.name, "echo");
        assert_eq!(
            Value::Object(decoded.arguments.unwrap()),
            json!({"text": "hi", "n": [1, 2]})
        );
        assert_eq!(decoded.extra.get("other"), Some(&json!({"k": null})));
        assert!(decoded.extra.get("_meta").is_none());
        let meta = serde_json::to_value(decoded.meta.unwrap()).unwrap();
        assert_eq!(meta, json!({"progressToken": 7, "x": true}));
    }
}
