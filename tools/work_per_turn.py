#!/usr/bin/env python3
"""Each profile's work per turn at two session lengths, counted in instructions by callgrind.

Issue 13 asks that a replay be linear in turns: the cost per turn at 30 000 turns within 10% of
that at 3 000, on the bench's capped session. Wall time cannot show it on a small machine: the
30 000-turn session outgrows the caches, and the bench's memcpy floor itself costs 2.4-2.6 times
as much per byte there (docs/benchmarks.md, the fifteenth session). Instructions do not depend on
the caches. This builds `examples/replay.rs`, runs one replay of the capped session at each
length under callgrind for every profile (after a warm-up replay that is not counted), and prints
the instructions per turn and their ratio. Needs valgrind; takes about ten minutes on two cores.

A session's average per turn also holds its start: a profile whose first compaction comes late
(gemini-cli compresses at half of a 1 048 576-token window: once in the 3 000-turn session, at
step 2 399, then about once every 1 600 turns) does less per turn in a short session than in a
long one while its work per compaction stays the same. So the session is also replayed at a
middle length (twice the short one by default), and the work each added turn costs is printed
for the turns from SHORT to MIDDLE and from MIDDLE to LONG, with their ratio: a replay whose
cost is a constant plus the same amount per turn shows the same increment in both (a ratio near
1), while work that grows with the session, a cost per turn that rises as the session goes on,
raises the second increment. The verdict and the exit status are the issue's: the averages.

Usage: python3 tools/work_per_turn.py [--turns SHORT LONG] [--middle MIDDLE] [--jobs N]
                                      [PROFILE ...]
  (run from the repository's root; every profile by default)
Exit status: 0 when every profile is within 10%, 1 when one is not, 2 when it cannot measure.
"""

import argparse
import concurrent.futures
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LINE = 1.10
EXAMPLE = Path("target/release/examples/replay")
COLLECTED = re.compile(r"Collected : (\d+)")


class Failed(Exception):
    """A measurement that could not be made."""


def profiles():
    """The compaction profiles' names, as `lab profiles --format json` lists them (the memory
    profiles replay no session)."""
    out = subprocess.run(["target/release/lab", "profiles", "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    listed = json.loads(out)["profiles"]
    return [p["name"] for p in listed if p["kind"] == "compaction"]


def count(profile, turns, scratch):
    """Instructions of one replay of the capped session at `turns` turns under `profile`."""
    out_file = Path(scratch) / f"{profile}-{turns}.out"
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--collect-atstart=no",
         "--toggle-collect=replay::measured", f"--callgrind-out-file={out_file}",
         str(EXAMPLE), profile, "1", "--warm", "--capped", "--turns", str(turns)],
        capture_output=True, text=True)
    found = COLLECTED.search(run.stderr)
    if run.returncode != 0 or not found:
        raise Failed(f"{profile} at {turns} turns: callgrind failed (exit {run.returncode}): "
                     f"{run.stderr.strip()[-300:]}")
    return int(found.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", nargs=2, type=int, default=[3000, 30000],
                        metavar=("SHORT", "LONG"))
    parser.add_argument("--middle", type=int, default=None,
                        help="the middle length for the increments (default: twice SHORT)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("profile", nargs="*")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("work_per_turn: valgrind is not installed", file=sys.stderr)
        return 2
    short, long = args.turns
    middle = 2 * short if args.middle is None else args.middle
    if not 0 < short < middle < long:
        print(f"work_per_turn: --turns {short} {long} and middle {middle}: expected "
              f"0 < SHORT < MIDDLE < LONG", file=sys.stderr)
        return 2
    build = subprocess.run(["cargo", "build", "--release", "--example", "replay", "--bin", "lab"])
    if build.returncode != 0:
        return 2
    known = profiles()
    unknown = [name for name in args.profile if name not in known]
    if unknown:
        print(f"work_per_turn: no compaction profile {', '.join(unknown)} (known: "
              f"{', '.join(known)})", file=sys.stderr)
        return 2
    names = args.profile or known
    with tempfile.TemporaryDirectory() as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        jobs = {(name, turns): pool.submit(count, name, turns, scratch)
                for name in names for turns in (short, middle, long)}
        try:
            counts = {key: job.result() for key, job in jobs.items()}
        except Failed as error:
            for job in jobs.values():
                job.cancel()
            print(f"work_per_turn: {error}", file=sys.stderr)
            return 2
    first, second = f"{short}-{middle}", f"{middle}-{long}"
    print(f"{'':<22}{'instructions per turn':>28}{'':<9}{'per added turn':>26}")
    print(f"{'profile':<22}{short:>10}{long:>10}{'ratio':>8}  {'within':<7}"
          f"{first:>12}{second:>12}{'ratio':>8}")
    over = 0
    for name in names:
        at = {turns: counts[(name, turns)] for turns in (short, middle, long)}
        per_short = at[short] / short
        per_long = at[long] / long
        ratio = per_long / per_short
        within = ratio <= LINE
        over += not within
        early = (at[middle] - at[short]) / (middle - short)
        late = (at[long] - at[middle]) / (long - middle)
        print(f"{name:<22}{per_short:>10.0f}{per_long:>10.0f}{ratio:>8.3f}  "
              f"{'yes' if within else 'NO':<7}{early:>12.0f}{late:>12.0f}{late / early:>8.3f}")
    print(f"{len(names) - over} of {len(names)} within {LINE:.2f} (instructions per turn, "
          f"{long} turns over {short})")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
