//! `pattern`s simple enough to be matched by straight-line code instead of a regex engine.
//!
//! Most tool schemas' patterns are anchored sequences of character classes with quantifiers
//! (`^[a-z][a-z0-9-]*$`, `^\d{4}-\d{2}-\d{2}$`). For those the generator emits a function that
//! walks the string once, greedily, with no engine and no allocation; every other pattern
//! keeps `regress` (ECMA-262, Unicode mode), which the runtime compiles on first use.
//!
//! Greedy matching without backtracking gives the regex's answer only when no atom could have
//! stopped earlier with the next atoms matching what it took. So a pattern is accepted only
//! when every atom whose repeat count may vary (`*`, `+`, `?`, `{n,m}`) has a character class
//! disjoint from every atom that may come right after it (the next one, and the ones after it
//! while they may repeat zero times). The matcher then has no choice to make: a character in
//! the varying atom's class can only be that atom's, any other can only be the next one's.
//!
//! Accepted syntax (ECMA-262 with the `u` flag): a leading `^` (required: unanchored patterns
//! search, which this does not do), an optional trailing `$`, literal characters, escaped
//! syntax characters, `.`, `\d`, `\w`, classes `[...]`/`[^...]` of characters, ranges, `\d`
//! and `\w`, and greedy quantifiers. Anything else (groups, `|`, `\s`, `\b`, `\p{..}`, lazy
//! quantifiers, ...) is `None`: the pattern stays with the engine.
//! [`SimplePattern::is_match`] is the model the emitted code follows; tests compare both with
//! `regress`.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The highest Unicode scalar value.
const MAX_CHAR: u32 = 0x10_FFFF;
/// Repeat counts above this stay with the engine (the emitted loop counts in `u32`, and such
/// patterns are rare).
const MAX_COUNT: u32 = 10_000;

/// A set of characters: sorted, disjoint, non-adjacent inclusive ranges of code points.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Class(Vec<(u32, u32)>);

impl Class {
    fn from_ranges(mut ranges: Vec<(u32, u32)>) -> Self {
        ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (lo, hi) in ranges {
            match merged.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => merged.push((lo, hi)),
            }
        }
        Self(merged)
    }

    fn complement(&self) -> Self {
        let mut out = Vec::new();
        let mut next = 0u32;
        for &(lo, hi) in &self.0 {
            if lo > next {
                out.push((next, lo - 1));
            }
            next = hi + 1;
        }
        if next <= MAX_CHAR {
            out.push((next, MAX_CHAR));
        }
        Self(out)
    }

    fn union(&self, other: &Self) -> Self {
        Self::from_ranges(self.0.iter().chain(&other.0).copied().collect())
    }

    fn is_disjoint(&self, other: &Self) -> bool {
        self.0
            .iter()
            .all(|&(a, b)| other.0.iter().all(|&(c, d)| b < c || d < a))
    }

    #[cfg(test)]
    fn contains(&self, c: char) -> bool {
        let c = u32::from(c);
        self.0.iter().any(|&(lo, hi)| lo <= c && c <= hi)
    }

    fn is_ascii(&self) -> bool {
        self.0.iter().all(|&(_, hi)| hi < 0x80)
    }

    fn digit() -> Self {
        Self(vec![(0x30, 0x39)])
    }

    fn word() -> Self {
        Self::from_ranges(vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
    }

    /// `.` in Unicode mode: every code point but the line terminators.
    fn dot() -> Self {
        Self::from_ranges(vec![(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]).complement()
    }
}

/// One class with its repeat count.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Atom {
    class: Class,
    min: u32,
    /// `None`: unbounded.
    max: Option<u32>,
}

impl Atom {
    fn varies(&self) -> bool {
        self.max != Some(self.min)
    }
}

/// An anchored sequence of classes the emitted code matches greedily.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SimplePattern {
    atoms: Vec<Atom>,
    /// The pattern ends with `$`: the whole string must be taken.
    anchored_end: bool,
}

/// The pattern as a [`SimplePattern`], or `None` when it needs the regex engine.
pub(crate) fn parse(pattern: &str) -> Option<SimplePattern> {
    let body = pattern.strip_prefix('^')?;
    let (body, anchored_end) = match body.strip_suffix('$') {
        // `\$` is a literal dollar, not the anchor.
        Some(rest) if !ends_with_unescaped_backslash(rest) => (rest, true),
        _ => (body, false),
    };
    let chars: Vec<char> = body.chars().collect();
    let mut at = 0;
    let mut atoms = Vec::new();
    while at < chars.len() {
        let (class, next) = atom(&chars, at)?;
        let (min, max, next) = quantifier(&chars, next)?;
        atoms.push(Atom { class, min, max });
        at = next;
    }
    let pattern = SimplePattern {
        atoms,
        anchored_end,
    };
    pattern.is_deterministic().then_some(pattern)
}

fn ends_with_unescaped_backslash(text: &str) -> bool {
    text.chars().rev().take_while(|&c| c == '\\').count() % 2 == 1
}

/// The atom starting at `at`, and where the text after it starts.
fn atom(chars: &[char], at: usize) -> Option<(Class, usize)> {
    match chars[at] {
        '[' => class(chars, at + 1),
        '.' => Some((Class::dot(), at + 1)),
        '\\' => {
            let escaped = *chars.get(at + 1)?;
            let class = match escaped {
                'd' => Class::digit(),
                'w' => Class::word(),
                c if is_syntax(c) => single(c),
                _ => return None,
            };
            Some((class, at + 2))
        }
        c if is_syntax(c) => None,
        c => Some((single(c), at + 1)),
    }
}

/// ECMA-262's syntax characters (plus `/`, which Unicode mode also lets be escaped).
fn is_syntax(c: char) -> bool {
    "^$\\.*+?()[]{}|/".contains(c)
}

fn single(c: char) -> Class {
    Class(vec![(u32::from(c), u32::from(c))])
}

/// A class whose text starts at `at` (after `[`), and where the text after `]` starts.
fn class(chars: &[char], mut at: usize) -> Option<(Class, usize)> {
    let negated = chars.get(at) == Some(&'^');
    if negated {
        at += 1;
    }
    let mut ranges = Vec::new();
    loop {
        let c = *chars.get(at)?;
        if c == ']' {
            at += 1;
            break;
        }
        let (first, next) = class_member(chars, at)?;
        at = next;
        match first {
            Member::Set(set) => {
                // `[\d-z]` is a syntax error in Unicode mode.
                if chars.get(at) == Some(&'-') && chars.get(at + 1).is_some_and(|&c| c != ']') {
                    return None;
                }
                ranges.extend(set.0);
            }
            Member::Char(lo) => {
                if chars.get(at) == Some(&'-') && chars.get(at + 1).is_some_and(|&c| c != ']') {
                    let (last, next) = class_member(chars, at + 1)?;
                    let Member::Char(hi) = last else { return None };
                    if hi < lo {
                        return None;
                    }
                    ranges.push((u32::from(lo), u32::from(hi)));
                    at = next;
                } else {
                    ranges.push((u32::from(lo), u32::from(lo)));
                }
            }
        }
    }
    let class = Class::from_ranges(ranges);
    Some((if negated { class.complement() } else { class }, at))
}

enum Member {
    Char(char),
    Set(Class),
}

fn class_member(chars: &[char], at: usize) -> Option<(Member, usize)> {
    match *chars.get(at)? {
        '\\' => {
            let escaped = *chars.get(at + 1)?;
            let member = match escaped {
                'd' => Member::Set(Class::digit()),
                'w' => Member::Set(Class::word()),
                'n' => Member::Char('\n'),
                'r' => Member::Char('\r'),
                't' => Member::Char('\t'),
                'f' => Member::Char('\u{0C}'),
                'v' => Member::Char('\u{0B}'),
                c if is_syntax(c) || c == '-' => Member::Char(c),
                _ => return None,
            };
            Some((member, at + 2))
        }
        // Nested classes or set operations belong to the `v` flag; keep them away.
        '[' => None,
        c => Some((Member::Char(c), at + 1)),
    }
}

/// The quantifier at `at` (none: exactly once), and where the text after it starts.
fn quantifier(chars: &[char], at: usize) -> Option<(u32, Option<u32>, usize)> {
    let (min, max, next) = match chars.get(at) {
        Some('*') => (0, None, at + 1),
        Some('+') => (1, None, at + 1),
        Some('?') => (0, Some(1), at + 1),
        Some('{') => {
            let close = at + chars[at..].iter().position(|&c| c == '}')?;
            let inside: String = chars[at + 1..close].iter().collect();
            let (min, max) = match inside.split_once(',') {
                None => {
                    let n = count(&inside)?;
                    (n, Some(n))
                }
                Some((lo, "")) => (count(lo)?, None),
                Some((lo, hi)) => (count(lo)?, Some(count(hi)?)),
            };
            if max.is_some_and(|max| max < min) {
                return None;
            }
            (min, max, close + 1)
        }
        _ => return Some((1, Some(1), at)),
    };
    // A lazy quantifier, or a quantifier quantified, is left to the engine.
    if matches!(chars.get(next), Some('?' | '*' | '+' | '{')) {
        return None;
    }
    Some((min, max, next))
}

fn count(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|&n| n <= MAX_COUNT)
}

impl SimplePattern {
    /// Whether greedy matching gives the regex's answer (see the module documentation).
    fn is_deterministic(&self) -> bool {
        self.atoms.iter().enumerate().all(|(i, atom)| {
            if !atom.varies() {
                return true;
            }
            let mut follow = Class(Vec::new());
            for next in &self.atoms[i + 1..] {
                follow = follow.union(&next.class);
                if next.min > 0 {
                    break;
                }
            }
            atom.class.is_disjoint(&follow)
        })
    }

    /// Whether the pattern matches `s`, computed the way the emitted code does (the model the
    /// tests compare with the engine).
    #[cfg(test)]
    pub(crate) fn is_match(&self, s: &str) -> bool {
        let mut rest = s.chars().peekable();
        for atom in &self.atoms {
            let mut n = 0u32;
            while atom.max.is_none_or(|max| n < max) {
                match rest.peek() {
                    Some(&c) if atom.class.contains(c) => {
                        rest.next();
                        n += 1;
                    }
                    _ => break,
                }
            }
            if n < atom.min {
                return false;
            }
        }
        !self.anchored_end || rest.next().is_none()
    }

    /// The body of `fn(s: &str) -> bool` matching the pattern.
    pub(crate) fn emit(&self) -> TokenStream {
        if self.atoms.is_empty() {
            // `^$` or `^`.
            return if self.anchored_end {
                quote!(s.is_empty())
            } else {
                quote!(let _: &str = s; true)
            };
        }
        // Bytes when every class is ASCII (a byte of a multi-byte character then matches no
        // class, as its character would not), characters otherwise.
        let ascii = self.atoms.iter().all(|a| a.class.is_ascii());
        let steps = self.atoms.iter().map(|atom| step(atom, ascii));
        let (start, taken_all) = if ascii {
            (
                quote!(let b = s.as_bytes(); let mut i = 0usize;),
                quote!(i == b.len()),
            )
        } else {
            (quote!(let mut rest = s;), quote!(rest.is_empty()))
        };
        let end = if self.anchored_end {
            taken_all
        } else {
            quote!(true)
        };
        quote! {
            #start
            #(#steps)*
            #end
        }
    }
}

/// The code taking `atom` greedily: from `b[i..]` (bytes) or `rest` (characters), returning
/// `false` when fewer than its minimum are there.
fn step(atom: &Atom, ascii: bool) -> TokenStream {
    let limit = atom.max.map(Literal::u32_suffixed);
    let counted = atom.min > 0 || limit.is_some();
    let (declare, bump) = if counted {
        (quote!(let mut n = 0u32;), quote!(n += 1;))
    } else {
        (quote!(), quote!())
    };
    let min = Literal::u32_suffixed(atom.min);
    let check = (atom.min > 0).then(|| quote!(if n < #min { return false; }));
    let walk = if ascii {
        let ranges = atom.class.0.iter().map(|&(lo, hi)| {
            let (lo, hi) = (byte(lo), byte(hi));
            quote!(#lo..=#hi)
        });
        let test = membership(quote!(b[i]), ranges.collect());
        let bounded = limit.as_ref().map(|max| quote!(n < #max &&));
        quote! {
            while #bounded i < b.len() && #test {
                i += 1;
                #bump
            }
        }
    } else {
        let ranges = atom.class.0.iter().filter_map(|&(lo, hi)| {
            let (lo, hi) = scalar_range(lo, hi)?;
            let (lo, hi) = (Literal::character(lo), Literal::character(hi));
            Some(quote!(#lo..=#hi))
        });
        let test = membership(quote!(c), ranges.collect());
        let take = quote! {
            if !(#test) {
                break;
            }
            rest = &rest[c.len_utf8()..];
            #bump
        };
        match &limit {
            Some(max) => quote! {
                while n < #max {
                    let ::std::option::Option::Some(c) = rest.chars().next() else {
                        break;
                    };
                    #take
                }
            },
            None => quote! {
                while let ::std::option::Option::Some(c) = rest.chars().next() {
                    #take
                }
            },
        }
    };
    quote! {
        {
            #declare
            #walk
            #check
        }
    }
}

/// `matches!(subject, ranges..)`, or `false` for an empty class.
fn membership(subject: TokenStream, ranges: Vec<TokenStream>) -> TokenStream {
    if ranges.is_empty() {
        quote!(false)
    } else {
        quote!(matches!(#subject, #(#ranges)|*))
    }
}

fn byte(code: u32) -> Literal {
    Literal::u8_suffixed(u8::try_from(code).expect("checked ASCII"))
}

/// The code point range `lo..=hi` as a range of `char`s: surrogates are no `char`, so an end
/// among them moves to the nearest scalar value inside the range (`None`: only surrogates).
fn scalar_range(lo: u32, hi: u32) -> Option<(char, char)> {
    let lo = if (0xD800..0xE000).contains(&lo) {
        0xE000
    } else {
        lo
    };
    let hi = if (0xD800..0xE000).contains(&hi) {
        0xD7FF
    } else {
        hi
    };
    (lo <= hi).then_some((char::from_u32(lo)?, char::from_u32(hi)?))
}

#[cfg(test)]
mod tests;
