//! One evaluation: references, the in-place applicators, and where violations are reported.

use super::*;

/// What a successful evaluation learnt about the instance: which members and items some
/// subschema evaluated (for `unevaluatedProperties` / `unevaluatedItems`).
#[derive(Debug, Default)]
pub(crate) struct Seen {
    pub(crate) properties: BTreeSet<String>,
    pub(crate) all_properties: bool,
    pub(crate) items: BTreeSet<usize>,
    pub(crate) all_items: bool,
}

impl Seen {
    pub(crate) fn merge(&mut self, other: Seen) {
        self.properties.extend(other.properties);
        self.all_properties |= other.all_properties;
        self.items.extend(other.items);
        self.all_items |= other.all_items;
    }
}

/// One token of the schema path below the definition: a keyword or member name (escaped
/// when rendered), or an index.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Token {
    Name(&'static str),
    Index(usize),
}

/// What `(limit, actual, message)` a violation reports, computed only when it is recorded.
pub(crate) type Detail = (Part, Part, Message);

pub(crate) struct State<'r, 's, 'c> {
    pub(crate) registry: &'r Registry<'static>,
    /// The evaluator's compiled patterns.
    pub(crate) patterns: &'r Patterns,
    /// Base URIs of the resources entered, outermost first (the dynamic scope).
    pub(crate) scope: &'s mut Vec<String>,
    pub(crate) depth: usize,
    /// The definition's pointer: where every schema path starts.
    pub(crate) root: &'static str,
    /// The schema path below `root` of the schema being evaluated, through every reference
    /// followed (JSON Schema's `keywordLocation`).
    pub(crate) path: Vec<Token>,
    pub(crate) errors: &'c mut Collector,
    /// Above zero while evaluating a subschema whose failure is not itself a violation (a
    /// branch of `anyOf`, `not`, `if`, ...): nothing is reported then.
    pub(crate) quiet: usize,
    /// Whether `format` is asserted.
    pub(crate) formats: bool,
}

impl State<'_, '_, '_> {
    /// Reports a violation of `keyword` (a keyword of the schema being evaluated) at `at`.
    pub(crate) fn report(
        &mut self,
        at: &Location<'_>,
        keyword: &'static str,
        detail: impl FnOnce() -> Detail,
    ) {
        self.report_under(at, keyword, None, detail);
    }

    /// [`State::report`] with the schema path one token below the keyword
    /// (`dependentRequired/<name>`).
    pub(crate) fn report_under(
        &mut self,
        at: &Location<'_>,
        keyword: &'static str,
        below: Option<&'static str>,
        detail: impl FnOnce() -> Detail,
    ) {
        if self.quiet > 0 {
            return;
        }
        let (root, path) = (self.root, &self.path);
        let schema_path = || {
            let mut out = root.to_string();
            let tokens = path.iter().copied().chain(
                [Token::Name(keyword)]
                    .into_iter()
                    .filter(|_| keyword != "false"),
            );
            for token in tokens.chain(below.map(Token::Name)) {
                out.push('/');
                match token {
                    Token::Name(name) => out.push_str(&name.replace('~', "~0").replace('/', "~1")),
                    Token::Index(i) => out.push_str(&i.to_string()),
                }
            }
            out
        };
        self.errors.fail_dynamic(at, schema_path, keyword, detail);
    }

    /// Evaluates `schema` at the schema path extended by `tokens`.
    pub(crate) fn sub(
        &mut self,
        tokens: &[Token],
        schema: &'static Value,
        base: &str,
        v: bool,
        instance: &Value,
        at: &Location<'_>,
    ) -> (bool, Seen) {
        let depth = self.path.len();
        self.path.extend_from_slice(tokens);
        let outcome = self.eval(schema, base, v, instance, at);
        self.path.truncate(depth);
        outcome
    }

    /// [`State::sub`] with nothing reported: the caller reports the outcome.
    pub(crate) fn quietly(
        &mut self,
        tokens: &[Token],
        schema: &'static Value,
        base: &str,
        v: bool,
        instance: &Value,
        at: &Location<'_>,
    ) -> (bool, Seen) {
        self.quiet += 1;
        let outcome = self.sub(tokens, schema, base, v, instance, at);
        self.quiet -= 1;
        outcome
    }

    pub(crate) fn eval(
        &mut self,
        schema: &'static Value,
        base: &str,
        validation: bool,
        instance: &Value,
        at: &Location<'_>,
    ) -> (bool, Seen) {
        let map = match schema {
            Value::Bool(true) => return (true, Seen::default()),
            Value::Object(map) => map,
            _ => {
                self.report(at, "false", || {
                    (
                        Part::Null,
                        super::super::values::summary(instance),
                        Message::Static("no value is valid here (the schema is `false`)"),
                    )
                });
                return (false, Seen::default());
            }
        };
        if self.depth > 256 {
            self.report(at, "$ref", || {
                (
                    Part::U64(256),
                    Part::Null,
                    Message::Template("references nest deeper than {limit} levels"),
                )
            });
            return (false, Seen::default());
        }
        self.depth += 1;
        let mut base = base.to_string();
        let mut validation = validation;
        let entered = if let Some(Value::String(id)) = map.get("$id") {
            base = strip_fragment(&resolve(&base, id));
            if let Some(v) = self.registry.resource_validation(&base) {
                validation = v;
            }
            self.scope.push(base.clone());
            true
        } else {
            false
        };
        let outcome = self.eval_object(map, &base, validation, instance, at);
        if entered {
            self.scope.pop();
        }
        self.depth -= 1;
        outcome
    }

    /// Evaluates the target of a reference (`keyword`), entering its resource (`to`) when it
    /// is not the current one.
    #[allow(
        clippy::too_many_arguments,
        reason = "the evaluation's context, passed down"
    )]
    pub(crate) fn follow(
        &mut self,
        keyword: &'static str,
        target: &'static Value,
        base: &str,
        to: &str,
        v: bool,
        instance: &Value,
        at: &Location<'_>,
    ) -> (bool, Seen) {
        // A target with an `$id` enters its own resource (in `eval`); any other target
        // enters the resource it sits in.
        let enter = to != base && target.get("$id").is_none();
        if enter {
            self.scope.push(to.to_string());
        }
        let outcome = self.sub(&[Token::Name(keyword)], target, to, v, instance, at);
        if enter {
            self.scope.pop();
        }
        outcome
    }

    pub(crate) fn eval_object(
        &mut self,
        map: &'static Object,
        base: &str,
        validation: bool,
        instance: &Value,
        at: &Location<'_>,
    ) -> (bool, Seen) {
        let mut ok = true;
        let mut seen = Seen::default();
        for keyword in ["$ref", "$dynamicRef"] {
            let Some(Value::String(reference)) = map.get(keyword) else {
                continue;
            };
            let target = if keyword == "$ref" {
                self.registry.lookup(base, reference)
            } else {
                self.registry.dynamic_lookup(base, reference, self.scope)
            };
            match target {
                Some(Target {
                    schema: target,
                    base: to,
                    validation: v,
                    ..
                }) => {
                    let (valid, s) = self.follow(keyword, target, base, &to, v, instance, at);
                    ok &= valid;
                    seen.merge(s);
                }
                None => {
                    ok = false;
                    self.report(at, keyword, || {
                        (
                            Part::Str(reference.as_str()),
                            Part::Null,
                            Message::Template("the reference {limit} does not resolve"),
                        )
                    });
                }
            }
        }
        if validation {
            ok &= self.validation_keywords(map, instance, at);
        }
        ok &= self.in_place(map, base, validation, instance, at, &mut seen);
        match instance {
            Value::Object(object) => {
                ok &= self.object(map, base, validation, object, at, &mut seen);
            }
            Value::Array(items) => ok &= self.array(map, base, validation, items, at, &mut seen),
            _ => {}
        }
        (ok, seen)
    }

    /// `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`.
    pub(crate) fn in_place(
        &mut self,
        map: &'static Object,
        base: &str,
        v: bool,
        instance: &Value,
        at: &Location<'_>,
        seen: &mut Seen,
    ) -> bool {
        let mut ok = true;
        if let Some(Value::Array(all)) = map.get("allOf") {
            for (i, schema) in all.iter().enumerate() {
                let tokens = [Token::Name("allOf"), Token::Index(i)];
                let (valid, s) = self.sub(&tokens, schema, base, v, instance, at);
                ok &= valid;
                seen.merge(s);
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = map.get(keyword) else {
                continue;
            };
            let mut matched = 0usize;
            for (i, schema) in branches.iter().enumerate() {
                let tokens = [Token::Name(keyword), Token::Index(i)];
                let (valid, s) = self.quietly(&tokens, schema, base, v, instance, at);
                if valid {
                    matched += 1;
                    seen.merge(s);
                }
            }
            let valid = if keyword == "anyOf" {
                matched > 0
            } else {
                matched == 1
            };
            if !valid {
                ok = false;
                let count = branches.len();
                self.report(at, keyword, || match keyword {
                    "anyOf" => (
                        Part::from(count),
                        Part::U64(0),
                        Message::Template("the value matches none of the {limit} schemas"),
                    ),
                    _ => (
                        Part::U64(1),
                        Part::from(matched),
                        Message::Template(
                            "the value matches {actual} of the schemas, not exactly {limit}",
                        ),
                    ),
                });
            }
        }
        if let Some(not) = map.get("not") {
            if self
                .quietly(&[Token::Name("not")], not, base, v, instance, at)
                .0
            {
                ok = false;
                self.report(at, "not", || {
                    (
                        Part::Null,
                        super::super::values::summary(instance),
                        Message::Static("the value matches the schema it must not match"),
                    )
                });
            }
        }
        if let Some(condition) = map.get("if") {
            let (holds, s) = self.quietly(&[Token::Name("if")], condition, base, v, instance, at);
            let (keyword, branch) = if holds {
                seen.merge(s);
                ("then", map.get("then"))
            } else {
                ("else", map.get("else"))
            };
            if let Some(branch) = branch {
                let (valid, s) = self.sub(&[Token::Name(keyword)], branch, base, v, instance, at);
                ok &= valid;
                seen.merge(s);
            }
        }
        if let (Some(Value::Object(dependents)), Value::Object(object)) =
            (map.get("dependentSchemas"), instance)
        {
            for (name, schema) in dependents {
                if object.contains_key(name) {
                    let tokens = [Token::Name("dependentSchemas"), Token::Name(name.as_str())];
                    let (valid, s) = self.sub(&tokens, schema, base, v, instance, at);
                    ok &= valid;
                    seen.merge(s);
                }
            }
        }
        ok
    }
}
