//! What `unevaluatedProperties` / `unevaluatedItems` need to know: which members and items
//! of one object or array the schema's other keywords (and the subschemas that accepted the
//! value) evaluated. Generated code fills an [`Evaluated`] with the annotations JSON Schema
//! 2020-12 defines (`properties`, `patternProperties`, `additionalProperties`,
//! `prefixItems`, `items`, `contains`, nested `unevaluated*`), then checks the members or
//! items it does not cover.

/// The members and items of one instance evaluated so far.
///
/// Nothing is allocated until a member name or a `contains` index is recorded; a handful of
/// names is searched linearly (objects that use `unevaluatedProperties` are small).
#[derive(Debug, Default)]
pub struct Evaluated<'v> {
    /// Every member (or item) is evaluated.
    all: bool,
    /// Member names evaluated.
    names: Vec<&'v str>,
    /// Items `0..prefix` are evaluated.
    prefix: usize,
    /// Item indexes evaluated beyond the prefix (`contains`).
    indexes: Vec<usize>,
}

impl<'v> Evaluated<'v> {
    /// Nothing evaluated yet.
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    /// Every member and item is evaluated (`additionalProperties`, `items`, a nested
    /// `unevaluated*`).
    #[inline]
    pub fn all(&mut self) {
        self.all = true;
    }

    /// Member `name` is evaluated.
    #[inline]
    pub fn name(&mut self, name: &'v str) {
        if !self.all && !self.names.contains(&name) {
            self.names.push(name);
        }
    }

    /// Items `0..count` are evaluated (`prefixItems`).
    #[inline]
    pub fn prefix(&mut self, count: usize) {
        self.prefix = self.prefix.max(count);
    }

    /// Item `index` is evaluated (`contains`).
    #[inline]
    pub fn index(&mut self, index: usize) {
        if !self.all && index >= self.prefix && !self.indexes.contains(&index) {
            self.indexes.push(index);
        }
    }

    /// Whether member `name` was evaluated.
    #[inline]
    pub fn has_name(&self, name: &str) -> bool {
        self.all || self.names.contains(&name)
    }

    /// Whether item `index` was evaluated.
    #[inline]
    pub fn has_index(&self, index: usize) -> bool {
        self.all || index < self.prefix || self.indexes.contains(&index)
    }
}

#[cfg(test)]
mod tests {
    use super::Evaluated;

    #[test]
    fn records_names_prefixes_and_indexes() {
        let mut seen = Evaluated::new();
        assert!(!seen.has_name("a") && !seen.has_index(0));
        seen.name("a");
        seen.prefix(2);
        seen.index(5);
        assert!(seen.has_name("a") && !seen.has_name("b"));
        assert!(seen.has_index(0) && seen.has_index(1) && !seen.has_index(2));
        assert!(seen.has_index(5) && !seen.has_index(4));
        seen.all();
        assert!(seen.has_name("b") && seen.has_index(4));
    }
}
