"""The calibration profile on disk: one JSON file in a profile directory.

``DIR/profile.json`` holds::

    {"format": "table-companion-profile", "version": 1,
     "table": TableGeometry JSON or null, "lens": LensCalibration JSON or null}

The default directory is ``$XDG_CONFIG_HOME/table-companion`` (``~/.config/table-companion``
when the variable is unset or empty). Other calibration data (the learned deck) may live in the
same directory under other names. A missing, damaged, foreign or newer-version file gives a
:class:`CalibrationError` naming the file and what was wrong.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calibration.errors import CalibrationError
from calibration.lens import LensCalibration
from calibration.table import TableGeometry

PROFILE_FORMAT = "table-companion-profile"
PROFILE_VERSION = 1
PROFILE_FILE = "profile.json"


def default_profile_dir() -> Path:
    """``$XDG_CONFIG_HOME/table-companion``, or ``~/.config/table-companion``."""
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    root = Path(base) if base.strip() else Path.home() / ".config"
    return root / "table-companion"


def profile_path(directory: str | os.PathLike[str] | None = None) -> Path:
    """The profile file inside ``directory`` (the default directory when None)."""
    return Path(directory) / PROFILE_FILE if directory is not None else default_profile_dir() / PROFILE_FILE


@dataclass(frozen=True)
class Profile:
    """What one camera set-up knows about its geometry; either part may be missing."""

    table: TableGeometry | None = None
    lens: LensCalibration | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "format": PROFILE_FORMAT,
            "version": PROFILE_VERSION,
            "table": self.table.to_json() if self.table else None,
            "lens": self.lens.to_json() if self.lens else None,
        }

    @classmethod
    def from_json(cls, data: Any) -> Profile:
        if not isinstance(data, dict):
            raise CalibrationError(f"expected a JSON object, got {type(data).__name__}")
        fmt = data.get("format")
        if fmt != PROFILE_FORMAT:
            raise CalibrationError(f"expected \"format\": {PROFILE_FORMAT!r}, got {fmt!r} (not a table-companion profile)")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise CalibrationError(f"expected an integer \"version\", got {version!r}")
        if version > PROFILE_VERSION:
            raise CalibrationError(
                f"profile version {version} is newer than this program understands (up to {PROFILE_VERSION}); update the companion"
            )
        if version < 1:
            raise CalibrationError(f"expected profile version 1..{PROFILE_VERSION}, got {version}")
        try:
            table = TableGeometry.from_json(data["table"]) if data.get("table") is not None else None
        except CalibrationError as exc:
            raise CalibrationError(f"\"table\": {exc}") from None
        try:
            lens = LensCalibration.from_json(data["lens"]) if data.get("lens") is not None else None
        except CalibrationError as exc:
            raise CalibrationError(f"\"lens\": {exc}") from None
        return cls(table, lens)


def load_profile(directory: str | os.PathLike[str] | None = None, missing_ok: bool = False) -> Profile:
    """Read the profile of ``directory`` (default directory when None).

    A missing file gives an empty :class:`Profile` when ``missing_ok``, else a CalibrationError.
    """
    path = profile_path(directory)
    if directory is not None and Path(directory).exists() and not Path(directory).is_dir():
        raise CalibrationError(f"{directory}: expected a profile directory, got a file")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return Profile()
        raise CalibrationError(
            f"{path}: no calibration profile here; run `companion calibrate table ...` (and `calibrate camera`) first"
        ) from None
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise CalibrationError(f"{path}:{line}: expected a JSON profile, got binary data (not UTF-8)") from None
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot read the profile ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(
            f"{path}: damaged profile: expected JSON, got a syntax error at line {exc.lineno} column {exc.colno} ({exc.msg})"
        ) from None
    try:
        return Profile.from_json(data)
    except CalibrationError as exc:
        raise CalibrationError(f"{path}: {exc}") from None


def save_profile(profile: Profile, directory: str | os.PathLike[str] | None = None) -> Path:
    """Write the profile atomically (a temporary file renamed over the old one); returns its path."""
    path = profile_path(directory)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".profile-", suffix=".json", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(profile.to_json(), fh, indent=2)
            fh.write("\n")
        os.replace(tmp, path)
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot write the profile ({exc.strerror or exc})") from None
    return path
