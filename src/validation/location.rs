//! Instance locations built on the stack while a validator walks a value, rendered to a
//! JSON Pointer only when an error is recorded (so the happy path never allocates).

use super::text::{ShortText, TextBuilder};

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
}

impl<'a> Location<'a> {
    /// The location of member `key` below `self`.
    #[inline]
    pub fn key(&'a self, key: &'a str) -> Location<'a> {
        Location::Key(self, key)
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
    pub(crate) fn pointer_text(&self) -> ShortText {
        let mut out = TextBuilder::new();
        self.write_pointer(&mut out);
        out.finish()
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Location;

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
    }
}
