//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) on the server, over an
//! in-memory duplex: the server declares it (with `directoryRead`) only when it has skills;
//! `skills/list` pages complete manifests whose digests and sizes match the bytes
//! `resources/read` returns; `skills/get` answers for a skill and `-32602` (quoting nothing)
//! otherwise; `resources/directory/read` lists direct children; a skill with a generated
//! file (and one enclosing it) is `dynamic` and its file is generated at each read; a
//! malformed skill refuses to build.

mod mcp_server_support;

use mcp_server_support::{legacy_client, limits, modern, TestClient};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::json;
use sha2::{Digest as _, Sha256};
use typed_mcp::generated::skills::validate;
use typed_mcp::mcp::skills::{SkillDefinition, SKILLS_EXTENSION};
use typed_mcp::mcp::{McpError, McpServer};

const PDF_MD: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF \
                      documents\nlicense: Apache-2.0\nmetadata:\n  version: \"2.1.0\"\n---\n\n\
                      # PDF processing\n\nPick a template from `templates/`.\n";
const REFUNDS_MD: &str =
    "---\nname: refunds\ndescription: Process refund requests per policy\n---\nBody.\n";

fn pdf() -> SkillDefinition {
    SkillDefinition::new("pdf-processing")
        .file("SKILL.md", PDF_MD)
        .file("templates/invoice.md", "# Invoice\n")
        .file("templates/regional/eu-invoice.md", "# EU invoice\n")
        .file("scripts/extract.bin", vec![0_u8, 159, 146, 150])
}

fn refunds() -> SkillDefinition {
    SkillDefinition::new("acme/billing/refunds").file("SKILL.md", REFUNDS_MD)
}

fn server() -> McpServer {
    McpServer::builder("skills", "1")
        .skill(pdf())
        .skill(refunds())
        .build()
        .unwrap()
}

fn digest(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

#[tokio::test]
async fn skills_are_listed_with_verifiable_manifests_2026() {
    let mut client = TestClient::start(server());
    let discover = client
        .result(json!(1), "server/discover", Some(modern(json!({}))))
        .await;
    assert_eq!(
        discover["capabilities"]["extensions"][SKILLS_EXTENSION],
        json!({"directoryRead": true})
    );
    assert!(
        discover["capabilities"]["resources"].is_object(),
        "{discover}"
    );

    let list = client
        .result(json!(2), "skills/list", Some(modern(json!({}))))
        .await;
    validate::list_skills_result(&list).unwrap();
    assert_eq!(list["resultType"], "complete");
    assert!(
        list["ttlMs"].is_u64() && list["cacheScope"] == "public",
        "{list}"
    );
    let skills = list["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 2);
    let entry = &skills[0];
    assert_eq!(entry["uri"], "skill://pdf-processing/SKILL.md");
    assert_eq!(
        entry["frontmatter"],
        json!({
            "name": "pdf-processing",
            "description": "Extract, fill, and assemble PDF documents",
            "license": "Apache-2.0",
            "metadata": {"version": "2.1.0"}
        })
    );
    let manifest = entry["resources"].as_array().unwrap();
    let uris: Vec<&str> = manifest
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/scripts/extract.bin",
            "skill://pdf-processing/templates/invoice.md",
            "skill://pdf-processing/templates/regional/eu-invoice.md",
        ]
    );
    // Every digest and size is that of the bytes resources/read returns.
    for (id, file) in manifest.iter().enumerate() {
        let read = client
            .result(
                json!(100 + id),
                "resources/read",
                Some(modern(json!({"uri": file["uri"]}))),
            )
            .await;
        let contents = &read["contents"][0];
        let bytes = match contents["text"].as_str() {
            Some(text) => text.as_bytes().to_vec(),
            None => {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD
                    .decode(contents["blob"].as_str().unwrap())
                    .unwrap()
            }
        };
        assert_eq!(file["digest"], digest(&bytes), "{file}");
        assert_eq!(file["size"], bytes.len(), "{file}");
    }
    let skill_md = client
        .result(
            json!(3),
            "resources/read",
            Some(modern(json!({"uri": "skill://pdf-processing/SKILL.md"}))),
        )
        .await;
    assert_eq!(skill_md["contents"][0]["mimeType"], "text/markdown");
    assert_eq!(skill_md["contents"][0]["text"], PDF_MD);
    let resources = client
        .result(json!(4), "resources/list", Some(modern(json!({}))))
        .await;
    let listed = resources["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == "skill://acme/billing/refunds/SKILL.md")
        .unwrap();
    assert_eq!(listed["name"], "refunds");
    assert_eq!(listed["description"], "Process refund requests per policy");
    client.close().await;
}

#[tokio::test]
async fn the_listing_pages_whole_entries() {
    let server = McpServer::builder("skills", "1")
        .limits(limits(json!({"lists": {"pageSize": 1}})))
        .skill(pdf())
        .skill(refunds())
        .build()
        .unwrap();
    let mut client = TestClient::start(server);
    let first = client
        .result(json!(1), "skills/list", Some(modern(json!({}))))
        .await;
    assert_eq!(first["skills"].as_array().unwrap().len(), 1);
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let second = client
        .result(
            json!(2),
            "skills/list",
            Some(modern(json!({"cursor": cursor}))),
        )
        .await;
    assert_eq!(
        second["skills"][0]["uri"],
        "skill://acme/billing/refunds/SKILL.md"
    );
    assert!(second.get("nextCursor").is_none(), "{second}");
    let bad = client
        .error(
            json!(3),
            "skills/list",
            Some(modern(json!({"cursor": "forged"}))),
        )
        .await;
    assert_eq!(bad["code"], -32602);
    client.close().await;
}

#[tokio::test]
async fn skills_get_answers_for_skills_only_and_quotes_nothing() {
    let mut client = TestClient::start(server());
    let got = client
        .result(
            json!(1),
            "skills/get",
            Some(modern(
                json!({"uri": "skill://acme/billing/refunds/SKILL.md"}),
            )),
        )
        .await;
    validate::get_skill_result(&got).unwrap();
    assert_eq!(got["skill"]["frontmatter"]["name"], "refunds");
    assert!(got.get("nextCursor").is_none());
    for (id, uri) in [
        (2, "skill://acme/billing/chargebacks-SECRET/SKILL.md"),
        (3, "skill://pdf-processing/templates/invoice.md"),
        (4, "skill://pdf-processing/../SECRET/SKILL.md"),
    ] {
        let error = client
            .error(json!(id), "skills/get", Some(modern(json!({"uri": uri}))))
            .await;
        assert_eq!(error["code"], -32602, "{error}");
        assert!(!error.to_string().contains("SECRET"), "{error}");
        assert!(!error.to_string().contains("invoice"), "{error}");
    }
    let missing = client
        .error(json!(5), "skills/get", Some(modern(json!({}))))
        .await;
    assert_eq!(missing["code"], -32602);
    client.close().await;
}

#[tokio::test]
async fn directories_list_their_direct_children() {
    let mut client = TestClient::start(server());
    let templates = client
        .result(
            json!(1),
            "resources/directory/read",
            Some(modern(json!({"uri": "skill://pdf-processing/templates"}))),
        )
        .await;
    validate::read_resource_directory_result(&templates).unwrap();
    assert_eq!(
        templates["resources"],
        json!([
            {"uri": "skill://pdf-processing/templates/invoice.md", "name": "invoice.md",
             "mimeType": "text/markdown", "size": 10},
            {"uri": "skill://pdf-processing/templates/regional", "name": "regional",
             "mimeType": "inode/directory"},
        ])
    );
    let prefix = client
        .result(
            json!(2),
            "resources/directory/read",
            Some(modern(json!({"uri": "skill://acme/billing"}))),
        )
        .await;
    assert_eq!(
        prefix["resources"][0]["uri"],
        "skill://acme/billing/refunds"
    );
    for (id, uri) in [
        (3, "skill://pdf-processing/SKILL.md"),
        (4, "skill://pdf-processing/templates/"),
        (5, "skill://SECRET-nowhere"),
    ] {
        let error = client
            .error(
                json!(id),
                "resources/directory/read",
                Some(modern(json!({"uri": uri}))),
            )
            .await;
        assert_eq!(error["code"], -32602, "{error}");
        assert!(!error.to_string().contains("SECRET"), "{error}");
    }
    client.close().await;
}

#[tokio::test]
async fn a_2025_session_gets_the_same_answers() {
    let mut client = legacy_client(server(), "2025-11-25").await;
    let list = client.result(json!(1), "skills/list", None).await;
    assert_eq!(list["skills"].as_array().unwrap().len(), 2);
    let got = client
        .result(
            json!(2),
            "skills/get",
            Some(json!({"uri": "skill://pdf-processing/SKILL.md"})),
        )
        .await;
    assert_eq!(got["skill"]["uri"], "skill://pdf-processing/SKILL.md");
    client.close().await;
}

#[tokio::test]
async fn a_server_without_skills_declares_and_answers_nothing() {
    let mut client = TestClient::start(McpServer::builder("plain", "1").build().unwrap());
    let discover = client
        .result(json!(1), "server/discover", Some(modern(json!({}))))
        .await;
    assert!(
        discover["capabilities"].get("extensions").is_none(),
        "{discover}"
    );
    let error = client
        .error(json!(2), "skills/list", Some(modern(json!({}))))
        .await;
    assert_eq!(error["code"], -32601);
    client.close().await;
}

fn refused(skill: SkillDefinition) -> String {
    match McpServer::builder("bad", "1").skill(skill).build() {
        Err(error @ McpError::InvalidSkill { .. }) => error.to_string(),
        Err(other) => panic!("another error: {other}"),
        Ok(_) => panic!("a malformed skill was accepted"),
    }
}

#[tokio::test]
async fn a_skill_with_a_generated_file_is_dynamic_and_read_live() {
    let reads = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&reads);
    let daily = SkillDefinition::new("reports/daily")
        .file(
            "SKILL.md",
            "---\nname: daily\ndescription: Today's report\n---\nRead data/today.md.\n",
        )
        .generated_file("data/today.md", move || {
            let read = counter.fetch_add(1, Ordering::SeqCst) + 1;
            Ok(format!("read {read}\n").into_bytes())
        });
    // `reports` encloses `daily` as a nested skill: its files hold the generated one too.
    let reports = SkillDefinition::new("reports").file(
        "SKILL.md",
        "---\nname: reports\ndescription: Reports\n---\n",
    );
    let server = McpServer::builder("skills", "1")
        .skill(reports)
        .skill(daily)
        .skill(refunds())
        .build()
        .unwrap();
    let mut client = TestClient::start(server);
    let list = client
        .result(json!(1), "skills/list", Some(modern(json!({}))))
        .await;
    validate::list_skills_result(&list).unwrap();
    let resources: Vec<_> = list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| (skill["uri"].as_str().unwrap(), skill["resources"].clone()))
        .collect();
    assert_eq!(resources[0], ("skill://reports/SKILL.md", json!("dynamic")));
    assert_eq!(
        resources[1],
        ("skill://reports/daily/SKILL.md", json!("dynamic"))
    );
    assert!(resources[2].1.is_array(), "{list}");
    let got = client
        .result(
            json!(2),
            "skills/get",
            Some(modern(json!({"uri": "skill://reports/daily/SKILL.md"}))),
        )
        .await;
    assert_eq!(got["skill"]["resources"], "dynamic");
    assert_eq!(got["skill"]["frontmatter"]["name"], "daily");
    for expected in ["read 1\n", "read 2\n"] {
        let read = client
            .result(
                json!(3),
                "resources/read",
                Some(modern(
                    json!({"uri": "skill://reports/daily/data/today.md"}),
                )),
            )
            .await;
        assert_eq!(read["contents"][0]["text"], expected, "{read}");
        assert_eq!(read["contents"][0]["mimeType"], "text/markdown");
    }
    assert_eq!(reads.load(Ordering::SeqCst), 2);
    let dir = client
        .result(
            json!(4),
            "resources/directory/read",
            Some(modern(json!({"uri": "skill://reports/daily/data"}))),
        )
        .await;
    validate::read_resource_directory_result(&dir).unwrap();
    assert_eq!(
        dir["resources"],
        json!([{"uri": "skill://reports/daily/data/today.md", "name": "today.md",
                "mimeType": "text/markdown"}])
    );
}

#[test]
fn malformed_skills_refuse_to_build() {
    let skill_md = |name: &str| format!("---\nname: {name}\ndescription: d\n---\n");
    let cases = [
        (
            SkillDefinition::new("x").file("README.md", "hi"),
            "no SKILL.md",
        ),
        (
            SkillDefinition::new("x").file("SKILL.md", "no frontmatter"),
            "frontmatter",
        ),
        (
            SkillDefinition::new("x").file("SKILL.md", "---\nname: x\n---\n"),
            "description",
        ),
        (
            SkillDefinition::new("Bad_Name").file("SKILL.md", skill_md("Bad_Name")),
            "naming rule",
        ),
        (
            SkillDefinition::new("a/x").file("SKILL.md", skill_md("y")),
            "last segment",
        ),
        (
            SkillDefinition::new("x")
                .file("SKILL.md", skill_md("x"))
                .file("../escape.md", "no"),
            "`..`",
        ),
        (
            SkillDefinition::new("x")
                .file("SKILL.md", skill_md("x"))
                .file("a file.md", "no"),
            "unescaped",
        ),
        (
            SkillDefinition::new("x").generated_file("SKILL.md", || Ok(b"---".to_vec())),
            "SKILL.md is generated",
        ),
    ];
    for (skill, expected) in cases {
        let message = refused(skill);
        assert!(message.contains(expected), "{message}");
    }
    let too_many = (0..512).fold(
        SkillDefinition::new("x").file("SKILL.md", skill_md("x")),
        |skill, i| skill.file(format!("f{i}.md"), "x"),
    );
    assert!(refused(too_many).contains("512"));
    let too_big = SkillDefinition::new("x")
        .file("SKILL.md", skill_md("x"))
        .file("big.bin", vec![0_u8; 16 * 1024 * 1024]);
    assert!(refused(too_big).contains("16 MiB"));
}

#[test]
fn a_skill_is_read_from_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("SKILL.md"), REFUNDS_MD).unwrap();
    std::fs::create_dir(dir.path().join("examples")).unwrap();
    std::fs::write(dir.path().join("examples/email.md"), "Dear customer").unwrap();
    let skill = SkillDefinition::from_dir("acme/billing/refunds", dir.path()).unwrap();
    assert_eq!(skill.uri(), "skill://acme/billing/refunds/SKILL.md");
    assert!(McpServer::builder("dir", "1").skill(skill).build().is_ok());
    let missing = SkillDefinition::from_dir("x", dir.path().join("nowhere")).unwrap_err();
    assert!(
        matches!(missing, McpError::InvalidSkill { .. }),
        "{missing}"
    );
}
