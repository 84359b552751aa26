//! Which runtime function checks each `format` when format assertion is on.

/// The `typed_mcp::__private` function that checks `format`, or `None` for a format the
/// runtime does not know (an annotation only, as 2020-12 says of unknown formats).
pub(crate) fn checker(format: &str) -> Option<&'static str> {
    Some(match format {
        "date-time" => "is_date_time",
        "date" => "is_date",
        "time" => "is_time",
        "duration" => "is_duration",
        "email" => "is_email",
        "idn-email" => "is_idn_email",
        "hostname" => "is_hostname",
        "idn-hostname" => "is_idn_hostname",
        "ipv4" => "is_ipv4",
        "ipv6" => "is_ipv6",
        "uri" => "is_uri",
        "uri-reference" => "is_uri_reference",
        "iri" => "is_iri",
        "iri-reference" => "is_iri_reference",
        "uuid" => "is_uuid",
        "uri-template" => "is_uri_template",
        "json-pointer" => "is_json_pointer",
        "relative-json-pointer" => "is_relative_json_pointer",
        "regex" => "is_regex",
        // OpenAPI's base64 format, used by the MCP schemas.
        "byte" => "is_byte",
        _ => return None,
    })
}
