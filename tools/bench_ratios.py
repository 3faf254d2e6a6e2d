#!/usr/bin/env python3
"""Each profile's replay against the memcpy floor, read from criterion's saved samples.

`cargo bench --bench replay -- issue13` saves every sample of a group under
`target/criterion/<group>/<bench>/<turns>/new/sample.json`. Criterion's summary line is a mean,
which a busy host inflates unevenly (a replay suffers from another tenant more than a memcpy
does). This reads the samples themselves and prints, per profile, the fastest and the median
time per iteration and their ratios to the floors of the same group: the fastest replay over
the fastest of the two floors (`floor-memcpy` before the profiles, `floor-memcpy-after` after
them), and the median over the mean of the two floors' medians.

The issue-13 group also saves, per profile, `paired.json`: each sample's replay and the floor
copies made beside its replays, so that each sample's ratio is taken within the same seconds.
When every profile has them, the table adds the lowest and the median of those ratios: on a
machine whose speed drifts between minutes they do not depend on when the floors ran. A
profile's samples are still taken within its own half-minute, and a spell of load on the host
can cover all of them. So the group ends with `interleaved-rounds`, rounds that pair a replay of
every profile in turn with its floor (`interleaved.json`): a spell falls on every profile alike.
When that file holds every profile, the table adds the lowest and the median of each one's
interleaved ratios, and that median decides; else the paired median does. Issue 13's lines are
3x for course-main and 5x for every other profile.

Usage: python3 tools/bench_ratios.py [GROUP_DIR] [--turns N]
  GROUP_DIR defaults to target/criterion/issue13_3000 (run from the repository's root).
Exit status: 0 when every profile is within its line (by the interleaved medians when every
profile has them, else by the paired medians when every profile has paired samples, else by the
fastest times), 1 when one is not, 2 when the samples cannot be read.
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

FLOORS = ("floor-memcpy", "floor-memcpy-after")
INTERLEAVED = "interleaved-rounds"
LINES = {"course-main": 3.0}
DEFAULT_LINE = 5.0


def fail(message):
    """Stops with `message` and exit status 2: the samples cannot be read. The message names
    the tool that runs (`tools/time_per_turn.py` reads samples with these functions too)."""
    print(f"{Path(sys.argv[0]).stem}: {message}", file=sys.stderr)
    sys.exit(2)


def load(path, what):
    """The JSON value of the file `path`; `what` names the file in the error."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as error:
        fail(f"{path}: not a {what} file ({error})")


def two_lists(data, first, second, where):
    """The lists under keys `first` and `second` of the object `data`, of equal non-zero
    length; `where` names the file (and the part of it) in the error."""
    a, b = (data.get(first), data.get(second)) if isinstance(data, dict) else (None, None)
    if not isinstance(a, list) or not a or not isinstance(b, list) or len(a) != len(b):
        fail(f"{where}: expected lists `{first}` and `{second}` of the same non-zero length")
    return a, b


def per_iteration_ms(path):
    """Milliseconds per iteration of each sample in a criterion `sample.json`."""
    times, iters = two_lists(load(path, "criterion sample"), "times", "iters", path)
    return [t / i / 1e6 for t, i in zip(times, iters)]


def ratios(data, where):
    """Each pair's replay over its own floor, sorted, from an object holding the lists
    `replay_ms` and `floor_ms` (as the bench writes them)."""
    replays, floors = two_lists(data, "replay_ms", "floor_ms", where)
    if min(floors) <= 0:
        fail(f"{where}: expected positive floors")
    return sorted(r / f for r, f in zip(replays, floors))


def paired_ratios(path):
    """Each sample's ratio, from a `paired.json` the bench wrote."""
    return ratios(load(path, "paired sample"), path)


def interleaved_ratios(path):
    """Each profile's interleaved ratios, from the `interleaved.json` the bench wrote: a dict
    of sorted lists."""
    data = load(path, "interleaved")
    if not isinstance(data, dict):
        fail(f"{path}: expected an object of profiles")
    return {name: ratios(pairs, f"{path}: {name}") for name, pairs in data.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("group", nargs="?", default="target/criterion/issue13_3000")
    parser.add_argument("--turns", default="3000", help="the benchmark's parameter (default 3000)")
    args = parser.parse_args()
    group = Path(args.group)
    if not group.is_dir():
        print(f"bench_ratios: {group}: no such group; run `cargo bench --bench replay -- issue13`",
              file=sys.stderr)
        return 2
    samples, paired = {}, {}
    rounds_path = group / INTERLEAVED / args.turns / "interleaved.json"
    rounds = interleaved_ratios(rounds_path) if rounds_path.is_file() else {}
    for bench in sorted(p for p in group.iterdir()
                        if p.is_dir() and p.name not in ("report", INTERLEAVED)):
        path = bench / args.turns / "new" / "sample.json"
        if path.is_file():
            samples[bench.name] = per_iteration_ms(path)
        pairs = bench / args.turns / "paired.json"
        if pairs.is_file():
            paired[bench.name] = paired_ratios(pairs)
    missing = [floor for floor in FLOORS if floor not in samples]
    if missing:
        print(f"bench_ratios: {group}: no samples for {', '.join(missing)}", file=sys.stderr)
        return 2
    profiles = [name for name in samples if name not in FLOORS]
    by_pairs = bool(profiles) and all(name in paired for name in profiles)
    by_rounds = bool(profiles) and all(name in rounds for name in profiles)
    fastest_floor = min(min(samples[f]) for f in FLOORS)
    median_floor = statistics.mean(statistics.median(samples[f]) for f in FLOORS)
    print("floors (ms): " + ", ".join(
        f"{f} fastest {min(samples[f]):.2f} median {statistics.median(samples[f]):.2f}"
        for f in FLOORS))
    header = f"{'profile':<22}{'fastest ms':>11}{'ratio':>8}{'median ms':>11}{'ratio':>8}"
    if by_pairs:
        header += f"{'paired low':>11}{'median':>8}"
    if by_rounds:
        header += f"{'rounds low':>11}{'median':>8}"
    print(header + f"{'line':>6}  within")
    over = 0
    for name in profiles:
        times = samples[name]
        line = LINES.get(name, DEFAULT_LINE)
        fastest, median = min(times), statistics.median(times)
        row = (f"{name:<22}{fastest:>11.2f}{fastest / fastest_floor:>7.2f}x{median:>11.2f}"
               f"{median / median_floor:>7.2f}x")
        decisive = fastest / fastest_floor
        # The paired, then the interleaved ratios, each sorted: the last shown decides.
        for shown, sorted_ratios in ((by_pairs, paired), (by_rounds, rounds)):
            if shown:
                lowest, decisive = sorted_ratios[name][0], statistics.median(sorted_ratios[name])
                row += f"{lowest:>10.2f}x{decisive:>7.2f}x"
        within = decisive <= line
        over += not within
        print(row + f"{line:>5.0f}x  {'yes' if within else 'NO'}")
    if by_rounds:
        measure = f"interleaved medians, {len(rounds[profiles[0]])} rounds"
    else:
        measure = "paired medians" if by_pairs else "fastest times"
    print(f"{len(profiles) - over} of {len(profiles)} within their lines ({measure})")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
