//! The validation vocabulary (keywords with no subschema), each violation reported with its
//! limit and the value's actual figure.

use std::cmp::Ordering::{Greater, Less};

use super::super::values::{summary, type_name};
use super::*;

/// Whether a number compared to a bound (`Less`: below it) violates the bound's keyword.
type Violated = fn(Option<std::cmp::Ordering>) -> bool;

impl State<'_, '_, '_> {
    /// Checks every validation keyword of `map` on `instance`; `false` when one fails.
    pub(crate) fn validation_keywords(
        &mut self,
        map: &'static Object,
        instance: &Value,
        at: &Location<'_>,
    ) -> bool {
        let mut ok = true;
        if let Some(types) = map.get("type") {
            let matches = |t: &Value| t.as_str().is_some_and(|t| has_type(instance, t));
            let valid = match types {
                Value::Array(types) => types.iter().any(matches),
                one => matches(one),
            };
            if !valid {
                ok = false;
                self.report(at, "type", || {
                    (
                        Part::Value(Box::new(types.clone())),
                        Part::Str(type_name(instance)),
                        Message::Template("expected {limit}, found {actual}"),
                    )
                });
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            if !values.iter().any(|v| json_eq(v, instance)) {
                ok = false;
                self.report(at, "enum", || {
                    (
                        Part::Value(Box::new(Value::Array(values.clone()))),
                        summary(instance),
                        Message::Static("the value is none of the allowed values"),
                    )
                });
            }
        }
        if let Some(constant) = map.get("const") {
            if !json_eq(constant, instance) {
                ok = false;
                self.report(at, "const", || {
                    (
                        Part::Value(Box::new(constant.clone())),
                        summary(instance),
                        Message::Static("the value is not the one allowed value"),
                    )
                });
            }
        }
        let done = match instance {
            Value::Number(n) => self.number(map, n, at),
            Value::String(s) => self.string(map, s, at),
            Value::Array(items) => self.items(map, items, at),
            Value::Object(object) => self.members(map, object, at),
            _ => true,
        };
        ok && done
    }

    /// `minX` / `maxX` (`keywords`) on a length `len`.
    fn counts(
        &mut self,
        map: &'static Object,
        keywords: [&'static str; 2],
        len: u64,
        at: &Location<'_>,
        (fewer, more): (&'static str, &'static str),
    ) -> bool {
        let mut ok = true;
        for (keyword, is_min, message) in [(keywords[0], true, fewer), (keywords[1], false, more)] {
            let Some(limit) = map.get(keyword).and_then(as_count) else {
                continue;
            };
            if (is_min && len < limit) || (!is_min && len > limit) {
                ok = false;
                self.report(at, keyword, || {
                    (Part::U64(limit), Part::U64(len), Message::Template(message))
                });
            }
        }
        ok
    }

    fn number(&mut self, map: &'static Object, n: &Number, at: &Location<'_>) -> bool {
        let mut ok = true;
        let checks: [(&str, Violated, &str); 4] = [
            (
                "minimum",
                |o| o == Some(Less),
                "{actual} is less than the minimum {limit}",
            ),
            (
                "maximum",
                |o| o == Some(Greater),
                "{actual} is greater than the maximum {limit}",
            ),
            (
                "exclusiveMinimum",
                |o| o != Some(Greater),
                "{actual} is not greater than the exclusive minimum {limit}",
            ),
            (
                "exclusiveMaximum",
                |o| o != Some(Less),
                "{actual} is not less than the exclusive maximum {limit}",
            ),
        ];
        for (keyword, violated, message) in checks {
            if let Some(Value::Number(bound)) = map.get(keyword) {
                if violated(compare(n, bound)) {
                    ok = false;
                    self.report(at, keyword, || {
                        (
                            Part::Number(bound.clone()),
                            Part::Number(n.clone()),
                            Message::Template(message),
                        )
                    });
                }
            }
        }
        if let Some(Value::Number(divisor)) = map.get("multipleOf") {
            if !multiple_of(n, divisor) {
                ok = false;
                self.report(at, "multipleOf", || {
                    (
                        Part::Number(divisor.clone()),
                        Part::Number(n.clone()),
                        Message::Template("{actual} is not a multiple of {limit}"),
                    )
                });
            }
        }
        ok
    }

    fn string(&mut self, map: &'static Object, s: &str, at: &Location<'_>) -> bool {
        let length = s.chars().count() as u64;
        let mut ok = self.counts(
            map,
            ["minLength", "maxLength"],
            length,
            at,
            (
                "string has {actual} characters, fewer than {limit}",
                "string has {actual} characters, more than {limit}",
            ),
        );
        if let Some(Value::String(pattern)) = map.get("pattern") {
            if !self.patterns.regex(pattern).is_match(s) {
                ok = false;
                self.report(at, "pattern", || {
                    (
                        Part::Str(pattern.as_str()),
                        super::super::values::summary_str(s),
                        Message::Template("string does not match the pattern {limit}"),
                    )
                });
            }
        }
        if let (true, Some(Value::String(format))) = (self.formats, map.get("format")) {
            if format_check(format).is_some_and(|check| !check(s)) {
                ok = false;
                self.report(at, "format", || {
                    (
                        Part::Str(format.as_str()),
                        super::super::values::summary_str(s),
                        Message::Template("string is not a valid {limit}"),
                    )
                });
            }
        }
        ok
    }

    fn items(&mut self, map: &'static Object, items: &[Value], at: &Location<'_>) -> bool {
        let mut ok = self.counts(
            map,
            ["minItems", "maxItems"],
            items.len() as u64,
            at,
            (
                "array has {actual} items, fewer than {limit}",
                "array has {actual} items, more than {limit}",
            ),
        );
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            let duplicate = items.iter().enumerate().find_map(|(i, a)| {
                items[i + 1..]
                    .iter()
                    .position(|b| json_eq(a, b))
                    .map(|j| (i, i + 1 + j))
            });
            if let Some((first, second)) = duplicate {
                ok = false;
                self.report(at, "uniqueItems", || {
                    (
                        Part::Bool(true),
                        Part::Value(Box::new(serde_json::json!([first, second]))),
                        Message::Template("items {actual} are equal"),
                    )
                });
            }
        }
        ok
    }

    fn members(&mut self, map: &'static Object, object: &Object, at: &Location<'_>) -> bool {
        let mut ok = self.counts(
            map,
            ["minProperties", "maxProperties"],
            object.len() as u64,
            at,
            (
                "object has {actual} properties, fewer than {limit}",
                "object has {actual} properties, more than {limit}",
            ),
        );
        if let Some(Value::Array(required)) = map.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    ok = false;
                    self.report(at, "required", || {
                        (
                            Part::Str(name),
                            Part::Null,
                            Message::Template("missing required property `{limit}`"),
                        )
                    });
                }
            }
        }
        if let Some(Value::Object(dependents)) = map.get("dependentRequired") {
            for (name, needed) in dependents {
                if !object.contains_key(name) {
                    continue;
                }
                let needed = needed.as_array().into_iter().flatten();
                for need in needed.filter_map(Value::as_str) {
                    if !object.contains_key(need) {
                        ok = false;
                        self.report_under(at, "dependentRequired", Some(name.as_str()), || {
                            (
                                Part::Str(need),
                                Part::Null,
                                Message::Template(
                                    "missing property `{limit}`, required by another property",
                                ),
                            )
                        });
                    }
                }
            }
        }
        ok
    }
}

/// The check of `format` when it is asserted (the runtime's, as generated validators call
/// them); `None` for a format that stays an annotation (an unknown one).
fn format_check(format: &str) -> Option<fn(&str) -> bool> {
    use super::super::formats::*;
    Some(match format {
        "date-time" => is_date_time,
        "date" => is_date,
        "time" => is_time,
        "duration" => is_duration,
        "email" => is_email,
        "idn-email" => is_idn_email,
        "hostname" => is_hostname,
        "idn-hostname" => is_idn_hostname,
        "ipv4" => is_ipv4,
        "ipv6" => is_ipv6,
        "uri" => is_uri,
        "uri-reference" => is_uri_reference,
        "iri" => is_iri,
        "iri-reference" => is_iri_reference,
        "uuid" => is_uuid,
        "uri-template" => is_uri_template,
        "json-pointer" => is_json_pointer,
        "relative-json-pointer" => is_relative_json_pointer,
        "regex" => is_regex,
        "byte" => is_byte,
        _ => return None,
    })
}
