//! Which scopes a request needs: every request's, its method's, and those of the tool, prompt
//! or resource it names (read from the JSON-RPC body; a batch needs the union).

use std::collections::HashMap;

use serde::Deserialize;

use crate::server::AuthInfo;

/// The scope requirements declared on a [`ResourceServer`](super::ResourceServer).
#[derive(Clone, Debug, Default)]
pub(crate) struct Rules {
    pub(crate) every: Vec<String>,
    pub(crate) methods: HashMap<String, Vec<String>>,
    pub(crate) tools: HashMap<String, Vec<String>>,
    pub(crate) prompts: HashMap<String, Vec<String>>,
    pub(crate) resources: HashMap<String, Vec<String>>,
}

/// What of a JSON-RPC message the rules look at.
#[derive(Deserialize)]
struct Peek {
    method: Option<String>,
    params: Option<PeekParams>,
}

#[derive(Deserialize)]
struct PeekParams {
    name: Option<String>,
    uri: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Messages {
    One(Peek),
    Batch(Vec<Peek>),
}

impl Rules {
    /// Whether the body must be read to know the scopes a request needs.
    pub(crate) fn need_body(&self) -> bool {
        !(self.methods.is_empty()
            && self.tools.is_empty()
            && self.prompts.is_empty()
            && self.resources.is_empty())
    }

    /// The scopes `body` needs that `auth` lacks (empty: allowed). A body that is not
    /// JSON-RPC needs only the scopes of every request: the MCP layer answers it.
    pub(crate) fn missing(&self, auth: &AuthInfo, body: Option<&[u8]>) -> Vec<String> {
        let mut needed: Vec<&str> = self.every.iter().map(String::as_str).collect();
        if let Some(Ok(messages)) = body.map(serde_json::from_slice::<Messages>) {
            let messages = match messages {
                Messages::One(one) => vec![one],
                Messages::Batch(batch) => batch,
            };
            for message in &messages {
                self.needed_by(message, &mut needed);
            }
        }
        let mut missing: Vec<String> = Vec::new();
        for scope in needed {
            if !auth.has_scope(scope) && !missing.iter().any(|m| m == scope) {
                missing.push(scope.to_owned());
            }
        }
        missing
    }

    fn needed_by<'r>(&'r self, message: &Peek, needed: &mut Vec<&'r str>) {
        let Some(method) = message.method.as_deref() else {
            return;
        };
        let mut add = |scopes: Option<&'r Vec<String>>| {
            needed.extend(scopes.into_iter().flatten().map(String::as_str));
        };
        add(self.methods.get(method));
        let params = message.params.as_ref();
        let name = params.and_then(|p| p.name.as_deref());
        let uri = params.and_then(|p| p.uri.as_deref());
        match method {
            "tools/call" => add(name.and_then(|name| self.tools.get(name))),
            "prompts/get" => add(name.and_then(|name| self.prompts.get(name))),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                add(uri.and_then(|uri| self.resources.get(uri)));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(scopes: &[&str]) -> AuthInfo {
        AuthInfo {
            scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
            ..AuthInfo::default()
        }
    }

    #[test]
    fn tools_prompts_resources_methods_and_batches_need_their_scopes() {
        let mut rules = Rules {
            every: vec!["read".into()],
            ..Rules::default()
        };
        let _previous: Option<Vec<String>> = rules.tools.insert("add".into(), vec!["write".into()]);
        let _previous: Option<Vec<String>> =
            rules.prompts.insert("p".into(), vec!["prompt".into()]);
        let _previous: Option<Vec<String>> =
            rules.resources.insert("r://x".into(), vec!["res".into()]);
        let _previous: Option<Vec<String>> = rules
            .methods
            .insert("logging/setLevel".into(), vec!["admin".into()]);
        assert!(rules.need_body());
        let reader = auth(&["read"]);
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#;
        assert_eq!(rules.missing(&reader, Some(call)), ["write"]);
        assert!(rules
            .missing(&auth(&["read", "write"]), Some(call))
            .is_empty());
        let other = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#;
        assert!(rules.missing(&reader, Some(other)).is_empty());
        let batch = br#"[{"method":"prompts/get","params":{"name":"p"}},
                         {"method":"resources/read","params":{"uri":"r://x"}},
                         {"method":"logging/setLevel","params":{}}]"#;
        assert_eq!(
            rules.missing(&reader, Some(batch)),
            ["prompt", "res", "admin"]
        );
        assert_eq!(rules.missing(&auth(&[]), Some(b"not json")), ["read"]);
    }
}
