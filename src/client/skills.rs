//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) on the client: the
//! server's skills ([`Client::list_skills`], [`Client::get_skill`]), a skill loaded
//! ([`Client::load_skill`]: its `SKILL.md` read and verified against the entry: size, SHA-256
//! digest, frontmatter field by field) and its other files read when needed and verified the
//! same way ([`Client::read_skill_file`]), as a host must before it uses them. Nothing is
//! read ahead of need, and nothing is sent to a server that did not declare the extension.

use base64::Engine as _;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::generated::protocol::ResourceContents;
use crate::generated::skills::{validate, GetSkillResult, ListSkillsResult, Skill, SkillResources};
use crate::mcp::skills::SKILLS_EXTENSION;
use crate::validation::ValidationError;

use super::call::decode;
use super::more_requests::params_of;
use super::{Client, ClientError, RequestOptions, SkillMismatch};

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

    /// Loads `skill` (an entry of [`list_skills`](Self::list_skills) or
    /// [`get_skill`](Self::get_skill)): reads its `SKILL.md` (`resources/read`) and keeps it
    /// only if it matches the entry: the size and the SHA-256 digest the manifest lists for
    /// it, then its YAML frontmatter, parsed and compared field by field with the entry's
    /// `frontmatter`. This is the skill-loading path of the extension: a plain
    /// [`read_resource`](Self::read_resource) of a `SKILL.md` loads nothing. Only the
    /// `SKILL.md` is read; the skill's other files are read when needed, through the
    /// returned [`LoadedSkill`] ([`read_skill_file`](Self::read_skill_file)), so a skill that
    /// failed to load has none of its files read.
    ///
    /// # Errors
    ///
    /// [`ClientError::SkillVerification`] when the skill's content is `dynamic` (nothing is
    /// sent: such a skill is declined, as the extension allows) or the `SKILL.md` does not
    /// match ([`SkillMismatch`]: `Size`, `Digest`,
    /// `FrontmatterUnreadable`, `Frontmatter`, ...); any request error.
    pub async fn load_skill(&self, skill: &Skill) -> Result<LoadedSkill, ClientError> {
        let bytes = self.read_verified(skill, &skill.uri).await?;
        let instructions = String::from_utf8(bytes)
            .map_err(|_| verification(&skill.uri, SkillMismatch::FrontmatterUnreadable))?;
        check_frontmatter(skill, &instructions)?;
        Ok(LoadedSkill {
            entry: skill.clone(),
            instructions,
        })
    }

    /// Reads the file at `uri` of a loaded skill (`resources/read`, when the skill needs it)
    /// and returns its bytes once they match the entry the skill was loaded from: the size
    /// and SHA-256 digest its manifest lists (and, for the `SKILL.md` read again, the
    /// frontmatter). Only files of that manifest are read.
    ///
    /// # Errors
    ///
    /// [`ClientError::SkillVerification`] when the file is not in the manifest
    /// ([`SkillMismatch::Unlisted`]; nothing is sent) or
    /// what was read does not match; any request error.
    pub async fn read_skill_file(
        &self,
        skill: &LoadedSkill,
        uri: &str,
    ) -> Result<Vec<u8>, ClientError> {
        let bytes = self.read_verified(&skill.entry, uri).await?;
        if uri == skill.entry.uri {
            let text = std::str::from_utf8(&bytes)
                .map_err(|_| verification(uri, SkillMismatch::FrontmatterUnreadable))?;
            check_frontmatter(&skill.entry, text)?;
        }
        Ok(bytes)
    }

    /// The bytes of the file at `uri`, read and checked against the size and digest that
    /// `skill`'s manifest lists for it.
    async fn read_verified(&self, skill: &Skill, uri: &str) -> Result<Vec<u8>, ClientError> {
        let SkillResources::SkillFiles(files) = &skill.resources else {
            return Err(verification(&skill.uri, SkillMismatch::Dynamic));
        };
        let listed = files
            .0
            .iter()
            .find(|file| file.uri == uri)
            .ok_or_else(|| verification(uri, SkillMismatch::Unlisted))?;
        let read = self.read_resource(uri).await?;
        let bytes = match read.contents() {
            [ResourceContents::TextResourceContents(text)] => text.text.clone().into_bytes(),
            [ResourceContents::BlobResourceContents(blob)] => {
                base64::engine::general_purpose::STANDARD
                    .decode(&blob.blob)
                    .map_err(|_| verification(uri, SkillMismatch::Contents))?
            }
            _ => return Err(verification(uri, SkillMismatch::Contents)),
        };
        if bytes.len() as u64 != listed.size {
            return Err(verification(uri, SkillMismatch::Size));
        }
        if listed.digest.0 != crate::mcp::skills::set::digest_of(&bytes) {
            return Err(verification(uri, SkillMismatch::Digest));
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

fn verification(uri: &str, mismatch: SkillMismatch) -> ClientError {
    ClientError::SkillVerification {
        uri: uri.to_owned(),
        mismatch,
    }
}

/// `SkillMismatch::Frontmatter` unless the frontmatter of `text` (the skill's `SKILL.md`)
/// equals the entry's field by field.
fn check_frontmatter(skill: &Skill, text: &str) -> Result<(), ClientError> {
    let frontmatter = crate::mcp::skills::frontmatter::parse(text)
        .map_err(|_| verification(&skill.uri, SkillMismatch::FrontmatterUnreadable))?;
    let expected = serde_json::to_value(&skill.frontmatter).unwrap_or_default();
    if Value::Object(frontmatter) == expected {
        Ok(())
    } else {
        Err(verification(&skill.uri, SkillMismatch::Frontmatter))
    }
}

/// A skill loaded by [`Client::load_skill`]: the entry it was loaded from, held while the
/// host acts on the skill (its other files are read against that entry's manifest, and only
/// files it lists), and the verified text of its `SKILL.md`.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSkill {
    entry: Skill,
    instructions: String,
}

impl LoadedSkill {
    /// The entry the skill was loaded from.
    #[must_use]
    pub fn entry(&self) -> &Skill {
        &self.entry
    }

    /// The skill's `SKILL.md`, frontmatter and body, as verified.
    #[must_use]
    pub fn instructions(&self) -> &str {
        &self.instructions
    }

    /// The URIs of the skill's files, `SKILL.md` included, as its manifest lists them.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        let files = match &self.entry.resources {
            SkillResources::SkillFiles(files) => files.0.as_slice(),
            SkillResources::String(_) => &[],
        };
        files.iter().map(|file| file.uri.as_str())
    }
}
