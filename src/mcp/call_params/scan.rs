//! A 2026-07-28 `tools/call` read straight from its params' text, in the walk that delimits
//! their members: no `Value` of the params is built, and of `_meta` only the client
//! capabilities become a value (the version is borrowed from the text, `clientInfo` is checked
//! and dropped, the log level and progress token are read into their types).
//!
//! Only params of the shape clients write are read here: `name` a string, `arguments` an
//! object, `_meta` holding nothing but the members [`RequestMeta`] names, `clientInfo`
//! nothing but string members, none of these repeated, and no string the scan does not decode
//! holding an escape. For those, every check the generated validator makes is made here (the
//! rest of the params' text is read by `serde_json`, so text it refuses is refused), and the
//! call is the one [`decode_modern_call`](super::decode_modern_call) gives for the params'
//! `Value`. Anything else gives `None`, and the request takes that path, whose errors stay
//! the errors of the validator (a property test, `one_pass_tests`, checks both agree).
//!
//! [`RequestMeta`]: crate::generated::protocol::RequestMeta

use serde_json::{Map, Value};

use super::{ModernCall, CAPABILITIES_KEY, LOG_LEVEL_KEY};
use crate::generated::protocol::{validate, LoggingLevel, ProgressToken};
use crate::jsonrpc::members::for_each_member;
use crate::jsonrpc::text_to_value;
use crate::mcp::era::PROTOCOL_VERSION_KEY;

/// A call read by [`scan`]: the protocol version it names, for the era gate, and the call.
#[derive(Debug, PartialEq)]
pub(crate) struct Scanned<'a> {
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, as written (it has no escape).
    pub(crate) version: &'a str,
    /// The call, as [`decode_modern_call`](super::decode_modern_call) gives it.
    pub(crate) call: ModernCall,
}

/// The call `params` (checked JSON, as a `RawValue` holds it) make, when they have the usual
/// shape (see the module's comment); `None` otherwise.
pub(crate) fn scan(params: &str) -> Option<Scanned<'_>> {
    // The walk only delimits `name`, `arguments` and `_meta`: params without a `_meta` of
    // the usual shape (a 2025 call) are given up before anything is decoded or allocated.
    let (mut name, mut arguments, mut meta) = (None, None, None);
    let mut extra = Vec::new();
    for_each_member(params, |key, raw| match key {
        "name" => once(&mut name, raw),
        "arguments" => once(&mut arguments, raw),
        "_meta" => once(&mut meta, raw),
        _ => {
            extra.push((key.to_owned(), raw));
            Some(())
        }
    })?;
    let meta = read_meta(meta?)?;
    let name = decoded_string(name?)?;
    let arguments = match arguments.map(text_to_value) {
        None => None,
        Some(Ok(Value::Object(map))) => Some(map),
        Some(_) => return None,
    };
    // A repeated member keeps its last value, as in the params' `Value`.
    let mut members = Map::new();
    for (key, raw) in extra {
        let _previous = members.insert(key, text_to_value(raw).ok()?);
    }
    Some(Scanned {
        version: meta.version,
        call: ModernCall {
            name,
            arguments,
            capabilities: meta.capabilities,
            log_level: meta.log_level,
            progress_token: meta.progress_token,
            extra: members,
        },
    })
}

/// What a call uses of its `_meta`.
struct Meta<'a> {
    version: &'a str,
    capabilities: Value,
    log_level: Option<LoggingLevel>,
    progress_token: Option<ProgressToken>,
}

/// `_meta` of the usual shape: the version and the capabilities present, the capabilities
/// valid, and nothing but the members the schema names, each once.
fn read_meta(raw: &str) -> Option<Meta<'_>> {
    let mut version = None;
    let mut capabilities = None;
    let mut info = None;
    let mut log_level = None;
    let mut progress_token = None;
    for_each_member(raw, |key, raw| match key {
        PROTOCOL_VERSION_KEY => once(&mut version, unescaped_string(raw)?),
        CAPABILITIES_KEY => {
            let value @ Value::Object(_) = text_to_value(raw).ok()? else {
                return None;
            };
            validate::client_capabilities(&value).ok()?;
            once(&mut capabilities, value)
        }
        "io.modelcontextprotocol/clientInfo" => {
            once(&mut info, ())?;
            client_info_valid(raw).then_some(())
        }
        LOG_LEVEL_KEY => once(&mut log_level, serde_json::from_str(raw).ok()?),
        "progressToken" => once(&mut progress_token, token(raw)?),
        _ => None,
    })?;
    Some(Meta {
        version: version?,
        capabilities: capabilities?,
        log_level,
        progress_token,
    })
}

/// Whether `clientInfo` is an object of string members among those the schema names (all
/// of which are strings), `name` and `version` (the required ones) included, no string
/// holding an escape (the scan does not decode it).
fn client_info_valid(raw: &str) -> bool {
    let (mut name, mut version) = (false, false);
    for_each_member(raw, |key, raw| {
        unescaped_string(raw)?;
        match key {
            "name" => name = true,
            "version" => version = true,
            "title" | "description" => {}
            _ => return None,
        }
        Some(())
    })
    .is_some()
        && name
        && version
}

/// A progress token: a string, or a number that is an `i64` (as the hand path takes it).
fn token(raw: &str) -> Option<ProgressToken> {
    if raw.starts_with('"') {
        return decoded_string(raw).map(ProgressToken::String);
    }
    match text_to_value(raw).ok()? {
        Value::Number(number) => number.as_i64().map(ProgressToken::Integer),
        _ => None,
    }
}

/// The text of a JSON string without escapes, borrowed; `None` for any other value.
fn unescaped_string(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains('\\')).then_some(inner)
}

/// The decoded text of a JSON string; `None` for any other value, and for a string
/// `serde_json` refuses (a lone surrogate escape).
fn decoded_string(raw: &str) -> Option<String> {
    match unescaped_string(raw) {
        Some(text) => Some(text.to_owned()),
        None if raw.starts_with('"') => serde_json::from_str(raw).ok(),
        None => None,
    }
}

/// Fills `slot`; `None` when it is already filled (a member written twice).
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    match slot {
        Some(_) => None,
        None => {
            *slot = Some(value);
            Some(())
        }
    }
}
