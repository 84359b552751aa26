#!/usr/bin/env python3
"""Soak of the typed-mcp demo server under mixed load and faults (issue 13).

Run through scripts/soak.sh, which builds the demo server; see RELIABILITY.md.

One demo server serves Streamable HTTP for the whole run, and one serves stdio for the whole
run; more stdio servers come and go. Well-behaved clients call every demo tool, resource and
prompt in both eras (2026-07-28 requests without a session, 2025 sessions after `initialize`)
and check that each request is answered exactly once, with its own id. Faulty clients meanwhile
vanish mid-request, trickle bytes, send oversized and malformed messages, cancel requests and
never read their answers. Every REPORT seconds and at the end the script prints the requests,
answers, lost and duplicated answers of the well-behaved clients, the faults injected, and the
resident memory (RSS) of both long-lived servers.

Standard library only. Exit status 1 when a well-behaved request was lost, duplicated or
answered wrongly, or a long-lived server died.
"""

import argparse
import http.client
import itertools
import json
import os
import random
import select
import signal
import socket
import subprocess
import sys
import threading
import time

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
MAX_LINE = 1 << 20  # request.maxLineBytes of the soak's limits (1 MiB)
LIMITS = {
    "request": {"maxLineBytes": MAX_LINE},
    "http": {
        "sessionIdleTimeoutMs": 10000,
        "headerReadTimeoutMs": 2000,
        "bodyReadTimeoutMs": 2000,
    },
    "timeouts": {"defaultTimeoutMs": 5000},
}
ANSWER_GUARD = 60.0  # a well-behaved request unanswered after this long is lost


class Stats:
    """Counters shared by every client thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.errors = []

    def add(self, name, n=1):
        with self.lock:
            self.counts[name] = self.counts.get(name, 0) + n

    def get(self, name):
        with self.lock:
            return self.counts.get(name, 0)

    def error(self, text):
        with self.lock:
            self.counts["wrong"] = self.counts.get("wrong", 0) + 1
            if len(self.errors) < 20:
                self.errors.append(text)


STATS = Stats()
STOP = threading.Event()


def meta():
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "soak", "version": "1.0.0"},
    }


def workload(rng):
    """One request of the mixed load: (method, params, check of the result)."""
    choice = rng.randrange(13)
    if choice == 0:
        text = "soak-%d" % rng.randrange(10**9)
        return "tools/call", {"name": "echo", "arguments": {"text": text}}, \
            lambda r: r["structuredContent"]["data"] == text
    if choice == 1:
        a, b = rng.randrange(1000), rng.randrange(1000)
        return "tools/call", {"name": "add", "arguments": {"a": a, "b": b}}, \
            lambda r: r["structuredContent"]["data"]["sum"] == a + b
    if choice == 2:
        ms = rng.randrange(1, 50)
        return "tools/call", {"name": "sleep", "arguments": {"ms": ms}}, \
            lambda r: r["structuredContent"]["data"]["sleptMs"] == ms
    if choice == 3:
        ms = rng.randrange(1, 10)
        return "tools/call", {"name": "spin", "arguments": {"ms": ms}}, \
            lambda r: r["structuredContent"]["data"]["spunMs"] == ms
    if choice == 4:
        size = rng.choice([10, 1000, 100_000])
        return "tools/call", {"name": "big", "arguments": {"bytes": size}}, \
            lambda r: len(r["structuredContent"]["data"]) == size
    if choice == 5:
        values = [rng.randrange(100) for _ in range(rng.randrange(1, 50))]
        return "tools/call", {"name": "sum", "arguments": {"values": values}}, \
            lambda r: r["structuredContent"]["data"]["sum"] == sum(values)
    if choice in (6, 7):
        key = "k%d" % rng.randrange(200)
        return "tools/call", {"name": "lookup", "arguments": {"key": key}}, \
            lambda r: r["structuredContent"]["data"]["value"] == key[::-1]
    if choice == 8:
        key = "r%d" % rng.randrange(100)
        return "tools/call", {"name": "route", "arguments": {"key": key}}, \
            lambda r: r["structuredContent"]["data"]["routedTo"] == key
    if choice == 9:
        return "tools/list", {}, lambda r: len(r["tools"]) == 8
    if choice == 10:
        return "resources/read", {"uri": "demo://readme"}, \
            lambda r: "demo server" in r["contents"][0]["text"]
    if choice == 11:
        return "prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}, \
            lambda r: "Ada" in r["messages"][0]["content"]["text"]
    return "completion/complete", {
        "ref": {"type": "ref/prompt", "name": "greet"},
        "argument": {"name": "name", "value": "A"},
    }, lambda r: "Ada" in r["completion"]["values"]


def check_answer(kind, request_id, method, check, message):
    """Counts one answer of a well-behaved request; records anything wrong."""
    if message.get("id") != request_id:
        STATS.error("%s %s: answer for id %r, expected %r" % (kind, method, message.get("id"), request_id))
        return
    result = message.get("result")
    try:
        ok = result is not None and not result.get("isError") and check(result)
    except (KeyError, TypeError, IndexError):
        ok = False
    if ok:
        STATS.add("answers")
    else:
        STATS.error("%s %s: wrong answer %.300s" % (kind, method, json.dumps(message)))


# ---------------------------------------------------------------- Streamable HTTP clients


def http_headers(method, params, era, session=None):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if era == MODERN:
        headers["Mcp-Protocol-Version"] = MODERN
        headers["Mcp-Method"] = method
        if method in ("tools/call", "prompts/get"):
            headers["Mcp-Name"] = params["name"]
        elif method == "resources/read":
            headers["Mcp-Name"] = params["uri"]
    else:
        headers["Mcp-Protocol-Version"] = LEGACY
    if session:
        headers["Mcp-Session-Id"] = session
    if method == "tools/call" and params["name"] == "route":
        headers["Mcp-Param-Route"] = params["arguments"]["key"]
    return headers


def read_messages(response):
    """The JSON-RPC messages of an HTTP answer: its JSON body or its event stream's data."""
    body = response.read()
    kind = response.getheader("Content-Type", "")
    if not body:
        return []
    if kind.startswith("text/event-stream"):
        messages = []
        for line in body.decode().splitlines():
            if line.startswith("data:") and line[5:].strip():
                messages.append(json.loads(line[5:]))
        return messages
    return [json.loads(body)]


def http_exchange(conn, path, body, headers):
    """POSTs on a keep-alive connection. When a connection that already served a request
    turns out closed by the server before answering (it closes connections idle for
    http.headerReadTimeoutMs; the request crossed the close), the request is sent again on a
    new connection, as HTTP clients do for requests that never reached the server; counted
    in stale_retries."""
    reused = getattr(conn, "soak_used", False)
    try:
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
    except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
        if not reused:
            raise
        STATS.add("stale_retries")
        conn.close()
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
    conn.soak_used = True
    return response, read_messages(response)


def well_behaved_http(host, port, seed, era):
    """Sequential requests on one keep-alive connection; a 2025 client opens a session,
    uses it for a while, deletes it and opens another."""
    rng = random.Random(seed)
    next_id = 1
    while not STOP.is_set():
        conn = http.client.HTTPConnection(host, port, timeout=ANSWER_GUARD)
        session = None
        try:
            if era == LEGACY:
                init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": LEGACY, "capabilities": {},
                    "clientInfo": {"name": "soak", "version": "1.0.0"}}}
                response, messages = http_exchange(conn, "/mcp", json.dumps(init), http_headers("initialize", {}, LEGACY))
                STATS.add("requests")
                if response.status != 200 or len(messages) != 1:
                    STATS.error("initialize: HTTP %d %r" % (response.status, messages))
                    continue
                STATS.add("answers")
                session = response.getheader("Mcp-Session-Id")
                note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                response, _ = http_exchange(conn, "/mcp", json.dumps(note), http_headers("", {}, LEGACY, session))
                if response.status != 202:
                    STATS.error("initialized: HTTP %d" % response.status)
            for _ in range(rng.randrange(20, 200)):
                if STOP.is_set():
                    break
                method, params, check = workload(rng)
                request_id = next_id
                next_id += 1
                if era == MODERN:
                    params = dict(params, _meta=meta())
                message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
                STATS.add("requests")
                STATS.add("requests_http_" + ("modern" if era == MODERN else "legacy"))
                try:
                    response, messages = http_exchange(conn, "/mcp", json.dumps(message), http_headers(method, params, era, session))
                except (OSError, http.client.HTTPException) as error:
                    STATS.add("lost")
                    STATS.error("HTTP %s %s: no answer (%s)" % (era, method, error))
                    conn.close()
                    conn = http.client.HTTPConnection(host, port, timeout=ANSWER_GUARD)
                    continue
                answers = [m for m in messages if "id" in m and ("result" in m or "error" in m)]
                if not answers:
                    STATS.add("lost")
                    STATS.error("HTTP %s %s: HTTP %d without an answer" % (era, method, response.status))
                    continue
                if len(answers) > 1:
                    STATS.add("duplicated", len(answers) - 1)
                check_answer("HTTP " + era, request_id, method, check, answers[0])
            if session:
                conn.request("DELETE", "/mcp", headers={"Mcp-Session-Id": session, "Mcp-Protocol-Version": LEGACY})
                response = conn.getresponse()
                response.read()
        except (OSError, http.client.HTTPException, ValueError) as error:
            STATS.error("HTTP %s client: %s" % (era, error))
        finally:
            conn.close()


def raw_request(method, params, request_id=1):
    params = dict(params, _meta=meta())
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}).encode()
    head = ["POST /mcp HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json",
            "Accept: application/json", "Mcp-Protocol-Version: " + MODERN, "Mcp-Method: " + method]
    if "name" in params:
        head.append("Mcp-Name: " + params["name"])
    head.append("Content-Length: %d" % len(body))
    return ("\r\n".join(head) + "\r\n\r\n").encode(), body


def faulty_http(host, port, seed):
    """One fault after another, each on its own connection."""
    rng = random.Random(seed)
    faults = ["vanish_headers", "vanish_body", "vanish_waiting", "trickle", "oversized",
              "malformed", "deep", "never_read", "cancel_session"]
    while not STOP.is_set():
        fault = rng.choice(faults)
        try:
            sock = socket.create_connection((host, port), timeout=10)
        except OSError as error:
            STATS.error("faulty HTTP client cannot connect: %s" % error)
            time.sleep(0.5)
            continue
        try:
            if fault == "vanish_headers":
                head, _ = raw_request("tools/call", {"name": "echo", "arguments": {"text": "x"}})
                sock.sendall(head[: rng.randrange(1, len(head))])
            elif fault == "vanish_body":
                head, body = raw_request("tools/call", {"name": "echo", "arguments": {"text": "x" * 1000}})
                sock.sendall(head + body[: rng.randrange(1, len(body))])
            elif fault == "vanish_waiting":
                head, body = raw_request("tools/call", {"name": "sleep", "arguments": {"ms": 200}})
                sock.sendall(head + body)
                time.sleep(rng.random() * 0.1)
            elif fault == "trickle":
                head, body = raw_request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
                data = head + body
                for i in range(0, len(data), 7):
                    if STOP.is_set():
                        break
                    sock.sendall(data[i:i + 7])
                    time.sleep(0.05)
                sock.settimeout(10)
                sock.recv(65536)
            elif fault == "oversized":
                body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"' \
                    + b"y" * (MAX_LINE + 10) + b'"}}}'
                head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        "Accept: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)).encode()
                sock.sendall(head)
                try:
                    sock.sendall(body)
                except OSError:
                    pass  # the server may answer 413 and close before reading it all
                sock.settimeout(10)
                sock.recv(65536)
            elif fault == "malformed":
                body = rng.choice([b"{", b"[]", b'{"jsonrpc":"2.0"', b"\xff\xfe", b'{"jsonrpc":"1.0","id":1,"method":"x"}',
                                   b'{"jsonrpc":"2.0","id":{},"method":"tools/call"}'])
                head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        "Accept: application/json\r\nMcp-Protocol-Version: %s\r\nContent-Length: %d\r\n\r\n"
                        % (MODERN, len(body))).encode()
                sock.sendall(head + body)
                sock.settimeout(10)
                sock.recv(65536)
            elif fault == "deep":
                body = b"[" * 5000
                head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        "Accept: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)).encode()
                sock.sendall(head + body)
                sock.settimeout(10)
                sock.recv(65536)
            elif fault == "never_read":
                head, body = raw_request("tools/call", {"name": "big", "arguments": {"bytes": 500_000}})
                sock.sendall(head + body)
                time.sleep(1 + rng.random())
            elif fault == "cancel_session":
                cancel_in_session(host, port, rng)
            STATS.add("fault_http_" + fault)
            STATS.add("faults")
        except OSError:
            STATS.add("fault_http_" + fault)
            STATS.add("faults")
        finally:
            sock.close()


def cancel_in_session(host, port, rng):
    """A 2025 session whose client cancels a slow call (and so expects no answer to it),
    then checks the session still answers."""
    conn = http.client.HTTPConnection(host, port, timeout=ANSWER_GUARD)
    try:
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {},
            "clientInfo": {"name": "soak-cancel", "version": "1.0.0"}}}
        response, _ = http_exchange(conn, "/mcp", json.dumps(init), http_headers("initialize", {}, LEGACY))
        session = response.getheader("Mcp-Session-Id")
        headers = http_headers("", {}, LEGACY, session)
        http_exchange(conn, "/mcp", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), headers)
        slow = http.client.HTTPConnection(host, port, timeout=ANSWER_GUARD)
        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "sleep", "arguments": {"ms": 2000}}}
        slow.request("POST", "/mcp", body=json.dumps(call), headers=headers)
        time.sleep(0.05 + rng.random() * 0.1)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7, "reason": "soak"}}
        response, _ = http_exchange(conn, "/mcp", json.dumps(cancel), headers)
        cancelled = slow.getresponse()
        messages = read_messages(cancelled)
        answered = [m for m in messages if m.get("id") == 7]
        STATS.add("cancelled_answered" if answered else "cancelled_unanswered")
        if len(answered) > 1:
            STATS.add("duplicated", len(answered) - 1)
        slow.close()
        ping = {"jsonrpc": "2.0", "id": 8, "method": "ping", "params": {}}
        STATS.add("requests")
        response, messages = http_exchange(conn, "/mcp", json.dumps(ping), headers)
        check_answer("HTTP session after cancel", 8, "ping", lambda r: r == {}, messages[0] if messages else {})
        conn.request("DELETE", "/mcp", headers={"Mcp-Session-Id": session, "Mcp-Protocol-Version": LEGACY})
        conn.getresponse().read()
    finally:
        conn.close()


# ---------------------------------------------------------------- stdio clients


class StdioServer:
    """A demo server on stdio and a reader thread sorting its answers by id."""

    def __init__(self, binary, limits_path):
        self.process = subprocess.Popen([binary, "--limits", limits_path], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lock = threading.Condition()
        self.answers = {}
        self.vanished = False
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        """Reads the server's stdout line by line (raw reads, polled, so that a vanishing
        client can stop reading and close its end from this thread)."""
        fd = self.process.stdout.fileno()
        pending = b""
        while True:
            if self.vanished:
                self.process.stdout.close()
                break
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                self.take(line)
        with self.lock:
            self.lock.notify_all()

    def take(self, line):
        try:
            message = json.loads(line)
        except ValueError:
            STATS.error("stdio: a line that is not JSON on stdout")
            return
        if "id" in message and ("result" in message or "error" in message):
            with self.lock:
                request_id = message["id"]
                # Well-behaved requests have integer ids; each must come back once.
                if isinstance(request_id, int) and request_id in self.answers:
                    STATS.add("duplicated")
                    STATS.error("stdio: a second answer to id %d" % request_id)
                self.answers.setdefault(request_id, []).append(message)
                self.lock.notify_all()

    def send(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def wait(self, request_id, timeout):
        deadline = time.time() + timeout
        with self.lock:
            while request_id not in self.answers and time.time() < deadline:
                if self.process.poll() is not None and not self.reader.is_alive():
                    break
                self.lock.wait(0.5)
            return self.answers.get(request_id, [])

    def handshake(self, era):
        if era == LEGACY:
            self.send((json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": LEGACY, "capabilities": {},
                "clientInfo": {"name": "soak", "version": "1.0.0"}}}) + "\n").encode())
            if not self.wait("init", ANSWER_GUARD):
                raise OSError("no initialize answer")
            self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    def stop(self):
        """Closes stdin; the server must exit by itself within 10 s (else it is killed and
        `False` returned)."""
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(10)
            return True
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return False


def stdio_well_behaved(server, era, seed, pipeline, count, ids, faults=False):
    """`count` requests, `pipeline` in flight at once; with `faults`, malformed and
    oversized lines and cancelled calls go in between."""
    rng = random.Random(seed)
    in_flight = []
    for _ in range(count):
        if STOP.is_set():
            break
        if faults and rng.random() < 0.1:
            inject_stdio_fault(server, rng, ids)
        method, params, check = workload(rng)
        request_id = next(ids)
        if era == MODERN:
            params = dict(params, _meta=meta())
        server.send((json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}) + "\n").encode())
        STATS.add("requests")
        STATS.add("requests_stdio_" + ("modern" if era == MODERN else "legacy"))
        in_flight.append((request_id, method, check))
        while len(in_flight) >= pipeline or (in_flight and STOP.is_set()):
            settle(server, in_flight.pop(0))
    for entry in in_flight:
        settle(server, entry)


def settle(server, entry):
    request_id, method, check = entry
    answers = server.wait(request_id, ANSWER_GUARD)
    if not answers:
        STATS.add("lost")
        STATS.error("stdio %s: id %s unanswered" % (method, request_id))
        return
    check_answer("stdio", request_id, method, check, answers[0])


def inject_stdio_fault(server, rng, ids):
    fault = rng.choice(["malformed", "oversized", "cancel", "deep"])
    if fault == "malformed":
        server.send(rng.choice([b"{\n", b"not json\n", b'{"jsonrpc":"2.0","id":null}\n', b"\xff\n", b"[]\n"]))
    elif fault == "oversized":
        server.send(b'{"jsonrpc":"2.0","id":"big","method":"ping","params":{"p":"' + b"z" * (MAX_LINE + 1) + b'"}}\n')
    elif fault == "deep":
        server.send(b"[" * 10000 + b"\n")
    else:
        request_id = "cancel-%d" % next(ids)
        server.send((json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {
            "name": "sleep", "arguments": {"ms": 500}, "_meta": meta()}}) + "\n").encode())
        time.sleep(rng.random() * 0.05)
        server.send((json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "requestId": request_id, "reason": "soak", "_meta": meta()}}) + "\n").encode())
    STATS.add("fault_stdio_" + fault)
    STATS.add("faults")


def stdio_long(server, seed):
    """The long-lived stdio server: a 2025 session with faults in between, for the whole run."""
    ids = itertools.count(seed * 10**9)
    stdio_well_behaved(server, LEGACY, seed, pipeline=8, count=10**12, ids=ids, faults=True)


def stdio_churn(binary, limits_path, seed):
    """Short-lived stdio servers: a session of either era, then the client either closes
    stdin politely or vanishes (kills the pipe) with requests in flight."""
    rng = random.Random(seed)
    ids = itertools.count(seed * 10**9)
    while not STOP.is_set():
        era = rng.choice([MODERN, LEGACY])
        server = StdioServer(binary, limits_path)
        vanished = False
        try:
            server.handshake(era)
            stdio_well_behaved(server, era, rng.randrange(10**9), pipeline=4, count=rng.randrange(10, 60), ids=ids)
            if rng.random() < 0.5:
                # Vanish: calls in flight, then both pipes close under them.
                for _ in range(5):
                    params = {"name": "sleep", "arguments": {"ms": 300}}
                    if era == MODERN:
                        params["_meta"] = meta()
                    server.send((json.dumps({"jsonrpc": "2.0", "id": "gone-%d" % next(ids), "method": "tools/call",
                                             "params": params}) + "\n").encode())
                vanished = True
                STATS.add("fault_stdio_vanish")
                STATS.add("faults")
                server.vanished = True  # the reader stops reading and closes its end
                server.reader.join(5)
        except OSError as error:
            STATS.error("stdio churn: %s" % error)
        finally:
            # A server must exit by itself once its client is gone, and cleanly when the
            # client said goodbye by closing stdin.
            if not server.stop():
                STATS.error("a stdio server did not exit after its client left")
            elif not vanished and server.process.returncode != 0:
                STATS.error("stdio server exited with %s" % server.process.returncode)


# ---------------------------------------------------------------- RSS and reporting


def rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def report(started, http_pid, stdio_pid, samples):
    elapsed = time.time() - started
    http_rss, stdio_rss = rss_kb(http_pid), rss_kb(stdio_pid)
    samples.append((elapsed, http_rss, stdio_rss))
    with STATS.lock:
        c = dict(STATS.counts)
    print("t=%4ds requests=%d answers=%d lost=%d duplicated=%d wrong=%d faults=%d rss_http_kb=%s rss_stdio_kb=%s"
          % (elapsed, c.get("requests", 0), c.get("answers", 0), c.get("lost", 0), c.get("duplicated", 0),
             c.get("wrong", 0), c.get("faults", 0), http_rss, stdio_rss), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, help="the demo_server executable")
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--report", type=int, default=30, help="seconds between reports")
    parser.add_argument("--http-clients", type=int, default=6)
    parser.add_argument("--faulty-clients", type=int, default=3)
    parser.add_argument("--state", default="/tmp", help="where to write the limits file")
    args = parser.parse_args()

    limits_path = os.path.join(args.state, "soak-limits.json")
    with open(limits_path, "w") as f:
        json.dump(LIMITS, f)
    log_path = os.path.join(args.state, "soak-http.log")
    log = open(log_path, "w")
    http_server = subprocess.Popen([args.server, "--http", "127.0.0.1:0", "--limits", limits_path],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    address = None
    for _ in range(200):
        with open(log_path) as f:
            for line in f:
                if line.startswith("listening on http://"):
                    address = line.split("http://")[1].split("/")[0]
        if address:
            break
        time.sleep(0.05)
    if not address:
        print("the HTTP demo server did not start (see %s)" % log_path, file=sys.stderr)
        return 1
    host, port = address.rsplit(":", 1)
    port = int(port)
    stdio_server = StdioServer(args.server, limits_path)
    stdio_server.handshake(LEGACY)
    print("soak: %d s; HTTP server pid %d on %s, long-lived stdio server pid %d; limits %s"
          % (args.seconds, http_server.pid, address, stdio_server.process.pid, json.dumps(LIMITS)), flush=True)

    threads = []
    for i in range(args.http_clients):
        era = MODERN if i % 2 == 0 else LEGACY
        threads.append(threading.Thread(target=well_behaved_http, args=(host, port, 100 + i, era)))
    for i in range(args.faulty_clients):
        threads.append(threading.Thread(target=faulty_http, args=(host, port, 200 + i)))
    threads.append(threading.Thread(target=stdio_long, args=(stdio_server, 300)))
    threads.append(threading.Thread(target=stdio_churn, args=(args.server, limits_path, 400)))
    for thread in threads:
        thread.daemon = True
        thread.start()

    started = time.time()
    samples = []
    signal.signal(signal.SIGINT, lambda *_: STOP.set())
    while not STOP.is_set() and time.time() - started < args.seconds:
        STOP.wait(min(args.report, max(0.0, args.seconds - (time.time() - started))))
        if http_server.poll() is not None or stdio_server.process.poll() is not None:
            STATS.error("a long-lived server died")
            break
        report(started, http_server.pid, stdio_server.process.pid, samples)
    STOP.set()
    for thread in threads:
        thread.join(ANSWER_GUARD + 10)
    report(started, http_server.pid, stdio_server.process.pid, samples)
    alive = http_server.poll() is None and stdio_server.process.poll() is None
    http_server.send_signal(signal.SIGTERM)
    http_server.wait(30)
    stdio_server.stop()

    with STATS.lock:
        c = dict(STATS.counts)
    print("== totals after %d s" % (time.time() - started))
    print("well-behaved requests: %d (HTTP 2026-07-28 %d, HTTP 2025 %d, stdio 2026-07-28 %d, stdio 2025 %d)" % (
        c.get("requests", 0), c.get("requests_http_modern", 0), c.get("requests_http_legacy", 0),
        c.get("requests_stdio_modern", 0), c.get("requests_stdio_legacy", 0)))
    print("answers: %d; lost: %d; duplicated: %d; wrong: %d" % (
        c.get("answers", 0), c.get("lost", 0), c.get("duplicated", 0), c.get("wrong", 0)))
    print("faults injected: %d (%s)" % (c.get("faults", 0), ", ".join(
        "%s %d" % (k[6:], v) for k, v in sorted(c.items()) if k.startswith("fault_"))))
    print("requests sent again because the server had closed the idle keep-alive connection: %d"
          % c.get("stale_retries", 0))
    print("cancelled calls: %d answered before the cancel took effect, %d unanswered" % (
        c.get("cancelled_answered", 0), c.get("cancelled_unanswered", 0)))
    warm = [s for s in samples if s[0] >= 60] or samples
    for name, index in (("HTTP", 1), ("stdio", 2)):
        values = [s[index] for s in warm if s[index] is not None]
        if values:
            print("RSS %s server after warm-up (>= 60 s): min %d KiB, max %d KiB, last %d KiB" % (
                name, min(values), max(values), values[-1]))
    for error in STATS.errors:
        print("error: %s" % error)
    bad = c.get("lost", 0) or c.get("duplicated", 0) or c.get("wrong", 0) or not alive
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
