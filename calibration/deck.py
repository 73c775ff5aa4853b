"""The learned deck: what each card of the user's own deck looks like, and recognising it again.

Enrollment takes one upright photo (or crop) per card with its label (kind, km value, blisters;
for Valais*Wallis the year, photographed on the **event** side) and stores a compact appearance
descriptor per card (see :mod:`calibration.features`). :class:`DeckMatcher` then recognises a
rectified card crop in either orientation (0 or 180 degrees) as one of the enrolled cards, and
answers with the enrolled fields, or ``None`` when it is unsure.

Files (in the profile directory, next to ``profile.json``; ``GAME`` is ``gladiola`` or
``valais``):

``deck-GAME.json``
    ``{"format": "table-companion-deck", "version": 1, "game": GAME,
    "descriptor": {"luma": [48, 72], "chroma": [24, 36], "grid": [8, 12], "border": 0.07,
    "colour": "grey-world"},
    "arrays": "deck-GAME.npz", "sha256": HEX, "cards": [{"id", "kind", "value", "blisters",
    "year", "source"}, ...]}``; card ``i`` is row ``i`` of the arrays.
``deck-GAME.npz``
    ``luma`` float32 (N, 72, 48) and ``chroma`` float32 (N, 36, 24, 2), upright orientation.

A missing, damaged, foreign, newer-version or mismatched deck gives a :class:`CalibrationError`
naming the file and what was wrong.

Thresholds follow the deck. The rejection and outlier distances grow with the distances between
the deck's own different-looking cards (a deck of colourful pictures has larger distances all
round than a deck of printed numbers), see :meth:`DeckMatcher._scale_to_deck`. Unless the
nearest card of another look is far away (``MatchConfig.always_check``), the best card is also
compared with it on just the pixels where the two differ, which separates cards like 28 and 29
that share almost all of their print. For that comparison every candidate template is laid over
the query by a small homography (:func:`calibration.features.align_template`): an enrollment
crop cut from a quad with one corner a few pixels off is skewed against every view of its card,
and a shift alone leaves its twin fitting better. The candidates are then ranked again by how
well they fit once laid over the query. A blurred query (defocus or motion) is compared with the
candidates as seen through the blur that fits it best
(:func:`calibration.features.blur_kernels`); the cells that count as hidden are then found
again against those blurred candidates, because blur leaves the print that tells cards apart
fitting no sharp template; the looks that fit best through that blur join the candidates. The
evidence between two candidates is where the query lies on the line from one to the other,
measured on the pixels where they differ (+1: exactly the first), after each was moved by up to
two descriptor pixels to fit the query there (the blister column or a second digit can sit a
little off in one enrollment crop; :func:`calibration.features.nudges`; a nudge never turns the
lead). Cells whose print
follows one of the candidates (coloured blisters that stand out more than at enrollment) count
as seen, and the pixels a blur fills from outside the descriptor do not decide which cells are
hidden.

Blur and the best card. The sharp distances rank the cards of a blurred query poorly: the blur
fitted to the nearest card may not be the query's (a 12 smeared sideways fits a 6 turned
upside down as well as itself), and the right card then never joins the comparison. For a
blurred query, the nearest cards of other looks are each fitted through their own best blur and
orientation, and one that fits clearly better becomes the best card. Blur also pulls a query
towards the middle between near twins: a lead below the acceptance threshold (but at least
``MatchConfig.weak_accept``) still decides for a blurred query with almost nothing hidden when
the query fits the leader closely where the two differ (an unreadable smear fits neither).

Blisters counted. Blur can leave a digit halfway between two cards whose blister columns still
differ plainly (a 38 and a 35 with five and three blisters). The deck's labels show where it
prints its k-th blister (:func:`calibration.features.blister_slots`); when the leader's lead is
below the threshold (but at least ``MatchConfig.count_lead``), each slot where the candidates
disagree is read on its own, and the leader is the answer when the reading fits it and every
candidate it also fits trails it clearly. A slot reads as blank only with almost nothing hidden
and nothing hidden next to it (a card lying over the column looks like blank card), and any
slot that cannot be read surely leaves the count out.

Digits decide. Cards with the same blister count differ only in their digits (46 and 48); blur
leaves those half-way between the two and the lead short of the threshold. With almost nothing
hidden, a leader ahead by at least ``MatchConfig.digit_lead`` is the answer when, against every
rival of another value, the query follows their difference on just the pixels where the two
differ most, by scores blind to the brightness and contrast left there
(:func:`calibration.features.digit_lean`).

Blank slots under cover. A card, a hand or the image's edge lying over the blister column looks
like blank card, and such cover is often not found as hidden (a plain dark card fits a plain
dark card). A leader with fewer blisters than a rival is compared with it again as if the two
agreed on the slots the leader leaves blank, unless those slots are in plain view: no cell in or
next to them hidden, and at most ``MatchConfig.blank_hidden`` of the card hidden (what is left,
digits for instance, must then decide). On a card hidden beyond that share, cards printed alike
but for their blisters (the FINISH cards) then tie, and the count is left open.

Crops on their side. A crop cut from a quad whose long side was misjudged (strong perspective)
shows the card a quarter turn round; when the crop turned back fits the deck clearly better, it
is matched instead and the answer says ``turned``.

Verification. An answer also needs ``MatchConfig.min_print`` of the best card's own print (its
luma energy) in cells that are not hidden: a card that is not in the deck can fit an enrolled
one on the plain parts alone once its own print has been set aside as "hidden". A hidden cell
whose print follows the card's template (coloured print that stands out more under another
light, print washed out by glare) counts as seen, whether or not the card has close rivals.
Print that none of the close candidates has refuses an answer when a card of another look
explains it, as the query lies or turned round: each orientation sets aside as hidden what no
card fits that way round, so an upside-down 6 can fit a 10 once the 1 counts as hidden.

Cards that look alike. Cards of the same kind, value, blisters and year form one *look*; when
several enrolled cards share a look (two identical gladiolas), any of them may be named as the
identity. Cards whose looks differ only in a small area (the six FINISH cards differ only in
their blister symbols) are told apart by comparing the query with both candidates on just the
pixels where the two templates differ. If that comparison is not decisive either, the matcher
reports the fields the candidates share and leaves ``blisters`` as ``None``, or abstains when
they share no kind and value.

Labels. A CSV with header ``file,kind,value,blisters`` (optionally also ``year`` and ``id``
columns, in any order after ``file``), one row per photo; ``value`` is empty for a gladiola,
``kind`` is ``timeline`` and ``year`` is set for Valais*Wallis. Without a CSV, the label comes
from the file name: ``walk-17-b3.jpg`` (kind, value, blisters), ``finish-50-b1.jpg``,
``start-0-b0.jpg``, ``gladiola-b4.jpg``, ``timeline-1865.jpg``; anything after a further ``-`` or
``_`` (e.g. ``gladiola-b4-2.jpg``) is ignored and only makes the name unique.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.features import (
    BORDER,
    CHROMA_H,
    CHROMA_W,
    GRID_H,
    GRID_W,
    LUMA_H,
    LUMA_W,
    Descriptor,
    TemplateBank,
    align_template,
    best_nudge,
    blister_slots,
    blur_kernels,
    blur_chroma,
    blur_luma,
    blur_margin,
    describe,
    digit_lean,
    luma_cell_correlations,
    luma_cell_errors,
    masked_mean,
    nudges,
    outlier_cells,
    quarter_turn,
    quarter_turn_mask,
    rotate_180,
    shifted_chroma,
    to_chroma_grid,
    warp_luma,
)

DECK_FORMAT = "table-companion-deck"
DECK_VERSION = 1
DESCRIPTOR_PARAMS: dict[str, Any] = {"luma": [LUMA_W, LUMA_H], "chroma": [CHROMA_W, CHROMA_H],
                                     "grid": [GRID_W, GRID_H], "border": BORDER,
                                     "colour": "grey-world"}


class DeckGame(Enum):
    """Games whose decks can be enrolled."""

    GLADIOLA = "gladiola"
    VALAIS = "valais"

    @classmethod
    def parse(cls, text: str) -> DeckGame:
        for game in cls:
            if game.value == text:
                return game
        raise CalibrationError(f"expected a game in {[g.value for g in cls]} for deck enrollment, got {text!r}")


class DeckKind(Enum):
    """Kind of an enrolled card; the values are the ``kind`` strings of the JSON contract."""

    WALK = "walk"
    FINISH = "finish"
    START = "start"
    GLADIOLA = "gladiola"
    TIMELINE = "timeline"


GAME_KINDS: dict[DeckGame, frozenset[DeckKind]] = {
    DeckGame.GLADIOLA: frozenset({DeckKind.WALK, DeckKind.FINISH, DeckKind.START, DeckKind.GLADIOLA}),
    DeckGame.VALAIS: frozenset({DeckKind.TIMELINE}),
}
MAX_BLISTERS = 9


@dataclass(frozen=True)
class CardLabel:
    """What one enrolled card is: its identity and printed fields (None where a field does not apply)."""

    identity: str
    kind: DeckKind
    value: int | None = None
    blisters: int | None = None
    year: int | None = None

    def check(self, game: DeckGame) -> None:
        """A CalibrationError unless the fields fit a card of ``game``."""
        who = f"card {self.identity!r}"
        if not self.identity:
            raise CalibrationError("expected a non-empty card identity, got an empty one")
        if self.kind not in GAME_KINDS[game]:
            raise CalibrationError(f"{who}: expected a kind in {sorted(k.value for k in GAME_KINDS[game])} for "
                                   f"{game.value}, got {self.kind.value!r}")
        if game is DeckGame.VALAIS:
            if self.year is None or not 1 <= self.year <= 9999:
                raise CalibrationError(f"{who}: expected a year 1..9999 for a Valais*Wallis card, got {self.year!r}")
            if self.value is not None or self.blisters is not None:
                raise CalibrationError(f"{who}: expected no value and no blisters on a Valais*Wallis card, got "
                                       f"value {self.value!r}, blisters {self.blisters!r}")
            return
        if self.year is not None:
            raise CalibrationError(f"{who}: expected no year on a Via Gladiola card, got {self.year}")
        if self.blisters is None or not 0 <= self.blisters <= MAX_BLISTERS:
            raise CalibrationError(f"{who}: expected blisters 0..{MAX_BLISTERS}, got {self.blisters!r}")
        expected = {DeckKind.WALK: range(1, 50), DeckKind.FINISH: range(50, 51), DeckKind.START: range(0, 1)}
        if self.kind is DeckKind.GLADIOLA:
            if self.value is not None:
                raise CalibrationError(f"{who}: expected no km value on a gladiola, got {self.value}")
        elif self.value is None or self.value not in expected[self.kind]:
            allowed = expected[self.kind]
            raise CalibrationError(f"{who}: expected a km value {allowed.start}..{allowed.stop - 1} for a "
                                   f"{self.kind.value} card, got {self.value!r}")

    @property
    def look(self) -> tuple[DeckKind, int | None, int | None, int | None]:
        """The printed fields; cards with equal looks are interchangeable for the game."""
        return (self.kind, self.value, self.blisters, self.year)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.identity, "kind": self.kind.value, "value": self.value, "blisters": self.blisters,
                "year": self.year}

    @classmethod
    def from_json(cls, data: Any) -> CardLabel:
        if not isinstance(data, dict):
            raise CalibrationError(f"expected a card object, got {type(data).__name__}")
        try:
            kind = DeckKind(data["kind"])
            fields = [data.get(k) for k in ("value", "blisters", "year")]
            ident = data["id"]
        except (KeyError, ValueError) as exc:
            raise CalibrationError(f"expected a card with id and a known kind, got {data!r} ({exc})") from None
        if not isinstance(ident, str) or any(f is not None and (not isinstance(f, int) or isinstance(f, bool))
                                             for f in fields):
            raise CalibrationError(f"expected a string id and integer or null value/blisters/year, got {data!r}")
        return cls(ident, kind, *fields)


# --------------------------------------------------------------------------------------------
# Labels

LABEL_COLUMNS = ("file", "kind", "value", "blisters")
OPTIONAL_COLUMNS = ("year", "id")
_NAME_RE = re.compile(
    r"^(?:(?P<kind>walk|finish|start)-(?P<value>\d{1,2})-b(?P<blisters>\d)"
    r"|gladiola-b(?P<gblisters>\d)"
    r"|timeline-(?P<year>\d{1,4}))(?:[-_].*)?$",
    re.IGNORECASE,
)


def _cell_int(path: Path, line: int, name: str, text: str) -> int | None:
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise CalibrationError(f"{path}:{line}: {name}: expected an integer or an empty cell, got {text!r}") from None


def read_labels(path: str | os.PathLike[str], game: DeckGame) -> dict[str, CardLabel]:
    """Labels by photo file name from a CSV (header ``file,kind,value,blisters[,year][,id]``).

    Blank lines and lines starting with ``#`` are skipped. Errors name the file and line.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CalibrationError(f"{p}: expected a labels CSV file, but no such file exists") from None
    except UnicodeDecodeError:
        raise CalibrationError(f"{p}: expected a UTF-8 labels CSV, got binary data") from None
    except OSError as exc:
        raise CalibrationError(f"{p}: cannot read the labels ({exc.strerror or exc})") from None
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise CalibrationError(f"{p}: expected a header {','.join(LABEL_COLUMNS)}, got an empty file")
    rows = list(csv.reader([line for _, line in lines]))
    header = [c.strip().lower() for c in rows[0]]
    if header[:4] != list(LABEL_COLUMNS) or len(set(header)) != len(header) or \
            any(c not in OPTIONAL_COLUMNS for c in header[4:]):
        raise CalibrationError(f"{p}:{lines[0][0]}: expected the header {','.join(LABEL_COLUMNS)} (optionally "
                               f"followed by year and id), got {','.join(header)}")
    labels: dict[str, CardLabel] = {}
    for (line, _), cells in zip(lines[1:], rows[1:]):
        if len(cells) != len(header):
            raise CalibrationError(f"{p}:{line}: expected {len(header)} cells, got {len(cells)}")
        row = {name: cell.strip() for name, cell in zip(header, cells)}
        name = row["file"]
        if not name:
            raise CalibrationError(f"{p}:{line}: file: expected a photo file name, got an empty cell")
        if name in labels:
            raise CalibrationError(f"{p}:{line}: file: expected each photo once, got {name!r} again")
        try:
            kind = DeckKind(row["kind"].lower())
        except ValueError:
            raise CalibrationError(f"{p}:{line}: kind: expected one of {sorted(k.value for k in GAME_KINDS[game])}, "
                                   f"got {row['kind']!r}") from None
        label = CardLabel(row.get("id") or Path(name).stem, kind, _cell_int(p, line, "value", row["value"]),
                          _cell_int(p, line, "blisters", row["blisters"]), _cell_int(p, line, "year", row.get("year", "")))
        try:
            label.check(game)
        except CalibrationError as exc:
            raise CalibrationError(f"{p}:{line}: {exc}") from None
        labels[name] = label
    if not labels:
        raise CalibrationError(f"{p}: expected at least one labelled photo after the header, got none")
    return labels


def label_from_name(path: str | os.PathLike[str], game: DeckGame) -> CardLabel:
    """The label encoded in a photo's file name (see the module docstring for the pattern)."""
    stem = Path(path).stem
    m = _NAME_RE.match(stem)
    if m is None:
        raise CalibrationError(f"{path}: expected a file name like walk-17-b3, finish-50-b1, start-0-b0, gladiola-b4 "
                               f"or timeline-1865 (or pass --labels CSV), got {stem!r}")
    if m["kind"]:
        label = CardLabel(stem, DeckKind(m["kind"].lower()), int(m["value"]), int(m["blisters"]))
    elif m["gblisters"]:
        label = CardLabel(stem, DeckKind.GLADIOLA, None, int(m["gblisters"]))
    else:
        label = CardLabel(stem, DeckKind.TIMELINE, year=int(m["year"]))
    try:
        label.check(game)
    except CalibrationError as exc:
        raise CalibrationError(f"{path}: {exc}") from None
    return label


# --------------------------------------------------------------------------------------------
# The enrolled deck and its files


def deck_paths(directory: str | os.PathLike[str], game: DeckGame) -> tuple[Path, Path]:
    """``(index JSON, arrays NPZ)`` of ``game``'s deck in a profile directory."""
    d = Path(directory)
    return d / f"deck-{game.value}.json", d / f"deck-{game.value}.npz"


@dataclass(frozen=True, eq=False)
class EnrolledDeck:
    """Labels and upright descriptors of every enrolled card (row ``i`` belongs to ``labels[i]``)."""

    game: DeckGame
    labels: tuple[CardLabel, ...]
    luma: np.ndarray = field(repr=False)
    chroma: np.ndarray = field(repr=False)
    sources: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.labels)
        if n == 0:
            raise CalibrationError("expected at least one enrolled card, got none")
        if self.luma.shape != (n, LUMA_H, LUMA_W) or self.chroma.shape != (n, CHROMA_H, CHROMA_W, 2):
            raise CalibrationError(f"expected descriptor arrays for {n} cards of shapes {(n, LUMA_H, LUMA_W)} and "
                                   f"{(n, CHROMA_H, CHROMA_W, 2)}, got {self.luma.shape} and {self.chroma.shape}")
        ids = [lab.identity for lab in self.labels]
        if len(set(ids)) != n:
            dup = sorted({i for i in ids if ids.count(i) > 1})
            raise CalibrationError(f"expected each card identity once, got {dup} more than once")
        for lab in self.labels:
            lab.check(self.game)
        if self.sources and len(self.sources) != n:
            raise CalibrationError(f"expected one source per card ({n}), got {len(self.sources)}")

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write the arrays and the index atomically into ``directory``; returns the index path."""
        index_path, arrays_path = deck_paths(directory, self.game)
        buf = io.BytesIO()
        np.savez_compressed(buf, luma=self.luma.astype(np.float32), chroma=self.chroma.astype(np.float32))
        blob = buf.getvalue()
        sources = self.sources or ("",) * len(self.labels)
        index = {
            "format": DECK_FORMAT, "version": DECK_VERSION, "game": self.game.value,
            "descriptor": DESCRIPTOR_PARAMS, "arrays": arrays_path.name, "sha256": hashlib.sha256(blob).hexdigest(),
            "cards": [dict(lab.to_json(), source=src) for lab, src in zip(self.labels, sources)],
        }
        text = json.dumps(index, indent=1) + "\n"
        try:
            index_path.parent.mkdir(parents=True, exist_ok=True)
            for path, data in ((arrays_path, blob), (index_path, text.encode("utf-8"))):
                fd, tmp = tempfile.mkstemp(prefix=".deck-", dir=path.parent)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, path)
        except OSError as exc:
            raise CalibrationError(f"{index_path.parent}: cannot write the deck ({exc.strerror or exc})") from None
        return index_path

    @classmethod
    def load(cls, directory: str | os.PathLike[str], game: DeckGame) -> EnrolledDeck:
        """Read ``game``'s deck from a profile directory (CalibrationError if missing or damaged)."""
        index_path, _ = deck_paths(directory, game)
        try:
            text = index_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CalibrationError(f"{index_path}: no enrolled {game.value} deck here; run `companion calibrate deck "
                                   f"--game {game.value} ...` first") from None
        except UnicodeDecodeError:
            raise CalibrationError(f"{index_path}: expected a JSON deck index, got binary data") from None
        except OSError as exc:
            raise CalibrationError(f"{index_path}: cannot read the deck ({exc.strerror or exc})") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CalibrationError(f"{index_path}: damaged deck index: expected JSON, got a syntax error at line "
                                   f"{exc.lineno} column {exc.colno} ({exc.msg})") from None
        try:
            return cls._from_index(data, index_path, game)
        except CalibrationError as exc:
            raise CalibrationError(f"{index_path}: {exc}") from None

    @classmethod
    def _from_index(cls, data: Any, index_path: Path, game: DeckGame) -> EnrolledDeck:
        if not isinstance(data, dict):
            raise CalibrationError(f"expected a JSON object, got {type(data).__name__}")
        if data.get("format") != DECK_FORMAT:
            raise CalibrationError(f"expected \"format\": {DECK_FORMAT!r}, got {data.get('format')!r} "
                                   "(not a table-companion deck)")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise CalibrationError(f"expected a positive integer \"version\", got {version!r}")
        if version > DECK_VERSION:
            raise CalibrationError(f"deck version {version} is newer than this program understands (up to "
                                   f"{DECK_VERSION}); update the companion")
        if data.get("game") != game.value:
            raise CalibrationError(f"expected a {game.value} deck, got one for {data.get('game')!r}")
        if data.get("descriptor") != DESCRIPTOR_PARAMS:
            raise CalibrationError(f"expected descriptor settings {DESCRIPTOR_PARAMS}, got {data.get('descriptor')!r}; "
                                   "enroll the deck again")
        cards = data.get("cards")
        if not isinstance(cards, list) or not cards:
            raise CalibrationError(f"expected a non-empty \"cards\" list, got {cards!r:.60}")
        labels = []
        for i, card in enumerate(cards):
            try:
                labels.append(CardLabel.from_json(card))
            except CalibrationError as exc:
                raise CalibrationError(f"card {i}: {exc}") from None
        sources = tuple(str(c.get("source") or "") for c in cards)
        name = data.get("arrays")
        if not isinstance(name, str) or Path(name).name != name:
            raise CalibrationError(f"expected \"arrays\" to name a file next to the index, got {name!r}")
        arrays_path = index_path.parent / name
        try:
            blob = arrays_path.read_bytes()
        except OSError as exc:
            raise CalibrationError(f"{arrays_path}: cannot read the deck arrays ({exc.strerror or exc})") from None
        if hashlib.sha256(blob).hexdigest() != data.get("sha256"):
            raise CalibrationError(f"{arrays_path}: damaged deck arrays: expected sha256 {data.get('sha256')!r}, "
                                   "got different content; enroll the deck again")
        try:
            with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
                luma, chroma = np.asarray(npz["luma"], np.float32), np.asarray(npz["chroma"], np.float32)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise CalibrationError(f"{arrays_path}: expected NPZ arrays luma and chroma, got unreadable data ({exc})") from None
        if not (np.isfinite(luma).all() and np.isfinite(chroma).all()):
            raise CalibrationError(f"{arrays_path}: expected finite descriptors, got NaN or infinity")
        return cls(game, tuple(labels), luma, chroma, sources)


def enroll(game: DeckGame, cards: Sequence[tuple[CardLabel, np.ndarray]],
           sources: Sequence[str] = ()) -> EnrolledDeck:
    """Describe one upright card crop per label (BGR or gray uint8, portrait, any size)."""
    if not cards:
        raise CalibrationError("expected at least one card to enroll, got none")
    descs: list[Descriptor] = []
    for label, crop in cards:
        label.check(game)
        try:
            descs.append(describe(crop))
        except CalibrationError as exc:
            raise CalibrationError(f"card {label.identity!r}: {exc}") from None
    return EnrolledDeck(game, tuple(lab for lab, _ in cards), np.stack([d.luma for d in descs]),
                        np.stack([d.chroma for d in descs]), tuple(sources))


Locator = Callable[[np.ndarray], np.ndarray]
"""Given an enrollment photo (BGR), return the upright crop of the single card in it."""


def enroll_photos(game: DeckGame, files: Sequence[Path], labels: Mapping[str, CardLabel] | None,
                  locate: Locator, read: Callable[[Path], np.ndarray]) -> EnrolledDeck:
    """Enroll one photo per card: ``locate`` finds and rectifies the card, ``read`` loads a file.

    With ``labels`` (by file name) every photo must have a label and every label a photo;
    without, labels come from the file names (:func:`label_from_name`).
    """
    if labels is not None:
        names = {f.name for f in files}
        missing = [n for n in labels if n not in names]
        if missing:
            raise CalibrationError(f"expected a photo for every labelled file, missing {missing[:5]}"
                                   f"{' ...' if len(missing) > 5 else ''}")
        unlabelled = [f.name for f in files if f.name not in labels]
        if unlabelled:
            raise CalibrationError(f"expected a label for every photo, got none for {unlabelled[:5]}"
                                   f"{' ...' if len(unlabelled) > 5 else ''}")
    cards = []
    for f in files:
        label = labels[f.name] if labels is not None else label_from_name(f, game)
        try:
            crop = locate(read(f))
        except CalibrationError as exc:
            msg = str(exc)
            raise CalibrationError(msg if msg.startswith(str(f)) else f"{f}: {msg}") from None
        cards.append((label, crop))
    return enroll(game, cards, tuple(f.name for f in files))


# --------------------------------------------------------------------------------------------
# Matching


@dataclass(frozen=True)
class MatchConfig:
    """Tunables of :class:`DeckMatcher`.

    ``keep``: smallest fraction of grid cells that always counts; of the others, cells that fit
    no card better than ``outlier`` (occlusion, glare) are ignored for all cards alike;
    ``chroma_weight``: weight of colour against lightness differences;
    ``reject``: largest distance of the best card for an answer (above: not a card of this deck);
    ``reject_share``: a deck whose different-looking cards are far apart (the 5th percentile of
    their distances) may use up to this share of that distance instead of ``reject``;
    ``ratio``: looks whose templates, laid over the query, fit less than this many times worse
    than the best are compared with it where they differ;
    ``pair_accept``: evidence in [0, 1] needed when two looks are compared on where they differ
    (``pair_accept_clean`` when at most ``hidden_clean`` of the cells are outliers);
    ``pair_pixels``: fraction of template pixels (largest differences) that must be mostly
    visible for that comparison to count;
    ``max_hidden``: largest fraction of outlier cells (hidden or glared) for an answer, not
    counting cells outside the image (known, not guessed, and ``min_print`` still applies); above
    ``hidden_strict`` of them, the comparison of close looks needs ``pair_accept_hidden``;
    ``always_check``: unless the nearest other look is this many times farther than the best
    card, the two are also compared where they differ; ``max_rivals``: most other looks laid
    over the query (the ``min_rivals`` nearest, and any others within ``candidates`` times the
    best card's distance);
    ``min_print``: smallest share of the best card's print that must lie in cells that are not
    hidden for an answer; ``pair_visible``: smallest share of the pixels where two looks differ
    most that must be seen for their comparison to count, unless at least ``pair_strong_seen``
    of the card is seen and as many pixels as that comparison uses still differ by
    ``pair_strong`` of the least of those differences (glare on the blisters of 04 and 06, whose
    digits are in plain view); such a comparison only decides for the card whose own print is
    the hidden part;
    ``print_follows``: correlation in a hidden cell between the query and the best card above
    which the cell's print counts as seen (print brighter than at enrollment);
    ``unexplained``, ``unexplained_other``: a hidden cell that the close candidates all misfit by
    more than the first, and a card of another look fits within the second, refuses an answer;
    so do at least ``unexplained_turned_cells`` such cells that one card of another look, turned
    round, fits within ``unexplained_turned`` on average;
    ``follow_print``: a hidden cell whose print follows a close candidate counts as seen in
    their comparison when that candidate's cell holds at least this mean squared luma;
    ``turn_ratio``: a crop is matched a quarter turn round when its best card fits that way
    within this share of the best distance as given;
    ``nudge_share``, ``nudge_margin``: two close candidates are each moved by a small shift to fit
    the query around the pixels where they differ by at least this share of their largest
    difference (grown by a square of this many pixels), and compared there only;
    ``blur_rechoose``, ``blur_choices``, ``blur_switch``: for a blurred query, up to this many
    cards of other looks within the first times the best distance are fitted through their own
    best blur and orientation, and one fitting better than the second times the best card's
    error replaces it (:meth:`DeckMatcher._blurred_best`);
    ``weak_accept``, ``weak_hidden``, ``weak_residual``: a lead of at least the first (below the
    thresholds above) decides for a blurred query with at most the second share of hidden cells
    when the query fits the leader within this RMS where the two differ
    (:meth:`DeckMatcher._weak_lead_holds`);
    ``pair_veto``: two candidates at their best shift only that lean the other way by at least
    this much leave their comparison undecided;
    ``slot_sure``, ``slot_seen``, ``slot_reach``: a blister slot reads as showing a blister (or
    none) when the query lies at least the first of the way from the candidates without (with)
    one towards those with one (without), on the slot's pixels grown by ``slot_reach``, of which
    at least ``slot_seen`` must be in view (:meth:`DeckMatcher._blister_reading`; by the
    blisters' colour, :meth:`DeckMatcher._colour_count`, when lightness leaves candidates
    apart only by their counts);
    ``count_lead``: a leader ahead by at least this much (below the thresholds above) is the
    answer when the blisters read slot by slot leave no candidate within the threshold of it;
    ``digit_lead``, ``digit_share``, ``digit_hidden``, ``digit_seen``, ``digit_corr``,
    ``digit_fit``: a tie with rivals of other values goes to a leader ahead by at least the first
    when at most ``digit_hidden`` of the card is hidden and, on the pixels where each pair differs
    by ``digit_share`` of their largest difference (``digit_seen`` of them in view), the query
    follows the leader by at least ``digit_corr`` and ``digit_fit`` (:meth:`DeckMatcher._digits_decide`);
    ``blank_hidden``: above this share of hidden cells, blank blister slots do not speak for a
    leader with fewer blisters (:meth:`DeckMatcher._unseen_blanks`).
    """

    keep: float = 0.7
    outlier: float = 0.8
    chroma_weight: float = 0.5
    reject: float = 0.9
    reject_share: float = 0.5
    ratio: float = 1.6
    always_check: float = 3.0
    max_rivals: int = 6
    candidates: float = 2.0
    min_rivals: int = 3
    pair_accept: float = 0.4
    pair_pixels: float = 0.02
    max_hidden: float = 0.32
    hidden_strict: float = 0.25
    pair_accept_hidden: float = 0.6
    hidden_clean: float = 0.02
    pair_accept_clean: float = 0.25
    min_print: float = 0.45
    pair_visible: float = 0.5
    pair_strong: float = 0.5
    pair_strong_seen: float = 0.9
    print_follows: float = 0.8
    unexplained: float = 3.0
    unexplained_other: float = 0.3
    unexplained_turned: float = 0.6
    unexplained_turned_cells: int = 3
    turn_ratio: float = 0.7
    follow_print: float = 0.25
    nudge_share: float = 0.25
    nudge_margin: int = 7
    blur_rechoose: float = 1.25
    blur_choices: int = 4
    blur_switch: float = 0.5
    weak_accept: float = 0.3
    weak_hidden: float = 0.05
    weak_residual: float = 0.6
    pair_veto: float = 0.5
    slot_sure: float = 0.5
    slot_seen: float = 0.5
    slot_reach: int = 3
    count_lead: float = 0.2
    digit_lead: float = 0.1
    digit_share: float = 0.3
    digit_hidden: float = 0.05
    digit_seen: float = 0.8
    digit_corr: float = 0.45
    digit_fit: float = 0.4
    blank_hidden: float = 0.1


@dataclass(frozen=True)
class Match:
    """A recognised card: the enrolled identity and fields, and how sure the matcher is.

    ``blisters`` is None when the card was recognised but not which of several cards that differ
    only in blisters it is. ``flipped``: the crop shows the card upside down (its true top is the
    crop's bottom edge). ``score`` in [0, 1] (higher is surer); ``distance`` is the raw distance of
    the best template (0 = identical).
    ``turned``: the crop showed the card a quarter turn round (cut from a quad whose long side was
    misjudged); the card is seen as described by ``flipped`` once the crop is turned a quarter
    turn clockwise.
    """

    identity: str
    kind: DeckKind
    value: int | None
    blisters: int | None
    year: int | None
    score: float
    flipped: bool
    distance: float
    turned: bool = False


def ways_round(found: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], outlier: float
               ) -> tuple[np.ndarray, np.ndarray]:
    """For every card, which way round (0: as given, 1: turned by 180 degrees) fits the query
    better, and its distance that way, given :meth:`DeckMatcher._dist` of both ways.

    Each way leaves out the cells that fit no card; the way that leaves out more must fit the
    rest that much better, as if those cells misfit by ``outlier``: turned round, the one word of
    a plain card fits nothing and is left out, and its frame alone can fit a little better than
    the whole card the right way round.
    """
    dist2 = np.stack([d for d, _, _ in found])
    left_out = np.array([float(out.mean()) for _, out, _ in found])[:, None]
    orient = (dist2 + left_out * (outlier - dist2)).argmin(axis=0)
    return orient, dist2[orient, np.arange(dist2.shape[1])]


def _pixels_to_cells(pixels: np.ndarray, cells: np.ndarray) -> bool:
    """Whether any pixel of a (LUMA_H, LUMA_W) mask lies in a marked cell of a (GRID_H, GRID_W) grid."""
    grid = pixels.reshape(GRID_H, LUMA_H // GRID_H, GRID_W, LUMA_W // GRID_W).any(axis=(1, 3))
    return bool((grid & cells.astype(bool)).any())


def _touches(pixels: np.ndarray, cells: np.ndarray) -> bool:
    """Whether any pixel of a (LUMA_H, LUMA_W) mask lies in or next to a marked cell of ``cells``
    (boolean, grid order)."""
    near = cv2.dilate(cells.reshape(GRID_H, GRID_W).astype(np.uint8), np.ones((3, 3), np.uint8))
    return _pixels_to_cells(pixels, near)


def _covered(q: Descriptor, hidden: np.ndarray) -> float:
    """The share of all grid cells ``hidden`` (boolean, grid order) that lie inside the image."""
    return float((hidden if q.outside is None else hidden & ~q.outside).mean())


def _pixels(cells: np.ndarray) -> np.ndarray:
    """A boolean (GRID_H * GRID_W,) cell mask as a (LUMA_H, LUMA_W) pixel mask."""
    return np.kron(cells.reshape(GRID_H, GRID_W), np.ones((LUMA_H // GRID_H, LUMA_W // GRID_W), dtype=bool))


class _Views:
    """Enrolled templates as laid over one query: at their best shift, refined by an affine map
    (:func:`calibration.features.align_template`), and blurred like the query; computed on demand."""

    def __init__(self, matcher: DeckMatcher, q: Descriptor, shifts: np.ndarray, usable: np.ndarray,
                 kernel: np.ndarray | None = None) -> None:
        self._m, self._q, self._shifts, self.usable, self._kernel = matcher, q, shifts, usable, kernel
        self.margin = blur_margin(kernel)
        self._sharp: dict[int, np.ndarray] = {}
        self._blurred: dict[int, np.ndarray] = {}
        self._blurred_shifted: dict[int, np.ndarray] = {}
        self._nudged: dict[int, np.ndarray] = {}
        self._colour: dict[int, np.ndarray] = {}

    @property
    def query(self) -> Descriptor:
        """The query the templates are laid over."""
        return self._q

    @property
    def kernel(self) -> np.ndarray | None:
        """The blur the query is seen through (None: sharp)."""
        return self._kernel

    @kernel.setter
    def kernel(self, kernel: np.ndarray | None) -> None:
        self._kernel = kernel
        self.margin = blur_margin(kernel)
        self._colour = {}

    def shifted(self, card: int) -> np.ndarray:
        """``card``'s template at the shift that fits the query best."""
        return self._m._bank.luma_images[card, self._shifts[card]]

    def blurred_shifted(self, card: int) -> np.ndarray:
        """``card``'s template at its best shift (no finer alignment), blurred like the query."""
        if card not in self._blurred_shifted:
            self._blurred_shifted[card] = blur_luma(self.shifted(card), self.kernel)
        return self._blurred_shifted[card]

    def view(self, card: int) -> np.ndarray:
        """``card``'s (sharp) template laid over the query as closely as an affine map allows."""
        if card not in self._sharp:
            dx, dy = self._m._bank.moves[self._shifts[card]]
            template = self._m._luma[card]
            warp = align_template(self._q.luma, blur_luma(template, self.kernel), self.usable, dx, dy)
            self._sharp[card] = self.shifted(card) if warp is None else warp_luma(template, warp)
        return self._sharp[card]

    def nudged(self, card: int) -> np.ndarray:
        """:meth:`blurred` moved by small shifts (:func:`calibration.features.nudges`)."""
        if card not in self._nudged:
            self._nudged[card] = nudges(self.blurred(card))
        return self._nudged[card]

    def blurred(self, card: int) -> np.ndarray:
        """``card``'s template laid over the query and blurred like it."""
        if card not in self._blurred:
            self._blurred[card] = blur_luma(self.view(card), self.kernel)
        return self._blurred[card]

    def colour(self, card: int) -> np.ndarray:
        """``card``'s chroma template at its best shift, blurred like the query."""
        if card not in self._colour:
            dx, dy = self._m._bank.moves[self._shifts[card]]
            chroma = shifted_chroma(self._m.deck.chroma[card].astype(np.float32), dx, dy)
            self._colour[card] = blur_chroma(chroma, self.kernel)
        return self._colour[card]


class DeckMatcher:
    """Recognises rectified card crops as cards of one enrolled deck."""

    def __init__(self, deck: EnrolledDeck, config: MatchConfig = MatchConfig()) -> None:
        self.deck = deck
        self.config = config
        looks: dict[tuple[Any, ...], int] = {}
        self._look = np.array([looks.setdefault(lab.look, len(looks)) for lab in deck.labels])
        self._luma = deck.luma.astype(np.float32)
        self._bank = TemplateBank(deck.luma, deck.chroma, config.chroma_weight)
        self.outlier = config.outlier
        self.reject = config.reject
        self._kernels: tuple[np.ndarray | None, ...] = (None, *blur_kernels())
        self._print = luma_cell_errors(np.zeros((LUMA_H, LUMA_W), np.float32), self._luma)  # (N, cells)
        counts = np.array([lab.blisters or 0 for lab in deck.labels])
        self._slots = blister_slots(self._luma, counts)
        self._scale_to_deck()

    def _scale_to_deck(self) -> None:
        """Adapt the rejection and outlier distances to this deck's own contrast.

        A deck whose different-looking cards lie far apart (colourful pictures) also shows larger
        distances between a card and its own photo under hard light; both thresholds grow to
        ``config.reject_share`` of the 5th percentile of the distances between its
        different-looking cards (never below the configured values).
        """
        pairs = [d for _, _, d in self.confusable(limit=None)]
        if pairs:
            near = self.config.reject_share * float(np.percentile(pairs, 5))
            self.reject = max(self.config.reject, near)
            self.outlier = max(self.config.outlier, near)

    @classmethod
    def load(cls, profile_dir: str | os.PathLike[str], game: DeckGame | str,
             config: MatchConfig = MatchConfig()) -> DeckMatcher:
        """The matcher of ``game``'s deck enrolled in ``profile_dir``."""
        g = game if isinstance(game, DeckGame) else DeckGame.parse(game)
        return cls(EnrolledDeck.load(profile_dir, g), config)

    def distances(self, crop: np.ndarray) -> np.ndarray:
        """Distances (2, N): row 0 the crop as given, row 1 turned by 180 degrees, to every card."""
        q = describe(crop)
        return np.stack([self._dist(d)[0] for d in (q, rotate_180(q))])

    def _dist(self, q: Descriptor, unshifted: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distances to every card (each at its best shift, or ``unshifted``), the outlier cells left
        out, the shifts."""
        cells = self._bank.cell_distances(q, unshifted)
        n, v, c = cells.shape
        out = self._outliers(q, cells.reshape(n * v, c))
        dist = masked_mean(cells.reshape(n * v, c), out).reshape(n, v)
        shifts = dist.argmin(axis=1)
        return dist[np.arange(n), shifts], out, shifts

    def _outliers(self, q: Descriptor, cells: np.ndarray) -> np.ndarray:
        """:func:`calibration.features.outlier_cells` of per-cell errors (rows: templates), with the
        query's cells outside the image set aside first (they count as hidden, and the share of
        cells dropped as outliers applies to the rest)."""
        if q.outside is None:
            return outlier_cells(cells, self.config.keep, self.outlier)
        out = q.outside.copy()
        inside = ~out
        if inside.any():
            out[inside] = outlier_cells(cells[:, inside], self.config.keep, self.outlier)
        return out

    def match(self, crop: np.ndarray, outside: np.ndarray | None = None) -> Match | None:
        """Recognise an upright-or-upside-down rectified card crop; None when unsure or unknown.

        ``outside``: the crop's pixels (boolean, its height x width) cut from beyond the image's
        edge (:func:`vision.rectify.outside_mask`); they count as hidden, never as blank card.
        """
        return self.explain(crop, outside)[0]

    def explain(self, crop: np.ndarray, outside: np.ndarray | None = None) -> tuple[Match | None, str]:
        """Like :meth:`match`, with a short reason for the outcome (which test refused an answer).

        A crop cut from a quad whose long side was misjudged (strong perspective) shows the card
        a quarter turn round and squeezed. When the crop turned back
        (:func:`calibration.features.quarter_turn`) fits the deck clearly better
        (``MatchConfig.turn_ratio``), that crop is matched instead; the answer says ``turned``.
        """
        q0 = describe(crop, outside)
        found = self._found(q0)
        qt = describe(quarter_turn(crop), None if outside is None else quarter_turn_mask(outside))
        d_here = min(float(d.min()) for d, _, _ in found)
        # A first look at the turned crop, without shifts (quicker, and a little farther).
        first = min(float(self._dist(q, unshifted=True)[0].min()) for q in (qt, rotate_180(qt)))
        if first >= d_here:
            return self._explain(q0, found)
        turned = self._found(qt)
        d_turned = min(float(d.min()) for d, _, _ in turned)
        if d_turned >= self.config.turn_ratio * d_here:
            return self._explain(q0, found)
        mt, why = self._explain(qt, turned)
        why = f"quarter turn ({d_turned:.3f} < {d_here:.3f}), {why}"
        return (None if mt is None else replace(mt, turned=True)), why

    def _found(self, q0: Descriptor) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """:meth:`_dist` of a query as given and turned by 180 degrees."""
        return [self._dist(q) for q in (q0, rotate_180(q0))]

    def _explain(self, q0: Descriptor, found: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
                 ) -> tuple[Match | None, str]:
        """:meth:`explain` of one descriptor, given :meth:`_found` of it."""
        cfg = self.config
        queries = (q0, rotate_180(q0))
        orient, dist = ways_round(found, self.outlier)
        best = int(dist.argmin())
        d_best = float(dist[best])
        hidden = float(found[int(orient[best])][1].mean())
        if d_best > self.reject:
            return None, f"far: best {self.deck.labels[best].identity} at {d_best:.3f} > {self.reject:.3f}"
        covered = _covered(queries[int(orient[best])], found[int(orient[best])][1])
        if covered > cfg.max_hidden:
            return None, f"hidden: {covered:.2f} of the cells > {cfg.max_hidden}"
        o = int(orient[best])
        q, shifts, sharp = queries[o], found[o][2], found[o][1]
        views = _Views(self, q, shifts, _pixels(~sharp))
        views.kernel = self._query_blur(q, views.shifted(best), views.usable)
        if views.kernel is not None:
            chosen = self._blurred_best(queries, found, dist, orient, best, views)
            if chosen is not None:
                best, views = chosen
                d_best = float(dist[best])
                o = int(orient[best])
                q, shifts, sharp = queries[o], found[o][2], found[o][1]
                hidden = float(sharp.mean())
                covered = _covered(q, sharp)
                if covered > cfg.max_hidden:
                    return None, f"hidden: {covered:.2f} of the cells > {cfg.max_hidden}"
        kernel = self._query_blur(q, views.view(best), views.usable)
        if kernel is not views.kernel:
            views = _Views(self, q, shifts, views.usable, kernel)
        accept = (cfg.pair_accept_clean if hidden <= cfg.hidden_clean else
                  cfg.pair_accept if hidden <= cfg.hidden_strict else cfg.pair_accept_hidden)
        # The best card of every other look, nearest first.
        rivals: list[int] = []
        for look in np.unique(self._look):
            if look == self._look[best]:
                continue
            members = np.flatnonzero(self._look == look)
            rivals.append(int(members[dist[members].argmin()]))
        rivals.sort(key=lambda i: float(dist[i]))
        fit = max(0.0, 1.0 - d_best / self.reject)
        if not rivals or float(dist[rivals[0]]) >= cfg.always_check * d_best:
            refused = self._refuse_print(q, best, views, sharp)
            if refused:
                return None, refused
            sep = 1.0 - d_best / float(dist[rivals[0]]) if rivals else 1.0
            return self._answer(best, bool(orient[best]), min(1.0, fit * (0.5 + sep)), d_best, blisters_sure=True), "clear"
        # Close looks: each template laid over the query and blurred like it; the best of them
        # is then compared with the others where they differ.
        near = [best] + [r for k, r in enumerate(rivals)
                         if k < cfg.min_rivals or float(dist[r]) < cfg.candidates * d_best][:cfg.max_rivals]
        if views.kernel is not None:
            # Blur hides the print that tells cards apart from the sharp distances: the looks
            # that fit best once blurred like the query are candidates as well.
            fits = [(float(((views.blurred_shifted(r) - q.luma)[views.usable] ** 2).mean()), r)
                    for r in rivals]
            near += [r for _, r in sorted(fits)[:cfg.min_rivals] if r not in near]
        errors = {c: float(((views.blurred(c) - q.luma)[views.usable] ** 2).mean()) for c in near}
        near.sort(key=errors.__getitem__)
        best = near[0]
        refused = self._refuse_print(q, best, views, sharp)
        if refused:
            return None, refused
        close = [best] + [c for c in near[1:] if errors[c] < cfg.ratio * errors[best]]
        if len(close) == 1:
            close.append(near[1])  # always checked where the two differ
        hidden_cells = self._hidden_cells(q, close, views, sharp)
        turned = _Views(self, queries[1 - o], found[1 - o][2], _pixels(~found[1 - o][1]), views.kernel)
        refused = self._refuse_unexplained(q, close, hidden_cells, views, turned)
        if refused:
            return None, refused
        usable = _pixels(~(hidden_cells & ~self._followed(q, close, views)))
        n = len(close)
        evidence = np.ones((n, n))
        for i in range(n):
            for j in range(i + 1, n):
                e = self._pair_evidence(q, views.blurred(close[i]), views.blurred(close[j]), usable,
                                        (views.nudged(close[i]), views.nudged(close[j])),
                                        (views.blurred_shifted(close[i]), views.blurred_shifted(close[j])))
                evidence[i, j], evidence[j, i] = e, -e
        win = int(evidence.min(axis=1).argmax())
        winner = close[win]
        # A leader with fewer blisters may not win on blank slots that could be covered: the two
        # are compared again as if their templates agreed there.
        mine = self.deck.labels[winner]
        for j, blank in self._unseen_blanks(close, win, usable, hidden_cells):
            theirs = self.deck.labels[close[j]]
            if (theirs.kind, theirs.value, theirs.year) == (mine.kind, mine.value, mine.year) and \
                    float(hidden_cells.mean()) > cfg.blank_hidden:
                # Printed alike but for the blisters (50 with one or none) on a card under cover:
                # what is left differs only as their enrollment photos do.
                evidence[win, j], evidence[j, win] = 0.0, 0.0
                continue
            pair = [views.blurred(winner).copy(), views.blurred(close[j]).copy()]
            moved = [views.nudged(winner).copy(), views.nudged(close[j]).copy()]
            plain = [views.blurred_shifted(winner).copy(), views.blurred_shifted(close[j]).copy()]
            for t in (*pair, *plain):
                t[blank] = 0.0
            for t in moved:
                t[:, blank] = 0.0
            e = min(float(evidence[win, j]), self._pair_evidence(q, pair[0], pair[1], usable & ~blank,
                                                                 (moved[0], moved[1]), (plain[0], plain[1])))
            evidence[win, j], evidence[j, win] = e, -e
        worst = evidence.min(axis=1)
        if cfg.count_lead <= worst[win] < accept:
            nearby = [int(i) for i in np.flatnonzero(dist < cfg.candidates * d_best)]
            counted = self._count_decides(q, close, evidence, win, accept, views, usable, hidden_cells, nearby)
            if counted:
                return self._answer(winner, bool(orient[best]), fit * (0.5 + float(worst[win])),
                                    float(dist[winner]), blisters_sure=True), counted
        if worst[win] >= accept:
            return self._answer(winner, bool(orient[best]), min(1.0, fit * (0.5 + float(worst[win]))),
                                float(dist[winner]), blisters_sure=True), "pair"
        if cfg.weak_accept <= worst[win] and self._weak_lead_holds(
                q, winner, [close[j] for j in range(n) if j != win and evidence[win, j] < accept], views, usable,
                float(hidden_cells.mean())):
            return self._answer(winner, bool(orient[best]), fit * (0.5 + float(worst[win])), float(dist[winner]),
                                blisters_sure=True), "weak pair"
        undecided = [close[j] for j in range(n) if j != win and evidence[win, j] < accept]
        mine = self.deck.labels[winner]
        if cfg.digit_lead <= worst[win]:
            digits = self._digits_decide(q, winner, undecided, views, usable)
            if digits:
                return self._answer(winner, bool(orient[best]), fit * (0.5 + float(worst[win])),
                                    float(dist[winner]), blisters_sure=True), digits
        scores = " ".join(f"{self.deck.labels[c].identity}:{worst[k]:.2f}" for k, c in enumerate(close))
        if all(self.deck.labels[u].kind is mine.kind and self.deck.labels[u].value == mine.value
               and self.deck.labels[u].year == mine.year for u in undecided):
            counted, why = self._colour_count(q, [winner, *undecided], views, usable, hidden_cells)
            if counted is not None:
                return self._answer(counted, bool(orient[best]), fit * 0.5, float(dist[counted]),
                                    blisters_sure=True), why
            return self._answer(winner, bool(orient[best]), fit * 0.5, float(dist[winner]), blisters_sure=False), \
                "blisters open: " + scores + (f"; {why}" if why else "")
        return None, "undecided: " + scores

    def _blurred_best(self, queries: tuple[Descriptor, Descriptor],
                      found: list[tuple[np.ndarray, np.ndarray, np.ndarray]], dist: np.ndarray, orient: np.ndarray,
                      best: int, views: _Views) -> tuple[int, _Views] | None:
        """Another card that fits a blurred query clearly better than ``best`` once each is seen
        through the blur that fits it best (its views then), or None.

        The sharp distances rank the cards of a blurred query poorly, and the blur fitted to the
        wrong card (or orientation: a 6 and a 9 turned) can leave the right card out of the
        comparison altogether. Cards of other looks within ``MatchConfig.blur_rechoose`` times the
        best distance (at most ``MatchConfig.blur_choices`` of them) are fitted in their own best
        orientation; the one fitting best wins if its error is below ``MatchConfig.blur_switch``
        times the best card's.
        """
        cfg = self.config
        d_best = float(dist[best])
        reach = min(cfg.blur_rechoose * d_best, self.reject)
        others = [int(i) for i in np.argsort(dist) if self._look[i] != self._look[best] and float(dist[i]) < reach]
        if not others:
            return None
        own = float(((blur_luma(views.shifted(best), views.kernel) - queries[int(orient[best])].luma)[views.usable]
                     ** 2).mean())
        chosen: tuple[float, int, _Views] | None = None
        for i in others[:cfg.blur_choices]:
            o = int(orient[i])
            q = queries[o]
            v = _Views(self, q, found[o][2], _pixels(~found[o][1]))
            errors = [float(((blur_luma(v.shifted(i), k) - q.luma)[v.usable] ** 2).mean()) for k in self._kernels]
            k = int(np.argmin(errors))
            if errors[k] < cfg.blur_switch * own and (chosen is None or errors[k] < chosen[0]):
                v.kernel = self._kernels[k]
                chosen = (errors[k], i, v)
        return None if chosen is None else (chosen[1], chosen[2])

    def _unseen_blanks(self, close: Sequence[int], win: int, usable: np.ndarray,
                       hidden: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """The candidates (index into ``close``) that print more blisters than the leader
        ``close[win]``, each with the pixels (the slots the leader leaves blank, grown by
        ``MatchConfig.slot_reach``) that may not count as blank between the two.

        A card, a hand or the image's edge lying over the blister column looks like blank card,
        and such cover is often not found as hidden (a plain dark card fits a plain dark card).
        So the leader's blank slots count only when they are in view and no cell in or next to
        them is hidden (hidden cells whose print follows a candidate in ``usable``, as under glare,
        are in view), and at most ``MatchConfig.blank_hidden`` of the whole card is hidden.
        """
        cfg = self.config
        mine = self.deck.labels[close[win]].blisters
        if not self._slots or mine is None:
            return []
        covered = float(hidden.mean()) > cfg.blank_hidden
        # Next to the slots, hidden cells whose print follows a candidate (glare) are in view.
        seen = usable.reshape(GRID_H, LUMA_H // GRID_H, GRID_W, LUMA_W // GRID_W).all(axis=(1, 3)).ravel()
        unseen = hidden & ~seen
        grow = np.ones((cfg.slot_reach, cfg.slot_reach), np.uint8)
        out = []
        for j, c in enumerate(close):
            theirs = self.deck.labels[c].blisters
            if j == win or theirs is None or theirs <= mine:
                continue
            blank = np.zeros((LUMA_H, LUMA_W), bool)
            for slot in self._slots[mine:theirs]:
                blank |= cv2.dilate(slot.astype(np.uint8), grow).astype(bool)
            if blank.any() and (covered or _touches(blank, unseen)
                                or float(usable[blank].mean()) < 1.0):
                out.append((j, blank))
        return out

    def _count_decides(self, q: Descriptor, close: Sequence[int], evidence: np.ndarray, win: int, accept: float,
                       views: _Views, usable: np.ndarray, hidden: np.ndarray, others: Sequence[int] = ()) -> str:
        """Why the leader ``close[win]`` (a lead below ``accept``) is the answer after all ('' if
        not): the blisters read slot by slot (:meth:`_blister_reading`) fit the leader, and every
        candidate that they also fit trails it by at least ``accept`` (blur leaves a digit between
        two twins, while their blister columns still differ plainly).

        ``others``: cards near the query that were left out of the comparison (the candidates
        are limited in number); those of other looks that the count fits as well are compared
        with the leader now and must trail it by ``accept`` too (under glare a 40 fell behind
        eight nearer cards and the count gave its place to a 47)."""
        reading = self._blister_reading(q, close, views, usable, hidden)
        if not reading:
            return ""

        def counted(card: int) -> bool:
            return all(((self.deck.labels[card].blisters or 0) >= k) == shown for k, shown in reading.items())

        fits = [j for j, c in enumerate(close) if counted(c)]
        if win not in fits or any(evidence[win, j] < accept for j in fits if j != win):
            return ""
        winner = close[win]
        for c in others:
            if c in close or self._look[c] == self._look[winner] or not counted(c):
                continue
            e = self._pair_evidence(q, views.blurred(winner), views.blurred(c), usable,
                                    (views.nudged(winner), views.nudged(c)),
                                    (views.blurred_shifted(winner), views.blurred_shifted(c)))
            if e < accept:
                return ""
        seen = sum(reading.values())
        return f"blister count: {seen} of {len(reading)} differing slots show one"

    def _digits_decide(self, q: Descriptor, winner: int, rivals: Sequence[int], views: _Views,
                       usable: np.ndarray) -> str:
        """Why the leader ``winner`` wins a tie with ``rivals`` of other values after all ('' if not).

        Cards with the same blister count differ only in their digits (46 and 48), which blur
        leaves half-way between the two. With at most ``MatchConfig.digit_hidden`` of the card
        hidden, each pair is compared again on just the pixels where their templates (laid over
        the query, blurred like it) differ most (``MatchConfig.digit_share`` of their largest
        difference, at least ``MatchConfig.digit_seen`` of them in view), by a score of its own
        that ignores how much contrast the blur left (:func:`calibration.features.digit_lean`):
        the query must follow the difference from the rival to the leader (correlation
        ``MatchConfig.digit_corr``) and fit the leader clearly better once each is scaled to it
        (``MatchConfig.digit_fit``), against every rival.
        """
        cfg = self.config
        mine = self.deck.labels[winner]
        if not rivals or float(usable.mean()) < 1.0 - cfg.digit_hidden:
            return ""
        if any(self.deck.labels[r].kind is mine.kind and self.deck.labels[r].value == mine.value for r in rivals):
            return ""
        ta = views.blurred(winner)
        least = (1.0, 1.0)
        for r in rivals:
            tb = views.blurred(r)
            apart = np.abs(ta - tb)
            region = apart >= cfg.digit_share * float(apart.max())
            if float(usable[region].mean()) < cfg.digit_seen:
                return ""
            corr, fit = digit_lean(q.luma, ta, tb, region & usable)
            if corr < cfg.digit_corr or fit < cfg.digit_fit:
                return ""
            least = (min(least[0], corr), min(least[1], fit))
        return f"digits: the leader follows where the values differ (correlation {least[0]:.2f}, fit {least[1]:.2f})"

    def _weak_lead_holds(self, q: Descriptor, winner: int, rivals: Sequence[int], views: _Views, usable: np.ndarray,
                         hidden: float) -> bool:
        """Whether a lead of ``winner`` below the acceptance threshold over ``rivals`` still decides.

        Blur pulls a query towards the middle between two near twins, so the lead of the right
        card shrinks although the query fits it well. Only for a blurred query with at most
        ``MatchConfig.weak_hidden`` of its cells hidden (against the blurred candidates), where
        at least ``MatchConfig.pair_visible`` of the pixels that differ most between the two are
        in view, and the query fits the winner there within an RMS of
        ``MatchConfig.weak_residual`` (washed-out or smeared beyond reading fits neither).
        """
        cfg = self.config
        if views.kernel is None or hidden > cfg.weak_hidden or not rivals:
            return False
        ta = views.blurred(winner)
        for r in rivals:
            apart = np.abs(ta - views.blurred(r))
            k = max(8, int(apart.size * cfg.pair_pixels))
            top = apart >= float(np.partition(apart.ravel(), apart.size - k)[apart.size - k])
            if float(usable[top].mean()) < cfg.pair_visible:
                return False
            around = cv2.dilate((apart >= cfg.nudge_share * float(apart.max())).astype(np.uint8),
                                np.ones((cfg.nudge_margin, cfg.nudge_margin), np.uint8)).astype(bool) & usable
            if not around.any() or float(np.sqrt(((q.luma - ta)[around] ** 2).mean())) > cfg.weak_residual:
                return False
        return True

    def _blister_reading(self, q: Descriptor, cards: Sequence[int], views: _Views, usable: np.ndarray,
                         hidden: np.ndarray) -> dict[int, bool] | None:
        """Whether the query shows its k-th blister, for every slot k where ``cards`` disagree
        (``{k: True}``: a blister there); None when one of those slots cannot be read surely.

        Each slot (:func:`calibration.features.blister_slots`) is read on its own, as where the
        query lies between the candidates with and without a blister there (each set averaged,
        laid over the query and blurred like it, the query's print scaled by how strongly it
        shows the blisters that all candidates have): a count that a blurred digit leaves open
        can still be plain in the blister column. A slot reads as blank only when at most
        ``MatchConfig.hidden_clean`` of the cells and none next to the slot are hidden: a card or
        a finger lying over the column can look like blank card.
        """
        cfg = self.config
        counts = self._counts(cards)
        if counts is None:
            return None
        # Glare or coloured light changes how strongly blisters stand out; the slots where every
        # candidate has one tell by how much (a gain kept within [1/3, 3]).
        gain = self._shared_gain(cards, counts, usable, q.luma, views.blurred, lambda m: m)
        gain = 1.0 if gain is None else float(np.clip(gain, 1 / 3, 3.0))
        reading: dict[int, bool] = {}
        for k, slot, e in self._slot_leans(cards, counts, usable, gain, q.luma, views.blurred, lambda m: m):
            if e is None or abs(e) < cfg.slot_sure:
                return None
            if e < 0 and (float(hidden.mean()) > cfg.hidden_clean or _touches(slot, hidden)):
                return None
            reading[k] = e > 0
        return reading

    def _counts(self, cards: Sequence[int]) -> list[int] | None:
        """The blister counts of ``cards``, or None when the deck prints no blister slots or one of
        the cards has no count."""
        fields = [self.deck.labels[c].blisters for c in cards]
        if not self._slots or any(b is None for b in fields):
            return None
        return [b or 0 for b in fields]

    def _shared_gain(self, cards: Sequence[int], counts: Sequence[int], usable: np.ndarray, query: np.ndarray,
                     template: Callable[[int], np.ndarray], grid: Callable[[np.ndarray], np.ndarray]) -> float | None:
        """How strongly the query shows the blisters that every one of ``cards`` prints, against
        their ``template`` (laid over the query), on the ``usable`` part of those slots (grown by
        ``MatchConfig.slot_reach``; ``grid`` maps a luma pixel mask to the template's grid); None
        when none of them is in view."""
        grow = np.ones((self.config.slot_reach, self.config.slot_reach), np.uint8)
        shared = np.zeros((LUMA_H, LUMA_W), bool)
        for slot in self._slots[:min(counts)]:
            shared |= cv2.dilate(slot.astype(np.uint8), grow).astype(bool)
        shared = grid(shared & usable)
        if not shared.any():
            return None
        t = np.mean([template(c) for c in cards], axis=0)[shared]
        return float((query[shared] * t).sum() / max(float((t * t).sum()), 1e-6))

    def _slot_leans(self, cards: Sequence[int], counts: Sequence[int], usable: np.ndarray, gain: float,
                    query: np.ndarray, template: Callable[[int], np.ndarray], grid: Callable[[np.ndarray], np.ndarray]
                    ) -> Iterator[tuple[int, np.ndarray, float | None]]:
        """For every slot k where ``cards`` disagree: (k, the slot, where the query (scaled by
        ``1 / gain``) lies between the mean ``template`` of the cards without a blister there
        (-1) and of those with one (+1)), on the slot grown by ``MatchConfig.slot_reach``; the
        lean is None when less than ``MatchConfig.slot_seen`` of that is ``usable`` or the two
        look alike there."""
        cfg = self.config
        grow = np.ones((cfg.slot_reach, cfg.slot_reach), np.uint8)
        for k, slot in enumerate(self._slots, start=1):
            have = [c for c, b in zip(cards, counts) if b >= k]
            lack = [c for c, b in zip(cards, counts) if b < k]
            if not have or not lack or not slot.any():
                continue
            grown = cv2.dilate(slot.astype(np.uint8), grow).astype(bool)
            if float(usable[grown].mean()) < cfg.slot_seen:
                yield k, slot, None
                continue
            region = grid(grown)
            a = np.mean([template(c) for c in have], axis=0)[region]
            b = np.mean([template(c) for c in lack], axis=0)[region]
            d = a - b
            spread = float((d * d).sum())
            yield k, slot, (None if spread < 1e-6 else float((d * (2 * query[region] / gain - a - b)).sum()) / spread)

    def _colour_count(self, q: Descriptor, cards: Sequence[int], views: _Views, usable: np.ndarray,
                      hidden: np.ndarray) -> tuple[int | None, str]:
        """The card of ``cards`` (printed alike but for their blister counts, the leader first)
        whose count the blister colour shows, slot by slot, or None; and why.

        Blur or glare can leave the lightness of a blister column between two counts while the
        blisters' colour still stands apart from the card: each slot where the candidates differ
        is read as :meth:`_blister_reading` reads lightness, on the chroma of the candidates laid
        over the query at their best shift and blurred like it (the query's colour scaled by how
        strongly the slots that every candidate fills show it, which must be between a third and
        three times their enrolled colour). Every slot must read surely
        (``MatchConfig.slot_sure``); a slot reads blank only when no cell in or next to it is
        hidden (a card over the column looks like blank card, glare washes a blister's colour
        out; each leaves hidden cells beside the slot).
        """
        cfg = self.config
        counts = self._counts(cards)
        if counts is None or len(set(counts)) < 2:
            return None, ""
        gain = self._shared_gain(cards, counts, usable, q.chroma, views.colour, to_chroma_grid)
        if gain is None or not 1 / 3 <= gain <= 3.0:
            return None, ("colour count: no blister in view that every candidate prints" if gain is None else
                          f"colour count: the blisters every candidate prints show {gain:.2f} of their colour")
        reading: dict[int, float] = {}
        for k, slot, e in self._slot_leans(cards, counts, usable, gain, q.chroma, views.colour, to_chroma_grid):
            if e is None or abs(e) < cfg.slot_sure:
                return None, f"colour count: slot {k} unread ({'hidden or alike' if e is None else f'{e:.2f}'})"
            if e < 0 and _touches(slot, hidden):
                return None, f"colour count: slot {k} blank at {e:.2f} but may be covered"
            reading[k] = e
        fits = [c for c, b in zip(cards, counts) if all((b >= k) == (e > 0) for k, e in reading.items())]
        slots = " ".join(f"{k}:{e:.2f}" for k, e in reading.items())
        if not fits:
            return None, f"colour count: no candidate fits slots {slots}"
        return fits[0], f"colour count: slots {slots} (gain {gain:.2f})"

    def _hidden_cells(self, q: Descriptor, cards: Sequence[int], views: _Views, sharp: np.ndarray) -> np.ndarray:
        """Cells (boolean, grid order) where the query fits none of ``cards``.

        Without blur these are the ``sharp`` outlier cells. A blurred query leaves the print that
        tells cards apart fitting no sharp template, so the cells are found again against the
        candidates as blurred by the query's kernel, leaving out the pixels that the blur fills
        from outside the descriptor (:func:`calibration.features.blur_margin`).
        """
        if views.kernel is None:
            return sharp
        seen = np.stack([views.blurred(c) for c in cards])
        return self._outliers(q, luma_cell_errors(q.luma, seen, ~views.margin))

    def _followed(self, q: Descriptor, cards: Sequence[int], views: _Views) -> np.ndarray:
        """Cells (boolean, grid order) whose print follows one of ``cards`` laid over the query and
        blurred like it (correlation ``MatchConfig.print_follows``): coloured print (blisters,
        petals) that stands out more or less than at enrollment misfits every template, yet it
        is in view and shows which of them it is. Only cells where that card has print of its
        own count (``MatchConfig.follow_print``: mean squared luma): an occluder's edge can
        follow the faint texture of a plain cell."""
        seen = [views.blurred(c) for c in cards]
        corr = np.stack([luma_cell_correlations(q.luma, t) for t in seen])
        ink = luma_cell_errors(np.zeros_like(q.luma), np.stack(seen)) >= self.config.follow_print
        followed = ((corr >= self.config.print_follows) & ink).any(axis=0)
        return followed if q.outside is None else followed & ~q.outside

    def _refuse_unexplained(self, q: Descriptor, cards: Sequence[int], hidden: np.ndarray, views: _Views,
                            turned: _Views | None = None) -> str:
        """Why none of ``cards`` can be the answer ('' if one can): a hidden cell that none of
        them fits at all (``MatchConfig.unexplained``) fits a card of another look closely
        (``MatchConfig.unexplained_other``), so it holds print of a card that is not among them,
        e.g. a fifth blister when the card's own template was enrolled from a skewed crop.

        ``turned``: the views of the query turned by 180 degrees. Each orientation sets aside as
        hidden what fits no card that way round, so a one-digit card upside down can fit a
        two-digit card's crop once the second digit (which fits the right card only the other way
        round) counts as hidden. So when at least ``MatchConfig.unexplained_turned_cells`` such
        cells fit one card of another look turned round within ``MatchConfig.unexplained_turned``
        (their mean), the answer is refused as well.
        """
        errors = luma_cell_errors(q.luma, np.stack([views.blurred(c) for c in cards])).min(axis=0)
        strong = hidden & (errors > self.config.unexplained)
        if q.outside is not None:
            strong &= ~q.outside  # the image's edge repeated: no print of any card
        looks = {int(self._look[c]) for c in cards}
        others = [i for i in range(len(self.deck.labels)) if int(self._look[i]) not in looks]
        if not strong.any() or not others:
            return ""
        seen = np.stack([views.blurred_shifted(i) for i in others])
        theirs = luma_cell_errors(q.luma, seen)[:, strong].min(axis=1)
        k = int(theirs.argmin())
        if float(theirs[k]) < self.config.unexplained_other:
            return (f"unexplained: print that none of {', '.join(self.deck.labels[c].identity for c in cards)} has, "
                    f"but {self.deck.labels[others[k]].identity} has")
        if turned is None or int(strong.sum()) < self.config.unexplained_turned_cells:
            return ""
        # Turning a descriptor by 180 degrees reverses its grid order. Turned, a whole patch of
        # such print must fit one card (an occluding card's corner fits some card in one cell).
        seen = np.stack([turned.blurred_shifted(i) for i in others])
        theirs = luma_cell_errors(turned.query.luma, seen)[:, strong[::-1]].mean(axis=1)
        k = int(theirs.argmin())
        if float(theirs[k]) < self.config.unexplained_turned:
            return (f"unexplained: print that none of {', '.join(self.deck.labels[c].identity for c in cards)} has, "
                    f"but {self.deck.labels[others[k]].identity} turned round has")
        return ""

    def _refuse_print(self, q: Descriptor, card: int, views: _Views, sharp: np.ndarray) -> str:
        """Why ``card`` cannot be the answer for lack of its own print in view ('' if it can).

        A hidden cell whose print follows ``card``'s template laid over the query (correlation
        ``MatchConfig.print_follows``) counts as seen, as coloured print under coloured light
        stands out more or less than it did at enrollment, and glare washes print out without
        moving it.
        """
        hidden = self._hidden_cells(q, [card], views, sharp)
        if hidden.any():
            hidden &= luma_cell_correlations(q.luma, views.blurred(card)) < self.config.print_follows
        seen = self._print_seen(card, hidden)
        if seen < self.config.min_print:
            return f"print: {seen:.2f} of {self.deck.labels[card].identity}'s print seen < {self.config.min_print}"
        return ""

    def _print_seen(self, card: int, hidden: np.ndarray) -> float:
        """The share of ``card``'s print (luma energy) that lies in cells that are not ``hidden``."""
        energy = self._print[card]
        return float(energy[~hidden].sum() / max(float(energy.sum()), 1e-6))

    def _query_blur(self, q: Descriptor, template: np.ndarray, usable: np.ndarray) -> np.ndarray | None:
        """The blur (None: none) under which ``template`` fits the query best on ``usable`` pixels."""
        errors = [float(((blur_luma(template, k) - q.luma)[usable] ** 2).mean()) for k in self._kernels]
        return self._kernels[int(np.argmin(errors))]

    def _pair_evidence(self, q: Descriptor, ta: np.ndarray, tb: np.ndarray, usable: np.ndarray,
                       nudged: tuple[np.ndarray, np.ndarray] | None = None,
                       plain: tuple[np.ndarray, np.ndarray] | None = None) -> float:
        """In [-1, 1]: how much better template ``ta`` fits than ``tb`` where the two differ.

        Both are laid over the query and blurred like it. With ``nudged`` (both moved by small
        shifts, :func:`calibration.features.nudges`), each is first moved to fit the query best
        around where the two differ, as the part that tells them apart can sit a pixel or two
        off in one enrollment crop; the nudge may make a lead clearer but never turn it (0
        then). Only ``usable`` pixels (not in outlier cells) take part; 0 when none of them
        differ, or when less than
        ``MatchConfig.pair_visible`` of the pixels where the two differ most are usable (what
        tells them apart is hidden, and the rest would decide on noise) and what is left in view
        of the card differs too little (``MatchConfig.pair_strong``, ``pair_strong_seen``).
        With ``plain`` (both at their best shift only, blurred like the query), also 0 when
        those lean the other way by at least ``MatchConfig.pair_veto``.
        """
        cfg = self.config
        if nudged is None:
            return self._lean(q, ta, tb, usable, np.ones_like(usable))
        # Moved separately, the two also differ where they agree; only the part around where
        # they differ counts.
        apart = np.abs(ta - tb)
        around = cv2.dilate((apart >= cfg.nudge_share * float(apart.max())).astype(np.uint8),
                            np.ones((cfg.nudge_margin, cfg.nudge_margin), np.uint8)).astype(bool)
        as_laid = self._lean(q, ta, tb, usable, around)
        seen = around & usable
        moved = self._lean(q, best_nudge(q.luma, nudged[0], seen), best_nudge(q.luma, nudged[1], seen), usable,
                           around)
        # A nudge may make a lead clearer, never turn it (heavy blur leaves blobs that a free
        # shift can fit either way).
        if moved * as_laid <= 0:
            return 0.0
        if plain is not None:
            # Laid over the query by a fitted map, one template can settle on a skewed fit under
            # a long streak; both at their best shift only must not clearly say the opposite.
            unmapped = self._lean(q, plain[0], plain[1], usable, around)
            if unmapped * moved < 0 and abs(unmapped) >= cfg.pair_veto:
                return 0.0
        return moved

    def _lean(self, q: Descriptor, ta: np.ndarray, tb: np.ndarray, usable: np.ndarray, around: np.ndarray) -> float:
        """:meth:`_pair_evidence` of ``ta`` and ``tb`` as given, on the pixels ``around`` only."""
        cfg = self.config
        k = max(8, int(ta.size * cfg.pair_pixels))
        whole = np.where(around, np.abs(ta - tb), 0.0)
        kth = float(np.partition(whole.ravel(), whole.size - k)[whole.size - k])
        top = whole >= kth
        relaxed = float(usable[top].mean()) < cfg.pair_visible
        if relaxed and (float(usable.mean()) < cfg.pair_strong_seen
                        or int((usable & (whole >= cfg.pair_strong * kth)).sum()) < k):
            return 0.0
        d = np.where(usable & around, ta - tb, 0.0)
        spread = float((d * d).sum())
        if spread < 1e-6:
            return 0.0
        # Where the query lies on the line from tb (-1) to ta (+1), measured where they differ.
        e = float(np.clip((d * (2 * q.luma - ta - tb)).sum() / spread, -1.0, 1.0))
        if relaxed:
            # Decided although most of where they differ is hidden: only for the card whose own
            # print lies hidden (glare on its blisters). The other would need that part blank,
            # which cannot be seen (a blister its template lacks, or skewed, fits neither).
            unseen = top & ~usable
            if e * (float(np.abs(ta[unseen]).sum()) - float(np.abs(tb[unseen]).sum())) <= 0:
                return 0.0
        return e

    def _answer(self, i: int, flipped: bool, score: float, distance: float, blisters_sure: bool) -> Match:
        lab = self.deck.labels[i]
        return Match(lab.identity, lab.kind, lab.value, lab.blisters if blisters_sure else None, lab.year,
                     round(max(0.0, min(1.0, score)), 4), flipped, distance)

    def confusable(self, limit: int | None = 5) -> list[tuple[str, str, float]]:
        """The closest pairs of enrolled cards of different looks: (id, id, distance), nearest first.

        A small distance warns that two cards with different fields look almost the same.
        """
        out = []
        n = len(self.deck.labels)
        for i in range(n):
            q = Descriptor(self._luma[i], self.deck.chroma[i])
            d = np.minimum(self._dist(q)[0], self._dist(rotate_180(q))[0])
            for j in range(i + 1, n):
                if self._look[i] != self._look[j]:
                    out.append((self.deck.labels[i].identity, self.deck.labels[j].identity, float(d[j])))
        out.sort(key=lambda t: t[2])
        return out if limit is None else out[:limit]


__all__ = [
    "CardLabel", "DECK_FORMAT", "DECK_VERSION", "DeckGame", "DeckKind", "DeckMatcher", "EnrolledDeck", "Match",
    "MatchConfig", "deck_paths", "enroll", "enroll_photos", "label_from_name", "read_labels",
]
