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

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::{ModernCall, CAPABILITIES_KEY, LOG_LEVEL_KEY};
use crate::generated::protocol::{validate, LoggingLevel, ProgressToken};
use crate::jsonrpc::members::{
    skip_whitespace, unescaped_string_at, value_end, walk_object_expecting,
};
use crate::jsonrpc::params_index::{MetaMembers, ParamsIndex, ParamsMembers};
use crate::jsonrpc::quote_or_backslash;
use crate::jsonrpc::text_to_value;
use crate::mcp::era::PROTOCOL_VERSION_KEY;

/// A call read by [`scan`]: the protocol version it names, for the era gate, and the call.
#[derive(Debug, PartialEq)]
pub(crate) struct Scanned<'a> {
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, as written (it has no escape).
    pub(crate) version: &'a str,
    /// The call, as [`decode_modern_call`](super::decode_modern_call) gives it (its name
    /// borrowed from the params when written without an escape).
    pub(crate) call: ModernCall<'a>,
}

/// The call `params` (checked JSON, as a `RawValue` holds it) make, when they have the usual
/// shape (see the module's comment); `None` otherwise. `index`, when the frame's check
/// recorded one from these very params, tells where their members and `_meta`'s lie: they
/// are then read where they are, not found by a second walk of the text.
pub(crate) fn scan<'a>(params: &'a str, index: Option<&ParamsIndex>) -> Option<Scanned<'a>> {
    match index.and_then(|index| Some((index.members()?, index.meta()?))) {
        Some((members, meta)) => read_indexed(params, members, meta?),
        None => walk(params),
    }
}

/// [`scan`] by the index of the params' members and of `_meta`'s.
fn read_indexed<'a>(
    params: &'a str,
    members: &ParamsMembers,
    meta: &MetaMembers,
) -> Option<Scanned<'a>> {
    let (mut name, mut arguments, mut meta_seen) = (None, None, None);
    let mut extra = Vec::new();
    for member in members.iter() {
        if member.name_escaped {
            return None;
        }
        let value = member.value.of(params)?;
        match member.name.of(params)? {
            "_meta" => once(&mut meta_seen, ())?,
            "name" => once(&mut name, (value, member.value_escaped))?,
            "arguments" => once(&mut arguments, value)?,
            key => extra.push((key, value)),
        }
    }
    let meta = read_indexed_meta(params, meta)?;
    let arguments = match arguments.map(text_to_value) {
        None => None,
        Some(Ok(Value::Object(map))) => Some(map),
        Some(_) => return None,
    };
    let mut members = Map::new();
    for (key, raw) in extra {
        let _previous = members.insert(key.to_owned(), text_to_value(raw).ok()?);
    }
    Some(Scanned {
        version: meta.version,
        call: ModernCall {
            name: match name? {
                // A string without an escape (the check says so): its text, borrowed.
                (text, false) => Cow::Borrowed(text.strip_prefix('"')?.strip_suffix('"')?),
                (text, true) => name_of(text)?,
            },
            arguments,
            capabilities: meta.capabilities,
            log_level: meta.log_level,
            progress_token: meta.progress_token,
            extra: members,
        },
    })
}

/// [`read_meta`] by the index of `_meta`'s members.
fn read_indexed_meta<'a>(params: &'a str, members: &MetaMembers) -> Option<Meta<'a>> {
    let mut version = None;
    let mut capabilities = None;
    let mut info = None;
    let mut log_level = None;
    let mut progress_token = None;
    for member in members.iter() {
        if member.name_escaped {
            return None;
        }
        let text = member.value.of(params)?;
        match member.name.of(params)? {
            PROTOCOL_VERSION_KEY if !member.value_escaped => {
                let unquoted = text.strip_prefix('"')?.strip_suffix('"')?;
                once(&mut version, unquoted)?;
            }
            CAPABILITIES_KEY => once(&mut capabilities, capabilities_of(text)?)?,
            CLIENT_INFO_KEY => {
                once(&mut info, ())?;
                client_info_shaped(text).then_some(())?;
            }
            LOG_LEVEL_KEY => once(&mut log_level, serde_json::from_str(text).ok()?)?,
            PROGRESS_TOKEN_KEY => once(&mut progress_token, token(text)?)?,
            _ => return None,
        }
    }
    Some(Meta {
        version: version?,
        capabilities: capabilities?,
        log_level,
        progress_token,
    })
}

/// [`scan`] by a walk of the params' text.
fn walk(params: &str) -> Option<Scanned<'_>> {
    // One walk: `_meta` is read as it is delimited (its bytes are looked at once), `name` and
    // `arguments` are only delimited; params without a `_meta` of the usual shape (a 2025
    // call) are given up before anything else is decoded or allocated.
    let bytes = params.as_bytes();
    let (mut name, mut arguments, mut meta) = (None, None, None);
    let mut extra = Vec::new();
    walk_object_expecting(params, 0, &PARAMS_KEYS, |known, key, start| {
        if known == Some(META) {
            let (read, end) = read_meta(params, start)?;
            once(&mut meta, read)?;
            return Some(end);
        }
        if known == Some(ARGUMENTS) && meta.is_some() && params.len() - start < SHORT {
            // Short arguments after `_meta`: read into their value as they are delimited
            // (`serde_json` finds their end), not delimited, then read.
            let (value, end) = value_with_end(params, start)?;
            once(&mut arguments, Arguments::Read(value))?;
            return Some(end);
        }
        let end = value_end(bytes, start)?;
        let raw = params.get(start..end)?;
        match known {
            Some(NAME) => once(&mut name, raw)?,
            Some(_arguments) => once(&mut arguments, Arguments::Text(raw))?,
            None => extra.push((key.to_owned(), raw)),
        }
        Some(end)
    })?;
    let meta = meta?;
    let name = name_of(name?)?;
    let arguments = match arguments {
        None => None,
        Some(Arguments::Read(value)) => Some(value),
        Some(Arguments::Text(raw)) => Some(text_to_value(raw).ok()?),
    };
    let arguments = match arguments {
        None => None,
        Some(Value::Object(map)) => Some(map),
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

/// The members of the params [`scan`] reads, in the order clients usually write them, and
/// the indexes of `_meta` and `name` in it.
const PARAMS_KEYS: [&str; 3] = ["_meta", "arguments", "name"];
const META: usize = 0;
const ARGUMENTS: usize = 1;
const NAME: usize = 2;

/// Arguments starting less than this many bytes before the params' end are read by
/// `serde_json` as they are delimited ([`value_with_end`]); longer ones are delimited, then
/// read by [`text_to_value`] (which finds long strings' ends with `memchr`).
const SHORT: usize = 256;

/// The `arguments` member as the walk found it.
enum Arguments<'a> {
    /// Delimited, not read yet.
    Text(&'a str),
    /// Read.
    Read(Value),
}

/// The value starting at `start` in `params` (checked JSON), as `serde_json` reads it, and
/// the index past it.
fn value_with_end(params: &str, start: usize) -> Option<(Value, usize)> {
    let mut values = serde_json::Deserializer::from_str(params.get(start..)?).into_iter::<Value>();
    let value = values.next()?.ok()?;
    Some((value, start + values.byte_offset()))
}

const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";

/// The members of `_meta` [`read_meta`] reads, in the order clients usually write them
/// (their indexes below).
const META_KEYS: [&str; 5] = [
    CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    PROTOCOL_VERSION_KEY,
    LOG_LEVEL_KEY,
    PROGRESS_TOKEN_KEY,
];
const PROGRESS_TOKEN_KEY: &str = "progressToken";
const CAPABILITIES: usize = 0;
const CLIENT_INFO: usize = 1;
const VERSION: usize = 2;
const LOG_LEVEL: usize = 3;
const PROGRESS_TOKEN: usize = 4;

/// What a call uses of its `_meta`.
struct Meta<'a> {
    version: &'a str,
    capabilities: Value,
    log_level: Option<LoggingLevel>,
    progress_token: Option<ProgressToken>,
}

/// The `_meta` object starting at `at` in `params`, when of the usual shape (the version and
/// the capabilities present, the capabilities valid, and nothing but the members the schema
/// names, each once), and the index past it.
fn read_meta(params: &str, at: usize) -> Option<(Meta<'_>, usize)> {
    let bytes = params.as_bytes();
    let mut version = None;
    let mut capabilities = None;
    let mut info = None;
    let mut log_level = None;
    let mut progress_token = None;
    // The value of a member read whole: its text.
    let raw = |start: usize| {
        let end = value_end(bytes, start)?;
        Some((params.get(start..end)?, end))
    };
    let end = walk_object_expecting(params, at, &META_KEYS, |known, _key, start| match known? {
        VERSION => {
            let (text, end) = unescaped_string_at(params, start)?;
            once(&mut version, text)?;
            Some(end)
        }
        CAPABILITIES => {
            let (text, end) = raw(start)?;
            once(&mut capabilities, capabilities_of(text)?)?;
            Some(end)
        }
        CLIENT_INFO => {
            once(&mut info, ())?;
            let end = value_end(params.as_bytes(), start)?;
            client_info_shaped(params.get(start..end)?).then_some(end)
        }
        LOG_LEVEL => {
            let (text, end) = raw(start)?;
            once(&mut log_level, serde_json::from_str(text).ok()?)?;
            Some(end)
        }
        PROGRESS_TOKEN => {
            let (text, end) = raw(start)?;
            once(&mut progress_token, token(text)?)?;
            Some(end)
        }
        _ => None,
    })?;
    let meta = Meta {
        version: version?,
        capabilities: capabilities?,
        log_level,
        progress_token,
    };
    Some((meta, end))
}

/// The client capabilities written `text`, when they are an object that passes their
/// validator.
fn capabilities_of(text: &str) -> Option<Value> {
    // The capabilities clients usually send, `{}`, without a parser.
    let value = if text == "{}" {
        Value::Object(Map::new())
    } else {
        text_to_value(text).ok()?
    };
    if !value.is_object() {
        return None;
    }
    validate::client_capabilities(&value).ok()?;
    Some(value)
}

/// Whether `text` (checked JSON) is a `clientInfo` of the usual shape: an object of string
/// members among those the schema names (all of which are strings), `name` and `version`
/// (the required ones) included, no name or string holding an escape (the scan does not
/// decode them).
fn client_info_shaped(text: &str) -> bool {
    let bytes = text.as_bytes();
    let (mut name, mut version) = (false, false);
    if bytes.first() != Some(&b'{') {
        return false;
    }
    let mut at = 1;
    loop {
        let Some((key, after_key)) = plain_string(bytes, skip_whitespace(bytes, at)) else {
            return false;
        };
        at = skip_whitespace(bytes, after_key);
        if bytes.get(at) != Some(&b':') {
            return false;
        }
        let Some((_value, after_value)) = plain_string(bytes, skip_whitespace(bytes, at + 1))
        else {
            return false;
        };
        match key {
            b"name" => name = true,
            b"version" => version = true,
            b"title" | b"description" => {}
            _ => return false,
        }
        at = skip_whitespace(bytes, after_value);
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(b'}') => return name && version,
            _ => return false,
        }
    }
}

/// The bytes of the string at `at` in checked JSON when it holds no escape, and the index
/// past it.
#[inline(always)]
fn plain_string(bytes: &[u8], at: usize) -> Option<(&[u8], usize)> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let close = quote_or_backslash(bytes, at + 1)?;
    (bytes[close] == b'"').then(|| (bytes.get(at + 1..close).unwrap_or_default(), close + 1))
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
    let (text, end) = unescaped_string_at(raw, 0)?;
    (end == raw.len()).then_some(text)
}

/// The text of a JSON string, borrowed when it has no escape, decoded otherwise; `None` for
/// any other value, and for a string `serde_json` refuses (a lone surrogate escape).
fn name_of(raw: &str) -> Option<Cow<'_, str>> {
    match unescaped_string(raw) {
        Some(text) => Some(Cow::Borrowed(text)),
        None if raw.starts_with('"') => serde_json::from_str(raw).ok().map(Cow::Owned),
        None => None,
    }
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
