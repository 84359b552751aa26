//! Instance locations built on the stack while a validator walks a value, rendered to a
//! JSON Pointer only when an error is recorded (so the happy path never allocates).

use super::text::{ShortText, TextBuilder, INLINE};

/// Where a validator currently is inside the value being validated.
///
/// Each level borrows its parent, so descending into a member or an item costs one small
/// stack value and no allocation.
#[derive(Debug, Clone, Copy)]
pub enum Location<'a> {
    /// The value the validator was called on (pointer `""`).
    Root,
    /// The value the validator was called on, which sits at this already rendered JSON
    /// Pointer inside a larger document (e.g. `"/params"`).
    Prefix(&'a str),
    /// Member `key` of the object at the parent location.
    Key(&'a Location<'a>, &'a str),
    /// Item `index` of the array at the parent location.
    Index(&'a Location<'a>, usize),
    /// A member of the object at the parent location whose name the generator knew: its
    /// pointer segment, already escaped, with its leading `/` (`"/a~1b"` for member `a/b`).
    Segment(&'a Location<'a>, &'a str),
}

impl<'a> Location<'a> {
    /// The location of member `key` below `self`.
    #[inline]
    pub fn key(&'a self, key: &'a str) -> Location<'a> {
        Location::Key(self, key)
    }

    /// The location of the member whose escaped pointer segment is `segment` (`"/name"`)
    /// below `self`: what generated code uses for the property names it knows, so that
    /// rendering the pointer needs no escaping.
    #[inline]
    pub fn segment(&'a self, segment: &'a str) -> Location<'a> {
        Location::Segment(self, segment)
    }

    /// The location of item `index` below `self`.
    #[inline]
    pub fn index(&'a self, index: usize) -> Location<'a> {
        Location::Index(self, index)
    }

    /// Renders the location as an RFC 6901 JSON Pointer (`~` as `~0`, `/` as `~1`).
    pub fn to_pointer(&self) -> String {
        self.pointer_text().as_str().to_owned()
    }

    /// [`Location::to_pointer`] as a [`ShortText`] (no allocation for short pointers).
    ///
    /// Walks from the location up to the root, writing each segment in front of the ones
    /// below it in a stack buffer: no recursion, and one copy per segment. A pointer longer
    /// than the buffer, or with a key to escape, takes the general way.
    pub(crate) fn pointer_text(&self) -> ShortText {
        let mut buf = [0u8; STACK];
        match self.render(&mut buf) {
            // Whole `&str`s and ASCII put side by side: valid UTF-8.
            Some(start) => ShortText::from_utf8_bytes(&buf[start..]),
            None => {
                let mut out = TextBuilder::new();
                self.write_pointer(&mut out);
                out.finish()
            }
        }
    }

    /// Writes the location's JSON Pointer into `out` where it is (an error already in the
    /// collector's list): a short pointer is written straight into the text's inline bytes,
    /// not built aside and moved in (reading back bytes just stored piecewise, as a move
    /// does, stalls the processor).
    pub(crate) fn write_pointer_into(&self, out: &mut ShortText) {
        match self.plain_len() {
            Some(len) if len <= INLINE => {
                let room = out.inline_room(len);
                let written = self.render(room);
                debug_assert_eq!(written, Some(0));
            }
            _ => *out = self.pointer_text(),
        }
    }

    /// The length of the pointer, when no key needs escaping.
    fn plain_len(&self) -> Option<usize> {
        let mut len = 0usize;
        let mut at = self;
        loop {
            match at {
                Location::Root => return Some(len),
                Location::Prefix(prefix) => return Some(len + prefix.len()),
                Location::Key(parent, key) => {
                    if needs_escape(key.as_bytes()) {
                        return None;
                    }
                    len += 1 + key.len();
                    at = parent;
                }
                Location::Index(parent, index) => {
                    len += 1 + decimal_len(*index);
                    at = parent;
                }
                Location::Segment(parent, segment) => {
                    len += segment.len();
                    at = parent;
                }
            }
        }
    }

    /// Writes the pointer right-aligned in `buf`, each segment in front of the ones below it;
    /// where it starts, or `None` when it does not fit or a key needs escaping.
    fn render(&self, buf: &mut [u8]) -> Option<usize> {
        let mut start = buf.len();
        let mut at = self;
        loop {
            let (parent, written) = match at {
                Location::Root => return Some(start),
                Location::Prefix(prefix) => {
                    return prepend(buf, &mut start, prefix.as_bytes()).then_some(start);
                }
                Location::Key(parent, key) => (
                    parent,
                    !needs_escape(key.as_bytes())
                        && prepend(buf, &mut start, key.as_bytes())
                        && prepend(buf, &mut start, b"/"),
                ),
                Location::Index(parent, index) => (
                    parent,
                    prepend_index(buf, &mut start, *index) && prepend(buf, &mut start, b"/"),
                ),
                Location::Segment(parent, segment) => {
                    (parent, prepend(buf, &mut start, segment.as_bytes()))
                }
            };
            if !written {
                return None;
            }
            at = parent;
        }
    }

    fn write_pointer(&self, out: &mut TextBuilder) {
        match self {
            Location::Root => {}
            Location::Prefix(prefix) => out.push(prefix),
            Location::Key(parent, key) => {
                parent.write_pointer(out);
                out.push("/");
                let mut rest = *key;
                while let Some(special) = rest.bytes().position(|b| b == b'~' || b == b'/') {
                    out.push(&rest[..special]);
                    out.push(if rest.as_bytes()[special] == b'~' {
                        "~0"
                    } else {
                        "~1"
                    });
                    rest = &rest[special + 1..];
                }
                out.push(rest);
            }
            Location::Index(parent, index) => {
                parent.write_pointer(out);
                out.push("/");
                out.push_index(*index);
            }
            Location::Segment(parent, segment) => {
                parent.write_pointer(out);
                out.push(segment);
            }
        }
    }
}

/// Bytes of a pointer [`Location::pointer_text`] renders on the stack.
const STACK: usize = 64;

/// Whether a key has a `~` or a `/`, which a JSON Pointer escapes.
#[inline]
fn needs_escape(key: &[u8]) -> bool {
    key.iter().any(|&b| b == b'~' || b == b'/')
}

/// Writes `bytes` just before `buf[*start..]`; `false` when they do not fit.
#[inline]
fn prepend(buf: &mut [u8], start: &mut usize, bytes: &[u8]) -> bool {
    let Some(new_start) = start.checked_sub(bytes.len()) else {
        return false;
    };
    buf[new_start..*start].copy_from_slice(bytes);
    *start = new_start;
    true
}

/// How many decimal digits `n` has.
#[inline]
fn decimal_len(mut n: usize) -> usize {
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}

/// Writes the decimal digits of `n` just before `buf[*start..]`; `false` when they do not fit.
#[inline]
fn prepend_index(buf: &mut [u8], start: &mut usize, mut n: usize) -> bool {
    loop {
        if *start == 0 {
            return false;
        }
        *start -= 1;
        buf[*start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Location;
    use crate::validation::text::ShortText;

    #[test]
    fn renders_escaped_pointers() {
        let root = Location::Root;
        let a = root.key("a/b");
        let b = a.index(3);
        let c = b.key("m~n");
        assert_eq!(c.to_pointer(), "/a~1b/3/m~0n");
        assert_eq!(root.to_pointer(), "");
        let prefixed = Location::Prefix("/params");
        assert_eq!(prefixed.key("x").to_pointer(), "/params/x");
        let segments = prefixed.segment("/a~1b");
        assert_eq!(segments.index(0).to_pointer(), "/params/a~1b/0");
        assert_eq!(
            segments.segment("/c").key("d").to_pointer(),
            "/params/a~1b/c/d"
        );
        let long = "k".repeat(70);
        let long_segment = format!("/{long}");
        assert_eq!(
            root.segment(&long_segment).segment("/x").to_pointer(),
            format!("/{long}/x")
        );
    }

    #[test]
    fn pointers_written_in_place_match_the_rendered_ones() {
        let root = Location::Root;
        let prefix = Location::Prefix("/params");
        let exact = "e".repeat(super::INLINE - 1);
        let over = "o".repeat(super::INLINE);
        let key = root.key("a/b");
        let item = prefix.index(1234);
        let x = item.segment("/x");
        let deep = x.key("y");
        let exact_key = root.key(&exact);
        let over_key = root.key(&over);
        for at in [root, prefix, key, item, deep, exact_key, over_key] {
            let mut out = ShortText::from("stale text, longer than inline");
            at.write_pointer_into(&mut out);
            assert_eq!(out.as_str(), at.to_pointer(), "{at:?}");
        }
        assert_eq!(exact_key.to_pointer().len(), super::INLINE);
    }

    #[test]
    fn long_pointers_render_whole() {
        let long = "k".repeat(40);
        let root = Location::Prefix("/params/arguments");
        let a = root.key(&long);
        let b = a.index(1234567);
        let c = b.key("tail");
        assert_eq!(
            c.to_pointer(),
            format!("/params/arguments/{long}/1234567/tail")
        );
        let d = root.index(0);
        assert_eq!(d.to_pointer(), "/params/arguments/0");
        let deep = (0..30).fold(String::new(), |s, i| format!("{s}/{i}"));
        let mut chain = vec![Location::Root];
        for i in 0..30 {
            let parent = Box::leak(Box::new(chain[i]));
            chain.push(parent.index(i));
        }
        assert_eq!(chain[30].to_pointer(), deep);
    }
}
