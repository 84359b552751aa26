//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) on the client: the
//! server's skills ([`Client::list_skills`], [`Client::get_skill`]) and their files read and
//! verified against the entry ([`Client::read_skill_file`]: size, SHA-256 digest, and for a
//! `SKILL.md` its frontmatter), as a host must before it uses them. Nothing is read ahead of
//! need, and nothing is sent to a server that did not declare the extension.

use base64::Engine as _;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use crate::generated::protocol::ResourceContents;
use crate::generated::skills::{validate, GetSkillResult, ListSkillsResult, Skill, SkillResources};
use crate::mcp::skills::SKILLS_EXTENSION;
use crate::validation::ValidationError;

use super::call::decode;
use super::more_requests::params_of;
use super::{Client, ClientError, RequestOptions};

fn list_request(message: &Value) -> Result<(), Vec<ValidationError>> {
    params_of(message, validate::list_skills_request_params)
}

fn get_request(message: &Value) -> Result<(), Vec<ValidationError>> {
    params_of(message, validate::get_skill_request_params)
}

impl Client {
    /// Every skill the server lists (all pages of `skills/list`). The listing may be partial:
    /// a skill it lacks can still be had by URI ([`get_skill`](Self::get_skill)).
    ///
    /// # Errors
    ///
    /// [`ClientError::ServerExtensionMissing`] when the server did not declare the
    /// extension (nothing is sent); any request error.
    pub async fn list_skills(&self) -> Result<Vec<Skill>, ClientError> {
        self.require_skills()?;
        self.paged("skills/list", list_request, list_request, |modern, raw| {
            if modern {
                let page: ListSkillsResult = decode(
                    "skills/list",
                    raw,
                    validate::list_skills_result,
                    "ListSkillsResult",
                )?;
                return Ok((page.skills, page.next_cursor));
            }
            let page = legacy_result("skills/list", raw)?;
            let skills = match page.get("skills") {
                Some(Value::Array(entries)) => entries
                    .iter()
                    .map(|entry| skill_of("skills/list", entry))
                    .collect::<Result<_, _>>()?,
                _ => return Err(malformed("the skills/list result has no `skills` array")),
            };
            let next = page
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_owned);
            Ok((skills, next))
        })
        .await
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (`skills/get`), as it is now.
    ///
    /// # Errors
    ///
    /// [`ClientError::ServerExtensionMissing`] as for [`list_skills`](Self::list_skills);
    /// [`ClientError::Rpc`] with `-32602` when the server serves no skill there; any
    /// request error.
    pub async fn get_skill(&self, uri: &str) -> Result<Skill, ClientError> {
        self.require_skills()?;
        let mut params = Map::new();
        let _none = params.insert("uri".to_owned(), Value::from(uri));
        let raw = self
            .era_request(
                "skills/get",
                params,
                None,
                &RequestOptions::new(),
                get_request,
                get_request,
            )
            .await?;
        if self.is_modern() {
            let result: GetSkillResult = decode(
                "skills/get",
                &raw,
                validate::get_skill_result,
                "GetSkillResult",
            )?;
            return Ok(result.skill);
        }
        let result = legacy_result("skills/get", &raw)?;
        skill_of("skills/get", result.get("skill").unwrap_or(&Value::Null))
    }

    /// Reads the file at `uri` of `skill` (`resources/read`) and returns its bytes once they
    /// match the entry: the size and the SHA-256 digest the manifest lists for it, and, for
    /// the skill's `SKILL.md`, a frontmatter equal to the entry's field by field.
    ///
    /// # Errors
    ///
    /// [`ClientError::SkillVerification`] when the file is not in the manifest (nothing is
    /// sent), the skill's content is `dynamic` (no manifest to verify against; nothing is
    /// sent), or what was read does not match; any request error. A mismatch may mean the
    /// skill changed: [`get_skill`](Self::get_skill) gives its current entry.
    pub async fn read_skill_file(&self, skill: &Skill, uri: &str) -> Result<Vec<u8>, ClientError> {
        let SkillResources::SkillFiles(files) = &skill.resources else {
            return Err(verification(
                "the skill's content is dynamic: there is no manifest to verify it against",
            ));
        };
        let listed = files
            .0
            .iter()
            .find(|file| file.uri == uri)
            .ok_or_else(|| verification("the file is not in the skill's manifest"))?;
        let read = self.read_resource(uri).await?;
        let bytes = match read.contents() {
            [ResourceContents::TextResourceContents(text)] => text.text.clone().into_bytes(),
            [ResourceContents::BlobResourceContents(blob)] => {
                base64::engine::general_purpose::STANDARD
                    .decode(&blob.blob)
                    .map_err(|_| verification("the file's base64 content does not decode"))?
            }
            _ => return Err(verification("the read did not return exactly one content")),
        };
        if bytes.len() as u64 != listed.size {
            return Err(verification("the file's size differs from the manifest's"));
        }
        let digest: String = Sha256::digest(&bytes)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        if listed.digest.0.strip_prefix("sha256:") != Some(digest.as_str()) {
            return Err(verification(
                "the file's digest differs from the manifest's",
            ));
        }
        if uri == skill.uri {
            let text = std::str::from_utf8(&bytes)
                .map_err(|_| verification("the SKILL.md is not UTF-8"))?;
            let frontmatter = crate::mcp::skills::frontmatter::parse(text)
                .map_err(|error| verification(error.reason()))?;
            let expected = serde_json::to_value(&skill.frontmatter).unwrap_or_default();
            if Value::Object(frontmatter) != expected {
                return Err(verification(
                    "the SKILL.md frontmatter differs from the entry's frontmatter",
                ));
            }
        }
        Ok(bytes)
    }

    /// `ServerExtensionMissing` unless the server declared the extension.
    fn require_skills(&self) -> Result<(), ClientError> {
        let declared = self
            .server()
            .is_some_and(|server| server.extension(SKILLS_EXTENSION).is_some());
        if declared {
            Ok(())
        } else {
            Err(ClientError::ServerExtensionMissing {
                id: SKILLS_EXTENSION,
            })
        }
    }
}

/// A 2025 session's result as a JSON object: the extension is defined against 2026-07-28, so
/// its envelope (`resultType`, `ttlMs`, `cacheScope`) is not required there; the entries are
/// checked all the same ([`skill_of`]).
fn legacy_result(method: &str, raw: &RawValue) -> Result<Map<String, Value>, ClientError> {
    match serde_json::from_str(raw.get()) {
        Ok(Value::Object(result)) => Ok(result),
        _ => Err(malformed(&format!(
            "the {method} result is not a JSON object"
        ))),
    }
}

/// One entry, checked against the schema's `Skill`.
fn skill_of(method: &str, entry: &Value) -> Result<Skill, ClientError> {
    validate::skill(entry).map_err(|errors| ClientError::InvalidMessage {
        what: format!("{method} result"),
        definition: "Skill",
        errors,
    })?;
    serde_json::from_value(entry.clone()).map_err(|_| malformed("a skill entry does not decode"))
}

fn malformed(reason: &str) -> ClientError {
    ClientError::MalformedMessage {
        reason: reason.to_owned(),
    }
}

fn verification(reason: &'static str) -> ClientError {
    ClientError::SkillVerification { reason }
}
