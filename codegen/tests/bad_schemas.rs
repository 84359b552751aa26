//! Pins the error each bad schema in `tests/bad/` gives: the message names the file and the
//! JSON Pointer of the offending place. `TYPED_MCP_BLESS=1` rewrites the `.err` files.

use std::path::Path;

fn check(name: &str) {
    let schema = format!("tests/bad/{name}.json");
    let expected_file = Path::new("tests/bad").join(format!("{name}.err"));
    let error = match typed_mcp_codegen::Config::new().generate_string(&schema) {
        Ok(_) => panic!("{schema}: a bad schema must not generate"),
        Err(e) => e.to_string(),
    };
    assert!(
        error.contains(&schema),
        "the message names the file: {error}"
    );
    if std::env::var_os("TYPED_MCP_BLESS").is_some() {
        std::fs::write(&expected_file, format!("{error}\n")).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&expected_file).unwrap_or_default();
    assert_eq!(error, expected.trim_end(), "{name}: error message changed");
}

macro_rules! bad_schema_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check(stringify!($name));
            }
        )*
    };
}

bad_schema_tests!(
    unknown_ref,
    external_ref,
    retryable_not_in_enum,
    invalid_json,
    bad_pattern,
    bad_type,
);
