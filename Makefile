# make demo | make test | make soak | make bench | make lint | make check-catalogue
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ARGS ?=

.PHONY: demo test soak bench lint check-catalogue install broker browser postgres clean

$(BIN)/python:
	@command -v $(PY) >/dev/null 2>&1 || { echo "need $(PY) (or run: make PY=python3 ...)"; exit 1; }
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[demo,test,metrics]'
	@touch $(STAMP)

install: $(STAMP)

# mosquitto (with mosquitto_passwd) is needed by the integration tests, and openssl for the
# certificates of the TLS tests (deploy/make-certs.sh); install them when the machine lacks them
broker:
	@{ command -v mosquitto >/dev/null 2>&1 || test -x /usr/sbin/mosquitto; } && \
	  command -v mosquitto_passwd >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1 || { \
	  echo "installing mosquitto and openssl"; \
	  SUDO=$$(command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq mosquitto openssl >/dev/null; }

# headless Chromium and its driver, for the tests that look at the web pages; from the
# distribution's packages when the machine lacks them
browser:
	@{ command -v chromium && command -v chromedriver; } >/dev/null 2>&1 || { \
	  echo "installing chromium"; \
	  SUDO=$$(command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver >/dev/null; }

# PostgreSQL, for the test of the floor console's store on it (a private cluster per test run)
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  echo "installing postgresql"; \
	  SUDO=$$(command -v sudo >/dev/null && [ "$$(id -u)" != 0 ] && echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null; }

demo: install
	$(BIN)/python -m tablesvc.commands.demo $(ARGS)

# three workers on a two-core box: most tests wait on processes, ports and the broker
TEST_WORKERS ?= 3
test: install broker browser postgres
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal $(ARGS)

# the room soaks: 4000 accidents through the core alone (minutes), then at least 100 accidents of
# random kind, length and moment to live tables at twenty times the demo's pace, each judged;
# the live one prints its seed (again: make soak ARGS="--seed N")
soak: install broker
	$(BIN)/python -m tests.room_soak --quiet --accidents 4000
	$(BIN)/python -m tests.soak.live_soak $(ARGS)

bench: install broker
	$(BIN)/python -m bench $(ARGS)

lint: install
	$(BIN)/ruff check tablesvc drivers simulators tests bench
	$(BIN)/mypy

# CI's check that the project's rules catalogue (tablesvc/rules/catalogue.toml) still says what
# RULES.md says, where CI checks RULES.md out beside the repository: every rule ID, title, alert
# name and observability in both, or the list of those that differ. Without RULES.md it says so
# and fails; make test needs nothing outside the repository and never runs it
RULES_MD ?= ../shared/RULES.md
check-catalogue: install
	$(BIN)/python -m tablesvc.rules.check $(RULES_MD)

clean:
	rm -rf $(VENV) build *.egg-info
