//! Structure of the emitted validators, checked by parsing the generated code with syn.

use typed_mcp_codegen::__emit_validators_for_tests as emit;

fn parse(code: &str) -> syn::File {
    syn::parse_file(code).expect("generated code parses")
}

#[test]
fn dump() {
    let code = emit(r##"{"$defs": {
        "Shape": {"anyOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}]},
        "Circle": {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number", "minimum": 0}}, "required": ["kind", "r"], "additionalProperties": false},
        "Square": {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "integer", "multipleOf": 2, "maximum": -3.5}, "tags": {"type": "array", "items": {"type": "string", "pattern": "^a", "format": "uri", "minLength": 2}, "uniqueItems": true, "maxItems": 3}}, "required": ["kind"]}
    }}"##).unwrap();
    parse(&code);
    println!("{code}");
}
