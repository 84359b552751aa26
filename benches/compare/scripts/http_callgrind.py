#!/usr/bin/env python3
"""Instructions per Streamable HTTP `tools/call echo` (16 B of text) of an HTTP bench server.

Not part of the harness (BENCHMARKS.md, "HTTP, one keep-alive connection"): runs
SERVER (the `typed_http_echo` example, built in the `bench-servers` profile) under
`valgrind --tool=callgrind` twice, drives it over one keep-alive connection (initialize in
2025-11-25, notifications/initialized, then N sequential calls) with N = LOW and N = HIGH,
and prints (instructions at HIGH - instructions at LOW) / (HIGH - LOW). With `--footprint`,
it prints instead the code each request runs, in instructions and 64-byte cache lines
(`code_lines.py`). With `--size SIZE`, each call's text is SIZE bytes instead of 16.

    python3 benches/compare/scripts/http_callgrind.py [--footprint] [--size SIZE] SERVER
        [LOW HIGH]
"""
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile

import code_lines


def run(server, calls, out, options, text):
    child = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--quiet", *options, f"--callgrind-out-file={out}",
         server],
        stderr=subprocess.PIPE,
        text=True,
    )
    address = None
    while address is None:
        line = child.stderr.readline()
        if not line:
            raise SystemExit("the server ended before listening")
        found = re.search(r"listening on http://([0-9.]+):([0-9]+)", line)
        if found:
            address = (found.group(1), int(found.group(2)))
    connection = http.client.HTTPConnection(*address)

    def post(body, session=None):
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        if session:
            headers["mcp-session-id"] = session
            headers["mcp-protocol-version"] = "2025-11-25"
        connection.request("POST", "/mcp", body=json.dumps(body), headers=headers)
        response = connection.getresponse()
        return response, response.read()

    response, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "http-callgrind", "version": "1"}}})
    session = response.getheader("mcp-session-id")
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    for i in range(calls):
        _, body = post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"text": text}}}, session)
        if b'"result"' not in body:
            raise SystemExit(f"call {i + 1} failed: {body[:200]!r}")
    connection.close()
    child.terminate()
    child.wait()
    with open(out) as profile:
        return int(re.search(r"^summary: (\d+)", profile.read(), re.M).group(1))


def main():
    arguments = sys.argv[1:]
    lines = arguments[:1] == ["--footprint"]
    arguments = arguments[1:] if lines else arguments
    size = 16
    if arguments[:1] == ["--size"]:
        size, arguments = int(arguments[1]), arguments[2:]
    text = ("0123456789abcdef" * (size // 16 + 1))[:size]
    server = arguments[0]
    low, high = (int(arguments[1]), int(arguments[2])) if len(arguments) > 2 else (500, 1500)
    directory = tempfile.mkdtemp(prefix="typed-mcp-http-callgrind-")
    options = code_lines.VALGRIND_OPTIONS if lines else ()
    low_profile = os.path.join(directory, f"low-{low}.out")
    high_profile = os.path.join(directory, f"high-{high}.out")
    at_low = run(server, low, low_profile, options, text)
    at_high = run(server, high, high_profile, options, text)
    if lines:
        figures = code_lines.per_call(low_profile, high_profile, high - low)
        print(f"{code_lines.describe(*figures)} ({server}; profiles in {directory})")
        return
    print(f"{(at_high - at_low) / (high - low):.0f} instructions per request ({server}; profiles in {directory})")


if __name__ == "__main__":
    main()
