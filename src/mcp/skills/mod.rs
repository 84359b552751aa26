//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640, Final): a server
//! publishes [Agent Skills](https://agentskills.io/specification), directories of
//! instructions (a `SKILL.md` with YAML frontmatter, and supporting files) an agent loads
//! when a task calls for them.
//!
//! Each file of a skill is an ordinary resource, `skill://<skill-path>/<file-path>`, read
//! with `resources/read` (`SKILL.md` as `text/markdown`, named and described from its
//! frontmatter). The extension adds three methods, all answered by a server with at least
//! one skill ([`McpServerBuilder::skill`](super::McpServerBuilder::skill)), which then
//! declares `{"directoryRead": true}` under `capabilities.extensions` (and the `resources`
//! capability, since its files are resources):
//!
//! - `skills/list`: the entries of every skill, paginated like the other lists (an entry is
//!   never split), with `ttlMs` / `cacheScope` from the server's
//!   [`CacheHints`](super::CacheHints);
//! - `skills/get` (`{"uri": "skill://.../SKILL.md"}`): one entry; `-32602` for a URI that
//!   is not a skill's `SKILL.md` on this server;
//! - `resources/directory/read` (`{"uri": "skill://acme/billing"}`): the direct children of
//!   a directory of the skill namespace (files with their metadata, subdirectories as
//!   `inode/directory`), paginated; `-32602` for anything else.
//!
//! An entry ([`Skill`]) carries the `SKILL.md` URI, its frontmatter as a JSON object (every
//! field the author wrote) and the complete manifest of the skill's files: URI, SHA-256
//! digest (`sha256:<hex>`) and size of each, `SKILL.md` first, and the files of skills
//! nested in its directory too. They are computed once, when the server is built, so a
//! host can check every file it reads. The error messages quote nothing a client sent.
//!
//! The server refuses to build ([`McpError::InvalidSkill`]) a skill without a `SKILL.md`,
//! whose frontmatter is not YAML with a `name` and a `description`, whose name breaks the
//! Agent Skills naming rule (1 to 64 of `a-z`, `0-9`, `-`; no leading, trailing or doubled
//! hyphen) or differs from the last segment of its path, a file path with an empty, `.` or
//! `..` segment or a character a URI path cannot carry unescaped, the same file given
//! twice with different bytes (or generated), a generated `SKILL.md`, and a skill over the
//! extension's limits
//! ([`MAX_SKILL_FILES`], [`MAX_SKILL_BYTES`]).
//!
//! ```
//! use typed_mcp::mcp::skills::SkillDefinition;
//! use typed_mcp::mcp::McpServer;
//!
//! let refunds = SkillDefinition::new("acme/billing/refunds")
//!     .file(
//!         "SKILL.md",
//!         "---\nname: refunds\ndescription: Process refund requests per policy\n---\n\n\
//!          Use the template in `examples/email.md`.\n",
//!     )
//!     .file("examples/email.md", "Dear customer, ...\n");
//! assert_eq!(refunds.uri(), "skill://acme/billing/refunds/SKILL.md");
//! let server = McpServer::builder("billing", "1.0.0").skill(refunds).build().unwrap();
//! # let _ = server;
//! ```
//!
//! A file may also be generated at each read
//! ([`SkillDefinition::generated_file`]): a skill with one (itself or in a skill nested in
//! it) is published with `"resources": "dynamic"` instead of a manifest, as the extension
//! requires when no stable digest can be published; its `SKILL.md` stays fixed, so its
//! frontmatter is the entry's, and `resources/directory/read` lists its files.
//!
//! Not supported: schemes other than `skill://`, and adding or removing skills or files
//! while serving (a skill's files, being resources, should not be removed either: its
//! manifest would still list them).
//! The types are generated from `schema/mcp/skills.json`.

use std::path::Path;
use std::sync::Arc;

pub use crate::generated::skills::{
    DirectoryChild, GetSkillRequestParams, GetSkillResult, ListSkillsRequestParams,
    ListSkillsResult, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, Skill,
    SkillDigest, SkillFiles, SkillFrontmatter, SkillName, SkillResource, SkillResources,
    SkillsSettings,
};

use super::{McpError, ResourceError};

pub(crate) mod frontmatter;
pub(crate) mod methods;
pub(crate) mod set;

/// The extension's identifier, under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The URI scheme of the skills this server publishes.
pub const SKILL_SCHEME: &str = "skill";

/// The extension's limit on the files of one skill (`SKILL.md` included): every host
/// accepts that many, and the server refuses to publish more.
pub const MAX_SKILL_FILES: usize = 512;

/// The extension's limit on the total size of one skill's files, in bytes (16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// One skill: its path in the server's skill namespace and its files. Register it with
/// [`McpServerBuilder::skill`](super::McpServerBuilder::skill); the server checks it when it
/// is built (see the [module](self) for the rules).
#[derive(Clone)]
pub struct SkillDefinition {
    /// `acme/billing/refunds`: an organisational prefix, then the skill's name.
    pub(crate) path: String,
    /// Each file's path relative to the skill's directory (`/`-separated) and its content.
    pub(crate) files: Vec<(String, FileContent)>,
}

/// What a generated file's generator returns: the file's bytes as of this read.
type Generator = dyn Fn() -> Result<Vec<u8>, ResourceError> + Send + Sync;

/// The content of a skill file: bytes given once, or generated at each read.
#[derive(Clone)]
pub(crate) enum FileContent {
    /// Fixed bytes, listed in the skill's manifest with their digest and size.
    Fixed(Arc<[u8]>),
    /// Bytes produced by the generator at each `resources/read`: no stable digest, so the
    /// skills holding the file are published as `dynamic`.
    Generated(Arc<Generator>),
}

impl std::fmt::Debug for SkillDefinition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillDefinition")
            .field("path", &self.path)
            .field(
                "files",
                &self.files.iter().map(|(path, _)| path).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl SkillDefinition {
    /// A skill at `skill_path` (`/`-separated segments; the last is the skill's name, as its
    /// `SKILL.md` frontmatter gives it; the others, if any, a prefix of your choosing), with
    /// no file yet: add its `SKILL.md` and supporting files with [`file`](Self::file).
    #[must_use]
    pub fn new(skill_path: impl Into<String>) -> Self {
        Self {
            path: skill_path.into(),
            files: Vec::new(),
        }
    }

    /// Adds a file: `path` relative to the skill's directory (`SKILL.md`,
    /// `references/FORMS.md`), `content` its raw bytes (served as text when they are UTF-8,
    /// base64 otherwise). Adding a path again replaces its content.
    #[must_use]
    pub fn file(self, path: impl Into<String>, content: impl Into<Vec<u8>>) -> Self {
        self.with(path.into(), FileContent::Fixed(Arc::from(content.into())))
    }

    /// Adds a file whose content is generated: `generator` is called at each
    /// `resources/read` of it and gives its bytes as of that read (text when UTF-8, base64
    /// otherwise; an error is answered as for any resource). Such content has no stable
    /// digest, so the skill's entry carries `"resources": "dynamic"` instead of a manifest
    /// (as does the entry of a skill that encloses it), and a host cannot verify the skill's
    /// files: some hosts decline to load such skills. The file is still listed by
    /// `resources/directory/read` (without a size). The `SKILL.md` itself cannot be
    /// generated (its frontmatter is the entry's): the server refuses to build with one.
    /// Adding a path again replaces its content.
    #[must_use]
    pub fn generated_file<F>(self, path: impl Into<String>, generator: F) -> Self
    where
        F: Fn() -> Result<Vec<u8>, ResourceError> + Send + Sync + 'static,
    {
        self.with(path.into(), FileContent::Generated(Arc::new(generator)))
    }

    fn with(mut self, path: String, content: FileContent) -> Self {
        match self.files.iter_mut().find(|(known, _)| *known == path) {
            Some(entry) => entry.1 = content,
            None => self.files.push((path, content)),
        }
        self
    }

    /// The skill at `skill_path` with every regular file under `dir`, read now (symbolic
    /// links are skipped). Reading stops with an error past the extension's limits.
    ///
    /// # Errors
    ///
    /// [`McpError::InvalidSkill`] when the directory cannot be read, a file name is not
    /// UTF-8, or the skill is over [`MAX_SKILL_FILES`] or [`MAX_SKILL_BYTES`].
    pub fn from_dir(
        skill_path: impl Into<String>,
        dir: impl AsRef<Path>,
    ) -> Result<Self, McpError> {
        let mut skill = Self::new(skill_path);
        let mut total = 0_u64;
        let mut pending = vec![(dir.as_ref().to_path_buf(), String::new())];
        while let Some((folder, prefix)) = pending.pop() {
            let entries = std::fs::read_dir(&folder).map_err(|e| skill.io_error(&e))?;
            for entry in entries {
                let entry = entry.map_err(|e| skill.io_error(&e))?;
                let kind = entry.file_type().map_err(|e| skill.io_error(&e))?;
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    return Err(skill.invalid("a file name is not UTF-8"));
                };
                let relative = format!("{prefix}{name}");
                if kind.is_dir() {
                    pending.push((entry.path(), format!("{relative}/")));
                } else if kind.is_file() {
                    if skill.files.len() >= MAX_SKILL_FILES {
                        return Err(skill.invalid("the skill has more than 512 files"));
                    }
                    let bytes = std::fs::read(entry.path()).map_err(|e| skill.io_error(&e))?;
                    total += bytes.len() as u64;
                    if total > MAX_SKILL_BYTES {
                        return Err(skill.invalid("the skill's files exceed 16 MiB"));
                    }
                    skill
                        .files
                        .push((relative, FileContent::Fixed(Arc::from(bytes))));
                }
            }
        }
        skill.files.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(skill)
    }

    /// The URI of the skill's `SKILL.md`: `skill://<skill-path>/SKILL.md`.
    #[must_use]
    pub fn uri(&self) -> String {
        format!("{SKILL_SCHEME}://{}/SKILL.md", self.path)
    }

    /// [`McpError::InvalidSkill`] for this skill.
    pub(crate) fn invalid(&self, reason: impl Into<String>) -> McpError {
        McpError::InvalidSkill {
            skill: self.path.clone(),
            reason: reason.into(),
        }
    }

    fn io_error(&self, error: &std::io::Error) -> McpError {
        self.invalid(format!(
            "reading the skill's directory failed: {}",
            error.kind()
        ))
    }
}
