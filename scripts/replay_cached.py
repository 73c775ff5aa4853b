#!/usr/bin/env python3
"""Replay a filmed game with the camera's readings taken from a cache: tracking work in minutes.

Usage::

    python scripts/replay_cached.py --cache /tmp/v167.vcache [--last-frame N] \
        /tmp/fv/v167.mp4 --game valais --players 3 --first-player 0 --json > /tmp/v167.json

Everything after the cache options is ``companion replay``'s command line (without a profile).
The first run with a cache file that does not exist replays the film as ``companion replay``
does and records what vision made of each frame: the frame's time, the pipeline's reading
(:class:`vision.types.FrameResult`), whether an arm reached over the table (where it crossed
the border, and arm frames taken back), and the shown hands read at a Via Gladiola end. Later
runs read no image: they feed those records to tracking, the game observer and the log, so a
change in ``companion/tracking`` is measured on a long film in minutes (film 157: 5316 frames,
about 45 CPU-minutes of vision, replayed from the cache in 2 minutes). A shown-hand reading the
cache lacks (tracking now looks on another frame) is made from that frame of the video.

The cache holds a digest of the vision sources and of ``companion/vision_moves.py``, and the
film's size: a cache made by other vision code or of another film is refused, never used.
``--last-frame`` ends the film after that frame (the cache then holds only those frames).
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CACHE_VERSION = 1


def vision_digest() -> str:
    """A digest of the code whose output the cache keeps (vision, and the arm and hand watch)."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "vision").rglob("*.py")) + [ROOT / "companion" / "vision_moves.py"]:
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


class Records:
    """What vision made of each frame, by frame index, and the shown hands read."""

    def __init__(self, film: str, last_frame: int | None) -> None:
        self.size = Path(film).stat().st_size
        self.last_frame = last_frame
        self.digest = vision_digest()
        self.frames: dict[int, list[Any]] = {}  # index -> [timestamp, FrameResult, arm watch]
        self.hands: dict[int, Any] = {}  # index -> read_hands(...) result

    def dump(self, path: Path) -> None:
        payload = {"version": CACHE_VERSION, "size": self.size, "last_frame": self.last_frame,
                   "digest": self.digest, "frames": self.frames, "hands": self.hands}
        path.write_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))

    @classmethod
    def load(cls, path: Path, film: str, last_frame: int | None) -> Records:
        """The records in ``path``, made of ``film`` up to ``last_frame`` by the vision code here."""
        try:
            payload = pickle.loads(path.read_bytes())
        except Exception as exc:  # noqa: BLE001 (unpickling other bytes fails in many ways)
            sys.exit(f"replay_cached: {path} is no replay cache ({exc})")
        if not isinstance(payload, dict) or payload.get("version") != CACHE_VERSION:
            sys.exit(f"replay_cached: {path} is not a version {CACHE_VERSION} replay cache: delete it")
        records = cls(film, last_frame)
        if payload["size"] != records.size:
            sys.exit(f"replay_cached: the cache was made from a film of {payload['size']} bytes, {film} has "
                     f"{records.size}")
        if payload["last_frame"] != last_frame:
            sys.exit(f"replay_cached: the cache ends at frame {payload['last_frame']}, asked for {last_frame}")
        if payload["digest"] != records.digest:
            sys.exit("replay_cached: the cache was made by other vision code (vision/ or companion/vision_moves.py "
                     "changed): delete it to make it anew")
        records.frames, records.hands = payload["frames"], payload["hands"]
        return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", required=True, help="cache file (made on the first run)")
    parser.add_argument("--last-frame", type=int, default=None, help="end the film after this frame")
    args, rest = parser.parse_known_args(argv)
    films = [a for a in rest if not a.startswith("-") and Path(a).is_file()]
    if not films or "--profile" in rest:
        sys.exit(f"replay_cached: expected `companion replay` arguments with a video file and without --profile, "
                 f"got {' '.join(rest)}")
    film = films[0]
    cache_path = Path(args.cache)
    build = not cache_path.exists()
    records = Records(film, args.last_frame) if build else Records.load(cache_path, film, args.last_frame)
    _patch(records, build, film, args.last_frame)
    from companion.cli import main as companion_main

    code = companion_main(["replay", *rest])
    if build and code == 0:
        records.dump(cache_path)
        print(f"replay_cached: {len(records.frames)} frames recorded in {cache_path}", file=sys.stderr)
    return code


def _patch(records: Records, build: bool, film: str, last_frame: int | None) -> None:
    """Route replay's frame source, vision reads, arm watch and shown-hand reads through ``records``."""
    import companion.sources as sources
    import vision.hand as hand_module
    from companion import vision_moves
    from vision.pipeline import CardReader

    current = {"index": -1}
    open_source = sources.open_source
    read_frame = CardReader.read_frame
    hand_over_table = vision_moves.VisionMoves._hand_over_table
    read_hands = hand_module.read_hands

    class Cut:
        """The film's frames up to ``last_frame``, each frame's time recorded."""

        def __init__(self, source: Any) -> None:
            self.source, self.done = source, False

        def read(self) -> Any:
            frame = None if self.done else self.source.read()
            if frame is not None and last_frame is not None and frame.index > last_frame:
                self.done, frame = True, None
            if frame is not None:
                current["index"] = frame.index
                records.frames[frame.index] = [frame.timestamp, None, (False, None, 0, None)]
            return frame

        @property
        def status(self) -> Any:
            return sources.SourceStatus(sources.SourceState.ENDED, "cut") if self.done else self.source.status

        def close(self) -> None:
            self.source.close()

    class Recorded:
        """The recorded frames: index and time, a blank image (no vision runs on it)."""

        def __init__(self) -> None:
            self.indices = iter(sorted(records.frames))
            self.blank = np.zeros((8, 8, 3), np.uint8)

        def read(self) -> Any:
            index = next(self.indices, None)
            if index is None:
                return None
            current["index"] = index
            return sources.Frame(index, records.frames[index][0], self.blank)

        @property
        def status(self) -> Any:
            return sources.SourceStatus(sources.SourceState.ENDED, "recorded")

        def close(self) -> None:
            pass

    def frame_image(index: int) -> np.ndarray:
        import cv2

        capture = cv2.VideoCapture(film)
        capture.set(cv2.CAP_PROP_POS_FRAMES, index)
        ok, image = capture.read()
        capture.release()
        if not ok:
            sys.exit(f"replay_cached: frame {index} of {film} cannot be read")
        return image

    if build:
        def recorded_read(self: Any, image: np.ndarray) -> Any:
            result = read_frame(self, image)
            records.frames[current["index"]][1] = result
            return result

        def recorded_hand(self: Any, image: np.ndarray, now: float | None = None) -> bool:
            over = hand_over_table(self, image, now)
            records.frames[current["index"]][2] = (over, self.arm, self._unarm, self._unarm_at)
            return over

        def recorded_hands(image: np.ndarray, config: Any) -> Any:
            rows = read_hands(image, config)
            records.hands[current["index"]] = rows
            return rows

        sources.open_source = lambda spec, *a, **k: Cut(open_source(spec, *a, **k))
    else:
        def recorded_read(self: Any, image: np.ndarray) -> Any:
            return records.frames[current["index"]][1]

        def recorded_hand(self: Any, image: np.ndarray, now: float | None = None) -> bool:
            over, self.arm, self._unarm, self._unarm_at = records.frames[current["index"]][2]
            return bool(over)

        def recorded_hands(image: np.ndarray, config: Any) -> Any:
            index = current["index"]
            if index not in records.hands:
                records.hands[index] = read_hands(frame_image(index), config)
            return records.hands[index]

        sources.open_source = lambda spec, *a, **k: Recorded()
    CardReader.read_frame = recorded_read  # type: ignore[method-assign]
    vision_moves.VisionMoves._hand_over_table = recorded_hand  # type: ignore[method-assign]
    hand_module.read_hands = recorded_hands


if __name__ == "__main__":
    sys.exit(main())
