"""A small MCP server on the official Python SDK's high-level `MCPServer` (mcp 2.3.0), for the
typed-mcp client tests (tests/client_reference.rs).

Everything here is declared with `MCPServer`'s decorators, so what the client meets is the SDK's
own behaviour (schemas derived from type hints, structured output, errors, both protocol eras):

- tools: `echo(text) -> str`; `add(a, b) -> Sum` (structured output with an `outputSchema`);
  `touch(uri)` (tells `subscriptions/listen` streams that the resource changed);
  `grow()` (adds a tool and tells the streams the tool list changed);
- resources: `demo://readme` (text) and the template `demo://notes/{name}`;
- prompt: `greet(name)`.

Run it as

    python mcpserver_server.py                    # stdio
    python mcpserver_server.py --http HOST:PORT   # Streamable HTTP at http://HOST:PORT/mcp

With `--http` (PORT may be 0: the OS picks a free port) it prints ONE line to stderr,
`listening on http://HOST:PORT/mcp` with the real port, once it accepts connections, and serves
until killed. Logs go to stderr only; nothing is written to stdout but the protocol.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

import anyio
from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, MCPServer

README_TEXT = "MCPServer reference for the typed-mcp client tests.\n"

mcp = MCPServer(
    "typed-mcp-mcpserver-reference",
    version="1.0.0",
    instructions="Tools, resources and a prompt declared with MCPServer's decorators.",
    log_level="WARNING",
)


class Sum(BaseModel):
    """The sum of two numbers."""

    sum: float = Field(description="a + b")


@mcp.tool()
def echo(text: str) -> str:
    """Returns the text it is given."""
    return text


@mcp.tool()
def add(a: float, b: float) -> Sum:
    """Adds two numbers (structured output)."""
    return Sum(sum=a + b)


@mcp.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Announces that the resource at `uri` changed (notifications/resources/updated)."""
    await ctx.notify_resource_updated(uri)
    return f"touched {uri}"


GROWN: list[str] = []


@mcp.tool()
async def grow(ctx: Context) -> str:
    """Adds a tool named `grown_N` and announces the change (notifications/tools/list_changed)."""
    name = f"grown_{len(GROWN) + 1}"
    GROWN.append(name)

    def grown() -> str:
        return name

    mcp.add_tool(grown, name=name, description="Added by grow.")
    await ctx.notify_tools_changed()
    return f"added {name}"


@mcp.resource("demo://readme", name="readme", mime_type="text/plain")
def readme() -> str:
    """The readme."""
    return README_TEXT


@mcp.resource("demo://notes/{name}", name="note", mime_type="text/plain")
def note(name: str) -> str:
    """A note, by name."""
    return f"note {name}"


@mcp.prompt()
def greet(name: str) -> str:
    """Greets someone by name."""
    return f"Hello, {name}!"


def parse_address(address: str) -> tuple[str, int]:
    """`HOST:PORT` (an IPv6 host in brackets) → (host, port); raises ValueError."""
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"expected HOST:PORT, got {address!r}")
    return host.removeprefix("[").removesuffix("]"), int(port)


async def serve_http(host: str, port: int) -> None:
    """`MCPServer.streamable_http_app` under uvicorn, announcing the bound port."""
    import uvicorn

    app = mcp.streamable_http_app(host=host)

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                bound_host, bound_port = self.servers[0].sockets[0].getsockname()[:2]
                shown = f"[{bound_host}]" if ":" in bound_host else bound_host
                print(f"listening on http://{shown}:{bound_port}/mcp", file=sys.stderr, flush=True)

    # log_config=None keeps the stderr logging set up below; no access log (it goes to stdout).
    config = uvicorn.Config(app, host=host, port=port, log_config=None, access_log=False, lifespan="on")
    await AnnouncingServer(config).serve()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP at http://HOST:PORT/mcp")
    options = parser.parse_args()
    if options.http is None:
        anyio.run(mcp.run_stdio_async)
        return
    try:
        host, port = parse_address(options.http)
    except ValueError as error:
        parser.error(str(error))
    anyio.run(serve_http, host, port)


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    main()
