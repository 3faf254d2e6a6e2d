#!/usr/bin/env python3
"""Each profile's time per turn at two session lengths, read from the bench's saved samples.

Issue 13's first line: a replay is linear in turns when its cost per turn at 30 000 turns is
within 10% of that at 3 000, in the bench. `cargo bench --bench replay -- replay/` measures the
capped session at 300, 3 000 and 30 000 turns and saves every sample under
`target/criterion/replay_<turns>/<bench>/<turns>/new/sample.json`. This prints, per profile, the
time per turn at the two lengths (the fastest sample and the median) and their ratios, and the
same for the memcpy floors of the two groups (the floor's ratio tells what the machine does to a
longer session's bytes: a copy of ten times the bytes that no longer fit in a cache costs more
than ten times as much). `tools/work_per_turn.py` counts the same in instructions.

Usage: python3 tools/time_per_turn.py [--turns SHORT LONG] [--criterion DIR]
  (run from the repository's root; DIR defaults to target/criterion)
Exit status: 0 when every profile's median ratio is within 10%, 1 when one is not, 2 when the
samples cannot be read.
"""

import argparse
import statistics
import sys
from pathlib import Path

from bench_ratios import FLOORS, INTERLEAVED, fail, per_iteration_ms

LINE = 1.10


def per_turn(group, turns):
    """Each bench of `group`'s samples in microseconds per turn, by bench name."""
    if not group.is_dir():
        fail(f"{group}: no such group (run `cargo bench --bench replay -- replay/` first)")
    found = {}
    for bench in sorted(p for p in group.iterdir() if p.is_dir()):
        sample = bench / str(turns) / "new" / "sample.json"
        if bench.name == INTERLEAVED or not sample.is_file():
            continue
        found[bench.name] = [ms * 1e3 / turns for ms in per_iteration_ms(sample)]
    if not found:
        fail(f"{group}: no samples at {turns} turns")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", nargs=2, type=int, default=[3000, 30000],
                        metavar=("SHORT", "LONG"))
    parser.add_argument("--criterion", type=Path, default=Path("target/criterion"))
    args = parser.parse_args()
    short, long = args.turns
    if not 0 < short < long:
        fail(f"--turns {short} {long}: expected 0 < SHORT < LONG")
    at_short = per_turn(args.criterion / f"replay_{short}", short)
    at_long = per_turn(args.criterion / f"replay_{long}", long)
    names = [name for name in at_short if name in at_long]
    if not names:
        fail("the two groups share no bench")
    print(f"{'':<22}{'fastest, µs per turn':>30}{'median, µs per turn':>30}")
    print(f"{'bench':<22}{short:>10}{long:>10}{'ratio':>10}{short:>10}{long:>10}{'ratio':>10}"
          f"  within {LINE:.2f}")
    over = 0
    for name in names:
        a, b = at_short[name], at_long[name]
        fast = (min(a), min(b))
        mid = (statistics.median(a), statistics.median(b))
        ratio = mid[1] / mid[0]
        floor = name in FLOORS
        within = ratio <= LINE
        over += not (within or floor)
        verdict = "(floor)" if floor else "yes" if within else "NO"
        print(f"{name:<22}{fast[0]:>10.3f}{fast[1]:>10.3f}{fast[1] / fast[0]:>10.3f}"
              f"{mid[0]:>10.3f}{mid[1]:>10.3f}{ratio:>10.3f}  {verdict}")
    profiles = sum(name not in FLOORS for name in names)
    print(f"{profiles - over} of {profiles} within {LINE:.2f} (median time per turn, "
          f"{long} turns over {short})")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
