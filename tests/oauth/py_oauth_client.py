"""The official Python SDK client (PyPI `mcp`, its OAuthClientProvider) against a protected
MCP server: discovery (RFC 9728, then the authorization server's metadata), dynamic client
registration, authorization code + PKCE with the resource indicator, then tools/list and a
tools/call. This script plays the user at oidc-provider's development login and consent pages.

Usage: py_oauth_client.py URL [--ca CA_PEM]
Prints one JSON line on stdout: {"ok": true, "tools": [...], "echo": "...",
"authorized_at_pages": true, "registered": true, "token_type": "Bearer", "scope": "..."} or
{"ok": false, "error": "..."}; exit status 0 only when ok.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import traceback
from html import unescape
from urllib.parse import parse_qs, urljoin, urlparse

import anyio
import httpx2
from mcp import Client
from mcp.client.auth.oauth2 import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

# A loopback redirect (RFC 8252): never contacted, the script reads the code off the URL.
REDIRECT = "http://127.0.0.1:9/callback"


class Memory:
    """Token storage in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def form_fields(page: str) -> tuple[str, dict[str, str]]:
    """The first form's action and its hidden fields (plus login and password when asked)."""
    action = re.search(r'<form[^>]*action="([^"]+)"', page)
    if not action:
        raise RuntimeError("no form on the page")
    fields = {
        unescape(name): unescape(value)
        for name, value in re.findall(r'<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"', page)
    }
    if 'name="login"' in page:
        fields.update({"login": "alice", "password": "any"})
    return unescape(action.group(1)), fields


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--ca", help="a CA certificate (PEM) the client trusts for https")
    args = parser.parse_args()
    landed: dict[str, str] = {}

    async def play_user(authorization_url: str) -> None:
        async with httpx2.AsyncClient(timeout=30) as browser:
            location = authorization_url
            for _ in range(20):
                if location.startswith(REDIRECT):
                    landed["url"] = location
                    return
                response = await browser.get(location)
                while response.status_code in (302, 303):
                    location = urljoin(location, response.headers["location"])
                    if location.startswith(REDIRECT):
                        landed["url"] = location
                        return
                    response = await browser.get(location)
                action, fields = form_fields(response.text)
                action = urljoin(location, action)
                response = await browser.post(action, data=fields)
                if response.status_code not in (302, 303):
                    raise RuntimeError(f"the form post answered {response.status_code}")
                location = urljoin(action, response.headers["location"])
            raise RuntimeError("the authorization did not come back to the redirect URI")

    async def callback() -> AuthorizationCodeResult:
        query = parse_qs(urlparse(landed["url"]).query)
        if "code" not in query:
            raise RuntimeError(f"no code in the redirect: {query.get('error')}")
        return AuthorizationCodeResult(
            code=query["code"][0],
            state=query.get("state", [None])[0],
            iss=query.get("iss", [None])[0],
        )

    storage = Memory()
    provider = OAuthClientProvider(
        server_url=args.url,
        client_metadata=OAuthClientMetadata(
            client_name="typed-mcp auth test (python)",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            scope="notes:read",
        ),
        storage=storage,
        redirect_handler=play_user,
        callback_handler=callback,
    )
    http_client = create_mcp_http_client(auth=provider)
    if args.ca:
        http_client = httpx2.AsyncClient(auth=provider, verify=args.ca, timeout=httpx2.Timeout(30, read=300))
    try:
        transport = streamable_http_client(args.url, http_client=http_client)
        async with Client(transport, read_timeout_seconds=60) as client:
            tools = await client.list_tools()
            names = sorted(tool.name for tool in tools.tools)
            echo = await client.call_tool("echo", {"text": "hello through OAuth"})
            text = "".join(getattr(block, "text", "") for block in echo.content)
        tokens = storage.tokens
        report = {
            "ok": True,
            "tools": names,
            "echo": text,
            # What the OAuth flow left: the user was sent through the authorization pages,
            # a client was registered, and a bearer token was obtained.
            "authorized_at_pages": "url" in landed,
            "registered": storage.client is not None,
            "token_type": tokens.token_type if tokens else None,
            "scope": tokens.scope if tokens else None,
        }
        print(json.dumps(report), flush=True)
        return 0
    except Exception as error:  # reported on stdout for the Rust test to show
        traceback.print_exc(file=sys.stderr)
        print(json.dumps({"ok": False, "error": f"{type(error).__name__}: {error}"}), flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(anyio.run(main))
