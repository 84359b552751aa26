//! 2026-07-28 `input_required` over stdio (in-process, over a duplex): a handler's questions
//! to the client become `inputRequests` with a sealed `requestState`; the client retries the
//! same `tools/call` with `inputResponses` and the state. Several rounds, several questions
//! in one round, altered state, a partial retry, unknown answers and a missing capability.

mod input_required_support;
mod mcp_server_support;

use input_required_support::*;
use mcp_server_support::{modern, tool_error_code, violation_paths};
use serde_json::{json, Value};
#[tokio::test]
async fn two_rounds_ask_one_question_each_and_the_result_uses_both_answers() {
    let Fixture {
        mut client, two, ..
    } = start();
    let asking = Asking::tool("two_rounds", "2+2?");
    let first = asking.first(&mut client, 1).await;
    assert_eq!(keys(&first), ["sampling-1"]);
    assert_eq!(
        first["inputRequests"]["sampling-1"],
        json!({"method": "sampling/createMessage", "params": sampling_params("2+2?")})
    );
    assert_eq!(two.counts(), (1, 0));

    // Round two: the first answer is in; the handler goes on to its second question,
    // which it words with that answer.
    let answer = json!({"sampling-1": sampled("four")});
    let second = asking.answer(&mut client, 2, answer, &first).await;
    assert_eq!(keys(&second), ["elicitation-2"]);
    assert_eq!(
        second["inputRequests"]["elicitation-2"],
        json!({
            "method": "elicitation/create",
            "params": elicitation_params("The model said four. Name?")
        })
    );
    assert_ne!(state_of(&second), state_of(&first));
    assert_eq!(two.counts(), (2, 0));

    // Round three: only the latest answer; the first comes back from the state.
    let answer = json!({"elicitation-2": elicited("Ada")});
    let done = asking.answer(&mut client, 3, answer.clone(), &second).await;
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(done["content"][0]["text"], "2+2?: four / Ada");
    assert_eq!(done.get("inputRequests"), None);
    assert_eq!(two.counts(), (3, 1));

    // The second answer with the first round's state lacks the first: asked again.
    let again = asking.answer(&mut client, 4, answer, &first).await;
    assert_eq!(keys(&again), ["sampling-1"]);
    assert_eq!(two.counts(), (4, 1));
}

#[tokio::test]
async fn several_questions_in_one_round_are_all_asked_and_one_retry_answers_them() {
    let Fixture {
        mut client, three, ..
    } = start();
    let asking = Asking::tool("three_at_once", "hi");
    let first = asking.first(&mut client, 1).await;
    assert_eq!(keys(&first), ["greeting", "name", "roots"]);
    assert_eq!(
        first["inputRequests"],
        json!({
            "greeting": {"method": "sampling/createMessage", "params": sampling_params("hi")},
            "name": {"method": "elicitation/create", "params": elicitation_params("Name?")},
            "roots": {"method": "roots/list", "params": {}}
        })
    );
    assert_eq!(three.counts(), (1, 0));

    let done = asking.answer(&mut client, 2, three_answers(), &first).await;
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(
        done["content"][0]["text"],
        "Hello Ada in file:///a,file:///b"
    );
    assert_eq!(three.counts(), (2, 1));
}

#[tokio::test]
async fn an_altered_request_state_is_refused_and_the_handler_does_not_complete() {
    let Fixture {
        mut client, two, ..
    } = start();
    let asking = Asking::tool("two_rounds", "q");
    let first = asking.first(&mut client, 1).await;
    let answer = json!({"sampling-1": sampled("s")});
    let second = asking.answer(&mut client, 2, answer, &first).await;
    assert_eq!(keys(&second), ["elicitation-2"]);
    let state = state_of(&second);
    let parts: Vec<&str> = state.split('.').collect();
    let [id, payload, tag] = parts.as_slice() else {
        panic!("key-id.payload.tag: {state}")
    };
    assert!(
        !id.is_empty() && !payload.is_empty() && !tag.is_empty(),
        "{state}"
    );
    assert_eq!(two.counts(), (2, 0));

    // A state of another tool; a state that is not a string.
    let other = Asking::tool("three_at_once", "q")
        .first(&mut client, 3)
        .await;
    let mut not_a_string = retry(&asking.params, json!({}), "");
    not_a_string["requestState"] = json!(12);
    let error = client
        .error(json!(4), "tools/call", Some(not_a_string))
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(error["message"], "the requestState must be a string");
    assert_eq!(violation_paths(&error), ["/requestState"]);
    // Empty, one character flipped in the key id, the payload or the tag, another tool's.
    let altered = [
        String::new(),
        flipped(&state, 0),
        flipped(&state, id.len() + 1),
        flipped(&state, id.len() + 1 + payload.len() + 1 + tag.len() / 2),
        state_of(&other),
    ];
    let answer = json!({"elicitation-2": elicited("n")});
    for (n, altered) in (10..).zip(&altered) {
        assert_ne!(altered, &state);
        let error = asking
            .refused(&mut client, n, answer.clone(), altered)
            .await;
        assert_eq!(error["code"], -32602, "{error}");
        assert_eq!(
            error["message"],
            "the requestState was altered or belongs to another request"
        );
        assert_eq!(violation_paths(&error), ["/requestState"]);
    }
    // Refused before the handler runs at all.
    assert_eq!(two.counts(), (2, 0));

    // The intact state, replayed on the same tool with other arguments: an answer given to
    // one question must not complete another.
    let error = Asking::tool("two_rounds", "another question")
        .refused(&mut client, 19, answer.clone(), &state)
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(
        error["message"],
        "the requestState was altered or belongs to another request"
    );
    assert_eq!(two.counts(), (2, 0));

    // The intact state still completes.
    let done = asking.answer(&mut client, 20, answer, &second).await;
    assert_eq!(done["content"][0]["text"], "q: s / n");
    assert_eq!(two.counts(), (3, 1));
}

#[tokio::test]
async fn a_retry_missing_an_answer_asks_only_that_question_again() {
    let Fixture {
        mut client, three, ..
    } = start();
    let asking = Asking::tool("three_at_once", "hi");
    let first = asking.first(&mut client, 1).await;
    assert_eq!(keys(&first), ["greeting", "name", "roots"]);

    // Two of three answers: not completed; the missing question is asked again, alone.
    let mut partial = three_answers();
    let _removed: Option<Value> = partial.as_object_mut().unwrap().remove("name");
    let second = asking.answer(&mut client, 2, partial, &first).await;
    assert_eq!(keys(&second), ["name"]);
    assert_eq!(
        second["inputRequests"]["name"],
        json!({"method": "elicitation/create", "params": elicitation_params("Name?")})
    );
    assert_eq!(three.counts(), (2, 0));

    // An answer that is not an object is no answer either.
    let third = asking
        .answer(&mut client, 3, json!({"name": "Ada"}), &second)
        .await;
    assert_eq!(keys(&third), ["name"]);
    assert_eq!(three.counts(), (3, 0));

    // The new state carries the two answers given: the missing one alone completes.
    let answer = json!({"name": elicited("Ada")});
    let done = asking.answer(&mut client, 4, answer, &third).await;
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(
        done["content"][0]["text"],
        "Hello Ada in file:///a,file:///b"
    );
    assert_eq!(three.counts(), (4, 1));
}

#[tokio::test]
async fn unknown_input_responses_are_ignored() {
    let Fixture {
        mut client,
        three,
        two,
        ..
    } = start();
    let asking = Asking::tool("three_at_once", "hi");
    let first = asking.first(&mut client, 1).await;
    let mut answers = three_answers();
    answers["unknown"] = sampled("nobody asked");
    answers["sampling-1"] = sampled("not this tool's key");
    answers["also-unknown"] = json!(42);
    let done = asking.answer(&mut client, 2, answers, &first).await;
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(
        done["content"][0]["text"],
        "Hello Ada in file:///a,file:///b"
    );
    assert_eq!(three.counts(), (2, 1));

    // Only unknown answers: the questions are asked again, as on the first call.
    let unknown = json!({"unknown": sampled("x"), "greetings": sampled("x")});
    let again = asking.answer(&mut client, 3, unknown, &first).await;
    assert_eq!(keys(&again), ["greeting", "name", "roots"]);
    assert_eq!(again["inputRequests"], first["inputRequests"]);
    assert_eq!(three.counts(), (3, 1));

    // In a multi-round exchange, an unknown answer beside the real one changes nothing.
    let rounds = Asking::tool("two_rounds", "q");
    let round1 = rounds.first(&mut client, 4).await;
    let answers = json!({"sampling-1": sampled("s"), "elicitation-9": elicited("x")});
    let round2 = rounds.answer(&mut client, 5, answers, &round1).await;
    assert_eq!(keys(&round2), ["elicitation-2"]);
    // The state carries the answer the handler used, not the unknown one.
    let state = state_of(&round2);
    let payload = state.split('.').nth(1).expect("key-id.payload.tag");
    let carried: Value = serde_json::from_slice(
        &base64::Engine::decode(&base64::engine::general_purpose::URL_SAFE_NO_PAD, payload)
            .expect("base64url"),
    )
    .expect("JSON answers");
    assert_eq!(carried, json!({"sampling-1": sampled("s")}));
    // inputResponses that are not an object are refused, not ignored.
    let mut not_an_object = retry(&rounds.params, json!({}), &state);
    not_an_object["inputResponses"] = json!([sampled("s")]);
    let error = client
        .error(json!(7), "tools/call", Some(not_an_object))
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(error["message"], "the inputResponses must be an object");
    assert_eq!(violation_paths(&error), ["/inputResponses"]);
    let answer = json!({"elicitation-2": elicited("n")});
    let done = rounds.answer(&mut client, 6, answer, &round2).await;
    assert_eq!(done["content"][0]["text"], "q: s / n");
    assert_eq!(two.counts(), (3, 1));
}

#[tokio::test]
async fn a_client_without_a_required_capability_gets_32021_with_the_missing_ones() {
    let Fixture {
        mut client,
        declared,
        two,
        ..
    } = start();
    // Neither declared: both named, nested as capabilities objects.
    let error = client
        .error(
            json!(1),
            "tools/call",
            Some(params("declared", "x", json!({"roots": {}}))),
        )
        .await;
    assert_eq!(error["code"], -32021, "{error}");
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"sampling": {}, "elicitation": {"url": {}}})
    );
    // Form-mode elicitation only: `elicitation.url` is still missing.
    let error = client
        .error(
            json!(2),
            "tools/call",
            Some(params(
                "declared",
                "x",
                json!({"sampling": {}, "elicitation": {"form": {}}}),
            )),
        )
        .await;
    assert_eq!(error["code"], -32021, "{error}");
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"elicitation": {"url": {}}})
    );
    assert_eq!(declared.counts(), (0, 0));

    // Declared: the handler runs.
    let done = client
        .result(
            json!(3),
            "tools/call",
            Some(params(
                "declared",
                "x",
                json!({"sampling": {}, "elicitation": {"url": {}}}),
            )),
        )
        .await;
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(done["content"][0]["text"], "x");
    assert_eq!(declared.counts(), (1, 1));

    // A tool that does not declare what it needs: its handler is told, nothing is asked.
    let result = client
        .result(
            json!(4),
            "tools/call",
            Some(params("two_rounds", "x", json!({"elicitation": {}}))),
        )
        .await;
    assert_eq!(result["resultType"], "complete", "{result}");
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result.get("inputRequests"), None);
    assert_eq!(
        result["content"][0]["text"],
        "TOOL_FAILED: the client did not declare the sampling capability"
    );
    assert_eq!(tool_error_code(&result), "TOOL_FAILED");
    assert_eq!(two.counts(), (1, 0));
}

#[tokio::test]
async fn a_prompt_asks_in_two_rounds_and_its_state_is_not_the_tools() {
    let Fixture {
        mut client, two, ..
    } = start();
    let mut params = modern(json!({"name": "two_rounds", "arguments": {"style": "briefly"}}));
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = all_capabilities();
    let asking = Asking::prompt(params);
    let first = asking.first(&mut client, 1).await;
    assert_eq!(keys(&first), ["topic"]);
    assert_eq!(
        first["inputRequests"]["topic"],
        json!({"method": "elicitation/create", "params": elicitation_params("Topic?")})
    );
    let answer = json!({"topic": elicited("rust")});
    let second = asking.answer(&mut client, 2, answer, &first).await;
    assert_eq!(keys(&second), ["said"]);
    assert_eq!(
        second["inputRequests"]["said"],
        json!({"method": "sampling/createMessage", "params": sampling_params("rust")})
    );

    // The tool of the same name does not take the prompt's state.
    let error = Asking::tool("two_rounds", "q")
        .refused(&mut client, 3, json!({}), &state_of(&second))
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(two.counts(), (0, 0));
    // Nor the prompt a flipped state.
    let answer = json!({"said": sampled("fast")});
    let error = asking
        .refused(
            &mut client,
            4,
            answer.clone(),
            &flipped(&state_of(&second), 1),
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert_eq!(violation_paths(&error), ["/requestState"]);

    let done = asking.answer(&mut client, 5, answer, &second).await;
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(
        done["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "briefly rust: fast"}}])
    );
}
