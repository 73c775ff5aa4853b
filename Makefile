# Two entry points, each working on a fresh Debian machine with Python 3.11:
#   make demo   set everything up and run the main job on the bundled sample
#   make test   set everything up and run the tests
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test

setup:
	@bash scripts/setup.sh

# The main job: the dashboard replays the bundled Via Gladiola game (video -> vision ->
# tracking -> verdicts); open the printed address, stop with Ctrl-C. The game log of the demo
# goes to .demo/, not to your own log. A pause happens in a player's hand, where no camera
# sees it: the filmed players pressed their Pause buttons at these video frames (FRAME:SEAT, as
# `python scripts/eval_replay.py - samples/videos/gladiola.log.json --frames
# samples/videos/gladiola.truth.json.gz --print-pauses` reads them from the film's truth).
DEMO_PAUSES := 28:1,31:2,52:1,163:0,238:2,331:0,334:1,445:0,484:0,487:1

demo: setup
	@mkdir -p .demo
	$(BIN)/companion play --game gladiola --players Anna,Ben,Cleo --first-player 0 \
		--source samples/videos/gladiola.mp4 --pause-at $(DEMO_PAUSES) --db .demo/games.sqlite3

test:
	@bash scripts/setup.sh --tests
	$(BIN)/python -m pytest -q
