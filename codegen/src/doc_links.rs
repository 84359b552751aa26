//! Doc comments copied from schema text must not read as rustdoc links.
//!
//! A `description` such as `redis://[user:password@]host[:port]` or `(localhost, [::1])`
//! becomes a doc comment, where rustdoc takes every `[...]` for an intra-doc link: the user's
//! `cargo doc` then warns (or fails under `-D warnings`) on links that were never meant. This
//! pass escapes such brackets (`\[`, `\]`) in every doc attribute of a generated file, except
//! inside code spans and in Markdown inline links (`[text](url)`), which rustdoc renders as
//! written.

use syn::visit_mut::VisitMut;

/// Escapes the stray brackets of every doc comment in `file`.
pub(crate) fn escape_in(file: &mut syn::File) {
    Escaper.visit_file_mut(file);
}

struct Escaper;

impl VisitMut for Escaper {
    fn visit_attribute_mut(&mut self, attr: &mut syn::Attribute) {
        if !attr.path().is_ident("doc") {
            return;
        }
        let syn::Meta::NameValue(pair) = &mut attr.meta else {
            return;
        };
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) = &mut pair.value
        else {
            return;
        };
        let escaped = escape(&text.value());
        if escaped != text.value() {
            *text = syn::LitStr::new(&escaped, text.span());
        }
    }
}

/// `text` with every `[` and `]` outside code spans and inline links escaped.
pub(crate) fn escape(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        match chars[at] {
            '`' => {
                // A code span: copied up to the closing run of as many backticks.
                let run = chars[at..].iter().take_while(|&&c| c == '`').count();
                let close = (at + run..chars.len().saturating_sub(run - 1))
                    .find(|&i| chars[i..i + run].iter().all(|&c| c == '`'));
                // An unclosed run is literal backticks.
                let end = close.map_or(at + run, |i| i + run);
                out.extend(&chars[at..end]);
                at = end;
            }
            '\\' => {
                out.push('\\');
                if let Some(&next) = chars.get(at + 1) {
                    out.push(next);
                }
                at += 2;
            }
            '[' => match inline_link_end(&chars, at) {
                Some(end) => {
                    out.extend(&chars[at..end]);
                    at = end;
                }
                None => {
                    out.push_str("\\[");
                    at += 1;
                }
            },
            ']' => {
                out.push_str("\\]");
                at += 1;
            }
            c => {
                out.push(c);
                at += 1;
            }
        }
    }
    out
}

/// Where the Markdown inline link `[text](target)` starting at `at` ends, if one does.
fn inline_link_end(chars: &[char], at: usize) -> Option<usize> {
    let close = at + chars[at..].iter().position(|&c| c == ']')?;
    if chars[at + 1..close].contains(&'[') || chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let end = close + 1 + chars[close + 1..].iter().position(|&c| c == ')')?;
    Some(end + 1)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn stray_brackets_are_escaped() {
        assert_eq!(
            escape("redis://[user:password@]host[:port][/db]"),
            r"redis://\[user:password@\]host\[:port\]\[/db\]"
        );
        assert_eq!(escape("(localhost, [::1])"), r"(localhost, \[::1\])");
    }

    #[test]
    fn links_code_and_escapes_are_kept() {
        for kept in [
            "see [the spec](https://example.com/spec) for more",
            "a `[x]` in code, and ``[y] ` z`` too",
            r"already \[escaped\]",
            "no brackets at all",
        ] {
            assert_eq!(escape(kept), kept);
        }
        assert_eq!(escape("an unclosed `code [x]"), r"an unclosed `code \[x\]");
        assert_eq!(escape("[a] then [b](u)"), r"\[a\] then [b](u)");
    }
}
