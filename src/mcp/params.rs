//! Inbound params: run the generated validator of the method's params on the JSON value,
//! then decode it into the generated type; and the JSON-RPC errors the server answers with.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use crate::jsonrpc::{ErrorCode, ErrorObject};
use crate::validation::ValidationError;

/// A generated validator: every violation of `value`.
pub(crate) type Validator = fn(&Value) -> Result<(), Vec<ValidationError>>;

/// Validates `params` with `validator`, then decodes them.
///
/// `None` (no `params` member) is decoded from an empty object when `optional`, and is an
/// invalid-params error otherwise.
pub(crate) fn decode<T: DeserializeOwned>(
    method: &str,
    params: Option<&Value>,
    validator: Validator,
    optional: bool,
) -> Result<T, ErrorObject<'static>> {
    let empty;
    let value = match params {
        Some(value) => value,
        None if optional => {
            empty = Value::Object(serde_json::Map::new());
            &empty
        }
        None => {
            return Err(invalid_params(
                format!("{method} needs params"),
                vec![ValidationError::new(
                    "",
                    "",
                    "required",
                    Value::from("params"),
                    Value::Null,
                    "the request has no params",
                )],
            ))
        }
    };
    validate(method, value, validator)?;
    T::deserialize(value).map_err(|error| decode_failed(method, &error))
}

/// [`decode`] of params the caller owns: the typed value takes their strings, maps and
/// arrays instead of copies (the validation is the same).
pub(crate) fn decode_owned<T: DeserializeOwned>(
    method: &str,
    params: Option<Value>,
    validator: Validator,
) -> Result<T, ErrorObject<'static>> {
    let Some(value) = params else {
        return decode(method, None, validator, false);
    };
    validate(method, &value, validator)?;
    decode_validated(method, value)
}

/// Decodes params that already passed their validator, taking their strings, maps and
/// arrays.
pub(crate) fn decode_validated<T: DeserializeOwned>(
    method: &str,
    value: Value,
) -> Result<T, ErrorObject<'static>> {
    T::deserialize(value).map_err(|error| decode_failed(method, &error))
}

/// Runs the params' generated validator: every violation, as one invalid-params error.
pub(crate) fn validate(
    method: &str,
    value: &Value,
    validator: Validator,
) -> Result<(), ErrorObject<'static>> {
    validator(value).map_err(|errors| {
        invalid_params(
            format!("invalid params for {method}: {} violation(s)", errors.len()),
            errors,
        )
    })
}

/// The error for params that passed validation but did not decode (a schema and its
/// generated type disagree): logged, and answered as invalid params.
fn decode_failed(method: &str, error: &serde_json::Error) -> ErrorObject<'static> {
    // The validator accepted the value, so the generated type should too; the serde
    // message may quote the input, so it is logged, not sent.
    tracing::warn!(method, %error, "params passed validation but did not decode");
    invalid_params(
        format!("invalid params for {method}"),
        vec![ValidationError::new(
            "",
            "",
            "type",
            Value::Null,
            Value::Null,
            "the params do not have the expected shape",
        )],
    )
}

/// `-32602` with every violation in `data.validationErrors`.
pub(crate) fn invalid_params(
    message: impl Into<String>,
    errors: Vec<ValidationError>,
) -> ErrorObject<'static> {
    error_with_data(
        ErrorCode::INVALID_PARAMS,
        message.into(),
        &json!({ "validationErrors": errors }),
    )
}

/// One violation at `path`, for errors the server finds itself (unknown names, policies).
pub(crate) fn violation(path: &str, keyword: &str, message: &str) -> ValidationError {
    ValidationError::new(path, "", keyword, Value::Null, Value::Null, message)
}

/// `-32601` for a method this server does not have.
pub(crate) fn method_not_found() -> ErrorObject<'static> {
    ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, "method not found")
}

/// `-32600` for a request the session cannot take (wrong era, not initialized).
pub(crate) fn invalid_request(message: &'static str) -> ErrorObject<'static> {
    ErrorObject::new(ErrorCode::INVALID_REQUEST, message)
}

/// `-32603` without details.
pub(crate) fn internal_error(message: &'static str) -> ErrorObject<'static> {
    ErrorObject::new(ErrorCode::INTERNAL_ERROR, message)
}

/// An error object with a `data` member.
pub(crate) fn error_with_data<T: Serialize + ?Sized>(
    code: ErrorCode,
    message: String,
    data: &T,
) -> ErrorObject<'static> {
    match serde_json::value::to_raw_value(data) {
        Ok(raw) => ErrorObject::new(code, message).with_data(raw),
        Err(error) => {
            tracing::error!(%error, "serializing error data failed");
            ErrorObject::new(code, message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::protocol::{validate, LegacyReadResourceRequestParams};

    #[test]
    fn invalid_params_carry_the_path_of_each_violation() {
        let params = json!({ "uri": 7 });
        let error = decode::<LegacyReadResourceRequestParams>(
            "resources/read",
            Some(&params),
            validate::legacy_read_resource_request_params,
            false,
        )
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
        let data: Value = serde_json::from_str(error.data.unwrap().get()).unwrap();
        assert_eq!(data["validationErrors"][0]["path"], "/uri");
    }

    #[test]
    fn absent_params_are_empty_only_when_optional() {
        let missing = decode::<LegacyReadResourceRequestParams>(
            "resources/read",
            None,
            validate::legacy_read_resource_request_params,
            false,
        );
        assert!(missing.is_err());
    }
}
