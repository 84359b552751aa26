//! The Skills extension on the typed client, against the typed-mcp server over an in-memory
//! duplex, in both eras: `list_skills` and `get_skill` give the entries; `load_skill` keeps a
//! `SKILL.md` only when its size, digest and frontmatter match the entry, and
//! `read_skill_file` a loaded skill's other files only when their size and digest do; an
//! unlisted file or a `dynamic` skill is refused without sending anything; nothing is asked
//! of a server that did not declare the extension. Against a fake server that serves a
//! tampered `SKILL.md` (its description changed, digest and size matching): the typed error,
//! quoting nothing of the file, and no read after it.

#[path = "client_support/fake.rs"]
#[allow(dead_code)]
mod fake;

use std::time::Duration;

use serde_json::json;
use sha2::{Digest as _, Sha256};
use typed_mcp::client::{Client, ClientError, ClientOptions, SkillMismatch, VersionChoice};
use typed_mcp::generated::skills::{Skill, SkillDigest, SkillResources};
use typed_mcp::mcp::skills::SkillDefinition;
use typed_mcp::mcp::McpServer;

const SKILL_MD: &str = "---\nname: refunds\ndescription: Process refund requests\n\
                        metadata:\n  version: \"1\"\n---\nUse examples/email.md.\n";
const URI: &str = "skill://acme/billing/refunds/SKILL.md";
const EMAIL: &str = "skill://acme/billing/refunds/examples/email.bin";

fn server(with_skills: bool) -> McpServer {
    let mut builder = McpServer::builder("skills", "1");
    if with_skills {
        builder = builder.skill(
            SkillDefinition::new("acme/billing/refunds")
                .file("SKILL.md", SKILL_MD)
                .file("examples/email.bin", vec![0_u8, 255, 1, 2]),
        );
    }
    builder.build().unwrap()
}

async fn connect(server: McpServer, version: VersionChoice) -> Client {
    let (client_io, server_io) = tokio::io::duplex(256 * 1024);
    let (server_in, server_out) = tokio::io::split(server_io);
    let _serving = tokio::spawn(async move { server.serve(server_in, server_out).await });
    let (client_in, client_out) = tokio::io::split(client_io);
    Client::connect_io(
        client_in,
        client_out,
        ClientOptions::new("skills-client", "1").version(version),
    )
    .await
    .expect("the client connects")
}

fn modern() -> VersionChoice {
    VersionChoice::Pin("2026-07-28".to_owned())
}

fn versions() -> [VersionChoice; 2] {
    [modern(), VersionChoice::Legacy("2025-11-25".to_owned())]
}

#[tokio::test]
async fn skills_are_listed_got_and_read_verified_in_both_eras() {
    for version in versions() {
        let client = connect(server(true), version).await;
        let skills = client.list_skills().await.unwrap();
        assert_eq!(skills.len(), 1);
        let skill = &skills[0];
        assert_eq!(skill.uri, URI);
        assert_eq!(
            skill.frontmatter.extra.get("metadata"),
            Some(&json!({"version": "1"}))
        );
        assert_eq!(&client.get_skill(URI).await.unwrap(), skill);
        let loaded = client.load_skill(skill).await.unwrap();
        assert_eq!(loaded.instructions(), SKILL_MD);
        assert_eq!(loaded.entry(), skill);
        assert_eq!(loaded.files().collect::<Vec<_>>(), [URI, EMAIL]);
        let binary = client.read_skill_file(&loaded, EMAIL).await.unwrap();
        assert_eq!(binary, [0, 255, 1, 2]);
        let again = client.read_skill_file(&loaded, URI).await.unwrap();
        assert_eq!(again, SKILL_MD.as_bytes());
        let unknown = client
            .get_skill("skill://acme/billing/nothing/SKILL.md")
            .await
            .unwrap_err();
        assert_eq!(unknown.rpc_code().map(|code| code.0), Some(-32602));
    }
}

fn mismatch(error: ClientError) -> SkillMismatch {
    match error {
        ClientError::SkillVerification { mismatch, .. } => mismatch,
        other => panic!("not a verification failure: {other}"),
    }
}

#[tokio::test]
async fn content_that_does_not_match_the_entry_is_refused() {
    let client = connect(server(true), modern()).await;
    let skill = client.get_skill(URI).await.unwrap();
    let SkillResources::SkillFiles(files) = &skill.resources else {
        panic!("a manifest");
    };

    let mut wrong_size = skill.clone();
    let mut listed = files.clone();
    listed.0[0].size += 1;
    wrong_size.resources = SkillResources::SkillFiles(listed);
    let error = client.load_skill(&wrong_size).await.unwrap_err();
    assert_eq!(mismatch(error), SkillMismatch::Size);

    let mut wrong_digest = skill.clone();
    let mut listed = files.clone();
    listed.0[0].digest = SkillDigest(format!("sha256:{}", "0".repeat(64)));
    wrong_digest.resources = SkillResources::SkillFiles(listed);
    let error = client.load_skill(&wrong_digest).await.unwrap_err();
    assert_eq!(mismatch(error), SkillMismatch::Digest);

    let mut wrong_frontmatter = skill.clone();
    wrong_frontmatter.frontmatter.description = "Something else".to_owned();
    let error = client.load_skill(&wrong_frontmatter).await.unwrap_err();
    assert_eq!(mismatch(error), SkillMismatch::Frontmatter);

    let mut extra_field = skill.clone();
    let _none = extra_field
        .frontmatter
        .extra
        .insert("license".to_owned(), json!("MIT"));
    let error = client.load_skill(&extra_field).await.unwrap_err();
    assert_eq!(mismatch(error), SkillMismatch::Frontmatter);

    // A supporting file is checked against the entry the skill was loaded from.
    let mut wrong_email = skill.clone();
    let mut listed = files.clone();
    listed.0[1].size = 3;
    wrong_email.resources = SkillResources::SkillFiles(listed);
    let loaded = client.load_skill(&wrong_email).await.unwrap();
    let error = client.read_skill_file(&loaded, EMAIL).await.unwrap_err();
    assert_eq!(mismatch(error), SkillMismatch::Size);

    let loaded = client.load_skill(&skill).await.unwrap();
    let error = client
        .read_skill_file(&loaded, "skill://acme/billing/refunds/unlisted.md")
        .await
        .unwrap_err();
    assert_eq!(mismatch(error), SkillMismatch::Unlisted);

    let mut dynamic = skill.clone();
    dynamic.resources = serde_json::from_value(json!("dynamic")).unwrap();
    let error = client.load_skill(&dynamic).await.unwrap_err();
    assert_eq!(mismatch(error), SkillMismatch::Dynamic);
}

/// `sha256:<hex>` of `bytes`.
fn digest(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{hex}")
}

#[tokio::test]
async fn a_tampered_skill_md_is_not_loaded_and_nothing_more_is_read() {
    let (client, mut fake) = fake::connect(1 << 16).await;
    // The server's entry says one description, its SKILL.md another (digest and size
    // computed over the tampered file, as a server that rewrites both would).
    let served = format!(
        "---\nname: pdf-processing\ndescription: {}\n---\n\nBody.\n",
        fake::SECRET
    );
    let skill: Skill = serde_json::from_value(json!({
        "uri": "skill://pdf-processing/SKILL.md",
        "frontmatter": {"name": "pdf-processing", "description": "Extract PDF forms"},
        "resources": [
            {"uri": "skill://pdf-processing/SKILL.md", "digest": digest(served.as_bytes()),
             "size": served.len()},
            {"uri": "skill://pdf-processing/FORMS.md", "digest": digest(b"forms"), "size": 5},
        ],
    }))
    .unwrap();
    let loading = {
        let client = client.clone();
        tokio::spawn(async move { client.load_skill(&skill).await })
    };
    let read = tokio::time::timeout(Duration::from_secs(10), fake.request("resources/read"))
        .await
        .expect("the client reads the SKILL.md");
    assert_eq!(read["params"]["uri"], "skill://pdf-processing/SKILL.md");
    fake.answer(
        &read["id"],
        json!({"resultType": "complete", "contents": [{"uri": "skill://pdf-processing/SKILL.md",
            "mimeType": "text/markdown", "text": served}], "ttlMs": 0, "cacheScope": "private"}),
    )
    .await;
    let error = loading.await.unwrap().unwrap_err();
    let shown = format!("{error} {error:?}");
    assert!(
        !shown.contains(fake::SECRET),
        "the error quotes the file: {shown}"
    );
    assert_eq!(mismatch(error), SkillMismatch::Frontmatter);
    // The next request the server sees is this listing, not a read of the skill's FORMS.md.
    let listing = {
        let client = client.clone();
        tokio::spawn(async move { client.list_tools().await })
    };
    let next = tokio::time::timeout(Duration::from_secs(10), fake.request("tools/list"))
        .await
        .expect("the client sends its next request");
    fake.answer(&next["id"], fake::tools_page(json!([]))).await;
    assert!(listing.await.unwrap().unwrap().is_empty());
}

#[tokio::test]
async fn a_server_without_the_extension_is_not_asked() {
    let client = connect(server(false), modern()).await;
    let error = client.list_skills().await.unwrap_err();
    assert!(
        matches!(error, ClientError::ServerExtensionMissing { id } if id == "io.modelcontextprotocol/skills"),
        "{error}"
    );
    assert!(matches!(
        client.get_skill(URI).await.unwrap_err(),
        ClientError::ServerExtensionMissing { .. }
    ));
}
