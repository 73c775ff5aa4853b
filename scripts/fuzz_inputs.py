"""Long property run over bad inputs: ``python scripts/fuzz_inputs.py [N] [--subprocess K]``.

Feeds N generated odd image inputs (default 10000) to ``load_image`` + ``CardReader.read_frame``
and to ``companion read``/``score``/``timeline`` in-process (the command rotates per input), K
of them (default N/100) also to a real ``companion read`` subprocess, and N line mutations to the
data-file loaders. Prints counts per outcome, the slowest input and peak RSS; exits 1 if any
input crashed. Method and figures: docs/RELIABILITY.md.
"""

from __future__ import annotations

import argparse
import collections
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from tests.reliability.data_files import DataOutcome, check_loader, mutations  # noqa: E402
from tests.reliability.odd_inputs import (  # noqa: E402
    Outcome, classify_cli, classify_reading, clear, materialise, odd_inputs,
)

COMMANDS = (["read"], ["score", "--game", "gladiola"], ["timeline"])


def _settings(n: int) -> settings:
    return settings(max_examples=n, deadline=None, database=None, phases=[Phase.generate],
                    suppress_health_check=list(HealthCheck))


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0


def run(n: int, sub: int) -> int:
    from vision.pipeline import CardReader

    reader = CardReader()
    folder = Path(tempfile.mkdtemp(prefix="fuzz-"))
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    crashes: list[str] = []
    slowest = {"api": (0.0, ""), "cli": (0.0, ""), "subprocess": (0.0, ""), "data": (0.0, "")}
    state = {"i": 0}
    every = max(1, n // max(1, sub)) if sub else 0

    def note(where: str, seconds: float, what: str) -> None:
        if seconds > slowest[where][0]:
            slowest[where] = (seconds, what)

    @_settings(n)
    @given(odd_inputs())
    def images(item) -> None:
        i = state["i"]
        state["i"] += 1
        clear(folder)
        path = materialise(item, folder)
        kinds[item.kind.split("-")[0]] += 1
        r = classify_reading(path, reader)
        counts[("api", r.outcome.value)] += 1
        note("api", r.seconds, item.kind)
        if r.outcome is Outcome.CRASH:
            crashes.append(f"api {item.kind}{item.suffix}: {r.detail}")
        command = COMMANDS[i % len(COMMANDS)]
        c = classify_cli([command[0], str(path), *command[1:], "--json"])
        counts[(f"cli {command[0]}", c.outcome.value)] += 1
        note("cli", c.seconds, f"{command[0]} {item.kind}")
        if c.outcome is Outcome.CRASH:
            crashes.append(f"cli {command[0]} {item.kind}{item.suffix}: {c.detail}")
        if every and i % every == 0:
            start = time.perf_counter()
            try:
                proc = subprocess.run([sys.executable, "-m", "companion.cli", "read", str(path), "--json"],
                                      capture_output=True, text=True, timeout=60, cwd=ROOT)
            except subprocess.TimeoutExpired:
                crashes.append(f"subprocess {item.kind}: timed out")
                counts[("subprocess", "crash")] += 1
                return
            seconds = time.perf_counter() - start
            note("subprocess", seconds, item.kind)
            good = (proc.returncode == 0 and proc.stdout.startswith("{")) or (
                proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr)
            counts[("subprocess", "ok" if good else "crash")] += 1
            if not good:
                crashes.append(f"subprocess {item.kind}: exit {proc.returncode} {proc.stderr[:200]!r}")

    @_settings(n)
    @given(mutations())
    def data(m) -> None:
        r = check_loader(m, folder)
        counts[(f"data {m.kind.value}", r.outcome.value)] += 1
        note("data", r.seconds, f"{m.kind.value} {m.edit.value}")
        if r.outcome is DataOutcome.CRASH:
            crashes.append(f"data {m.kind.value} {m.edit.value}: {r.detail}")

    start = time.perf_counter()
    images()
    clear(folder)
    data()
    wall = time.perf_counter() - start
    print(f"{n} image inputs, {n} data-file mutations, {wall:.0f} s wall")
    print("input families:", dict(sorted(kinds.items())))
    for (where, outcome), count in sorted(counts.items()):
        print(f"  {where:22s} {outcome:45s} {count}")
    for where, (seconds, what) in slowest.items():
        print(f"max time {where:10s} {seconds * 1000:8.1f} ms  ({what})")
    print(f"peak RSS: this process {peak_rss_mb():.0f} MB, subprocesses {peak_rss_mb(resource.RUSAGE_CHILDREN):.0f} MB")
    print(f"crashes: {len(crashes)}")
    for line in crashes[:50]:
        print("  " + line)
    return 1 if crashes else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=10_000)
    parser.add_argument("--subprocess", type=int, default=None, help="how many real subprocess runs (default N/100)")
    args = parser.parse_args()
    return run(args.n, args.n // 100 if args.subprocess is None else args.subprocess)


if __name__ == "__main__":
    sys.exit(main())
