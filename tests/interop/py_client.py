"""Interop client: the official Python MCP SDK (PyPI `mcp`) against a stdio or Streamable HTTP server.

    python py_client.py --mode MODE --limits FILE -- SERVER_COMMAND [ARG...]   # spawns, stdio
    python py_client.py --mode MODE --limits FILE --http URL                   # Streamable HTTP

MODE is one of:
  legacy-2025-11-25, legacy-2025-06-18, legacy-2025-03-26   initialize handshake at that version
  auto                                                       Client(mode="auto"): server/discover, else initialize
  2026-07-28                                                 Client(mode="2026-07-28"): adopt the modern era

Over HTTP the same modes apply: the legacy ones open a session (`initialize`, `Mcp-Session-Id`),
`auto` probes `server/discover` with a 2026-07-28 POST, `2026-07-28` sends stateless modern
requests only. The limits FILE is the one the server was started with; it sizes the probes (timeouts, array
and response limits). Prints ONE JSON report line on stdout; logs go to stderr. Exit status: 0
when connected (the checks' verdicts are in the report), 2 when the connection failed, 64 on
bad usage. The checks mirror tests/interop/checks.mjs; see tests/interop/README.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import traceback
from importlib.metadata import version as package_version
from typing import Any

import anyio

log = logging.getLogger("py_client")

META_KEY = "io.typed-mcp/meta"
TOOL_NAMES = ["echo", "add", "sleep", "spin", "big", "sum", "lookup"]
LEGACY_MODES = {"legacy-2025-11-25": "2025-11-25", "legacy-2025-06-18": "2025-06-18", "legacy-2025-03-26": "2025-03-26"}
MODES = [*LEGACY_MODES, "auto", "2026-07-28"]
# What a dual-era server must end up speaking in each mode.
EXPECTED_VERSION = {**LEGACY_MODES, "auto": "2026-07-28", "2026-07-28": "2026-07-28"}


class CheckFailed(Exception):
    """A check's expectation did not hold; the message is the check's detail."""


def expect(condition: bool, detail: Any) -> None:
    if not condition:
        raise CheckFailed(detail if isinstance(detail, str) else json.dumps(detail)[:500])


# ---------------------------------------------------------------- probe sizes from the limits file


def probe_sizes(limits: dict[str, Any]) -> dict[str, int]:
    timeouts = limits.get("timeouts", {})

    def timeout_of(tool: str) -> int:
        if tool in timeouts.get("toolOverrides", {}):
            return timeouts["toolOverrides"][tool]
        category = timeouts.get("toolCategories", {}).get(tool, "slow" if tool == "sleep" else None)
        return timeouts.get("toolTimeouts", {}).get(category, timeouts.get("defaultTimeoutMs", 30_000))

    request = limits.get("request", {})
    array_limit = request.get("toolArrayLimits", {}).get("sum", request.get("maxArraySize", 10_000))
    return {
        "sleepMs": 20 * timeout_of("sleep"),
        "spinMs": 10 * timeout_of("spin"),
        "sumValues": array_limit + 1,
        "bigBytes": 2 * limits.get("response", {}).get("maxResponseBytes", 1_048_576),
    }


# ---------------------------------------------------------------- reading a CallToolResult (wire-shaped dict)


def text_of(result: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result.get("content", []) if block.get("type") == "text")


def envelope(result: dict[str, Any]) -> dict[str, Any] | None:
    structured = result.get("structuredContent")
    return structured if isinstance(structured, dict) and "ok" in structured else None


def tool_meta(result: dict[str, Any]) -> dict[str, Any]:
    meta = (result.get("_meta") or {}).get(META_KEY)
    if meta is None:
        meta = (envelope(result) or {}).get("meta")
    return meta or {}


def payload(result: dict[str, Any]) -> Any:
    """A successful call's output: the envelope's data, else the text (parsed when JSON)."""
    expect(not result.get("isError"), {"unexpected error": text_of(result)[:300]})
    env = envelope(result)
    if env is not None:
        expect(env["ok"] is True, {"envelope": env})
        return env.get("data")
    text = text_of(result)
    try:
        return json.loads(text)
    except ValueError:
        return text


def tool_error(result: dict[str, Any], code: str) -> dict[str, Any]:
    """The structured error of a failed call, checked to carry `code`."""
    expect(result.get("isError") is True, {"expected isError with": code, "got": text_of(result)[:300]})
    env = envelope(result)
    if env is not None:
        expect(env["ok"] is False, {"envelope": env})
        error = env.get("error") or {}
    else:  # no structuredContent: the text starts with the code
        match = re.match(r"([A-Z_]+):", text_of(result))
        error = {"code": match.group(1) if match else None, "source": "text"}
    expect(error.get("code") == code, {"expected": code, "got": error})
    return error


# ---------------------------------------------------------------- the checks


def describe(error: BaseException) -> str:
    """`Type: message` of an exception, unwrapping (first-leaf) exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return f"{type(error).__name__}: {error}"[:500]


def dump(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def run_checks(client: Any, mode: str, sizes: dict[str, int]) -> dict[str, dict[str, Any]]:
    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return dump(await client.call_tool(name, arguments))

    async def handshake() -> Any:
        expect(client.protocol_version == EXPECTED_VERSION[mode], {"negotiated": client.protocol_version})
        return client.protocol_version

    async def tools_list() -> Any:
        tools = dump(await client.list_tools())["tools"]
        names = {tool["name"]: tool for tool in tools}
        missing = [name for name in TOOL_NAMES if name not in names]
        expect(not missing, {"missing": missing})
        undescribed = [name for name in TOOL_NAMES if not names[name].get("description")]
        expect(not undescribed, {"without description": undescribed})
        return sorted(names)

    async def echo() -> Any:
        result = await call("echo", {"text": "héllo interop"})
        data = payload(result)
        expect(data == "héllo interop" or (isinstance(data, dict) and data.get("text") == "héllo interop"), data)
        expect("héllo interop" in text_of(result), {"text": text_of(result)[:200]})
        return data

    async def add() -> Any:
        data = payload(await call("add", {"a": 2, "b": 3.5}))
        expect(isinstance(data, dict) and data.get("sum") == 5.5, data)
        return data

    async def sleep() -> Any:
        return payload(await call("sleep", {"ms": 5}))

    async def spin() -> Any:
        return payload(await call("spin", {"ms": 5}))

    async def big() -> Any:
        result = await call("big", {"bytes": 100})
        data = payload(result)
        expect(isinstance(data, str) and len(data.encode()) == 100, {"length": len(str(data))})
        expect(tool_meta(result).get("truncated") in (None, False), tool_meta(result))
        return {"bytes": 100}

    async def sum_() -> Any:
        data = payload(await call("sum", {"values": [1, 2, 3.5]}))
        expect(isinstance(data, dict) and data.get("sum") == 6.5, data)
        return data

    async def lookup_twice() -> Any:
        key = f"interop-{mode}"
        first = await call("lookup", {"key": key})
        second = await call("lookup", {"key": key})
        a, b = payload(first), payload(second)
        expect(isinstance(a, dict) and a.get("key") == key and "computations" in a, {"first": a})
        expect(b == a, {"first": a, "second": b})
        expect(tool_meta(second).get("cached") is True, {"second meta": tool_meta(second)})
        return {"computations": a["computations"], "cachedFlag": True}

    async def resources_list() -> Any:
        uris = [r["uri"] for r in dump(await client.list_resources())["resources"]]
        expect("demo://readme" in uris, {"uris": uris})
        return uris

    async def resources_read() -> Any:
        contents = dump(await client.read_resource("demo://readme"))["contents"]
        expect(len(contents) >= 1 and contents[0].get("uri") == "demo://readme", contents)
        expect(bool(contents[0].get("text")), {"first content": contents[0]})
        return {"chars": len(contents[0]["text"])}

    async def prompts_list() -> Any:
        names = [p["name"] for p in dump(await client.list_prompts())["prompts"]]
        expect("greet" in names, {"prompts": names})
        return names

    async def prompts_get() -> Any:
        messages = dump(await client.get_prompt("greet", {"name": "Ada"}))["messages"]
        texts = [m["content"].get("text", "") for m in messages if isinstance(m.get("content"), dict)]
        expect(any("Ada" in t for t in texts), {"messages": messages})
        return texts

    async def spin_timeout() -> Any:
        error = tool_error(await call("spin", {"ms": sizes["spinMs"]}), "TOOL_TIMEOUT")
        expect(error.get("retryable", True) is True, error)
        return error

    async def sleep_timeout() -> Any:
        error = tool_error(await call("sleep", {"ms": sizes["sleepMs"]}), "TOOL_TIMEOUT")
        expect(error.get("retryable", True) is True, error)
        return error

    async def validation_failed() -> Any:
        error = tool_error(await call("add", {"a": "two", "b": 3}), "VALIDATION_FAILED")
        paths = [v.get("path") for v in error.get("validationErrors", [])]
        expect("/a" in paths, {"paths": paths, "error": error})
        return {"paths": paths}

    async def array_too_large() -> Any:
        error = tool_error(await call("sum", {"values": [1] * sizes["sumValues"]}), "ARRAY_TOO_LARGE")
        return {"code": error["code"], "sent": sizes["sumValues"]}

    async def big_truncated() -> Any:
        result = await call("big", {"bytes": sizes["bigBytes"]})
        data, meta = payload(result), tool_meta(result)
        expect(meta.get("truncated") is True, {"meta": meta})
        expect(meta.get("originalSizeBytes", 0) >= sizes["bigBytes"], {"meta": meta})
        expect(isinstance(data, str) and len(data.encode()) < sizes["bigBytes"], {"length": len(str(data))})
        return {"requested": sizes["bigBytes"], "kept": len(data.encode()), "meta": meta}

    checks = [
        ("handshake", handshake),
        ("tools/list", tools_list),
        # The blocking timeout first: its thread keeps spinning while the other checks run.
        ("spin timeout", spin_timeout),
        ("echo", echo),
        ("add", add),
        ("sleep", sleep),
        ("spin", spin),
        ("big", big),
        ("sum", sum_),
        ("lookup cached", lookup_twice),
        ("resources/list", resources_list),
        ("resources/read", resources_read),
        ("prompts/list", prompts_list),
        ("prompts/get", prompts_get),
        ("sleep timeout", sleep_timeout),
        ("validation failed", validation_failed),
        ("array too large", array_too_large),
        ("big truncated", big_truncated),
    ]
    report: dict[str, dict[str, Any]] = {}
    for name, check in checks:
        try:
            report[name] = {"ok": True, "detail": await check()}
        except CheckFailed as failed:
            report[name] = {"ok": False, "detail": str(failed)}
        except Exception as error:  # a client-side exception is a failed check, not a crash
            log.warning("check %s raised:\n%s", name, traceback.format_exc())
            report[name] = {"ok": False, "detail": describe(error)}
    return report


# ---------------------------------------------------------------- connecting


def make_client(mode: str, server: list[str] | str) -> Any:
    """A `Client` for `server`: a command line (spawned, stdio) or a URL (Streamable HTTP)."""
    import mcp.client.session as session_module
    from mcp import Client, StdioServerParameters
    from mcp_types import Implementation

    if mode in LEGACY_MODES:
        # The SDK's initialize() always offers LATEST_HANDSHAKE_VERSION (2025-11-25) and has no
        # option for another; the handshake reads that module-level name at call time, so setting
        # it makes the real handshake code offer an older version (facts: README.md).
        session_module.LATEST_HANDSHAKE_VERSION = LEGACY_MODES[mode]
        sdk_mode = "legacy"
    else:
        sdk_mode = mode
    if isinstance(server, str):
        # A URL string: the SDK's `streamable_http_client` transport.
        target: Any = server
    else:
        target = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    info = Implementation(name="typed-mcp-interop-py", version=package_version("mcp"))
    # 60 s per request, like the TypeScript SDKs' default, so a hung call fails its check only.
    return Client(target, mode=sdk_mode, client_info=info, read_timeout_seconds=60)


async def run(mode: str, limits_path: str, server: list[str] | str) -> int:
    with open(limits_path, encoding="utf-8") as handle:
        sizes = probe_sizes(json.load(handle))
    report: dict[str, Any] = {"client": "python-mcp", "clientVersion": package_version("mcp"), "mode": mode}
    try:
        client = make_client(mode, server)
        async with client:
            report["negotiatedVersion"] = client.protocol_version
            report["checks"] = await run_checks(client, mode, sizes)
    except Exception as error:  # any failure to connect is reported, not raised
        if "checks" in report:  # connected and checked; only closing failed
            log.warning("closing the connection failed:\n%s", traceback.format_exc())
            print(json.dumps(report), flush=True)
            return 0
        log.error("connection failed:\n%s", traceback.format_exc())
        report["negotiatedVersion"] = None
        report["checks"] = {"connect": {"ok": False, "detail": describe(error)}}
        print(json.dumps(report), flush=True)
        return 2
    print(json.dumps(report), flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description="MCP interop client (official Python SDK).")
    parser.add_argument("--mode", required=True, choices=MODES)
    parser.add_argument("--limits", required=True, help="the limits JSON the server runs with")
    parser.add_argument("--http", metavar="URL", help="connect to URL over Streamable HTTP instead of spawning")
    parser.add_argument("server", nargs=argparse.REMAINDER, help="-- SERVER_COMMAND [ARG...] (without --http)")
    options = parser.parse_args()
    server_argv = options.server[1:] if options.server[:1] == ["--"] else options.server
    if (options.http is None) == (not server_argv):
        parser.print_usage(sys.stderr)
        log.error("give either --http URL or -- SERVER_COMMAND [ARG...]")
        return 64
    server: list[str] | str = options.http if options.http is not None else server_argv
    return anyio.run(run, options.mode, options.limits, server)


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="py_client: %(levelname)s %(message)s")
    sys.exit(main())
