//! Pagination of the list methods (`tools/list`, `resources/list`,
//! `resources/templates/list`, `prompts/list`), in both eras.
//!
//! - **Pages.** At most `limits.lists.pageSize` items, in registration order; `nextCursor`
//!   when more follow.
//! - **Cursors.** Opaque and tamper-evident: the name (or URI) of the last item delivered,
//!   sealed with HMAC-SHA256 under the server's signing key (the key set that seals
//!   `requestState`, see [`crate::secrets`]) and bound to the list method, so every
//!   instance sharing the key set continues it, across restarts and key rotations. An
//!   altered cursor, one of another list, or one sealed by a key the server does not have
//!   (another server's, or the random key of another run) is refused with `-32602`.
//! - **Changes.** A cursor continues after its item, so it stays valid while tools,
//!   resources or prompts are added or removed; items added before it are not repeated
//!   (the client learns of them through `notifications/*/list_changed`). Once its own item
//!   is removed, the position is lost: `-32602`, and the client lists again from the start.

use super::params::{invalid_params, violation};
use crate::generated::protocol::Cursor;
use crate::jsonrpc::ErrorObject;
use crate::secrets::KeySet;

/// One list request's position and page size.
#[derive(Debug)]
pub(crate) struct Pager<'a> {
    key: &'a KeySet,
    method: &'a str,
    page_size: usize,
    cursor: Option<Cursor>,
}

/// One page of a list.
#[derive(Debug)]
pub(crate) struct Page<T> {
    /// The page's items.
    pub(crate) items: Vec<T>,
    /// Where the next page starts, when there is one.
    pub(crate) next_cursor: Option<Cursor>,
}

impl<'a> Pager<'a> {
    /// The pager of a `method` request that carried `cursor`.
    pub(crate) fn new(
        key: &'a KeySet,
        method: &'a str,
        page_size: usize,
        cursor: Option<Cursor>,
    ) -> Self {
        Self {
            key,
            method,
            page_size: page_size.max(1),
            cursor,
        }
    }

    /// The page of `items` this request asks for; `name` identifies an item.
    ///
    /// # Errors
    ///
    /// `-32602` when the cursor is not one this server sealed for this list, or its item
    /// is no longer in the list.
    pub(crate) fn page<T: Clone>(
        &self,
        items: &[T],
        name: impl Fn(&T) -> &str,
    ) -> Result<Page<T>, ErrorObject<'static>> {
        let start = match &self.cursor {
            None => 0,
            Some(Cursor(cursor)) => {
                let after = self
                    .key
                    .open(self.method, cursor)
                    .and_then(|bytes| String::from_utf8(bytes).ok())
                    .ok_or_else(|| {
                        cursor_error(
                            "invalid cursor: not one this server issued for this list",
                            "not a cursor this server sealed for this method",
                        )
                    })?;
                let position = items
                    .iter()
                    .position(|item| name(item) == after)
                    .ok_or_else(|| {
                        cursor_error(
                            "the list changed: the item this cursor continues after was \
                             removed; list again without a cursor",
                            "its position no longer exists",
                        )
                    })?;
                position + 1
            }
        };
        let end = start.saturating_add(self.page_size).min(items.len());
        let page = items.get(start..end).unwrap_or_default().to_vec();
        let next_cursor = match page.last() {
            Some(last) if end < items.len() => {
                Some(Cursor(self.key.seal(self.method, name(last).as_bytes())))
            }
            _ => None,
        };
        Ok(Page {
            items: page,
            next_cursor,
        })
    }
}

fn cursor_error(message: &'static str, reason: &'static str) -> ErrorObject<'static> {
    invalid_params(message, vec![violation("/cursor", "cursor", reason)])
}

/// Validates the params of a list method; the pager of the page they ask for.
pub(crate) fn pager<'a>(
    state: &'a super::builder::ServerState,
    method: &'a str,
    params: Option<&serde_json::Value>,
    era: super::era::Era,
) -> Result<Pager<'a>, ErrorObject<'static>> {
    let cursor = match era {
        super::era::Era::Legacy(_) => {
            super::params::decode::<crate::generated::protocol::LegacyPaginatedRequestParams>(
                method,
                params,
                crate::generated::protocol::validate::legacy_paginated_request_params
                    as super::params::Validator,
                true,
            )?
            .cursor
        }
        super::era::Era::Modern => {
            super::params::decode::<crate::generated::protocol::PaginatedRequestParams>(
                method,
                params,
                crate::generated::protocol::validate::paginated_request_params,
                false,
            )?
            .cursor
        }
    };
    Ok(Pager::new(
        &state.state_key,
        method,
        state.page_size,
        cursor,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(page: &Page<&'static str>) -> Vec<&'static str> {
        page.items.clone()
    }

    #[test]
    fn pages_follow_each_other_and_survive_other_changes() {
        let key = KeySet::random().unwrap();
        let items = ["a", "b", "c", "d", "e"];
        let first = Pager::new(&key, "tools/list", 2, None)
            .page(&items, |s| s)
            .unwrap();
        assert_eq!(names(&first), ["a", "b"]);
        let cursor = first.next_cursor.unwrap();
        let second = Pager::new(&key, "tools/list", 2, Some(cursor.clone()))
            .page(&items, |s| s)
            .unwrap();
        assert_eq!(names(&second), ["c", "d"]);
        // "a" removed, "f" added: the cursor still continues after "b".
        let changed = ["b", "c", "d", "e", "f"];
        let again = Pager::new(&key, "tools/list", 2, Some(cursor.clone()))
            .page(&changed, |s| s)
            .unwrap();
        assert_eq!(names(&again), ["c", "d"]);
        let last = Pager::new(&key, "tools/list", 2, again.next_cursor)
            .page(&changed, |s| s)
            .unwrap();
        assert_eq!(names(&last), ["e", "f"]);
        assert!(last.next_cursor.is_none());
        // Its own item removed: the position is lost.
        let gone = ["a", "c", "d"];
        let error = Pager::new(&key, "tools/list", 2, Some(cursor.clone()))
            .page(&gone, |s| s)
            .unwrap_err();
        assert_eq!(error.code, crate::jsonrpc::ErrorCode::INVALID_PARAMS);
        // Another list, another key, an altered cursor.
        for (key, method, cursor) in [
            (&key, "prompts/list", cursor.clone()),
            (&KeySet::random().unwrap(), "tools/list", cursor.clone()),
            (&key, "tools/list", Cursor(format!("x{}", cursor.0))),
            (&key, "tools/list", Cursor("garbage".to_owned())),
        ] {
            let error = Pager::new(key, method, 2, Some(cursor))
                .page(&items, |s| s)
                .unwrap_err();
            assert!(error.message.contains("invalid cursor"), "{error:?}");
        }
    }

    #[test]
    fn a_list_that_fits_has_no_cursor() {
        let key = KeySet::random().unwrap();
        let page = Pager::new(&key, "tools/list", 5, None)
            .page(&["a", "b"], |s| s)
            .unwrap();
        assert_eq!(names(&page), ["a", "b"]);
        assert!(page.next_cursor.is_none());
        let empty: [&str; 0] = [];
        let page = Pager::new(&key, "tools/list", 5, None)
            .page(&empty, |s| s)
            .unwrap();
        assert!(page.items.is_empty() && page.next_cursor.is_none());
    }
}
