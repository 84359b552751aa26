//! Following a violation's schema path through the references it went through: the path is
//! JSON Schema's `keywordLocation`, so a `$ref` or `$dynamicRef` token means "the schema this
//! reference names", which may sit in the group's own schema, in a resource it embeds
//! (`$id`), or in one of the suite's remote documents (`remotes/`, served as
//! `http://localhost:1234/`).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use url::Url;

/// The base URI of the combined schema file the fixture generates (`jsts.json`).
const DOCUMENT: &str = "file:///jsts.json";

/// Every schema resource and anchor a group's references may reach.
pub(crate) struct Resources {
    /// Absolute URI (no fragment) → the resource's root schema.
    resources: BTreeMap<String, Value>,
    /// `uri#name` of every `$anchor` and `$dynamicAnchor` → (resource URI, JSON Pointer of the
    /// schema carrying it below the resource).
    anchors: BTreeMap<String, (String, String)>,
    /// `name` of every `$dynamicAnchor` → each `uri#name` carrying it.
    dynamic: BTreeMap<String, Vec<String>>,
}

impl Resources {
    /// The suite's remote documents (below `remotes`) and the combined document the fixture
    /// generated code from (every accepted group under `$defs`, its references rebased).
    pub(crate) fn new(remotes: &Path, combined: Value) -> Self {
        let mut resources = Self {
            resources: BTreeMap::new(),
            anchors: BTreeMap::new(),
            dynamic: BTreeMap::new(),
        };
        let mut stack = vec![remotes.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "json") {
                    let relative = path.strip_prefix(remotes).expect("below remotes/");
                    let uri = format!(
                        "http://localhost:1234/{}",
                        relative.to_string_lossy().replace('\\', "/")
                    );
                    let text = std::fs::read_to_string(&path).expect("a remote document");
                    let document: Value = serde_json::from_str(&text).expect("JSON");
                    resources.add(&uri, document);
                }
            }
        }
        resources.add(DOCUMENT, combined);
        resources
    }

    /// Registers `document` (URI `uri`) and the resources and anchors it embeds.
    fn add(&mut self, uri: &str, document: Value) {
        let mut found = Vec::new();
        index(&document, uri, uri, ("", ""), &mut found);
        self.resources.insert(uri.to_string(), document.clone());
        for (kind, key, resource, pointer) in found {
            match kind {
                Found::Resource => {
                    let schema = document.pointer(&pointer).cloned().unwrap_or(Value::Null);
                    self.resources.entry(key).or_insert(schema);
                }
                Found::Anchor(dynamic) => {
                    if let Some(name) = dynamic {
                        self.dynamic.entry(name).or_default().push(key.clone());
                    }
                    self.anchors.insert(key, (resource, pointer));
                }
            }
        }
    }

    /// The group's schema and its base URI, where [`Resources::walk`] starts.
    pub(crate) fn group<'s>(&'s self, group: &str) -> Option<(&'s Value, String)> {
        let schema = self.resources.get(DOCUMENT)?.get("$defs")?.get(group)?;
        Some((schema, own_base(schema, DOCUMENT)?))
    }

    /// Whether `path` (JSON Pointer tokens, unescaped) leads from `schema` (whose own base URI
    /// is `base`) to a schema place, following `$ref` and `$dynamicRef`; returns that place.
    pub(crate) fn walk(&self, schema: &Value, base: &str, path: &[String]) -> Option<Value> {
        let Some((token, rest)) = path.split_first() else {
            return Some(schema.clone());
        };
        if let ("$ref" | "$dynamicRef", Some(reference)) =
            (token.as_str(), schema.get(token).and_then(Value::as_str))
        {
            let mut targets = vec![join(base, reference)?];
            if token == "$dynamicRef" {
                // The dynamic scope decides at run time: any schema with that dynamic anchor.
                let name = reference.rsplit('#').next().unwrap_or_default();
                targets.extend(self.dynamic.get(name).into_iter().flatten().cloned());
            }
            return targets.iter().find_map(|target| {
                let (uri, fragment) = target.split_once('#').unwrap_or((target, ""));
                let (root_uri, pointer) = if fragment.is_empty() || fragment.starts_with('/') {
                    (uri.to_string(), percent_decode(fragment))
                } else {
                    self.anchors.get(target)?.clone()
                };
                let root = self.resources.get(&root_uri)?;
                let (schema, at) = descend(root, &root_uri, &pointer)?;
                self.walk(schema, &at, rest)
            });
        }
        let child = match schema {
            Value::Object(map) => map.get(token)?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
        self.walk(child, &own_base(child, base)?, rest)
    }
}

/// What [`index`] found: an embedded resource, or an anchor (`Some(name)` when dynamic).
enum Found {
    Resource,
    Anchor(Option<String>),
}

/// Every `$id` resource and anchor below `node` (at `at` from the document's root and
/// `below` from the resource it is in, URI `resource`, with base URI `base` in force at its
/// parent): `(kind, key, resource URI, pointer)`, the pointer from the document's root for a
/// resource, from the resource's root for an anchor.
fn index(
    node: &Value,
    base: &str,
    resource: &str,
    (at, below): (&str, &str),
    found: &mut Vec<(Found, String, String, String)>,
) {
    let (mut base, mut resource, mut below) =
        (base.to_string(), resource.to_string(), below.to_string());
    if let Some(id) = node.get("$id").and_then(Value::as_str) {
        if let Some(uri) = join(&base, id) {
            let uri = uri.split('#').next().unwrap_or_default().to_string();
            found.push((Found::Resource, uri.clone(), uri.clone(), at.to_string()));
            base = uri.clone();
            resource = uri;
            below = String::new();
        }
    }
    for (keyword, dynamic) in [("$anchor", false), ("$dynamicAnchor", true)] {
        if let Some(name) = node.get(keyword).and_then(Value::as_str) {
            let kind = Found::Anchor(dynamic.then(|| name.to_string()));
            found.push((
                kind,
                format!("{base}#{name}"),
                resource.clone(),
                below.clone(),
            ));
        }
    }
    let children: Vec<(String, &Value)> = match node {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => return,
    };
    for (token, child) in children {
        let (child_at, child_below) = (format!("{at}/{token}"), format!("{below}/{token}"));
        index(child, &base, &resource, (&child_at, &child_below), found);
    }
}

/// The base URI of `schema` found where base URI `parent` is in force: its `$id` resolved,
/// or `parent`.
pub(crate) fn own_base(schema: &Value, parent: &str) -> Option<String> {
    match schema.get("$id").and_then(Value::as_str) {
        Some(id) => join(parent, id),
        None => Some(parent.to_string()),
    }
}

/// The schema at `pointer` below `root` (a resource, URI `uri`), with its own base URI.
fn descend<'v>(root: &'v Value, uri: &str, pointer: &str) -> Option<(&'v Value, String)> {
    let mut node = root;
    let mut base = uri.to_string();
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        node = match node {
            Value::Object(map) => map.get(&token)?,
            Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
        base = own_base(node, &base)?;
    }
    Some((node, base))
}

/// `reference` resolved against `base` (RFC 3986).
fn join(base: &str, reference: &str) -> Option<String> {
    let joined = Url::parse(base).ok()?.join(reference).ok()?;
    Some(joined.to_string())
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
