//! A `SKILL.md`'s YAML frontmatter as the JSON object a skill entry carries: the block
//! between a first line `---` and the next line `---`, parsed as YAML 1.2 (yaml-rust2) and
//! turned into JSON value by value, every field the author wrote kept.

use serde_json::{Map, Number, Value};
use yaml_rust2::{Yaml, YamlLoader};

/// Why a `SKILL.md` has no usable frontmatter. The messages quote nothing of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FrontmatterError {
    /// The file does not begin with a `---` line, or the block is never closed.
    NoBlock,
    /// The block is not YAML.
    NotYaml,
    /// The block is not one YAML mapping.
    NotMapping,
    /// A key is not a string, or a value has no JSON form (an alias, a NaN or infinite
    /// number).
    NotJson,
}

impl FrontmatterError {
    /// The reason, in words.
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Self::NoBlock => "SKILL.md does not begin with a `---` delimited frontmatter block",
            Self::NotYaml => "the SKILL.md frontmatter is not valid YAML",
            Self::NotMapping => "the SKILL.md frontmatter is not a YAML mapping",
            Self::NotJson => {
                "the SKILL.md frontmatter has a non-string key or a value JSON cannot carry"
            }
        }
    }
}

/// The frontmatter of `text` (a `SKILL.md`) as a JSON object.
pub(crate) fn parse(text: &str) -> Result<Map<String, Value>, FrontmatterError> {
    let block = block(text).ok_or(FrontmatterError::NoBlock)?;
    let mut documents = YamlLoader::load_from_str(block).map_err(|_| FrontmatterError::NotYaml)?;
    if documents.len() != 1 {
        return Err(FrontmatterError::NotMapping);
    }
    match to_json(documents.swap_remove(0))? {
        Value::Object(map) => Ok(map),
        _ => Err(FrontmatterError::NotMapping),
    }
}

/// The text between the opening `---` line (after an optional byte-order mark) and the
/// closing one.
fn block(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\r\n")
        .or_else(|| text.strip_prefix("---\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line
            .trim_end_matches(['\r', '\n'])
            .trim_end_matches([' ', '\t'])
            == "---"
        {
            return Some(&rest[..offset]);
        }
        offset += line.len();
    }
    None
}

fn to_json(yaml: Yaml) -> Result<Value, FrontmatterError> {
    Ok(match yaml {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::Number(i.into()),
        Yaml::Real(text) => {
            let float = Yaml::Real(text).as_f64().ok_or(FrontmatterError::NotJson)?;
            Value::Number(Number::from_f64(float).ok_or(FrontmatterError::NotJson)?)
        }
        Yaml::String(s) => Value::String(s),
        Yaml::Array(items) => {
            Value::Array(items.into_iter().map(to_json).collect::<Result<_, _>>()?)
        }
        Yaml::Hash(hash) => {
            let mut map = Map::new();
            for (key, value) in hash {
                let Yaml::String(key) = key else {
                    return Err(FrontmatterError::NotJson);
                };
                let _previous = map.insert(key, to_json(value)?);
            }
            Value::Object(map)
        }
        Yaml::Alias(_) | Yaml::BadValue => return Err(FrontmatterError::NotJson),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fields_pass_through_as_json() {
        let text = "---\nname: pdf-processing\ndescription: \"Extract: fill, and assemble\"\n\
                    license: Apache-2.0\nmetadata:\n  version: \"2.1\"\n  count: 3\n\
                    tags: [a, b]\nratio: 0.5\nflag: true\nnothing: ~\n---\n\n# Body\n";
        assert_eq!(
            Value::Object(parse(text).unwrap()),
            json!({
                "name": "pdf-processing",
                "description": "Extract: fill, and assemble",
                "license": "Apache-2.0",
                "metadata": {"version": "2.1", "count": 3},
                "tags": ["a", "b"],
                "ratio": 0.5,
                "flag": true,
                "nothing": null,
            })
        );
    }

    #[test]
    fn crlf_and_a_byte_order_mark_are_read() {
        let text = "\u{feff}---\r\nname: x\r\ndescription: y\r\n---\r\nbody";
        assert_eq!(
            Value::Object(parse(text).unwrap()),
            json!({"name": "x", "description": "y"})
        );
    }

    #[test]
    fn malformed_blocks_are_refused() {
        assert_eq!(parse("# no frontmatter\n"), Err(FrontmatterError::NoBlock));
        assert_eq!(
            parse("---\nname: x\nno end\n"),
            Err(FrontmatterError::NoBlock)
        );
        assert_eq!(
            parse("---\nname: [unclosed\n---\n"),
            Err(FrontmatterError::NotYaml)
        );
        assert_eq!(
            parse("---\n- a list\n---\n"),
            Err(FrontmatterError::NotMapping)
        );
        assert_eq!(
            parse("---\n1: numeric key\n---\n"),
            Err(FrontmatterError::NotJson)
        );
        assert_eq!(parse("---\nx: .nan\n---\n"), Err(FrontmatterError::NotJson));
    }
}
