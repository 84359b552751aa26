//! The Skills extension on the typed client, against the typed-mcp server over an in-memory
//! duplex, in both eras: `list_skills` and `get_skill` give the entries; `read_skill_file`
//! returns a file's bytes only when its size, digest and (for `SKILL.md`) frontmatter match
//! the entry, and refuses an unlisted file or a `dynamic` skill without sending anything;
//! nothing is asked of a server that did not declare the extension.

use serde_json::json;
use typed_mcp::client::{Client, ClientError, ClientOptions, VersionChoice};
use typed_mcp::generated::skills::{SkillDigest, SkillResources};
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
        let bytes = client.read_skill_file(skill, URI).await.unwrap();
        assert_eq!(bytes, SKILL_MD.as_bytes());
        let binary = client.read_skill_file(skill, EMAIL).await.unwrap();
        assert_eq!(binary, [0, 255, 1, 2]);
        let unknown = client
            .get_skill("skill://acme/billing/nothing/SKILL.md")
            .await
            .unwrap_err();
        assert_eq!(unknown.rpc_code().map(|code| code.0), Some(-32602));
    }
}

fn reason(error: ClientError) -> &'static str {
    match error {
        ClientError::SkillVerification { reason } => reason,
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
    let error = client.read_skill_file(&wrong_size, URI).await.unwrap_err();
    assert!(reason(error).contains("size"));

    let mut wrong_digest = skill.clone();
    let mut listed = files.clone();
    listed.0[0].digest = SkillDigest(format!("sha256:{}", "0".repeat(64)));
    wrong_digest.resources = SkillResources::SkillFiles(listed);
    let error = client
        .read_skill_file(&wrong_digest, URI)
        .await
        .unwrap_err();
    assert!(reason(error).contains("digest"));

    let mut wrong_frontmatter = skill.clone();
    wrong_frontmatter.frontmatter.description = "Something else".to_owned();
    let error = client
        .read_skill_file(&wrong_frontmatter, URI)
        .await
        .unwrap_err();
    assert!(reason(error).contains("frontmatter"));

    let error = client
        .read_skill_file(&skill, "skill://acme/billing/refunds/unlisted.md")
        .await
        .unwrap_err();
    assert!(reason(error).contains("manifest"));

    let mut dynamic = skill.clone();
    dynamic.resources = serde_json::from_value(json!("dynamic")).unwrap();
    let error = client.read_skill_file(&dynamic, URI).await.unwrap_err();
    assert!(reason(error).contains("dynamic"));
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
