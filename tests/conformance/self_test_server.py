"""A small Streamable HTTP MCP server on the official Python SDK, to self-test the conformance harness.

It is NOT the system under test (that is the demo server, see with_demo_server.sh); it exists so that
run.sh can be shown to work end to end against a real, independent server: it reports what passes,
what fails, and exits non-zero when it should.

    tests/interop/.venv/bin/python tests/conformance/self_test_server.py [--broken] [--port PORT]

Serves http://127.0.0.1:PORT/mcp (PORT 0 = any free port) with the SDK's own app (sessions for the
2025 protocol versions, the stateless path for 2026-07-28), and prints ONE line to stderr,
`listening on http://127.0.0.1:PORT/mcp`, once it accepts connections. Fixtures: the tools, a
resource, a resource template and a prompt the listed scenarios look at, including a tool with an
`x-mcp-header` string parameter (http-custom-header-server-validation).

--broken makes it fail known checks on purpose: a tool without a description (tools-list) and no
Host/Origin validation (dns-rebinding-protection).

Uses the venv of tests/interop (tests/interop/setup.sh creates it; mcp==2.3.0), read-only.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings

RESOURCE_URI = "test://static-text"


def build_server(broken: bool) -> Server[Any]:
    tools = [
        types.Tool(
            name="echo",
            description="Returns the text it is given.",
            input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
        ),
        types.Tool(
            name="lookup",
            description="Looks up a region (the region travels in the Mcp-Param-Region header too).",
            input_schema={
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
                "required": ["region"],
            },
        ),
    ]
    if broken:
        tools.append(types.Tool(name="undocumented", input_schema={"type": "object"}))

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name == "echo":
            text = str(arguments.get("text", ""))
        elif params.name == "lookup":
            text = f"region {arguments.get('region', '')}"
        else:
            raise ValueError("unknown tool")
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    async def list_resources(_ctx: Any, _params: Any) -> types.ListResourcesResult:
        resource = types.Resource(uri=RESOURCE_URI, name="static-text", description="A fixed text.", mime_type="text/plain")
        return types.ListResourcesResult(resources=[resource])

    async def list_resource_templates(_ctx: Any, _params: Any) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(uri_template="test://item/{id}", name="item", description="An item by id.")
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(_ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if str(params.uri) != RESOURCE_URI:
            raise ValueError("unknown resource")
        contents = types.TextResourceContents(uri=RESOURCE_URI, mime_type="text/plain", text="static text")
        return types.ReadResourceResult(contents=[contents])

    async def list_prompts(_ctx: Any, _params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(name="greet", description="Greets someone.")])

    async def get_prompt(_ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != "greet":
            raise ValueError("unknown prompt")
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text="Hello!"))
        return types.GetPromptResult(description="A greeting.", messages=[message])

    return Server(
        "typed-mcp-conformance-self-test",
        version="0.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (default 0: any free port)")
    parser.add_argument("--broken", action="store_true", help="fail known checks on purpose")
    options = parser.parse_args()

    import uvicorn

    host = "127.0.0.1"
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False) if options.broken else None
    app = build_server(options.broken).streamable_http_app(host=host, transport_security=security)

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                port = self.servers[0].sockets[0].getsockname()[1]
                print(f"listening on http://{host}:{port}/mcp", file=sys.stderr, flush=True)

    # No uvicorn log config and no access log: uvicorn's default access log goes to stdout.
    config = uvicorn.Config(app, host=host, port=options.port, log_config=None, access_log=False, lifespan="on")
    AnnouncingServer(config).run()


if __name__ == "__main__":
    main()
