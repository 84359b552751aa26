//! Any instance answers any request (issue 34): the instances that `deploy/local-cluster.sh`
//! starts share one key set, so the tokens one issues are accepted by every other, and by
//! their successors after a restart or a key rotation:
//! - every list walked page by page through nginx (`pageSize` 2), 50 times, complete and in
//!   order, its pages answered by whichever instance nginx picks;
//! - an `input_required` round (the demo's `confirm`) answered on another instance;
//! - a cursor issued before `local-cluster.sh restart` accepted after it, and a walk that
//!   crosses a key rotation (new key verifying, then signing, then the old key dropped);
//! - forged, truncated and foreign cursors refused with `-32602`, quoting nothing of them.
//!
//! Skipped with a printed reason when nginx or redis-server is missing (failing when `CI` is
//! set; tests/setup.sh installs both).

mod cluster_support;

use std::collections::BTreeSet;

use cluster_support::{meta, tools_present, Answer, Cluster};
use serde_json::{json, Value};

const INSTANCES: usize = 3;

/// Page size of every cluster here.
const PAGED: &str = r#""lists": {"pageSize": 2}"#;

/// How often every list is walked through nginx.
const WALKS: usize = 50;

/// The list methods: method, result member, and the member that names an item.
const LISTS: [(&str, &str, &str); 4] = [
    ("tools/list", "tools", "name"),
    ("resources/list", "resources", "uri"),
    (
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
    ),
    ("prompts/list", "prompts", "name"),
];

/// Secrets of the keys used for rotation (base64 of 32 bytes each).
const SECRET_1: &str = "b25lLW9uZS1vbmUtb25lLW9uZS1vbmUtb25lLW9uZS0=";
const SECRET_2: &str = "dHdvLXR3by10d28tdHdvLXR3by10d28tdHdvLXR3by0=";

/// One page of a list: its items' names, its next cursor, the instance that answered.
struct Page {
    names: Vec<String>,
    next: Option<String>,
    instance: Option<usize>,
}

/// The page of `method` after `cursor` (the first without one), through `url`.
async fn page(cluster: &Cluster, url: &str, list: usize, cursor: Option<&str>) -> Page {
    let (method, member, name) = LISTS[list];
    let params = cursor.map_or_else(|| json!({}), |cursor| json!({"cursor": cursor}));
    let answer = cluster
        .modern_to(url, 1, method, params)
        .await
        .unwrap_or_else(|error| panic!("{method}: no answer: {error}"));
    assert_eq!(
        answer.status,
        reqwest::StatusCode::OK,
        "{method}: {}",
        answer.body
    );
    let result = &answer.json()["result"];
    let items = result[member]
        .as_array()
        .unwrap_or_else(|| panic!("{method}: no {member}: {}", answer.body));
    assert!(items.len() <= 2, "{method}: a page of {}", items.len());
    Page {
        names: items
            .iter()
            .map(|item| item[name].as_str().expect("a name").to_owned())
            .collect(),
        next: result["nextCursor"].as_str().map(str::to_owned),
        instance: answer
            .header("x-mcp-upstream")
            .and_then(|_| cluster.instance_at(&answer.upstream())),
    }
}

/// A whole walk of a list: every name in order, the number of pages, and how many pages
/// another instance answered than the one that issued their cursor.
struct Walk {
    names: Vec<String>,
    pages: usize,
    crossed: usize,
}

async fn walk(cluster: &Cluster, url: &str, list: usize) -> Walk {
    let mut walk = Walk {
        names: Vec::new(),
        pages: 0,
        crossed: 0,
    };
    let mut cursor: Option<String> = None;
    let mut issued_by = None;
    loop {
        let page = page(cluster, url, list, cursor.as_deref()).await;
        walk.pages += 1;
        if cursor.is_some() && page.instance != issued_by {
            walk.crossed += 1;
        }
        walk.names.extend(page.names);
        issued_by = page.instance;
        match page.next {
            Some(next) => cursor = Some(next),
            None => return walk,
        }
        assert!(walk.pages < 100, "a walk that never ends");
    }
}

/// Asserts `answer` is a `-32602` error that quotes nothing of `token`.
fn refused_quoting_nothing(answer: &Answer, token: &str) {
    // 2026-07-28 over HTTP: an invalid-params error is a 400 with the JSON-RPC error.
    assert_eq!(
        answer.status,
        reqwest::StatusCode::BAD_REQUEST,
        "{}",
        answer.body
    );
    let message = answer.json();
    assert_eq!(message["error"]["code"], -32602, "{}", answer.body);
    for part in token.split('.').filter(|part| part.len() >= 4) {
        assert!(
            !answer.body.contains(part),
            "the error quotes the token: {}",
            answer.body
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_list_is_walked_through_nginx_page_by_page() {
    if !tools_present() {
        return;
    }
    let cluster = Cluster::start_with(INSTANCES, PAGED);
    let single = cluster.instances[0].url.clone();
    let nginx = cluster.url.clone();
    let (mut walks, mut pages, mut crossed) = (0, 0, 0);
    for (list, (method, _, _)) in LISTS.iter().enumerate() {
        let reference = walk(&cluster, &single, list).await;
        let expected: BTreeSet<&String> = reference.names.iter().collect();
        assert_eq!(expected.len(), reference.names.len(), "no item twice");
        for round in 0..WALKS {
            let through = walk(&cluster, &nginx, list).await;
            assert_eq!(
                through.names, reference.names,
                "{method} walk {round}: complete and in order"
            );
            walks += 1;
            pages += through.pages;
            crossed += through.crossed;
        }
    }
    println!(
        "{walks} walks through nginx, {pages} pages, {crossed} continued on another instance \
         than the one that issued the cursor"
    );
    assert_eq!(walks, WALKS * LISTS.len());
    // tools/list has 9 tools: 5 pages, 4 cursors a walk; round robin over 3 instances
    // sends a cursor elsewhere nearly always.
    assert!(
        crossed >= WALKS,
        "cursors crossed instances only {crossed} times"
    );

    // Forged and truncated cursors are refused, quoting nothing.
    let first = page(&cluster, &nginx, 0, None).await;
    let cursor = first.next.expect("tools/list has a second page");
    let (sealed, tag) = cursor.rsplit_once('.').expect("id.payload.tag");
    let (id, _payload) = sealed.split_once('.').expect("id.payload");
    let flipped: String = tag
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i == 3 {
                if c == 'A' {
                    'B'
                } else {
                    'A'
                }
            } else {
                c
            }
        })
        .collect();
    let forged = [
        format!("{id}.{}.{tag}", "ZWNobw"),
        format!("{sealed}.{flipped}"),
        cursor[..cursor.len() - 5].to_owned(),
        sealed.to_owned(),
        format!("other-id.{}", cursor.split_once('.').expect("id.rest").1),
    ];
    for bad in &forged {
        let answer = cluster
            .modern(1, "tools/list", json!({"cursor": bad}))
            .await
            .expect("answered");
        refused_quoting_nothing(&answer, bad);
    }
    // A cursor of one list is foreign to another.
    let answer = cluster
        .modern(1, "prompts/list", json!({"cursor": cursor}))
        .await
        .expect("answered");
    refused_quoting_nothing(&answer, &cursor);
}

/// `confirm` on `url` with the elicitation capability; `answer` is the retry's
/// `inputResponses` and `requestState`, when there is one.
async fn confirm(
    cluster: &Cluster,
    url: &str,
    question: &str,
    retry: Option<(&Value, &str)>,
) -> Answer {
    let mut meta = meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let mut params = json!({"name": "confirm", "arguments": {"question": question}, "_meta": meta});
    if let Some((responses, state)) = retry {
        params["inputResponses"] = responses.clone();
        params["requestState"] = json!(state);
    }
    cluster
        .modern_to(url, 7, "tools/call", params)
        .await
        .expect("answered")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_input_required_round_is_answered_on_another_instance() {
    if !tools_present() {
        return;
    }
    let cluster = Cluster::start(INSTANCES);
    let accept = json!({"elicitation-1": {"action": "accept", "content": {"confirmed": true}}});
    let mut rounds = 0;
    for asked_on in 0..INSTANCES {
        for answered_on in (0..INSTANCES).filter(|other| *other != asked_on) {
            let question = format!("deploy {asked_on} -> {answered_on}?");
            let asking = cluster.instances[asked_on].url.clone();
            let first = confirm(&cluster, &asking, &question, None).await;
            let result = first.json()["result"].clone();
            assert_eq!(result["resultType"], "input_required", "{}", first.body);
            let asked = &result["inputRequests"]["elicitation-1"];
            assert_eq!(asked["method"], "elicitation/create");
            assert_eq!(asked["params"]["message"], question.as_str());
            let state = result["requestState"].as_str().expect("a requestState");

            let answering = cluster.instances[answered_on].url.clone();
            let done = confirm(&cluster, &answering, &question, Some((&accept, state))).await;
            let output = done.tool_output();
            assert_eq!(output["data"]["confirmed"], true, "{}", done.body);
            assert_eq!(output["data"]["question"], question.as_str());

            // The state is bound to its request: another question's retry refuses it.
            let other = confirm(&cluster, &answering, "another?", Some((&accept, state))).await;
            refused_quoting_nothing(&other, state);
            rounds += 1;
        }
    }
    // And through nginx, wherever the two requests land.
    for round in 0..(2 * INSTANCES) {
        let question = format!("through nginx {round}?");
        let url = cluster.url.clone();
        let first = confirm(&cluster, &url, &question, None).await;
        let state = first.json()["result"]["requestState"]
            .as_str()
            .expect("a requestState")
            .to_owned();
        let done = confirm(&cluster, &url, &question, Some((&accept, &state))).await;
        assert_eq!(done.tool_output()["data"]["confirmed"], true);
        rounds += 1;
    }
    println!("{rounds} input_required rounds answered on another instance or through nginx");
}

/// The rest of a tools/list walk from `cursor` on instance `index`: the names, and the
/// cursors it was handed on the way.
async fn rest_of_walk(cluster: &Cluster, index: usize, cursor: &str) -> (Vec<String>, Vec<String>) {
    let url = cluster.instances[index].url.clone();
    let (mut names, mut cursors) = (Vec::new(), Vec::new());
    let mut cursor = cursor.to_owned();
    loop {
        let page = page(cluster, &url, 0, Some(&cursor)).await;
        names.extend(page.names);
        match page.next {
            Some(next) => {
                cursors.push(next.clone());
                cursor = next;
            }
            None => return (names, cursors),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cursors_survive_restarts_and_a_key_rotation() {
    if !tools_present() {
        return;
    }
    let cluster = Cluster::start_with(INSTANCES, PAGED);
    cluster.write_keys(&[("k1", SECRET_1)]);
    let (took, _pids) = cluster.restart();
    println!("restart of {INSTANCES} instances: {took:?}");
    let nginx = cluster.url.clone();
    let reference = walk(&cluster, &nginx, 0).await.names;
    let first = page(&cluster, &nginx, 0, None).await;
    let c1 = first.next.expect("a second page");
    assert!(c1.starts_with("k1."), "sealed by k1: {c1}");
    let tail = reference[first.names.len()..].to_vec();

    // A cursor from before a restart is accepted after it, on every instance.
    let _restarted = cluster.restart();
    for index in 0..INSTANCES {
        assert_eq!(
            rest_of_walk(&cluster, index, &c1).await.0,
            tail,
            "instance {index}"
        );
    }

    // Rotation, step 1: k2 is added after k1 (it verifies only); k1 still signs.
    cluster.write_keys(&[("k1", SECRET_1), ("k2", SECRET_2)]);
    let _restarted = cluster.restart();
    let second = page(&cluster, &nginx, 0, Some(&c1)).await;
    let c2 = second.next.expect("a third page");
    assert!(c2.starts_with("k1."), "k1 still signs: {c2}");

    // Step 2: k2 signs, k1 verifies: the walk begun under k1 goes on, handed k2 cursors.
    cluster.write_keys(&[("k2", SECRET_2), ("k1", SECRET_1)]);
    let _restarted = cluster.restart();
    let mut names = first.names.clone();
    names.extend(second.names);
    let (rest, cursors) = rest_of_walk(&cluster, 1, &c2).await;
    names.extend(rest);
    assert_eq!(
        names, reference,
        "the walk across the rotation is complete and in order"
    );
    let c3 = cursors.first().expect("a later cursor").clone();
    assert!(c3.starts_with("k2."), "k2 signs now: {c3}");
    for index in 0..INSTANCES {
        assert_eq!(
            rest_of_walk(&cluster, index, &c1).await.0,
            tail,
            "k1 verifies on {index}"
        );
    }

    // Step 3: k1 is dropped: its cursors are foreign now, k2's still work.
    cluster.write_keys(&[("k2", SECRET_2)]);
    let _restarted = cluster.restart();
    for index in 0..INSTANCES {
        let url = cluster.instances[index].url.clone();
        for old in [&c1, &c2] {
            let answer = cluster
                .modern_to(&url, 1, "tools/list", json!({"cursor": old}))
                .await
                .expect("answered");
            refused_quoting_nothing(&answer, old);
        }
        let (rest, _) = rest_of_walk(&cluster, index, &c3).await;
        assert!(
            !rest.is_empty() && reference.ends_with(&rest),
            "k2's cursor on {index}"
        );
    }
}
