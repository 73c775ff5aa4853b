"""One real-browser test: Chromium opens the dashboard during a replay, sees a verdict appear,
and presses Pause (Playwright driving Debian's /usr/bin/chromium, installed by .ci/run)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

CHROMIUM = os.environ.get("COMPANION_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def dashboard(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "play", "--game", "gladiola", "--players", "Ann,Ben,Cy",
         "--source", "simulate:4", "--pace", "0.4", "--db", str(tmp_path / "games.sqlite3"), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    url = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and url is None:
        line = proc.stdout.readline()
        match = re.search(r"dashboard at (http://\S+)", line or "")
        if match:
            url = match.group(1)
        elif proc.poll() is not None:
            break
    if url is None:
        proc.kill()
        pytest.fail(f"the dashboard did not start: {proc.stdout.read()}")
    yield url
    proc.terminate()
    proc.wait(timeout=10)


def dashboard_pauses(url: str, wanted) -> list[dict]:
    """The pauses entered on the dashboard that ``wanted`` accepts, polled for up to 20 s."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with urllib.request.urlopen(url.split("?")[0] + "state.json", timeout=5) as r:
            state = json.load(r)
        found = [m for m in state["history"] if m["origin"] == "dashboard" and m["action"]["type"] == "pause"
                 and wanted(m)]
        if found:
            return found
        time.sleep(0.2)
    return []


def test_browser_sees_a_verdict_and_presses_pause(dashboard, tmp_path):
    assert Path(CHROMIUM).exists(), f"expected Chromium at {CHROMIUM} (installed by .ci/run)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(dashboard + "?lang=en")
        banner = page.locator("#banner")
        expect(banner).to_have_class(re.compile(r"\b(legal|illegal)\b"), timeout=30_000)
        assert "draw" in banner.inner_text() or "walk" in banner.inner_text() or "pause" in banner.inner_text()
        expect(page.locator("#history li").first).to_be_visible()
        page.screenshot(path=str(tmp_path / "dashboard.png"), full_page=True)
        expect(page.locator("#pause")).to_be_enabled(timeout=10_000)
        page.locator("#pause").click()
        paused = dashboard_pauses(dashboard, lambda m: True)
        assert paused, "pressing Pause logs a pause from the dashboard"
        assert paused[0]["verdict"]["legal"]
        # Cy presses the Pause button beside their own name: the pause is theirs
        expect(page.locator(".seat-pause")).to_have_count(3)
        page.locator('.seat-pause[data-seat="2"]').click()
        mine = dashboard_pauses(dashboard, lambda m: m["player"] == 2 and m["seq"] > paused[0]["seq"])
        assert mine and mine[0]["verdict"]["legal"], "a player's own Pause button logs their pause"
        assert errors == []
        browser.close()


def test_the_last_camera_frame_shows_when_no_other_follows(make_app):
    # After a film's last frame (or with a camera that sends one frame and stops) no further
    # frame comes: the page must still finish loading and show that frame.
    import threading

    import cv2
    import numpy as np
    from werkzeug.serving import make_server

    from companion.session import FrameHub, encode_jpeg

    hub = FrameHub()
    image = np.zeros((240, 320, 3), np.uint8)
    cv2.putText(image, "last", (90, 140), cv2.FONT_HERSHEY_SIMPLEX, 2, (255, 255, 255), 3)
    hub.publish(encode_jpeg(image))
    app = make_app("gladiola", FRAME_HUB=hub, STREAM_WAIT=0.5)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_port}/?lang=en", timeout=15_000)  # the load event comes
            width = page.wait_for_function("document.getElementById('camera').naturalWidth", timeout=10_000)
            assert width.json_value() == 320
            browser.close()
    finally:
        server.shutdown()


def test_a_zone_is_drawn_by_dragging_on_the_camera_image(make_app):
    # A player opens "Zones of the table", chooses the walk pile, presses Draw and drags a
    # rectangle on the camera image: the zone arrives in the image's own pixels (the image is
    # shown scaled), and the list says it was drawn.
    import threading

    import numpy as np
    from werkzeug.serving import make_server

    from companion.session import FrameHub, encode_jpeg
    from companion.sources import Frame
    from tests.dashboard.conftest import camera_moves

    moves = camera_moves("gladiola", 1280, 720)
    hub = FrameHub()
    hub.publish(encode_jpeg(moves.annotate(Frame(0, 0.0, np.zeros((720, 1280, 3), np.uint8)))))
    app = make_app("gladiola", FRAME_HUB=hub, STREAM_WAIT=0.5, MOVES=moves)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(f"http://127.0.0.1:{server.server_port}/?lang=en", timeout=15_000)
            page.wait_for_function("document.getElementById('camera').naturalWidth === 1280", timeout=10_000)
            box = page.locator("#zone-box")
            expect(box).to_be_visible(timeout=10_000)
            box.locator("summary").click()
            page.select_option("#zone-kind", "walk-pile")
            page.locator("#zone-draw").click()
            shown = page.locator("#camera").bounding_box()
            scale = 1280 / shown["width"]
            x0, y0 = shown["x"] + 320 / scale, shown["y"] + 180 / scale  # image pixels (320, 180)
            x1, y1 = shown["x"] + 640 / scale, shown["y"] + 540 / scale  # ... to (640, 540)
            page.mouse.move(x0, y0)
            page.mouse.down()
            page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
            page.mouse.move(x1, y1, steps=4)
            page.mouse.up()
            expect(page.locator("#zone-list li")).to_have_text(["walk pile: drawn"], timeout=10_000)
            (zone,) = moves.tracker.drawn_zones.zones
            xs, ys = [x for x, _ in zone.polygon], [y for _, y in zone.polygon]
            assert abs(min(xs) - 320) < 4 and abs(max(xs) - 640) < 4 and abs(min(ys) - 180) < 4 and abs(max(ys) - 540) < 4
            page.locator("#zone-forget").click()
            expect(page.locator("#zone-list li")).to_have_count(0, timeout=10_000)
            assert moves.tracker.drawn_zones.zones == () and errors == []
            browser.close()
    finally:
        server.shutdown()
