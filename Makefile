# Two entry points, each working on a fresh Debian machine with Python 3.11:
#   make demo   set everything up and run the main job on the bundled sample
#   make test   set everything up and run the tests
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test

setup:
	@bash scripts/setup.sh

demo: setup
	@for game in gladiola valais appia; do \
		echo "=== companion simulate --game $$game --players 3 --seed 1 ==="; \
		$(BIN)/companion simulate --game $$game --players 3 --seed 1 || exit 1; \
		echo; \
	done

test:
	@bash scripts/setup.sh --tests
	$(BIN)/python -m pytest -q
