//! The extension's methods: `skills/list`, `skills/get`, `resources/directory/read`. The
//! same result shape in both eras (the extension is defined against 2026-07-28; a 2025
//! client ignores the cache hints).

use serde_json::Value;

use super::set::SkillSet;
use super::{
    GetSkillRequestParams, GetSkillResult, ListSkillsRequestParams, ListSkillsResult,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
};
use crate::generated::protocol::{CacheScope, Cursor};
use crate::generated::skills::{
    validate, CacheScope as SkillsCacheScope, GetSkillResultResultType, ListSkillsResultResultType,
    ReadResourceDirectoryResultResultType,
};
use crate::jsonrpc::ErrorObject;
use crate::mcp::builder::ServerState;
use crate::mcp::outbound::respond;
use crate::mcp::pagination::Pager;
use crate::mcp::params::{decode, invalid_params, method_not_found, violation};
use crate::server::HandlerResult;

/// Answers `skills/list`, `skills/get` or `resources/directory/read`; `-32601` when the
/// server has no skills.
pub(crate) fn answer(state: &ServerState, method: &str, params: Option<&Value>) -> HandlerResult {
    let Some(skills) = state.skills.as_deref() else {
        return Err(method_not_found());
    };
    let hints = &state.hints;
    let scope = match hints.scope {
        CacheScope::Public => SkillsCacheScope::Public,
        CacheScope::Private => SkillsCacheScope::Private,
    };
    match method {
        "skills/list" => {
            let p: ListSkillsRequestParams =
                decode(method, params, validate::list_skills_request_params, true)?;
            let pager = pager(state, method, p.cursor);
            let page = pager.page(&skills.entries, |skill| &skill.uri)?;
            respond(&ListSkillsResult {
                cache_scope: scope,
                meta: None,
                next_cursor: page.next_cursor.map(|Cursor(cursor)| cursor),
                result_type: ListSkillsResultResultType::Complete,
                skills: page.items,
                ttl_ms: hints.ttl_ms,
            })
        }
        "skills/get" => {
            let p: GetSkillRequestParams =
                decode(method, params, validate::get_skill_request_params, false)?;
            let skill = skills
                .by_uri
                .get(&p.uri)
                .map(|&index| skills.entries[index].clone())
                .ok_or_else(unknown_skill)?;
            respond(&GetSkillResult {
                cache_scope: scope,
                meta: None,
                result_type: GetSkillResultResultType::Complete,
                skill,
                ttl_ms: hints.ttl_ms,
            })
        }
        "resources/directory/read" => read_directory(state, skills, method, params),
        _ => Err(method_not_found()),
    }
}

fn read_directory(
    state: &ServerState,
    skills: &SkillSet,
    method: &str,
    params: Option<&Value>,
) -> HandlerResult {
    let p: ReadResourceDirectoryRequestParams = decode(
        method,
        params,
        validate::read_resource_directory_request_params,
        false,
    )?;
    let children = skills.directories.get(&p.uri).ok_or_else(|| {
        invalid_params(
            "not a directory resource of this server",
            vec![violation(
                "/uri",
                "directory",
                "the URI names no directory of the server's skills",
            )],
        )
    })?;
    let page = pager(state, method, p.cursor).page(children, |child| &child.uri)?;
    respond(&ReadResourceDirectoryResult {
        meta: None,
        next_cursor: page.next_cursor.map(|Cursor(cursor)| cursor),
        resources: page.items,
        result_type: ReadResourceDirectoryResultResultType::Complete,
    })
}

/// The pager of a list request of the extension (cursors sealed like the core lists').
fn pager<'a>(state: &'a ServerState, method: &'a str, cursor: Option<String>) -> Pager<'a> {
    Pager::new(
        &state.state_key,
        method,
        state.page_size,
        cursor.map(Cursor),
    )
}

/// `-32602` for a URI that is not a skill's `SKILL.md` here; the URI is not quoted.
fn unknown_skill() -> ErrorObject<'static> {
    invalid_params(
        "no skill is served at this URI",
        vec![violation(
            "/uri",
            "skill",
            "the URI is not the SKILL.md of a skill this server serves",
        )],
    )
}
