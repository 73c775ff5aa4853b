"""Hammer a real dashboard server with good and hostile requests: ``python scripts/soak_dashboard.py [SECONDS]``.

Starts the app on 127.0.0.1 (threaded werkzeug server, a simulated Via Gladiola session) and runs
4 client threads for SECONDS (default 60) mixing: state and page GETs, CSRF-correct POSTs,
POSTs without CSRF or from another origin, path traversal attempts, oversized bodies, a foreign
Host header, and event streams opened and dropped. Prints counts per (request, status), any
unexpected status, latency percentiles, RSS and thread count before and after; exits 1 on any
unexpected status.
"""

from __future__ import annotations

import collections
import http.client
import random
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from werkzeug.serving import make_server  # noqa: E402

from companion.dashboard import create_app  # noqa: E402
from companion.session import Session, SimulatedMoves  # noqa: E402
from companion.store import GameStore  # noqa: E402

CSRF = "soak-csrf"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seconds", nargs="?", type=float, default=60.0)
    parser.add_argument("--only", help="comma-separated request names to send (default: all)")
    parser.add_argument("--no-events", action="store_true", help="do not open event streams")
    args = parser.parse_args()
    seconds = args.seconds
    store = GameStore(Path(tempfile.mkdtemp()) / "soak.sqlite3")
    sim = SimulatedMoves("gladiola", 3, 1, pace=0)
    session = Session.new(store, "gladiola", ("Ann", "Ben", "Cy"), sim.observer())
    app = create_app(session, {"CSRF_TOKEN": CSRF, "SSE_HEARTBEAT": 0.2, "STREAM_WAIT": 0.2})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_port
    page = {"X-CSRF-Token": CSRF, "Origin": f"http://127.0.0.1:{port}", "Content-Type": "application/json"}
    big = b"{" + b" " * (app.config["MAX_CONTENT_LENGTH"] + 10) + b"}"
    cases = {
        "get state": ("GET", "/state.json", {}, None, {200}),
        "get page": ("GET", "/", {}, None, {200}),
        "get static": ("GET", "/static/dashboard.js", {}, None, {200}),
        "post pause": ("POST", "/api/pause", page, b"{}", {200, 400}),
        "post undo": ("POST", "/api/undo", page, b"{}", {200, 400}),
        "post correct junk": ("POST", "/api/correct", page, b'{"action": {"type": "walk", "card": 99}}', {400}),
        "post no csrf": ("POST", "/api/pause", {"Content-Type": "application/json"}, b"{}", {403}),
        "post cross-site": ("POST", "/api/undo", {**page, "Origin": "http://evil.example"}, b"{}", {403}),
        "traversal": ("GET", "/static/..%2f__init__.py", {}, None, {404}),
        "traversal 2": ("GET", "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd", {}, None, {404}),
        "oversized": ("POST", "/api/correct", page, big, {413}),
        "foreign host": ("GET", "/", {"Host": "evil.example"}, None, {400}),
    }
    if args.only:
        cases = {k: v for k, v in cases.items() if k in args.only.split(",")}
    counts: collections.Counter[tuple[str, int]] = collections.Counter()
    unexpected: list[str] = []
    latencies: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds
    rss0, threads0 = rss_mb(), threading.active_count()

    def client(seed: int) -> None:
        rng = random.Random(seed)
        names = list(cases)
        if not names:
            return
        while time.monotonic() < stop:
            if not args.no_events and rng.random() < 0.03:  # an event stream opened, read briefly, dropped
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", "/events")
                resp = conn.getresponse()
                resp.read1(200) if hasattr(resp, "read1") else resp.read(10)
                conn.close()
                with lock:
                    counts[("events dropped", resp.status)] += 1
                continue
            name = rng.choice(names)
            method, path, headers, body, ok = cases[name]
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            start = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
                resp.read()
                status = resp.status
            except (OSError, http.client.HTTPException) as exc:
                status = -1
                name = f"{name} ({type(exc).__name__})"
            finally:
                conn.close()
            with lock:
                latencies.append(time.perf_counter() - start)
                counts[(name, status)] += 1
                if status not in ok:
                    unexpected.append(f"{name}: {status}")

    workers = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    time.sleep(1.0)  # let dropped streams notice
    server.shutdown()
    latencies.sort()
    n = len(latencies)
    print(f"{n} requests in {seconds:.0f} s ({n / seconds:.0f}/s), 4 clients")
    for (name, status), count in sorted(counts.items()):
        print(f"  {name:28s} {status:4d} {count}")
    if n:
        print(f"latency p50 {latencies[n // 2] * 1000:.1f} ms, p99 {latencies[int(n * 0.99)] * 1000:.1f} ms, "
              f"max {latencies[-1] * 1000:.1f} ms")
    print(f"RSS {rss0:.0f} MB -> {rss_mb():.0f} MB; threads {threads0} -> {threading.active_count()}")
    print(f"unexpected statuses: {len(unexpected)}")
    for line in unexpected[:20]:
        print("  " + line)
    store.close()
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
