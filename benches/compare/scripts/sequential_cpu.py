#!/usr/bin/env python3
"""Server CPU per sequential stdio `tools/call echo`, several servers alternating.

Not part of the harness (BENCHMARKS.md, "Issue 12, stop 26"): starts each SERVER command
under `perf stat -e task-clock`, performs the 2025-11-25 handshake, warms up with 200 calls,
then sends N calls one at a time (each waits for its answer) with a text of SIZE bytes,
and prints the server's task-clock per call (its start-up included: well under 1 µs per
call at 5,000 calls). Servers run in turn, ROUNDS times, so that a
change in the machine's state touches every server alike. With `--callgrind`, each server
runs instead under `valgrind --tool=callgrind` at N and 2N calls, and the difference per
call is printed (instructions, exact).

    python3 benches/compare/scripts/sequential_cpu.py [--callgrind] [--rounds R] [--calls N]
        [--size SIZE] [--versus LABEL] 'LABEL=COMMAND ARGS' ...
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

HANDSHAKE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"sequential-cpu","version":"1"}}}\n'
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
)


def drive(command, calls, size):
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, bufsize=0)
    out = child.stdout.fileno()

    def answer():
        line = b""
        while not line.endswith(b"\n"):
            chunk = os.read(out, 1 << 20)
            if not chunk:
                raise SystemExit(f"{command[-1]} ended early")
            line += chunk
        return line

    child.stdin.write(HANDSHAKE)
    answer()
    text = "x" * size
    for index in range(1, 201 + calls):
        child.stdin.write((
            '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo",'
            '"arguments":{"text":"%s"}}}\n' % (index, text)).encode())
        if b'"result"' not in answer():
            raise SystemExit(f"call {index} failed")
    child.stdin.close()
    child.wait()


def task_clock(command, calls, size):
    with tempfile.NamedTemporaryFile(suffix=".perf") as report:
        drive(["perf", "stat", "-x,", "-e", "task-clock", "-o", report.name] + command,
              calls, size)
        text = open(report.name).read()
    millis = float(re.search(r"^([0-9.]+),msec,task-clock", text, re.M).group(1))
    return millis * 1000 / (calls + 201)


def instructions(command, calls, size):
    totals = []
    for count in (calls, 2 * calls):
        with tempfile.NamedTemporaryFile(suffix=".cg") as profile:
            drive(["valgrind", "--tool=callgrind", "--quiet",
                   f"--callgrind-out-file={profile.name}"] + command, count, size)
            totals.append(int(re.search(r"^summary: (\d+)", open(profile.name).read(),
                                        re.M).group(1)))
    return (totals[1] - totals[0]) / calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--size", type=int, default=16)
    parser.add_argument("--versus", help="LABEL of the server the others are divided by, "
                        "round by round")
    parser.add_argument("servers", nargs="+", help="LABEL=COMMAND")
    args = parser.parse_args()
    servers = [(spec.split("=", 1)[0], shlex.split(spec.split("=", 1)[1]))
               for spec in args.servers]
    if args.callgrind:
        for label, command in servers:
            count = instructions(command, args.calls, args.size)
            print(f"{label}: {count:,.0f} instructions per call")
        return
    figures = {label: [] for label, _ in servers}
    for _ in range(args.rounds):
        for label, command in servers:
            figures[label].append(task_clock(command, args.calls, args.size))
    for label, values in figures.items():
        listed = " ".join(f"{value:.1f}" for value in values)
        line = f"{label}: {sorted(values)[len(values) // 2]:.1f} µs median ({listed})"
        if args.versus in figures and label != args.versus:
            ratios = sorted(mine / theirs for mine, theirs in zip(values, figures[args.versus]))
            line += (f"; ÷ {args.versus} {ratios[len(ratios) // 2]:.2f} median"
                     f" ({ratios[0]:.2f}–{ratios[-1]:.2f})")
        print(line)


if __name__ == "__main__":
    sys.exit(main())
