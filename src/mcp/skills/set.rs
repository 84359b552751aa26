//! The skills of a server, checked and indexed once when it is built: the entries
//! (frontmatter, manifest with digests), the resources of their files and the directories
//! of the skill namespace.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::Arc;

use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use super::{
    frontmatter, DirectoryChild, FileContent, Skill, SkillDefinition, SkillDigest, SkillFiles,
    SkillFrontmatter, SkillResource, SkillResources, MAX_SKILL_BYTES, MAX_SKILL_FILES,
    SKILL_SCHEME,
};
use crate::generated::protocol::{BlobResourceContents, ResourceContents, TextResourceContents};
use crate::generated::skills::{validate, SkillResourcesVariant1};
use crate::mcp::{McpError, ResourceDefinition};

/// The MIME type of a directory resource.
pub(crate) const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The checked skills of a server.
#[derive(Debug, Default)]
pub(crate) struct SkillSet {
    /// The entries, in registration order.
    pub(crate) entries: Vec<Skill>,
    /// Entry index by `SKILL.md` URI.
    pub(crate) by_uri: HashMap<String, usize>,
    /// The direct children of every directory of the namespace, sorted by URI.
    pub(crate) directories: HashMap<String, Vec<DirectoryChild>>,
}

/// One file of the namespace.
struct File {
    content: FileContent,
    /// Its path within the skill that registered it.
    relative: String,
}

/// Checks `skills` and builds their set and the resources of their files.
///
/// # Errors
///
/// [`McpError::InvalidSkill`] naming the skill and the rule it breaks.
pub(crate) fn compile(
    skills: &[SkillDefinition],
) -> Result<(SkillSet, Vec<ResourceDefinition>), McpError> {
    let mut files: BTreeMap<String, File> = BTreeMap::new();
    for skill in skills {
        check_path(skill, &skill.path, "the skill path")?;
        for (relative, content) in &skill.files {
            check_path(skill, relative, "a file path")?;
            let uri = format!("{SKILL_SCHEME}://{}/{relative}", skill.path);
            match files.get(&uri).map(|known| &known.content) {
                Some(FileContent::Fixed(known)) if matches!(content, FileContent::Fixed(bytes) if bytes == known) =>
                    {}
                Some(_) => {
                    return Err(skill.invalid(
                        "a file is given again, by another skill, with different or generated \
                         content",
                    ))
                }
                None => {
                    let file = File {
                        content: content.clone(),
                        relative: relative.clone(),
                    };
                    let _new = files.insert(uri, file);
                }
            }
        }
    }
    let mut set = SkillSet::default();
    // SKILL.md URI -> frontmatter, for the resources' names and descriptions.
    let mut skill_docs: HashMap<String, SkillFrontmatter> = HashMap::new();
    for skill in skills {
        let uri = skill.uri();
        if set.by_uri.contains_key(&uri) {
            return Err(skill.invalid("the skill is registered twice"));
        }
        let skill_md = match files.get(&uri).map(|file| &file.content) {
            Some(FileContent::Fixed(bytes)) => bytes,
            Some(FileContent::Generated(_)) => {
                return Err(skill.invalid(
                    "the SKILL.md is generated: its frontmatter, the entry's, must be fixed",
                ))
            }
            None => return Err(skill.invalid("the skill has no SKILL.md")),
        };
        let frontmatter = read_frontmatter(skill, skill_md)?;
        let root = &uri[..uri.len() - "/SKILL.md".len()];
        let mut manifest = vec![resource_of(&uri, skill_md)];
        let mut total = skill_md.len() as u64;
        let mut generated = false;
        for (file_uri, file) in files.range(format!("{root}/")..) {
            if !file_uri.starts_with(root) || file_uri.as_bytes().get(root.len()) != Some(&b'/') {
                break;
            }
            if *file_uri != uri {
                match &file.content {
                    FileContent::Fixed(bytes) => {
                        manifest.push(resource_of(file_uri, bytes));
                        total += bytes.len() as u64;
                    }
                    FileContent::Generated(_) => generated = true,
                }
            }
        }
        if manifest.len() > MAX_SKILL_FILES {
            return Err(skill.invalid("the skill has more than 512 files"));
        }
        if total > MAX_SKILL_BYTES {
            return Err(skill.invalid("the skill's files exceed 16 MiB"));
        }
        let _new = skill_docs.insert(uri.clone(), frontmatter.clone());
        let _new = set.by_uri.insert(uri.clone(), set.entries.len());
        // Generated content has no stable digest: the extension's `dynamic`, no manifest.
        let resources = if generated {
            SkillResources::String(SkillResourcesVariant1::Dynamic)
        } else {
            SkillResources::SkillFiles(SkillFiles(manifest))
        };
        set.entries.push(Skill {
            frontmatter,
            resources,
            uri,
        });
    }
    let mut resources = Vec::with_capacity(files.len());
    let mut directories: BTreeMap<String, BTreeMap<String, DirectoryChild>> = BTreeMap::new();
    for (uri, file) in &files {
        let doc = skill_docs.get(uri);
        let utf8 = match &file.content {
            FileContent::Fixed(bytes) => std::str::from_utf8(bytes).is_ok(),
            FileContent::Generated(_) => true,
        };
        let mime = mime_type(&file.relative, utf8);
        add_to_directories(&mut directories, uri, file, mime, doc);
        resources.push(file_resource(uri, file, mime, doc));
    }
    set.directories = directories
        .into_iter()
        .map(|(dir, children)| (dir, children.into_values().collect()))
        .collect();
    Ok((set, resources))
}

/// Checks a `/`-separated path: non-empty segments, none `.` or `..`, only characters a URI
/// path carries unescaped.
fn check_path(skill: &SkillDefinition, path: &str, what: &str) -> Result<(), McpError> {
    let bad_segment = path
        .split('/')
        .any(|segment| segment.is_empty() || segment == "." || segment == "..");
    if bad_segment {
        return Err(skill.invalid(format!("{what} has an empty, `.` or `..` segment")));
    }
    let bad_char = path
        .chars()
        .any(|c| !(c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=:@/".contains(c)));
    if bad_char {
        return Err(skill.invalid(format!(
            "{what} has a character a URI path cannot carry unescaped"
        )));
    }
    Ok(())
}

/// The frontmatter of a skill's `SKILL.md`, checked: YAML, a `name` by the naming rule
/// equal to the path's last segment, a `description`.
fn read_frontmatter(skill: &SkillDefinition, bytes: &[u8]) -> Result<SkillFrontmatter, McpError> {
    let text = std::str::from_utf8(bytes).map_err(|_| skill.invalid("SKILL.md is not UTF-8"))?;
    let map: Map<String, Value> =
        frontmatter::parse(text).map_err(|error| skill.invalid(error.reason()))?;
    let value = Value::Object(map);
    if validate::skill_frontmatter(&value).is_err() {
        return Err(skill.invalid(
            "the SKILL.md frontmatter needs a string `name` by the Agent Skills naming rule \
             and a non-empty string `description`",
        ));
    }
    let frontmatter: SkillFrontmatter = serde_json::from_value(value)
        .map_err(|_| skill.invalid("the SKILL.md frontmatter could not be decoded"))?;
    let last = skill.path.rsplit('/').next().unwrap_or_default();
    if frontmatter.name.0 != last {
        return Err(
            skill.invalid("the frontmatter `name` differs from the last segment of the skill path")
        );
    }
    Ok(frontmatter)
}

/// The manifest digest of `bytes`: `sha256:` and the SHA-256 in lowercase hex (what the
/// server publishes and the client checks a read against).
pub(crate) fn digest_of(bytes: &[u8]) -> String {
    let mut digest = String::with_capacity(7 + 64);
    digest.push_str("sha256:");
    for byte in Sha256::digest(bytes) {
        let _infallible = write!(digest, "{byte:02x}");
    }
    digest
}

/// The manifest entry of the file at `uri`.
fn resource_of(uri: &str, bytes: &[u8]) -> SkillResource {
    SkillResource {
        digest: SkillDigest(digest_of(bytes)),
        size: bytes.len() as u64,
        uri: uri.to_owned(),
    }
}

/// A file's MIME type, from its extension (`SKILL.md` and every `.md`: `text/markdown`).
fn mime_type(relative: &str, utf8: bool) -> &'static str {
    let extension = relative
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/typescript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "pdf" => "application/pdf",
        _ if utf8 => "text/plain",
        _ => "application/octet-stream",
    }
}

/// The resource of a file: text when its bytes are UTF-8, base64 otherwise. A skill's
/// `SKILL.md` is named and described from its frontmatter; any other file is named by its
/// path within its skill.
fn file_resource(
    uri: &str,
    file: &File,
    mime: &'static str,
    doc: Option<&SkillFrontmatter>,
) -> ResourceDefinition {
    let name = doc.map_or_else(|| file.relative.clone(), |doc| doc.name.0.clone());
    let mut definition = match &file.content {
        FileContent::Fixed(bytes) => {
            let size = bytes.len() as u64;
            let bytes = Arc::clone(bytes);
            let mut definition = ResourceDefinition::new(uri, name, move |uri: &str| {
                Ok(vec![contents_of(uri, &bytes, mime)])
            });
            definition.resource.size = Some(size);
            definition
        }
        FileContent::Generated(generator) => {
            let generator = Arc::clone(generator);
            ResourceDefinition::new(uri, name, move |uri: &str| {
                Ok(vec![contents_of(uri, &generator()?, mime)])
            })
        }
    }
    .mime_type(mime);
    if let Some(doc) = doc {
        definition = definition.description(doc.description.clone());
    }
    definition
}

/// The contents of a read of `bytes` at `uri`: text when UTF-8, base64 otherwise.
fn contents_of(uri: &str, bytes: &[u8], mime: &'static str) -> ResourceContents {
    match std::str::from_utf8(bytes) {
        Ok(text) => ResourceContents::TextResourceContents(TextResourceContents {
            meta: None,
            mime_type: Some(mime.to_owned()),
            text: text.to_owned(),
            uri: uri.to_owned(),
        }),
        Err(_) => ResourceContents::BlobResourceContents(BlobResourceContents {
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
            meta: None,
            mime_type: Some(mime.to_owned()),
            uri: uri.to_owned(),
        }),
    }
}

/// The size of fixed content; none for generated content.
fn bytes_len(content: &FileContent) -> Option<u64> {
    match content {
        FileContent::Fixed(bytes) => Some(bytes.len() as u64),
        FileContent::Generated(_) => None,
    }
}

/// Adds the file at `uri` and every directory above it (up to the scheme's root, which is
/// not a directory resource) to `directories`.
fn add_to_directories(
    directories: &mut BTreeMap<String, BTreeMap<String, DirectoryChild>>,
    uri: &str,
    file: &File,
    mime: &'static str,
    doc: Option<&SkillFrontmatter>,
) {
    let prefix = format!("{SKILL_SCHEME}://");
    let segments: Vec<&str> = uri[prefix.len()..].split('/').collect();
    let mut dir = format!("{prefix}{}", segments[0]);
    for (depth, segment) in segments.iter().enumerate().skip(1) {
        let child_uri = format!("{dir}/{segment}");
        let is_file = depth + 1 == segments.len();
        let child = if is_file {
            DirectoryChild {
                description: doc.map(|doc| doc.description.clone()),
                mime_type: Some(mime.to_owned()),
                name: (*segment).to_owned(),
                size: bytes_len(&file.content),
                uri: child_uri.clone(),
            }
        } else {
            DirectoryChild {
                description: None,
                mime_type: Some(DIRECTORY_MIME_TYPE.to_owned()),
                name: (*segment).to_owned(),
                size: None,
                uri: child_uri.clone(),
            }
        };
        let _replaced = directories
            .entry(dir.clone())
            .or_default()
            .insert(child_uri.clone(), child);
        dir = child_uri;
    }
}
