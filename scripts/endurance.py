"""Endurance and load run of the live companion: ``python scripts/endurance.py [--seconds N] [--clients K]``.

Runs what ``make demo`` runs (``companion play`` on the bundled Via Gladiola video: vision,
tracking, the session and its SQLite log, the MJPEG hub, the dashboard on a threaded werkzeug
server), with two changes: the video is looped (the session and tracker go on across loops) and
paced at ``--fps`` frames a second, and the dashboard listens on a free port of 127.0.0.1.

Every ``--sample-every`` seconds it prints and records: resident memory, OS threads, open file
descriptors, the loop's achieved frame rate in that window and the per-frame processing time
(median and p90: from the frame leaving the source to the loop asking for the next one, i.e.
vision, tracking, judging, annotating, JPEG encoding, publishing).

``--clients K`` opens K dashboard clients at once, each one event stream (``/events``) and one
MJPEG stream (``/stream.mjpg``), held for the whole run. The clients are curl processes (Debian's
``curl``, outside this Python process, so they take no interpreter time from the loop), each
piped into ``grep -c`` to count SSE events and JPEG parts; traffic goes to 127.0.0.1 only, the
count is 2K processes and every one ends by itself at ``--seconds`` (curl ``--max-time``).

Writes the result as JSON (``--json-out``) and prints a summary: memory growth, frame rate over
time, slowdown (last window's median frame time / first window's), what every client got.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from soak_dashboard import rss_mb  # noqa: E402

from companion.sources import (  # noqa: E402
    CaptureSource, Frame, FrameSource, PacedSource, SourceKind, SourceState, SourceStatus, open_source,
)

VIDEO = ROOT / "samples" / "videos" / "gladiola.mp4"
PLAYERS = "Anna,Ben,Cleo"
HOST = "127.0.0.1"


# ------------------------------------------------------------------------------------------------
# The looped, metered source


class LoopedCapture:
    """``cv2.VideoCapture`` of a file that seeks back to its first frame at the end, so the
    source above it (a :class:`~companion.sources.CaptureSource`, as ``companion play`` builds
    for a file) sees one endless recording; the decoder stays open."""

    def __init__(self, target: int | str) -> None:
        import cv2

        self._cv2 = cv2
        self._cap = cv2.VideoCapture(target)
        self.loops = 1

    def isOpened(self) -> bool:
        return bool(self._cap.isOpened())

    def get(self, prop: int) -> float:
        return float(self._cap.get(prop))

    def read(self) -> tuple[bool, Any]:
        ok, image = self._cap.read()
        if not ok:
            self._cap.set(self._cv2.CAP_PROP_POS_FRAMES, 0)
            self.loops += 1
            ok, image = self._cap.read()
        return ok, image

    def release(self) -> None:
        self._cap.release()


class LoopingSource:
    """A video file opened again whenever it ends (``--loop reopen``), with frame indices and
    timestamps running on across loops (so pacing and tracking see one long recording)."""

    def __init__(self, open_video: Callable[[], Any]) -> None:
        self._open = open_video
        self._source = open_video()
        self.loops = 1
        self._index = 0
        self._offset = 0.0
        self._last = 0.0

    @property
    def status(self) -> SourceStatus:
        status = self._source.status
        return SourceStatus(SourceState.OK) if status.state is SourceState.ENDED else status

    def read(self) -> Frame | None:
        frame = self._source.read()
        if frame is None and self._source.status.state is SourceState.ENDED:
            self._source.close()
            self._source = self._open()
            self.loops += 1
            fps = getattr(self._source, "fps", None) or 10.0
            self._offset = self._last + 1.0 / fps
            frame = self._source.read()
        if frame is None:
            return None
        out = Frame(self._index, self._offset + frame.timestamp, frame.image)
        self._index += 1
        self._last = out.timestamp
        return out

    def close(self) -> None:
        self._source.close()


class MeteredSource:
    """Counts the frames handed to the loop and times the loop's work on each one: from a
    frame leaving ``read`` to the loop's next call of ``read``. ``loop_of`` tells which pass
    over the video a frame belongs to; :attr:`loops` keeps figures per finished pass (the same
    frames every pass, so passes compare like with like)."""

    def __init__(self, source: FrameSource, loop_of: Callable[[], int] = lambda: 1) -> None:
        self.source = source
        self.frames = 0
        self.loops: list[dict[str, Any]] = []
        self._loop_of = loop_of
        self._handed: float | None = None
        self._lock = threading.Lock()
        self._times: list[float] = []
        self._pass = loop_of()
        self._pass_times: list[float] = []
        self._pass_cpu = time.process_time()
        self._pass_wall = time.monotonic()

    @property
    def status(self) -> SourceStatus:
        return self.source.status

    def read(self) -> Frame | None:
        now = time.perf_counter()
        if self._handed is not None:
            with self._lock:
                self._times.append(now - self._handed)
            self._pass_times.append(now - self._handed)
        frame = self.source.read()
        self._handed = time.perf_counter() if frame is not None else None
        if frame is not None:
            with self._lock:
                self.frames += 1
            if self._loop_of() != self._pass:
                self._end_pass()
        return frame

    def _end_pass(self) -> None:
        times, cpu, wall = self._pass_times, time.process_time(), time.monotonic()
        if times:
            with self._lock:
                self.loops.append({
                    "loop": self._pass, "frames": len(times),
                    "frame_ms_median": ms(statistics.median(times)), "frame_ms_p90": ms(percentile(times, 0.9)),
                    "cpu_ms_per_frame": round((cpu - self._pass_cpu) * 1000 / len(times), 1),
                    "fps": round(len(times) / (wall - self._pass_wall), 2),
                })
        self._pass, self._pass_times, self._pass_cpu, self._pass_wall = self._loop_of(), [], cpu, wall

    def restart_pass(self) -> None:
        """Forget the current pass so far (the warm-up: the first frame loads the models)."""
        self._pass_times, self._pass_cpu, self._pass_wall = [], time.process_time(), time.monotonic()

    def take_window(self) -> tuple[int, list[float]]:
        """Frames so far and the processing times since the last call."""
        with self._lock:
            times, self._times = self._times, []
            return self.frames, times

    def close(self) -> None:
        self.source.close()


# ------------------------------------------------------------------------------------------------
# The clients (curl on loopback)


@dataclass
class Client:
    """One curl stream piped into ``grep -c``; ``count`` lines matched, ``status`` HTTP code."""

    kind: str
    number: int
    curl: subprocess.Popen
    grep: subprocess.Popen
    count: int | None = None
    status: int | None = None
    bytes: int | None = None
    error: str = ""

    def finish(self, timeout: float) -> None:
        try:
            out, _ = self.grep.communicate(timeout=timeout)
            self.count = int(out.strip() or 0)
        except subprocess.TimeoutExpired:
            self.error = "did not end in time"
        for proc in (self.curl, self.grep):
            if proc.poll() is None:
                proc.kill()  # only our own children, by their Popen handle
                proc.wait()
        err = self.curl.stderr.read().decode(errors="replace") if self.curl.stderr else ""
        self.curl.stderr and self.curl.stderr.close()
        for line in err.splitlines():
            if line.startswith("RESULT "):
                _, code, size = line.split()
                self.status, self.bytes = int(code), int(float(size))
            elif line and "Operation timed out" not in line:  # --max-time ending the stream is expected
                self.error = (self.error + " " + line).strip()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "client": self.number, "status": self.status, "count": self.count,
                "bytes": self.bytes, "error": self.error}


STREAMS = {  # kind: (path, grep pattern counting one item)
    "sse": ("/events", "^event: state"),
    "mjpeg": ("/stream.mjpg", "^Content-Type: image/jpeg"),
}


def start_clients(port: int, count: int, seconds: float) -> list[Client]:
    """``count`` clients, each an SSE and an MJPEG stream on 127.0.0.1, ending after ``seconds``."""
    curl, grep = shutil.which("curl"), shutil.which("grep")
    if curl is None or grep is None:
        raise SystemExit("endurance: --clients needs curl and grep (Debian packages curl, grep)")
    clients = []
    for number in range(count):
        for kind, (path, pattern) in STREAMS.items():
            c = subprocess.Popen(
                [curl, "--silent", "--show-error", "--no-buffer", "--max-time", f"{seconds:g}",
                 "--connect-timeout", "5", "--write-out", "%{stderr}RESULT %{http_code} %{size_download}\n",
                 f"http://{HOST}:{port}{path}"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            )
            g = subprocess.Popen([grep, "-a", "-c", pattern], stdin=c.stdout, stdout=subprocess.PIPE)
            c.stdout.close()  # grep owns the pipe now
            clients.append(Client(kind, number, c, g))
    return clients


# ------------------------------------------------------------------------------------------------
# Process figures


def os_threads() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return threading.active_count()


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def children_cpu(crowd: Sequence["Client"]) -> float:
    """CPU seconds the running client processes (curl and grep) have used, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for client in crowd:
        for proc in (client.curl, client.grep):
            try:
                fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
            except (OSError, IndexError, ValueError):
                pass
    return total


def percentile(values: Sequence[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 2)


# ------------------------------------------------------------------------------------------------
# The run


@dataclass
class Run:
    """Everything a run builds, kept for the caller (the tests look at the session and hub)."""

    session: Any
    hub: Any
    metered: MeteredSource
    port: int
    errors: list[str] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)


def run(seconds: float = 3600.0, sample_every: float = 60.0, clients: int = 0, fps: float = 15.0,
        video: Path = VIDEO, profile: str | None = None, db_dir: Path | None = None,
        heartbeat: float = 15.0, loop_by: str = "seek", out: Callable[[str], None] = print) -> Run:
    """The endurance run; returns what it built, with ``result`` filled (see the module doc).
    ``heartbeat``: the event stream's keep-alive interval (``companion play`` uses 15 s); a
    stream's server thread notices a departed client at its next write. ``loop_by``: "seek"
    (the capture seeks back to the first frame) or "reopen" (the video is opened anew)."""
    from werkzeug.serving import make_server

    from companion.commands.play import live_observer
    from companion.dashboard import create_app
    from companion.games import canonical_name
    from companion.session import FrameHub, Origin, Session, run_loop
    from companion.setup_profile import load_setup
    from companion.simulate import player_names
    from companion.store import EntryKind, GameStore
    from companion.vision_moves import VisionMoves

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    started = time.monotonic()
    rss_start, threads_start, fds_start = rss_mb(), os_threads(), open_fds()
    game = canonical_name("gladiola")
    names = player_names(PLAYERS)
    workdir = Path(db_dir) if db_dir is not None else Path(tempfile.mkdtemp(prefix="endurance-"))
    store = GameStore(workdir / "games.sqlite3")
    options = argparse.Namespace(first_player=0, first_card=None, display=None)
    session = Session.new(store, game, names, live_observer(game, len(names), options))
    looping: Any
    if loop_by == "seek":
        looping = CaptureSource(str(video), SourceKind.FILE, open_capture=LoopedCapture)
        capture = looping._cap
        loops: Callable[[], int] = lambda: capture.loops
        video_fps = looping.fps or 10.0
    elif loop_by == "reopen":
        looping = LoopingSource(lambda: open_source(str(video)))
        loops = lambda: looping.loops  # noqa: E731
        video_fps = getattr(looping._source, "fps", None) or 10.0
    else:
        raise ValueError(f"loop_by: expected 'seek' or 'reopen', got {loop_by!r}")
    metered = MeteredSource(PacedSource(looping, speed=fps / video_fps), loop_of=loops)
    moves = VisionMoves(game, view=session.public_view, setup=load_setup(profile, game))
    hub = FrameHub()
    stop = threading.Event()
    app = create_app(session, {"FRAME_HUB": hub, "ACCESS_TOKEN": None, "SSE_HEARTBEAT": heartbeat})
    server = make_server(HOST, 0, app, threaded=True)
    port = server.server_port
    state = Run(session, hub, metered, port)

    def report(exc: Exception) -> None:
        state.errors.append(str(exc))

    serving = threading.Thread(target=server.serve_forever, name="dashboard", daemon=True)
    serving.start()
    loop = threading.Thread(target=run_loop, name="frame-loop", daemon=True,
                            kwargs=dict(session=session, source=metered, moves=moves, hub=hub, stop=stop,
                                        origin=Origin.CAMERA, idle=0.0, on_error=report))
    loop.start()
    while hub.number == 0 and loop.is_alive():  # warm-up: the first frame loads the vision models
        time.sleep(0.05)
    # the streams end by themselves a second after the measurement (curl --max-time)
    crowd = start_clients(port, clients, seconds + 1.0) if clients else []
    setup_s = time.monotonic() - started
    started = time.monotonic()  # windows count from here: the loop runs and the clients are connected
    last_t, (last_frames, _) = started, metered.take_window()
    metered.restart_pass()
    last_cpu, last_client_cpu = time.process_time(), children_cpu(crowd)
    first_frames = last_frames
    out(f"endurance: {video.name} looped at {fps:g} fps, dashboard http://{HOST}:{port}/, "
        f"{clients} clients (SSE + MJPEG each), {seconds:g} s, a sample every {sample_every:g} s "
        f"(set-up, first frame and clients {setup_s:.1f} s)")

    samples: list[dict[str, Any]] = []
    end = started + seconds
    number = 0
    while last_t < end:
        number += 1
        target = min(end, started + number * sample_every)
        time.sleep(max(0.0, target - time.monotonic()))
        now = time.monotonic()
        frames, times = metered.take_window()
        window = now - last_t
        cpu, client_cpu = time.process_time(), children_cpu(crowd)
        sample = {
            "t": round(now - started, 1),
            "rss_mb": round(rss_mb(), 1),
            "threads": os_threads(),
            "fds": open_fds(),
            "frames": frames,
            "fps": round((frames - last_frames) / window, 2) if window > 0 else None,
            "frame_ms_median": ms(statistics.median(times) if times else None),
            "frame_ms_p90": ms(percentile(times, 0.9)),
            "cpu_ms_per_frame": round((cpu - last_cpu) * 1000 / (frames - last_frames), 1)
            if frames > last_frames else None,
            "cpu_share": round((cpu - last_cpu) / window, 2) if window > 0 else None,
            "clients_cpu_share": round((client_cpu - last_client_cpu) / window, 2) if window > 0 else None,
            "published": hub.number,
            "loops": loops(),
            "moves": len(session.moves()),
            "source": session.view().source.state.value,
            "clients_alive": sum(c.curl.poll() is None for c in crowd),
            "load1": round(os.getloadavg()[0], 2),
        }
        samples.append(sample)
        last_t, last_frames, last_cpu, last_client_cpu = now, frames, cpu, client_cpu
        out(f"  t={sample['t']:7.1f}s  rss {sample['rss_mb']:6.1f} MB  threads {sample['threads']:3d}  "
            f"fds {sample['fds']:3d}  {sample['fps'] or 0:5.2f} fps  frame ms median "
            f"{sample['frame_ms_median']} p90 {sample['frame_ms_p90']}  cpu/frame {sample['cpu_ms_per_frame']} ms  "
            f"cpu {sample['cpu_share']} clients {sample['clients_cpu_share']}  loop {sample['loops']}  "
            f"moves {sample['moves']}  clients {sample['clients_alive']}/{len(crowd)}  load {sample['load1']}")

    for client in crowd:  # they end by themselves at --max-time; give them a little grace
        client.finish(timeout=max(10.0, seconds - (time.monotonic() - started) + 10.0))
    stop.set()
    loop.join(timeout=30)
    looping_alive = loop.is_alive()
    server.shutdown()
    serving.join(timeout=10)
    deadline = time.monotonic() + heartbeat + 5  # a streaming handler notices its client has gone at its next write
    while time.monotonic() < deadline and any("process_request" in t.name for t in threading.enumerate()):
        time.sleep(0.2)
    server.server_close()
    metered.close()
    logged_moves = sum(1 for e in store.entries(session.game_id) if e.kind is EntryKind.MOVE)
    store.close()
    if db_dir is None:
        shutil.rmtree(workdir, ignore_errors=True)

    state.result = summarise(samples, list(metered.loops), crowd, {
        "seconds": seconds, "sample_every": sample_every, "clients": clients, "fps": fps, "loop_by": loop_by,
        "video": str(video.resolve().relative_to(ROOT) if video.resolve().is_relative_to(ROOT) else video),
    }, {
        "rss_start_mb": round(rss_start, 1), "threads_start": threads_start, "fds_start": fds_start,
        "rss_end_mb": round(rss_mb(), 1), "threads_end": os_threads(), "fds_end": open_fds(),
        "python_threads_end": sorted(t.name for t in threading.enumerate()),
        "frames": metered.frames, "published": hub.number, "loops": loops(),
        "moves": len(session.moves()), "moves_logged": logged_moves, "loop_errors": len(state.errors),
        "loop_error_examples": state.errors[:5], "loop_still_running": looping_alive,
        "measured_frames": metered.frames - first_frames, "setup_s": round(setup_s, 1),
        "wall_s": round(time.monotonic() - started, 1),
    })
    return state


def summarise(samples: list[dict[str, Any]], loops: list[dict[str, Any]], crowd: list[Client],
              config: dict[str, Any], totals: dict[str, Any]) -> dict[str, Any]:
    """The JSON result: config, samples, per-loop figures, clients, and the headline figures.
    ``slowdown``: last window's median frame time / first window's (windows see different
    parts of the video); ``slowdown_by_loop``: the same for the last and first whole pass."""
    summary: dict[str, Any] = dict(totals)
    whole = [x for x in loops if x["frame_ms_median"]]
    if len(whole) >= 2:
        summary["slowdown_by_loop"] = round(whole[-1]["frame_ms_median"] / whole[0]["frame_ms_median"], 3)
        summary["cpu_slowdown_by_loop"] = round(whole[-1]["cpu_ms_per_frame"] / whole[0]["cpu_ms_per_frame"], 3)
    if samples:
        first, last = samples[0], samples[-1]
        summary["rss_first_sample_mb"] = first["rss_mb"]
        summary["rss_last_sample_mb"] = last["rss_mb"]
        summary["rss_max_mb"] = max(s["rss_mb"] for s in samples)
        summary["memory_growth_mb"] = round(last["rss_mb"] - first["rss_mb"], 1)
        summary["memory_growth_from_start_mb"] = round(last["rss_mb"] - totals["rss_start_mb"], 1)
        rates = [s["fps"] for s in samples if s["fps"] is not None]
        summary["fps_min"] = min(rates) if rates else None
        summary["fps_overall"] = round((last["frames"] - first["frames"] + first["fps"] * first["t"]) / last["t"], 2)
        steady = [s["fps"] for s in samples[1:] if s["fps"] is not None]
        summary["fps_min_after_first_window"] = min(steady) if steady else None
        if first["frame_ms_median"] and last["frame_ms_median"]:
            summary["slowdown"] = round(last["frame_ms_median"] / first["frame_ms_median"], 3)
        per_frame = [x["cpu_ms_per_frame"] for x in samples if x["cpu_ms_per_frame"] is not None]
        summary["cpu_ms_per_frame_median"] = statistics.median(per_frame) if per_frame else None
        summary["cpu_share_mean"] = round(statistics.mean(x["cpu_share"] for x in samples), 2)
        summary["clients_cpu_share_mean"] = round(statistics.mean(x["clients_cpu_share"] for x in samples), 2)
        summary["load1_range"] = [min(x["load1"] for x in samples), max(x["load1"] for x in samples)]
        summary["threads_range"] = [min(s["threads"] for s in samples), max(s["threads"] for s in samples)]
        summary["fds_range"] = [min(s["fds"] for s in samples), max(s["fds"] for s in samples)]
    for kind in STREAMS:
        mine = [c for c in crowd if c.kind == kind]
        if mine:
            counts = [c.count or 0 for c in mine]
            summary[f"{kind}_clients"] = len(mine)
            summary[f"{kind}_ok"] = sum(c.status == 200 and (c.count or 0) > 0 for c in mine)
            summary[f"{kind}_count_min_max"] = [min(counts), max(counts)]
    return {"config": config, "summary": summary, "samples": samples, "loops": loops,
            "clients": [c.to_json() for c in crowd]}


def print_summary(result: dict[str, Any], out: Callable[[str], None] = print) -> None:
    s = result["summary"]
    out("endurance: summary")
    out(f"  frames {s['frames']} in {s['wall_s']} s over {s['loops']} video loops; published {s['published']}; "
        f"moves {s['moves']} (logged {s['moves_logged']}); loop errors {s['loop_errors']}")
    if "memory_growth_mb" in s:
        out(f"  memory: RSS {s['rss_start_mb']} MB at start, {s['rss_first_sample_mb']} MB at the first sample, "
            f"{s['rss_last_sample_mb']} MB at the last (growth {s['memory_growth_mb']:+} MB; max {s['rss_max_mb']} MB)")
        out(f"  frame rate: {s['fps_overall']} fps over the run, lowest window {s['fps_min']} fps "
            f"(after the first window {s['fps_min_after_first_window']})")
        out(f"  CPU: {s['cpu_ms_per_frame_median']} ms per frame (median of windows), this process "
            f"{s['cpu_share_mean']} cores, the clients {s['clients_cpu_share_mean']} cores; "
            f"machine load average {s['load1_range'][0]}..{s['load1_range'][1]}")
        out(f"  slowdown (last window's median frame time / first window's): {s.get('slowdown')}")
        out(f"  threads {s['threads_range'][0]}..{s['threads_range'][1]} while running, {s['threads_end']} at the end "
            f"({s['threads_start']} at start); fds {s['fds_range'][0]}..{s['fds_range'][1]}, "
            f"{s['fds_end']} at the end ({s['fds_start']} at start)")
    for kind in STREAMS:
        if f"{kind}_clients" in s:
            low, high = s[f"{kind}_count_min_max"]
            out(f"  {kind} clients: {s[f'{kind}_ok']}/{s[f'{kind}_clients']} answered 200 and received data; "
                f"items per client {low}..{high}")
    if "slowdown_by_loop" in s:
        out(f"  slowdown by whole video pass (last / first): frame time {s['slowdown_by_loop']}, "
            f"CPU per frame {s['cpu_slowdown_by_loop']}")
    out("  per pass: " + ", ".join(f"#{x['loop']} {x['fps']}fps/{x['frame_ms_median']}ms/{x['cpu_ms_per_frame']}cpu-ms"
                                   for x in result["loops"]))
    out("  per window: " + ", ".join(f"{x['t']:.0f}s {x['fps']}fps/{x['frame_ms_median']}ms"
                                     for x in result["samples"]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3600.0)
    parser.add_argument("--sample-every", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=0, help="dashboard clients (each SSE + MJPEG), at most 100")
    parser.add_argument("--fps", type=float, default=15.0, help="pace of the looped video (frames a second)")
    parser.add_argument("--video", type=Path, default=VIDEO)
    parser.add_argument("--profile", help="calibration profile directory (default: as companion play)")
    parser.add_argument("--loop", choices=("seek", "reopen"), default="seek",
                        help="how the video starts again: seek to its first frame (default) or open it anew")
    parser.add_argument("--json-out", type=Path, help="write the result here")
    args = parser.parse_args(argv)
    if not 0 <= args.clients <= 100:
        parser.error(f"--clients: expected 0..100, got {args.clients}")
    if args.seconds <= 0 or args.sample_every <= 0 or args.fps <= 0:
        parser.error("--seconds, --sample-every and --fps must be positive")
    state = run(args.seconds, args.sample_every, args.clients, args.fps, args.video, args.profile,
                loop_by=args.loop, out=lambda line: print(line, flush=True))
    result = state.result
    result["command"] = " ".join([Path(sys.executable).name, *sys.argv])
    print_summary(result)
    if args.json_out is not None:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(result, indent=1))
        print(f"endurance: result written to {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
