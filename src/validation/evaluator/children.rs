//! The applicators to members and items: `properties`, `patternProperties`,
//! `additionalProperties`, `propertyNames`, `unevaluatedProperties`, `prefixItems`, `items`,
//! `contains` (with `minContains` / `maxContains`) and `unevaluatedItems`.

use super::*;

impl State<'_, '_, '_> {
    #[allow(
        clippy::too_many_arguments,
        reason = "the evaluation's context, passed down"
    )]
    pub(crate) fn object(
        &mut self,
        map: &'static Object,
        base: &str,
        v: bool,
        object: &Object,
        at: &Location<'_>,
        seen: &mut Seen,
    ) -> bool {
        let mut ok = true;
        let mut here = BTreeSet::new();
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (name, schema) in properties {
                if let Some(member) = object.get(name) {
                    let tokens = [Token::Name("properties"), Token::Name(name.as_str())];
                    ok &= self.sub(&tokens, schema, base, v, member, &at.key(name)).0;
                    here.insert(name.clone());
                }
            }
        }
        if let Some(Value::Object(patterns)) = map.get("patternProperties") {
            for (pattern, schema) in patterns {
                let regex = self.patterns.regex(pattern);
                let tokens = [
                    Token::Name("patternProperties"),
                    Token::Name(pattern.as_str()),
                ];
                for (name, member) in object {
                    if regex.is_match(name) {
                        ok &= self.sub(&tokens, schema, base, v, member, &at.key(name)).0;
                        here.insert(name.clone());
                    }
                }
            }
        }
        if let Some(additional) = map.get("additionalProperties") {
            let tokens = [Token::Name("additionalProperties")];
            for (name, member) in object {
                if !here.contains(name) {
                    ok &= self
                        .sub(&tokens, additional, base, v, member, &at.key(name))
                        .0;
                }
            }
            seen.all_properties = true;
        }
        if let Some(names) = map.get("propertyNames") {
            let tokens = [Token::Name("propertyNames")];
            for name in object.keys() {
                let name = Value::String(name.clone());
                ok &= self.sub(&tokens, names, base, v, &name, at).0;
            }
        }
        seen.properties.extend(here);
        if let Some(unevaluated) = map.get("unevaluatedProperties") {
            let tokens = [Token::Name("unevaluatedProperties")];
            for (name, member) in object {
                if !seen.all_properties && !seen.properties.contains(name) {
                    ok &= self
                        .sub(&tokens, unevaluated, base, v, member, &at.key(name))
                        .0;
                }
            }
            seen.all_properties = true;
        }
        ok
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "the evaluation's context, passed down"
    )]
    pub(crate) fn array(
        &mut self,
        map: &'static Object,
        base: &str,
        v: bool,
        items: &[Value],
        at: &Location<'_>,
        seen: &mut Seen,
    ) -> bool {
        let mut ok = true;
        let mut prefix = 0;
        if let Some(Value::Array(schemas)) = map.get("prefixItems") {
            for (index, (schema, item)) in schemas.iter().zip(items).enumerate() {
                let tokens = [Token::Name("prefixItems"), Token::Index(index)];
                ok &= self.sub(&tokens, schema, base, v, item, &at.index(index)).0;
            }
            prefix = schemas.len().min(items.len());
            seen.items.extend(0..prefix);
        }
        if let Some(rest) = map.get("items") {
            for (index, item) in items.iter().enumerate().skip(prefix) {
                let tokens = [Token::Name("items")];
                ok &= self.sub(&tokens, rest, base, v, item, &at.index(index)).0;
            }
            seen.all_items = true;
        }
        if let Some(contains) = map.get("contains") {
            ok &= self.contains(map, contains, base, v, items, at, seen);
        }
        if let Some(unevaluated) = map.get("unevaluatedItems") {
            for (index, item) in items.iter().enumerate() {
                if !seen.all_items && !seen.items.contains(&index) {
                    let tokens = [Token::Name("unevaluatedItems")];
                    ok &= self
                        .sub(&tokens, unevaluated, base, v, item, &at.index(index))
                        .0;
                }
            }
            seen.all_items = true;
        }
        ok
    }

    /// `contains` with its bounds (`minContains`, `maxContains`: validation keywords).
    #[allow(
        clippy::too_many_arguments,
        reason = "the evaluation's context, passed down"
    )]
    fn contains(
        &mut self,
        map: &'static Object,
        contains: &'static Value,
        base: &str,
        v: bool,
        items: &[Value],
        at: &Location<'_>,
        seen: &mut Seen,
    ) -> bool {
        let mut matched = 0u64;
        for (index, item) in items.iter().enumerate() {
            let tokens = [Token::Name("contains")];
            if self
                .quietly(&tokens, contains, base, v, item, &at.index(index))
                .0
            {
                matched += 1;
                seen.items.insert(index);
            }
        }
        let bound = |keyword| {
            if v {
                map.get(keyword).and_then(as_count)
            } else {
                None
            }
        };
        let (min, max) = (bound("minContains"), bound("maxContains"));
        let least = min.unwrap_or(1);
        let mut ok = true;
        if matched < least {
            ok = false;
            let keyword = if min.is_some() {
                "minContains"
            } else {
                "contains"
            };
            self.report(at, keyword, || {
                (
                    Part::U64(least),
                    Part::U64(matched),
                    Message::Template(
                        "array has {actual} items matching `contains`, fewer than {limit}",
                    ),
                )
            });
        }
        if let Some(most) = max.filter(|most| matched > *most) {
            ok = false;
            self.report(at, "maxContains", || {
                (
                    Part::U64(most),
                    Part::U64(matched),
                    Message::Template(
                        "array has {actual} items matching `contains`, more than {limit}",
                    ),
                )
            });
        }
        ok
    }
}
