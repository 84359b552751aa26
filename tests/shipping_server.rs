//! A typed tool whose arguments and output `$ref` a shared `Address` definition
//! (`examples/shipping_server.rs`), run as a real process over stdio and called with
//! typed-mcp's own client: one generated `Address` type serves `from`, `to` and the output,
//! violations inside an address carry their full path (`/to/zip`), and the published schemas
//! carry the `Address` definition, so an independent validator (the `jsonschema` crate)
//! resolves their references.

mod example_support;

use std::time::Duration;

use serde_json::{json, Value};
use typed_mcp::client::{Client, ClientError, ClientOptions, ServerCommand};
use typed_mcp::validation::SchemaValidate;
use typed_mcp::SchemaDefinition;

/// The shipping server's generated types (`examples/shipping_server/shipping.json`).
#[allow(missing_docs, unreachable_pub, dead_code)]
mod shipping {
    include!(concat!(env!("OUT_DIR"), "/shipping/shipping.rs"));
}
use shipping::{Address, QuoteShipmentArguments, QuoteShipmentOutput};

const SHIPPING: &str = include_str!("../examples/shipping_server/shipping.json");

/// Compiles only if every address member, of the arguments and of the output, is the one
/// generated `Address` type.
fn addresses<'a>(
    args: &'a QuoteShipmentArguments,
    out: &'a QuoteShipmentOutput,
) -> [&'a Address; 4] {
    [&args.from, &args.to, &out.from, &out.to]
}

fn address(name: &str, zip: &str) -> Value {
    json!({"name": name, "street": "1 Main St", "city": "Springfield", "zip": zip})
}

fn arguments(to_zip: &str) -> Value {
    json!({"from": address("Ada", "12345"), "to": address("Bob", to_zip), "weightGrams": 1200})
}

/// Calls the tool with `arguments`, which it must refuse as `VALIDATION_FAILED`: the paths
/// and keywords of the violations.
async fn violations(client: &Client, arguments: Value) -> Vec<(String, String)> {
    let reply = client
        .call_tool("quote_shipment", arguments)
        .await
        .expect("a tool result");
    let result =
        json!({"isError": reply.is_error(), "structuredContent": reply.structured_content()});
    assert_eq!(result["isError"], true, "{result}");
    let error = &result["structuredContent"]["error"];
    assert_eq!(error["code"], "VALIDATION_FAILED", "{result}");
    error["validationErrors"]
        .as_array()
        .unwrap_or_else(|| panic!("violations listed: {result}"))
        .iter()
        .map(|v| {
            let text = |key: &str| v[key].as_str().unwrap_or_default().to_owned();
            (text("path"), text("keyword"))
        })
        .collect()
}

#[test]
fn the_generated_validator_reports_paths_inside_a_shared_definition() {
    let errors = QuoteShipmentArguments::validate_value(&arguments("5432")).unwrap_err();
    let found: Vec<(&str, &str)> = errors.iter().map(|e| (e.path(), e.keyword())).collect();
    assert_eq!(found, [("/to/zip", "pattern")]);
    assert!(
        errors[0].schema_path().starts_with("/$defs/Address/"),
        "{}",
        errors[0].schema_path()
    );
    assert!(QuoteShipmentArguments::validate_value(&arguments("54321")).is_ok());
    // The definition carries the definition it refers to, as the file has it.
    let file: Value = serde_json::from_str(SHIPPING).expect("JSON");
    let referenced: Vec<(&str, &str, Value)> = QuoteShipmentArguments::REFERENCED
        .iter()
        .map(|d| {
            (
                d.container,
                d.name,
                serde_json::from_str(d.schema).expect("JSON"),
            )
        })
        .collect();
    assert_eq!(
        referenced,
        [("$defs", "Address", file["$defs"]["Address"].clone())]
    );
    assert!(<Address as SchemaDefinition>::REFERENCED.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_with_shared_definitions_is_served_end_to_end() {
    let executable = example_support::build_example("shipping_server");
    let options =
        ClientOptions::new("shipping-test", "0.1.0").request_timeout(Duration::from_secs(30));
    let client = Client::connect_stdio(
        ServerCommand::new(executable).env("RUST_LOG", "warn"),
        options,
    )
    .await
    .expect("the server starts and answers the handshake");

    // The published schemas are self-contained: the `Address` definition travels with them.
    let tools = client.list_tools().await.expect("tools/list");
    let tool = tools
        .iter()
        .find(|t| t.name == "quote_shipment")
        .expect("listed");
    let tool = serde_json::to_value(tool).expect("JSON");
    let file: Value = serde_json::from_str(SHIPPING).expect("JSON");
    let input = &tool["inputSchema"];
    assert_eq!(
        input["properties"]["to"]["$ref"], "#/$defs/Address",
        "{input}"
    );
    assert_eq!(
        input["$defs"]["Address"], file["$defs"]["Address"],
        "{input}"
    );
    let independent = jsonschema::validator_for(input).expect("the inputSchema compiles alone");
    assert!(independent.is_valid(&arguments("54321")));
    let paths: Vec<String> = independent
        .iter_errors(&arguments("5432"))
        .map(|e| e.instance_path().to_string())
        .collect();
    assert_eq!(paths, ["/to/zip"]);
    let output = &tool["outputSchema"];
    assert_eq!(
        output["$defs"]["Address"], file["$defs"]["Address"],
        "{output}"
    );
    jsonschema::validator_for(output).expect("the outputSchema compiles alone");

    // A violation inside the second address is refused with its path, before the handler.
    assert_eq!(
        violations(&client, arguments("5432")).await,
        [("/to/zip".to_owned(), "pattern".to_owned())]
    );
    let mut missing_city = arguments("54321");
    missing_city["from"]
        .as_object_mut()
        .expect("an object")
        .remove("city");
    assert_eq!(
        violations(&client, missing_city).await,
        [("/from".to_owned(), "required".to_owned())]
    );

    // A valid call: typed arguments in, the typed output out, checked by the client against
    // the published outputSchema (the `jsonschema` crate) and the output type's validator.
    let args: QuoteShipmentArguments =
        serde_json::from_value(arguments("54321")).expect("the arguments decode");
    let quote: QuoteShipmentOutput = client
        .call_tool_typed("quote_shipment", &args)
        .await
        .expect("a quote");
    assert_eq!(quote.price_cents, 300, "2 kg in the same city at 150 cents");
    let [from, to, quoted_from, quoted_to] =
        addresses(&args, &quote).map(|a| serde_json::to_value(a).expect("JSON"));
    assert_eq!((&from, &to), (&quoted_from, &quoted_to));
    assert_eq!(quoted_to["zip"], "54321");
    // The client checks typed arguments with the same generated validator before sending.
    let mut wrong = args;
    wrong.to = serde_json::from_value(address("Bob", "00000")).expect("an address");
    wrong.to.street = String::new();
    match client
        .call_tool_typed::<_, QuoteShipmentOutput>("quote_shipment", &wrong)
        .await
    {
        Err(ClientError::InvalidRequest { errors, .. }) => {
            let paths: Vec<&str> = errors.iter().map(|e| e.path()).collect();
            assert_eq!(paths, ["/params/arguments/to/street"]);
        }
        other => panic!("arguments breaking the schema are refused: {other:?}"),
    }
    client.close().await;
}
