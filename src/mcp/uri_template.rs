//! URI templates (RFC 6570): parsing, expansion (levels 1 to 4 for string values) and
//! matching a URI back to its variables.
//!
//! Matching inverts expansion for the forms resource templates use: each variable matches
//! the characters its operator may produce (`{var}` no reserved character, `{+var}` and
//! `{#var}` anything up to the next literal, `{/var}`, `{.var}`, `{;var}`, `{?var}`,
//! `{&var}` their delimited segments); values are percent-decoded. A prefix modifier
//! (`{var:3}`) bounds the match to that many characters; an exploded variable (`{/var*}`)
//! matches its segments as one value, delimiters included.

use std::collections::HashMap;

use regex::Regex;

/// A parsed URI template.
#[derive(Debug, Clone)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
    matcher: Regex,
    names: Vec<String>,
}

#[derive(Debug, Clone)]
enum Part {
    Literal(String),
    Expression {
        operator: Operator,
        variables: Vec<Variable>,
    },
}

#[derive(Debug, Clone)]
struct Variable {
    name: String,
    prefix: Option<usize>,
    explode: bool,
}

/// The expression operators of RFC 6570 §3.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParameter,
    Query,
    QueryContinuation,
}

impl Operator {
    fn from_char(c: char) -> Option<Self> {
        Some(match c {
            '+' => Self::Reserved,
            '#' => Self::Fragment,
            '.' => Self::Label,
            '/' => Self::Path,
            ';' => Self::PathParameter,
            '?' => Self::Query,
            '&' => Self::QueryContinuation,
            _ => return None,
        })
    }

    /// What precedes the first expanded variable.
    fn first(self) -> &'static str {
        match self {
            Self::Simple | Self::Reserved => "",
            Self::Fragment => "#",
            Self::Label => ".",
            Self::Path => "/",
            Self::PathParameter => ";",
            Self::Query => "?",
            Self::QueryContinuation => "&",
        }
    }

    /// What separates expanded variables.
    fn separator(self) -> &'static str {
        match self {
            Self::Simple | Self::Reserved | Self::Fragment => ",",
            Self::Label => ".",
            Self::Path => "/",
            Self::PathParameter => ";",
            Self::Query | Self::QueryContinuation => "&",
        }
    }

    /// Whether variables are written `name=value`.
    fn named(self) -> bool {
        matches!(
            self,
            Self::PathParameter | Self::Query | Self::QueryContinuation
        )
    }

    /// Whether reserved characters pass unencoded.
    fn allows_reserved(self) -> bool {
        matches!(self, Self::Reserved | Self::Fragment)
    }

    /// The characters one matched value may contain.
    fn value_class(self) -> &'static str {
        match self {
            Self::Reserved | Self::Fragment => r"[^,]",
            Self::Simple => r"[A-Za-z0-9\-._~%!$'()*+;=:@]",
            Self::Label => r"[A-Za-z0-9\-_~%]",
            Self::Path => r"[A-Za-z0-9\-._~%!$'()*+,;=:@]",
            Self::PathParameter => r"[A-Za-z0-9\-._~%!$'()*+,=:@]",
            Self::Query | Self::QueryContinuation => r"[A-Za-z0-9\-._~%!$'()*+,;=:@/?]",
        }
    }
}

/// Why a template was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UriTemplateError {
    /// A `{` without its `}`, or a `}` without its `{`.
    #[error("unbalanced braces in the URI template")]
    Unbalanced,
    /// An expression names no variable, or a variable name is not `[A-Za-z0-9_.%]+`.
    #[error("an expression of the URI template has an invalid variable")]
    InvalidVariable,
    /// A prefix modifier that is not 1 to 9999.
    #[error("an invalid prefix modifier in the URI template")]
    InvalidPrefix,
    /// The same variable appears twice: matching could not tell the values apart.
    #[error("a variable appears twice in the URI template")]
    DuplicateVariable,
}

impl UriTemplate {
    /// Parses `text`.
    ///
    /// # Errors
    ///
    /// [`UriTemplateError`] naming the broken rule (never quoting the template).
    ///
    /// ```
    /// use typed_mcp::mcp::UriTemplate;
    ///
    /// let template = UriTemplate::parse("notes://{folder}/{id}{?lang}").unwrap();
    /// let vars = template.matches("notes://work/42?lang=en").unwrap();
    /// assert_eq!(vars["folder"], "work");
    /// assert_eq!(vars["id"], "42");
    /// assert_eq!(vars["lang"], "en");
    /// let mut values = std::collections::HashMap::new();
    /// values.insert("folder".to_owned(), "my notes".to_owned());
    /// values.insert("id".to_owned(), "7".to_owned());
    /// assert_eq!(template.expand(&values), "notes://my%20notes/7");
    /// ```
    pub fn parse(text: &str) -> Result<Self, UriTemplateError> {
        let mut parts = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            match rest.find(['{', '}']) {
                None => {
                    parts.push(Part::Literal(rest.to_owned()));
                    rest = "";
                }
                Some(at) if rest.as_bytes()[at] == b'}' => {
                    return Err(UriTemplateError::Unbalanced)
                }
                Some(at) => {
                    if at > 0 {
                        parts.push(Part::Literal(rest[..at].to_owned()));
                    }
                    let close = rest[at..].find('}').ok_or(UriTemplateError::Unbalanced)? + at;
                    let body = &rest[at + 1..close];
                    if body.contains('{') {
                        return Err(UriTemplateError::Unbalanced);
                    }
                    parts.push(parse_expression(body)?);
                    rest = &rest[close + 1..];
                }
            }
        }
        let mut names = Vec::new();
        for part in &parts {
            if let Part::Expression { variables, .. } = part {
                for variable in variables {
                    if names.contains(&variable.name) {
                        return Err(UriTemplateError::DuplicateVariable);
                    }
                    names.push(variable.name.clone());
                }
            }
        }
        let matcher = build_matcher(&parts);
        Ok(Self {
            text: text.to_owned(),
            parts,
            matcher,
            names,
        })
    }

    /// The template as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The variables, in order of appearance.
    #[must_use]
    pub fn variables(&self) -> &[String] {
        &self.names
    }

    /// Expands the template with string `values` (undefined variables are left out, as
    /// RFC 6570 says).
    #[must_use]
    pub fn expand(&self, values: &HashMap<String, String>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Expression {
                    operator,
                    variables,
                } => {
                    let mut first = true;
                    for variable in variables {
                        let Some(value) = values.get(&variable.name) else {
                            continue;
                        };
                        out.push_str(if first {
                            operator.first()
                        } else {
                            operator.separator()
                        });
                        first = false;
                        if operator.named() {
                            out.push_str(&variable.name);
                            if value.is_empty() && *operator == Operator::PathParameter {
                                continue;
                            }
                            out.push('=');
                        }
                        let value = match variable.prefix {
                            Some(length) => value.chars().take(length).collect(),
                            None => value.clone(),
                        };
                        encode(&value, operator.allows_reserved(), &mut out);
                    }
                }
            }
        }
        out
    }

    /// The variables of `uri` if it matches the template (values percent-decoded; optional
    /// parts that are absent are left out).
    #[must_use]
    pub fn matches(&self, uri: &str) -> Option<HashMap<String, String>> {
        let captures = self.matcher.captures(uri)?;
        let mut values = HashMap::new();
        for (index, name) in self.names.iter().enumerate() {
            if let Some(value) = captures.get(index + 1) {
                values.insert(name.clone(), decode(value.as_str())?);
            }
        }
        Some(values)
    }
}

fn parse_expression(body: &str) -> Result<Part, UriTemplateError> {
    let mut chars = body.chars();
    let (operator, list) = match chars.next().and_then(Operator::from_char) {
        Some(operator) => (operator, chars.as_str()),
        None => (Operator::Simple, body),
    };
    let mut variables = Vec::new();
    for spec in list.split(',') {
        let (name, explode) = match spec.strip_suffix('*') {
            Some(name) => (name, true),
            None => (spec, false),
        };
        let (name, prefix) = match name.split_once(':') {
            Some((name, length)) => {
                let length: usize = length
                    .parse()
                    .map_err(|_| UriTemplateError::InvalidPrefix)?;
                if !(1..10_000).contains(&length) || explode {
                    return Err(UriTemplateError::InvalidPrefix);
                }
                (name, Some(length))
            }
            None => (name, None),
        };
        let valid = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'%'));
        if !valid {
            return Err(UriTemplateError::InvalidVariable);
        }
        variables.push(Variable {
            name: name.to_owned(),
            prefix,
            explode,
        });
    }
    Ok(Part::Expression {
        operator,
        variables,
    })
}

fn build_matcher(parts: &[Part]) -> Regex {
    let mut pattern = String::from("^");
    for part in parts {
        match part {
            Part::Literal(text) => pattern.push_str(&regex::escape(text)),
            Part::Expression {
                operator,
                variables,
            } => {
                for (index, variable) in variables.iter().enumerate() {
                    let lead = if index == 0 {
                        operator.first()
                    } else {
                        operator.separator()
                    };
                    let class = operator.value_class();
                    let amount = match variable.prefix {
                        Some(length) => format!("{{0,{length}}}"),
                        None => "*?".to_owned(),
                    };
                    let value = if variable.explode {
                        // Exploded: the segments with their delimiters, as one value.
                        format!("((?:{class}|{})*?)", regex::escape(operator.separator()))
                    } else {
                        format!("({class}{amount})")
                    };
                    let name = if operator.named() {
                        format!("{}=?", regex::escape(&variable.name))
                    } else {
                        String::new()
                    };
                    let optional =
                        matches!(operator, Operator::Query | Operator::QueryContinuation)
                            || index > 0;
                    let piece = format!("{}{name}{value}", regex::escape(lead));
                    if optional {
                        pattern.push_str(&format!("(?:{piece})?"));
                    } else {
                        pattern.push_str(&piece);
                    }
                }
            }
        }
    }
    pattern.push('$');
    // Every piece is escaped or one of the fixed classes above: the pattern always compiles.
    Regex::new(&pattern).unwrap_or_else(|_| unreachable!("URI template patterns are well-formed"))
}

/// Percent-encodes `value` into `out`: unreserved characters pass; reserved ones too when
/// `allow_reserved`.
fn encode(value: &str, allow_reserved: bool, out: &mut String) {
    for byte in value.bytes() {
        let unreserved = byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~');
        let reserved = matches!(
            byte,
            b':' | b'/'
                | b'?'
                | b'#'
                | b'['
                | b']'
                | b'@'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
        );
        if unreserved || (allow_reserved && reserved) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
}

/// Percent-decodes `text`; `None` when the result is not UTF-8 or an escape is malformed.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = text.get(at + 1..at + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    /// RFC 6570 §3.2 examples (string values).
    #[test]
    fn expansion_follows_the_rfc_examples() {
        let vars = values(&[
            ("var", "value"),
            ("hello", "Hello World!"),
            ("path", "/foo/bar"),
            ("x", "1024"),
            ("y", "768"),
            ("empty", ""),
        ]);
        for (template, expected) in [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+path}/here", "/foo/bar/here"),
            ("{+hello}", "Hello%20World!"),
            ("{#hello}", "#Hello%20World!"),
            ("map?{x,y}", "map?1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("X{.var}", "X.value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{var:3}", "val"),
            ("{?undefined}", ""),
        ] {
            let parsed = UriTemplate::parse(template).unwrap();
            assert_eq!(parsed.expand(&vars), expected, "{template}");
        }
    }

    #[test]
    fn matching_inverts_expansion() {
        for (template, pairs) in [
            ("test://template/{id}/data", vec![("id", "123")]),
            (
                "notes://{folder}/{id}",
                vec![("folder", "my notes"), ("id", "x-1")],
            ),
            ("file://{+path}", vec![("path", "/etc/hosts")]),
            (
                "docs://page{/section,sub}",
                vec![("section", "a"), ("sub", "b")],
            ),
            (
                "search://q{?term,lang}",
                vec![("term", "rust & go"), ("lang", "en")],
            ),
            ("v://{a}.{b}", vec![("a", "one"), ("b", "two")]),
        ] {
            let parsed = UriTemplate::parse(template).unwrap();
            let vars = values(&pairs);
            let uri = parsed.expand(&vars);
            assert_eq!(parsed.matches(&uri), Some(vars), "{template} / {uri}");
        }
        let parsed = UriTemplate::parse("test://template/{id}/data").unwrap();
        assert_eq!(parsed.matches("test://template/1/2/data"), None);
        assert_eq!(parsed.matches("test://other/1/data"), None);
        let query = UriTemplate::parse("s://q{?term,lang}").unwrap();
        assert_eq!(query.matches("s://q"), Some(HashMap::new()));
    }

    #[test]
    fn malformed_templates_are_refused() {
        for (template, error) in [
            ("a{b", UriTemplateError::Unbalanced),
            ("a}b", UriTemplateError::Unbalanced),
            ("{}", UriTemplateError::InvalidVariable),
            ("{a b}", UriTemplateError::InvalidVariable),
            ("{a:0}", UriTemplateError::InvalidPrefix),
            ("{a}{a}", UriTemplateError::DuplicateVariable),
        ] {
            assert_eq!(
                UriTemplate::parse(template).unwrap_err(),
                error,
                "{template}"
            );
        }
    }
}
