//! `completion/complete`: suggestions for a prompt's arguments and a resource template's
//! variables, from the completers their definitions carry.

use std::collections::HashMap;

use super::catalog::Sets;
use super::era::Era;
use super::outbound::respond;
use super::params::{invalid_params, violation};
use crate::generated::protocol::{
    CompleteResult, Completion, CompletionArgument, CompletionContext, CompletionReference,
    LegacyCompleteResult, ResultType,
};
use crate::server::HandlerResult;

/// Most suggestions one answer carries (the spec's bound).
pub(crate) const MAX_VALUES: usize = 100;

/// Answers a `completion/complete` whose params decoded into these parts.
pub(crate) fn complete(
    state: &Sets,
    reference: &CompletionReference,
    argument: &CompletionArgument,
    context: Option<&CompletionContext>,
    era: Era,
) -> HandlerResult {
    let resolved: HashMap<String, String> = context
        .and_then(|context| context.arguments.clone())
        .map(|arguments| arguments.into_iter().collect())
        .unwrap_or_default();
    let mut values = match reference {
        CompletionReference::PromptReference(prompt) => {
            let Some(definition) = state.prompts.definition(&prompt.name) else {
                return Err(unknown("/ref/name", "no prompt of this name"));
            };
            let declared = definition
                .prompt
                .arguments
                .iter()
                .flatten()
                .any(|declared| declared.name == argument.name);
            if !declared {
                return Err(unknown(
                    "/argument/name",
                    "the prompt has no argument of this name",
                ));
            }
            match &definition.completer {
                Some(completer) => completer(&argument.name, &argument.value, &resolved),
                None => Vec::new(),
            }
        }
        CompletionReference::ResourceTemplateReference(template) => {
            let Some(definition) = state
                .resources
                .templates
                .iter()
                .find(|definition| definition.uri_template() == template.uri)
            else {
                return Err(unknown(
                    "/ref/uri",
                    "no resource template of this URI template",
                ));
            };
            if !definition.parsed.variables().contains(&argument.name) {
                return Err(unknown(
                    "/argument/name",
                    "the template has no variable of this name",
                ));
            }
            match &definition.completer {
                Some(completer) => completer(&argument.name, &argument.value, &resolved),
                None => Vec::new(),
            }
        }
    };
    let total = u64::try_from(values.len()).unwrap_or(u64::MAX);
    let has_more = values.len() > MAX_VALUES;
    values.truncate(MAX_VALUES);
    let completion = Completion {
        has_more: Some(has_more),
        total: Some(total),
        values,
    };
    match era {
        Era::Legacy(_) => respond(&LegacyCompleteResult {
            completion,
            meta: None,
        }),
        Era::Modern => respond(&CompleteResult {
            completion,
            meta: None,
            result_type: ResultType::Complete,
        }),
    }
}

fn unknown(path: &str, message: &str) -> crate::jsonrpc::ErrorObject<'static> {
    invalid_params(
        "nothing to complete",
        vec![violation(path, "enum", message)],
    )
}
