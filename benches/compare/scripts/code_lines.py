"""The code a server runs per call: instructions and 64-byte cache lines, from two callgrind
profiles (BENCHMARKS.md, "Issue 12, stop 30").

Used by `sequential_cpu.py --footprint` and `http_callgrind.py --footprint`; the harness
counts the same way in Rust (`benches/compare/benches/compare/code_lines.rs`). Each profile is
written with `VALGRIND_OPTIONS` at a different number of calls; an instruction whose count
rose by at least 0.9 of the calls added runs (about) once or more per call. Not timed, so
not noisy: runs of the same binary and load agree within about 1%.
"""

VALGRIND_OPTIONS = ["--dump-instr=yes", "--compress-pos=no", "--compress-strings=no"]


def counts_per_instruction(path):
    """Execution count and object of each instruction address in a callgrind profile."""
    counts, objects, after_call, current = {}, {}, False, "?"
    with open(path, errors="replace") as profile:
        for line in profile:
            if line.startswith("calls="):
                after_call = True  # the next cost line is the call's, callee included
            elif line.startswith("ob="):
                current = line[3:].strip()
            elif line.startswith("0x"):
                if after_call:
                    after_call = False
                    continue
                address, _line, count = line.split()[:3]
                address = int(address, 16)
                counts[address] = counts.get(address, 0) + int(count)
                objects[address] = current
    return counts, objects


def per_call(low_profile, high_profile, added_calls):
    """(instructions, cache lines) run once or more per call between the two profiles."""
    low, _ = counts_per_instruction(low_profile)
    high, objects = counts_per_instruction(high_profile)
    hot = [address for address, count in high.items()
           if count - low.get(address, 0) >= 0.9 * added_calls]
    return len(hot), len({(objects[address], address >> 6) for address in hot})


def describe(instructions, lines):
    """The figures as the scripts print them."""
    return (f"{instructions:,} distinct instructions per call, in {lines:,} cache lines "
            f"({lines * 64 / 1024:.1f} KiB)")
