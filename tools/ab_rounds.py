#!/usr/bin/env python3
"""Compares two builds' replay time over their floors, in rounds of A B B A.

On the 2-core machine the issue-13 numbers were taken on, a replay's time moves by a fifth from
one minute to the next, and alternating two builds A B favoured whichever ran second (by about 7%:
docs/benchmarks.md, the twenty-first session). Each round here runs `examples/replay PROFILE N
--warm --floor` for A, B, B and A; each build's ratio for the round is the mean of its two paired
medians, so the order costs neither, and the drift within a round falls on both alike. The drift
between runs remains: over 20 rounds a build against itself read 0.967-1.012, so run a change
both ways (swap A and B) before believing a difference of a few percent.

Build each `examples/replay` first (`cargo build --release --example replay`, then copy
`target/release/examples/replay` aside for each build).

Usage: python3 tools/ab_rounds.py REPLAY_A REPLAY_B PROFILE [--rounds R] [--replays N]
Prints each round and the mean ratio of each build, and B's over A's. Exit status: 0, or 2 when
a replay cannot be run or its output cannot be read.
"""

import argparse
import re
import statistics
import subprocess
import sys

MEDIAN = re.compile(r"median ([0-9.]+)x over")


def fail(message):
    print(f"ab_rounds: {message}", file=sys.stderr)
    sys.exit(2)


def paired_median(replay, profile, replays):
    """The median of the replay's paired ratios over its floor."""
    command = [replay, profile, str(replays), "--warm", "--floor"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        fail(f"{replay}: {error}")
    if done.returncode != 0:
        fail(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    found = MEDIAN.search(done.stdout)
    if not found:
        fail(f"{' '.join(command)}: no paired median in its output")
    return float(found.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("replay_a")
    parser.add_argument("replay_b")
    parser.add_argument("profile")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--replays", type=int, default=7)
    args = parser.parse_args()
    if args.rounds < 1 or args.replays < 1:
        parser.error("--rounds and --replays must be at least 1")
    a_means, b_means = [], []
    for round_no in range(1, args.rounds + 1):
        runs = [
            paired_median(replay, args.profile, args.replays)
            for replay in (args.replay_a, args.replay_b, args.replay_b, args.replay_a)
        ]
        a_means.append((runs[0] + runs[3]) / 2)
        b_means.append((runs[1] + runs[2]) / 2)
        print(f"round {round_no:2}: A {runs[0]:.2f} {runs[3]:.2f}  B {runs[1]:.2f} {runs[2]:.2f}")
    a, b = statistics.mean(a_means), statistics.mean(b_means)
    print(f"{args.profile}: A {a:.3f}x, B {b:.3f}x, B/A {b / a:.3f} over {args.rounds} rounds")


if __name__ == "__main__":
    main()
