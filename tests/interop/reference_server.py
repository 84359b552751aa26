"""Reference MCP server (stdio or Streamable HTTP) for developing and self-testing the interop harness.

Built on the official Python SDK's low-level `Server` (which serves both protocol eras over
stdio, and over Streamable HTTP: 2025 sessions plus stateless 2026-07-28), it mimics the typed-mcp demo server closely enough for the client scripts' checks: the
same tool names and argument schemas, the `{ok, data | error, meta}` envelope in
`structuredContent`, the metadata under `_meta["io.typed-mcp/meta"]`, and the subset of
`schema/limits.json` the checks rely on (timeouts, array limits, response size).

It is NOT the system under test: `tests/interop.rs` and `tests/interop_http.rs` drive
`examples/demo_server.rs`. Run it as

    python reference_server.py [--limits FILE]                                  # stdio
    python reference_server.py --http HOST:PORT [--json-response] [--limits FILE]   # http://HOST:PORT/mcp

With `--http` (PORT may be 0: the OS picks a free port) it prints ONE line to stderr,
`listening on http://HOST:PORT/mcp` with the real port, once it accepts connections, and serves
until killed. Logs go to stderr only; nothing is written to stdout.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from jsonschema import Draft202012Validator
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

META_KEY = "io.typed-mcp/meta"
README_URI = "demo://readme"
README_TEXT = "Reference server for the typed-mcp interop harness.\n"
TRUNCATION_MARKER = "\n[output truncated to fit the response size limit]"
# Room left in the response for everything around a truncated text (envelope, ids, keys).
RESPONSE_OVERHEAD_BYTES = 512

log = logging.getLogger("reference_server")


def _ms_schema(description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"ms": {"type": "integer", "minimum": 0, "default": 10, "description": description}},
        "additionalProperties": False,
    }


TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "echo": (
        "Returns the text it is given.",
        {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
            "additionalProperties": False,
        },
    ),
    "add": (
        "Adds two numbers.",
        {
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": False,
        },
    ),
    "sleep": ("Waits asynchronously for `ms` milliseconds (category slow).", _ms_schema("Milliseconds to wait.")),
    "spin": ("Blocks its thread for `ms` milliseconds.", _ms_schema("Milliseconds to block.")),
    "big": (
        "Returns a text of exactly `bytes` bytes.",
        {
            "type": "object",
            "properties": {"bytes": {"type": "integer", "minimum": 0, "default": 100}},
            "additionalProperties": False,
        },
    ),
    "sum": (
        "Adds up an array of numbers.",
        {
            "type": "object",
            "properties": {"values": {"type": "array", "items": {"type": "number"}}},
            "required": ["values"],
            "additionalProperties": False,
        },
    ),
    "lookup": (
        "Looks a key up (cacheable); `computations` counts real runs.",
        {
            "type": "object",
            "properties": {"key": {"type": "string"}},
            "required": ["key"],
            "additionalProperties": False,
        },
    ),
}


@dataclass
class Limits:
    """The parts of `schema/limits.json` this server honours."""

    default_timeout_ms: int = 30_000
    tool_timeouts: dict[str, int] = field(default_factory=dict)
    tool_categories: dict[str, str] = field(default_factory=lambda: {"sleep": "slow"})
    tool_overrides: dict[str, int] = field(default_factory=dict)
    max_response_bytes: int = 1_048_576
    max_array_size: int = 10_000
    tool_array_limits: dict[str, int] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | None) -> Limits:
        limits = cls()
        if path is None:
            return limits
        with open(path, encoding="utf-8") as handle:
            raw = json.load(handle)
        timeouts = raw.get("timeouts", {})
        limits.default_timeout_ms = timeouts.get("defaultTimeoutMs", limits.default_timeout_ms)
        limits.tool_timeouts.update(timeouts.get("toolTimeouts", {}))
        limits.tool_categories.update(timeouts.get("toolCategories", {}))
        limits.tool_overrides.update(timeouts.get("toolOverrides", {}))
        limits.max_response_bytes = raw.get("response", {}).get("maxResponseBytes", limits.max_response_bytes)
        request = raw.get("request", {})
        limits.max_array_size = request.get("maxArraySize", limits.max_array_size)
        limits.tool_array_limits.update(request.get("toolArrayLimits", {}))
        return limits

    def timeout_ms(self, tool: str) -> int:
        if tool in self.tool_overrides:
            return self.tool_overrides[tool]
        category = self.tool_categories.get(tool)
        return self.tool_timeouts.get(category, self.default_timeout_ms) if category else self.default_timeout_ms

    def array_limit(self, tool: str) -> int:
        return self.tool_array_limits.get(tool, self.max_array_size)


class ToolFailure(Exception):
    """A structured tool error: becomes a `CallToolResult` with `isError: true`."""

    def __init__(self, code: str, message: str, retryable: bool = False, violations: list[dict] | None = None):
        super().__init__(message)
        self.error: dict[str, Any] = {"code": code, "message": message, "retryable": retryable}
        if violations:
            self.error["validationErrors"] = violations


def _pointer(path: Any) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _check_arrays(value: Any, limit: int, path: list[Any], found: list[dict]) -> None:
    if isinstance(value, list):
        if len(value) > limit:
            found.append(
                {
                    "path": _pointer(path),
                    "keyword": "maxItems",
                    "limit": limit,
                    "actual": len(value),
                    "message": f"array has {len(value)} items, at most {limit} allowed",
                }
            )
        for index, item in enumerate(value):
            _check_arrays(item, limit, [*path, index], found)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_arrays(item, limit, [*path, key], found)


def validate_arguments(tool: str, arguments: dict[str, Any], limits: Limits) -> None:
    too_large: list[dict] = []
    _check_arrays(arguments, limits.array_limit(tool), [], too_large)
    if too_large:
        raise ToolFailure("ARRAY_TOO_LARGE", "an array in the arguments is too large", violations=too_large)
    validator = Draft202012Validator(TOOLS[tool][1])
    violations = [
        {"path": _pointer(error.absolute_path), "keyword": str(error.validator), "message": "does not match the schema"}
        for error in validator.iter_errors(arguments)
    ]
    if violations:
        raise ToolFailure("VALIDATION_FAILED", f"{len(violations)} argument(s) invalid", violations=violations)


class DemoTools:
    """Tool implementations plus the `lookup` result cache."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.computations = 0
        self.cache: dict[str, Any] = {}

    async def run(self, tool: str, args: dict[str, Any]) -> tuple[Any, bool]:
        """Returns (output, served-from-cache)."""
        if tool == "echo":
            return args["text"], False
        if tool == "add":
            return {"sum": args["a"] + args["b"]}, False
        if tool == "sleep":
            await anyio.sleep(args.get("ms", 10) / 1000)
            return {"sleptMs": args.get("ms", 10)}, False
        if tool == "spin":
            ms = args.get("ms", 10)
            await anyio.to_thread.run_sync(time.sleep, ms / 1000, abandon_on_cancel=True)
            return {"spunMs": ms}, False
        if tool == "big":
            return "x" * args.get("bytes", 100), False
        if tool == "sum":
            return {"sum": sum(args["values"])}, False
        if tool == "lookup":
            key = args["key"]
            if key in self.cache:
                return self.cache[key], True
            self.computations += 1
            output = {"key": key, "value": f"value-of-{key}", "computations": self.computations}
            self.cache[key] = output
            return output, False
        raise ToolFailure("TOOL_NOT_FOUND", "no such tool")


def render(output: Any, meta: dict[str, Any], max_response_bytes: int) -> types.CallToolResult:
    text = output if isinstance(output, str) else json.dumps(output)
    data = output
    if isinstance(output, str):
        budget = max(0, max_response_bytes - RESPONSE_OVERHEAD_BYTES) // 2
        if len(output.encode()) > budget:
            meta = {**meta, "truncated": True, "originalSizeBytes": len(json.dumps(output).encode())}
            data = output.encode()[:budget].decode(errors="ignore")
            text = data + TRUNCATION_MARKER
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content={"ok": True, "data": data, "meta": meta},
        is_error=False,
        _meta={META_KEY: meta},
    )


def render_error(error: dict[str, Any], meta: dict[str, Any]) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"{error['code']}: {error['message']}")],
        structured_content={"ok": False, "error": error, "meta": meta},
        is_error=True,
        _meta={META_KEY: meta},
    )


def build_server(limits: Limits) -> Server[Any]:
    tools = DemoTools(limits)

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name=n, description=d, input_schema=s) for n, (d, s) in TOOLS.items()]
        )

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in TOOLS:
            raise ValueError("unknown tool")
        started = time.monotonic()
        meta = {"durationMs": 0, "truncated": False, "cached": False}
        try:
            arguments = params.arguments or {}
            validate_arguments(params.name, arguments, limits)
            timeout_ms = limits.timeout_ms(params.name)
            with anyio.fail_after(timeout_ms / 1000):
                output, cached = await tools.run(params.name, arguments)
        except ToolFailure as failure:
            meta["durationMs"] = int((time.monotonic() - started) * 1000)
            return render_error(failure.error, meta)
        except TimeoutError:
            meta["durationMs"] = int((time.monotonic() - started) * 1000)
            error = {"code": "TOOL_TIMEOUT", "message": f"timed out after {timeout_ms} ms", "retryable": True}
            return render_error(error, meta)
        meta["durationMs"] = int((time.monotonic() - started) * 1000)
        meta["cached"] = cached
        return render(output, meta, limits.max_response_bytes)

    async def list_resources(_ctx: Any, _params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[types.Resource(uri=README_URI, name="readme", mime_type="text/plain")]
        )

    async def read_resource(_ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if str(params.uri) != README_URI:
            raise ValueError("unknown resource")
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=README_URI, mime_type="text/plain", text=README_TEXT)]
        )

    async def list_prompts(_ctx: Any, _params: Any) -> types.ListPromptsResult:
        argument = types.PromptArgument(name="name", description="Who to greet.", required=True)
        return types.ListPromptsResult(
            prompts=[types.Prompt(name="greet", description="Greets someone by name.", arguments=[argument])]
        )

    async def get_prompt(_ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != "greet":
            raise ValueError("unknown prompt")
        name = (params.arguments or {}).get("name", "world")
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=f"Hello, {name}!"))
        return types.GetPromptResult(description="A greeting.", messages=[message])

    return Server(
        "typed-mcp-interop-reference",
        version="0.0.0",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


def parse_address(address: str) -> tuple[str, int]:
    """`HOST:PORT` (an IPv6 host in brackets) → (host, port); raises ValueError."""
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"expected HOST:PORT, got {address!r}")
    return host.removeprefix("[").removesuffix("]"), int(port)


async def serve_http(server: Server[Any], host: str, port: int, json_response: bool) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp with the SDK's own app (sessions for the 2025
    versions, the stateless modern path for requests whose MCP-Protocol-Version is 2026-07-28)."""
    import uvicorn

    # `host` also selects the SDK's DNS-rebinding defaults (Host/Origin allow-list of the
    # localhost forms when bound to loopback).
    app = server.streamable_http_app(host=host, json_response=json_response)

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                bound_host, bound_port = self.servers[0].sockets[0].getsockname()[:2]
                shown = f"[{bound_host}]" if ":" in bound_host else bound_host
                print(f"listening on http://{shown}:{bound_port}/mcp", file=sys.stderr, flush=True)

    # log_config=None: uvicorn keeps the logging set up below (stderr); no access log (uvicorn's
    # default access handler writes to stdout).
    config = uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False, lifespan="on")
    await AnnouncingServer(config).serve()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limits", help="limits JSON file (schema/limits.json)")
    parser.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP at http://HOST:PORT/mcp")
    parser.add_argument(
        "--json-response", action="store_true", help="with --http: answer POSTs with application/json, not SSE"
    )
    options = parser.parse_args()
    server = build_server(Limits.load(options.limits))
    if options.http is not None:
        try:
            host, port = parse_address(options.http)
        except ValueError as error:
            parser.error(str(error))
        await serve_http(server, host, port, options.json_response)
        return
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    anyio.run(main)
