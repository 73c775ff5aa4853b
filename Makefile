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
# goes to .demo/, not to your own log.
demo: setup
	@mkdir -p .demo
	$(BIN)/companion play --game gladiola --players Anna,Ben,Cleo --first-player 0 \
		--source samples/videos/gladiola.mp4 --db .demo/games.sqlite3

test:
	@bash scripts/setup.sh --tests
	$(BIN)/python -m pytest -q
