#!/usr/bin/env python3
"""Server CPU per sequential stdio `tools/call echo`, several servers alternating.

Not part of the harness (BENCHMARKS.md, "Issue 12, stop 26"): starts each SERVER command
under `perf stat -e task-clock`, performs the 2025-11-25 handshake, warms up with 200 calls,
then sends N calls one at a time (each waits for its answer) with a text of SIZE bytes
(CHAR repeated, `x` by default), and prints the server's task-clock per call (its start-up
included: well under 1 µs per call at 5,000 calls). Servers run in turn, ROUNDS times, so
that a change in the machine's state touches every server alike. With `--callgrind`, each server
runs instead under `valgrind --tool=callgrind` at N and 2N calls, and the difference per
call is printed (instructions, exact). With `--footprint`, the same two runs record every
instruction's count (`--dump-instr=yes`), and the script prints the code each call runs: the
instructions whose count rose by at least 0.9 N between the runs, and the 64-byte cache lines
that hold them (`code_lines.py`; BENCHMARKS.md, "Issue 12, stop 30"). With
`--split`, each server runs directly (no `perf`) and its user and system time per call are
printed apart, from the `rusage` its parent collects (the kernel splits a process's time
between user and system by sampling at its clock tick: use 10,000 calls or more).

    python3 benches/compare/scripts/sequential_cpu.py [--callgrind | --footprint | --split]
        [--rounds R] [--calls N] [--size SIZE] [--char CHAR] [--versus LABEL]
        'LABEL=COMMAND ARGS' ...
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

import code_lines

HANDSHAKE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"sequential-cpu","version":"1"}}}\n'
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
)


def drive(command, calls, text):
    """Runs COMMAND through the handshake, 200 warm-up calls and CALLS calls; returns the
    child's `rusage`."""
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
    for index in range(1, 201 + calls):
        child.stdin.write((
            '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo",'
            '"arguments":{"text":"%s"}}}\n' % (index, text)).encode())
        if b'"result"' not in answer():
            raise SystemExit(f"call {index} failed")
    child.stdin.close()
    _pid, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage


def task_clock(command, calls, text):
    with tempfile.NamedTemporaryFile(suffix=".perf") as report:
        drive(["perf", "stat", "-x,", "-e", "task-clock", "-o", report.name] + command,
              calls, text)
        stat = open(report.name).read()
    millis = float(re.search(r"^([0-9.]+),msec,task-clock", stat, re.M).group(1))
    return millis * 1000 / (calls + 201)


def instructions(command, calls, text):
    totals = []
    for count in (calls, 2 * calls):
        with tempfile.NamedTemporaryFile(suffix=".cg") as profile:
            drive(["valgrind", "--tool=callgrind", "--quiet",
                   f"--callgrind-out-file={profile.name}"] + command, count, text)
            totals.append(int(re.search(r"^summary: (\d+)", open(profile.name).read(),
                                        re.M).group(1)))
    return (totals[1] - totals[0]) / calls


def user_and_system(command, calls, text):
    """User and system CPU per call (µs) of COMMAND run directly."""
    usage = drive(command, calls, text)
    return (usage.ru_utime * 1e6 / (calls + 201), usage.ru_stime * 1e6 / (calls + 201))


def footprint(command, calls, text):
    """(instructions, cache lines) of code run once or more per call."""
    with tempfile.NamedTemporaryFile(suffix=".cg") as low, \
            tempfile.NamedTemporaryFile(suffix=".cg") as high:
        for count, profile in ((calls, low), (2 * calls, high)):
            drive(["valgrind", "--tool=callgrind", "--quiet"] + code_lines.VALGRIND_OPTIONS
                  + [f"--callgrind-out-file={profile.name}"] + command, count, text)
        return code_lines.per_call(low.name, high.name, calls)


def main():
    parser = argparse.ArgumentParser()
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--callgrind", action="store_true")
    mode.add_argument("--footprint", action="store_true")
    mode.add_argument("--split", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--size", type=int, default=16)
    parser.add_argument("--char", default="x", help="the character the text repeats (a "
                        "multi-byte one, e.g. é, for text that is not ASCII); SIZE counts bytes")
    parser.add_argument("--versus", help="LABEL of the server the others are divided by, "
                        "round by round")
    parser.add_argument("servers", nargs="+", help="LABEL=COMMAND")
    args = parser.parse_args()
    text = args.char * (args.size // len(args.char.encode()))
    servers = [(spec.split("=", 1)[0], shlex.split(spec.split("=", 1)[1]))
               for spec in args.servers]
    if args.callgrind:
        for label, command in servers:
            count = instructions(command, args.calls, text)
            print(f"{label}: {count:,.0f} instructions per call")
        return
    if args.footprint:
        for label, command in servers:
            instructions_run, lines = footprint(command, args.calls, text)
            print(f"{label}: {code_lines.describe(instructions_run, lines)}")
        return
    if args.split:
        split = {label: [] for label, _ in servers}
        for _ in range(args.rounds):
            for label, command in servers:
                split[label].append(user_and_system(command, args.calls, text))
        for label, values in split.items():
            listed = " ".join(f"{user:.1f}+{system:.1f}" for user, system in values)
            users = sorted(user for user, _ in values)
            systems = sorted(system for _, system in values)
            print(f"{label}: user {users[len(users) // 2]:.1f} µs, system "
                  f"{systems[len(systems) // 2]:.1f} µs median per call ({listed})")
        return
    figures = {label: [] for label, _ in servers}
    for _ in range(args.rounds):
        for label, command in servers:
            figures[label].append(task_clock(command, args.calls, text))
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
