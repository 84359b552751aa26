//! Where the members of a request's `params`, and those of its `_meta`, lie in the params'
//! text: recorded by the frame check (`parse::long_frame`) as it walks them, so that a
//! reader of the params (the MCP layer's scan of a 2026-07-28 `tools/call`) finds them
//! without walking their bytes a second time.
//!
//! An index describes the params text it was recorded from and no other: it travels with
//! that text (from the frame's parse to the request's handler, through
//! [`RequestContext`](crate::server::RequestContext)), and every span in it is a range of
//! that text that the check read as one JSON value (or one member name, without its
//! quotes). The check keeps an index only for params with a `_meta` object (the requests
//! whose reading uses it); an index that could not hold every member answers `None` when
//! asked for them, and the reader then walks the text itself.

/// A range of the params' text, as byte offsets from its start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// The range `start..end` of a text `base` bytes into the frame; `None` past `u32`.
    fn new(base: usize, start: usize, end: usize) -> Option<Self> {
        Some(Self {
            start: u32::try_from(start.checked_sub(base)?).ok()?,
            end: u32::try_from(end.checked_sub(base)?).ok()?,
        })
    }

    /// The text of this range of `params` (`None` when `params` is not the text indexed).
    pub(crate) fn of(self, params: &str) -> Option<&str> {
        params.get(self.start as usize..self.end as usize)
    }
}

/// One member of an object: its name (without the quotes) and its value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MemberSpan {
    /// The name, as written (escapes not decoded).
    pub(crate) name: Span,
    /// The value, as written.
    pub(crate) value: Span,
    /// The name holds an escape (its text is not the name).
    pub(crate) name_escaped: bool,
    /// The value is a string that holds an escape.
    pub(crate) value_escaped: bool,
}

/// The members of one object, in order, up to `N` of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Members<const N: usize> {
    spans: [MemberSpan; N],
    len: u8,
    /// More than `N` members: the spans are not all there.
    overflowed: bool,
}

impl<const N: usize> Default for Members<N> {
    fn default() -> Self {
        Self {
            spans: [MemberSpan::default(); N],
            len: 0,
            overflowed: false,
        }
    }
}

impl<const N: usize> Members<N> {
    /// The members recorded, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &MemberSpan> {
        self.spans.iter().take(usize::from(self.len))
    }

    /// Records a member (see [`ParamsIndex::record_member`]); one it cannot hold (past `N`,
    /// or past `u32`) marks these members incomplete.
    fn record(
        &mut self,
        base: usize,
        name: (usize, usize),
        value: (usize, usize),
        escapes: (bool, bool),
    ) {
        let slot = self.spans.get_mut(usize::from(self.len));
        match (slot, member_span(base, name, value, escapes)) {
            (Some(slot), Some(member)) => {
                *slot = member;
                self.len += 1;
            }
            _ => self.overflowed = true,
        }
    }
}

/// The members of a params object, and of its `_meta` member when that is an object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ParamsIndex {
    members: ParamsMembers,
    meta: Option<MetaMembers>,
    /// `_meta` was written more than once.
    meta_repeated: bool,
}

/// The members of a params object an index holds.
pub(crate) type ParamsMembers = Members<PARAMS_MEMBERS>;

/// The members of a `_meta` object an index holds.
pub(crate) type MetaMembers = Members<META_MEMBERS>;

/// The params members an index holds: `name`, `arguments`, `_meta` and one more (a retry's
/// `inputResponses` or `requestState` take the text's walk).
const PARAMS_MEMBERS: usize = 4;

/// The `_meta` members an index holds: a 2026-07-28 request's version, capabilities, client
/// information, log level, progress token, and one more.
const META_MEMBERS: usize = 6;

impl ParamsIndex {
    /// Whether the params have a `_meta` object.
    pub(crate) fn has_meta(&self) -> bool {
        self.meta.is_some()
    }

    /// The params' members, when all were recorded.
    pub(crate) fn members(&self) -> Option<&ParamsMembers> {
        (!self.members.overflowed).then_some(&self.members)
    }

    /// The members of the params' `_meta` (`Some(None)` when there is none, or it is not an
    /// object), when all were recorded and `_meta` occurs once.
    pub(crate) fn meta(&self) -> Option<Option<&MetaMembers>> {
        match &self.meta {
            _ if self.meta_repeated => None,
            Some(meta) if meta.overflowed => None,
            meta => Some(meta.as_ref()),
        }
    }
}

impl ParamsIndex {
    /// Records a params member (its name, quotes included, and its value, as offsets into
    /// the frame, the params starting at `base`; whether each holds an escape).
    pub(crate) fn record_member(
        &mut self,
        base: usize,
        name: (usize, usize),
        value: (usize, usize),
        escapes: (bool, bool),
    ) {
        self.members.record(base, name, value, escapes);
    }

    /// Starts the members of `_meta` (a second `_meta` spoils the index).
    pub(crate) fn start_meta(&mut self) {
        if self.meta.replace(Members::default()).is_some() {
            self.meta_repeated = true;
        }
    }

    /// Records a member of `_meta`, as [`record_member`](Self::record_member).
    pub(crate) fn record_meta_member(
        &mut self,
        base: usize,
        name: (usize, usize),
        value: (usize, usize),
        escapes: (bool, bool),
    ) {
        if let Some(meta) = &mut self.meta {
            meta.record(base, name, value, escapes);
        }
    }
}

/// The span of a member whose name (quotes included) and value are at these offsets of the
/// frame, the params starting at `base`.
fn member_span(
    base: usize,
    (name_start, name_end): (usize, usize),
    (value_start, value_end): (usize, usize),
    (name_escaped, value_escaped): (bool, bool),
) -> Option<MemberSpan> {
    Some(MemberSpan {
        name: Span::new(base, name_start.checked_add(1)?, name_end.checked_sub(1)?)?,
        value: Span::new(base, value_start, value_end)?,
        name_escaped,
        value_escaped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{parse_frame_indexed, BatchPolicy};

    /// The index the frame check records of `params`.
    fn index_of(params: &str) -> Option<Box<ParamsIndex>> {
        let frame = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{params}}}"#);
        parse_frame_indexed(frame.as_bytes(), BatchPolicy::Reject, 64).1
    }

    /// Each member as (name, value, name escaped, value escaped).
    fn read<'a, const N: usize>(
        params: &'a str,
        members: &Members<N>,
    ) -> Vec<(&'a str, &'a str, bool, bool)> {
        members
            .iter()
            .map(|member| {
                (
                    member.name.of(params).unwrap(),
                    member.value.of(params).unwrap(),
                    member.name_escaped,
                    member.value_escaped,
                )
            })
            .collect()
    }

    #[test]
    fn members_and_meta_members_are_where_the_text_has_them() {
        let params =
            r#"{ "n\u0061me" : "a\"b" , "_meta":{"k":[1,{"x":2}], "v" :"x"},"arguments":{}}"#;
        let index = index_of(params).unwrap();
        assert_eq!(
            read(params, index.members().unwrap()),
            [
                (r"n\u0061me", r#""a\"b""#, true, true),
                ("_meta", r#"{"k":[1,{"x":2}], "v" :"x"}"#, false, false),
                ("arguments", "{}", false, false),
            ]
        );
        assert_eq!(
            read(params, index.meta().unwrap().unwrap()),
            [
                ("k", r#"[1,{"x":2}]"#, false, false),
                ("v", r#""x""#, false, false)
            ]
        );
    }

    #[test]
    fn an_index_that_cannot_hold_every_member_is_not_read() {
        let five = r#"{"_meta":{},"b":2,"c":3,"d":4,"e":5}"#;
        assert_eq!(index_of(five).unwrap().members(), None);
        let seven = r#"{"_meta":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7}}"#;
        let index = index_of(seven).unwrap();
        assert!(index.members().is_some());
        assert_eq!(index.meta(), None);
        let twice = r#"{"_meta":{"a":1},"_meta":{"a":2}}"#;
        assert_eq!(index_of(twice).unwrap().meta(), None);
        // Params without a `_meta` object, params that are not an object, and a frame the
        // check leaves to serde_json, get no index.
        assert_eq!(index_of(r#"{"_meta":[1]}"#), None);
        assert_eq!(index_of(r#"{"name":"a"}"#), None);
        assert_eq!(index_of("[1]"), None);
        assert_eq!(index_of(r#"{"a":01}"#), None);
    }
}
