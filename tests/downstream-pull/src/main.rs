//! Calls two tools of a server through its generated typed client and prints what came back,
//! one line per call, on stdout:
//!
//! ```text
//! downstream-pull demo|everything|python --stdio -- COMMAND [ARG...]
//! downstream-pull everything --http URL
//! ```

use serde_json::Number;
use typed_mcp::client::{Client, ClientError, ClientOptions, ServerCommand};
use typed_mcp::generated::protocol::ContentBlock;
use typed_mcp_downstream_pull::{demo, everything, python};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), ClientError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = ClientOptions::new("downstream-pull", "0.0.0");
    let client = match args.get(1).map(String::as_str) {
        Some("--http") => Client::connect_http(&args[2], options).await?,
        Some("--stdio") => {
            let server = ServerCommand::new(&args[3]).args(&args[4..]);
            Client::connect_stdio(server, options).await?
        }
        _ => panic!("usage: downstream-pull SERVER (--stdio -- COMMAND... | --http URL)"),
    };
    match args[0].as_str() {
        "demo" => {
            let demo = demo::DemoClient::new(client.clone());
            let sum = demo
                .add(demo::AddArguments {
                    a: Number::from(2),
                    b: Number::from_f64(3.5).expect("finite"),
                })
                .await?;
            println!("add: {}", texts(&sum));
            let echoed = demo
                .echo(demo::EchoArguments {
                    text: "hello".to_owned(),
                })
                .await?;
            println!("echo: {}", texts(&echoed));
        }
        "everything" => {
            use everything::get_structured_content::arguments::GetStructuredContentArgumentsLocation as Location;
            let everything = everything::EverythingClient::new(client.clone());
            let weather = everything
                .get_structured_content(everything::GetStructuredContentArguments {
                    location: Location::Chicago,
                    extra: Default::default(),
                })
                .await?;
            println!(
                "get-structured-content: {} {} {}",
                weather.temperature, weather.conditions, weather.humidity
            );
            let sum = everything
                .get_sum(everything::GetSumArguments {
                    a: Number::from(2),
                    b: Number::from(3),
                    extra: Default::default(),
                })
                .await?;
            println!("get-sum: {}", texts(&sum));
        }
        "python" => {
            let python = python::PythonClient::new(client.clone());
            let sum = python
                .add(python::AddArguments {
                    a: Number::from(2),
                    b: Number::from(3),
                    extra: Default::default(),
                })
                .await?;
            println!("add: {}", sum.sum);
            let echoed = python
                .echo(python::EchoArguments {
                    text: "hello".to_owned(),
                    extra: Default::default(),
                })
                .await?;
            println!("echo: {}", echoed.result);
        }
        other => panic!("unknown server {other}"),
    }
    client.close().await;
    Ok(())
}

/// The text blocks of a result, joined.
fn texts(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::TextContent(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" ")
}
