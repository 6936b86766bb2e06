# Two entry points: `make lab` (the course) and `make test` (everything CI runs).
# Both create .venv on first use and reinstall when pyproject.toml changes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: lab test check lint bench clean claude-code drift fuzz-oracle hub hub-class hub-clean i18n english

# The edition a learner opens: ja (the default, notebooks/) or en (the English edition, en/,
# built from i18n/en/*.po by `make english`). Not LANG: that is the locale.
EDITION ?= ja
ifeq ($(EDITION),ja)
EDITION_ROOT :=
else ifeq ($(EDITION),en)
EDITION_ROOT := en/
else
$(error EDITION=$(EDITION) is not an edition of the course: use ja or en)
endif

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[course,dev]'
	touch $(STAMP)

# Jupyter refuses to run as root unless told; containers and cloud VMs often are root.
LAB_ARGS ?= $(if $(filter 0,$(shell id -u)),--allow-root)

# Serve the repository root (so exercises/ and solutions/ are reachable from the file
# browser) and open chapter 00; the news pop-up and the update check are switched off.
LAB_SETTINGS := --LabApp.news_url=None \
	--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate \
	--ServerApp.root_dir=$(CURDIR)

LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json

$(LAB_OVERRIDES): lab-overrides.json $(STAMP)
	mkdir -p $(dir $@) && cp lab-overrides.json $@

lab: $(STAMP) $(LAB_OVERRIDES)
	$(BIN)/jupyter lab $(LAB_ARGS) $(LAB_SETTINGS) $(EDITION_ROOT)notebooks/00_start_here.ipynb

# The English edition from one source: `make i18n` brings i18n/en/*.po up to date with the
# Japanese notebooks (new cells, changed ones marked fuzzy); `make english` builds and runs en/.
i18n: $(STAMP)
	$(BIN)/python -m mcpmini.course.edition extract
english: $(STAMP)
	$(BIN)/python -m mcpmini.course.edition build

# ruff and mypy first: a lint or type error fails fast, before the long notebook run.
lint: $(STAMP)
	$(BIN)/ruff check mcpmini tests bench examples conftest.py
	$(BIN)/ruff format --check mcpmini tests bench examples conftest.py
	$(BIN)/mypy

test: lint .hub/.installed
	$(BIN)/python -m pytest

# The developer loop: lint, types and every test except the notebooks, the browser test, the
# differential suite against the real Claude Code (tests/oracle: minutes, not seconds) and the
# gate's tripwire property test (marked tripwire: about a minute of its own).
check: lint
	$(BIN)/python -m pytest tests -q --ignore=tests/browser --ignore=tests/oracle -m "not tripwire"

bench: $(STAMP)
	@for f in bench/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

# The pinned real Claude Code (the oracle) into .claude-code/ from npm.
claude-code: $(STAMP)
	$(BIN)/python -c 'from mcpmini.oracle import install_claude; print(install_claude())'

# The differential suite against the newest Claude Code (npm view), installed beside the pin
# in .claude-code-latest/: prints every verdict that changed and mcpmini's agreement with it.
drift: $(STAMP)
	$(BIN)/python -m mcpmini.oracle.drift $(if $(AGAINST),--against $(AGAINST))

# The differential fuzzer against the pinned Claude Code: N generated calls from SEED; each
# disagreement is printed minimized, ready to paste into mcpmini/oracle/data/permissions/.
N ?= 200
SEED ?= 32
fuzz-oracle: $(STAMP)
	$(BIN)/python -m mcpmini.oracle.fuzz -n $(N) --seed $(SEED)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis

# A JupyterHub for a workshop on one machine: `make hub ROSTER=roster.txt` (one learner a line),
# `EDITION=en` for the English edition (built first by `make english`). jupyterhub and its idle
# culler from PyPI, configurable-http-proxy from npm into .hub/; prints the URL and each account's
# first-login token, then runs the hub (Ctrl-C stops it). As root each learner's server runs as
# an OS user of their own (mcpmini-<name>, home under .hub/homes, owner-only), removed when the
# hub stops (`make hub-clean` after a crash); those users must be able to run the course's
# Python, so when it lies in a folder closed to them (a pyenv under /root) the hub gets a
# virtual environment of its own, .hub/venv, made from the system Python. Not as root the
# learners share this user, and a learner's kernel can read the others' files.
# The class switches (worked solutions off, hints on, in a new hub): SOLUTIONS=on|off HINTS=on|off
# with `make hub`, or `make hub-class SOLUTIONS=on` while it runs.
ROSTER ?= roster.txt
CHP := node .hub/node_modules/configurable-http-proxy/bin/configurable-http-proxy
HUB_PORT ?= 8000
HUB_SYSTEM_PYTHON ?= /usr/bin/python3
HUB_PY = $(if $(wildcard .hub/venv/.installed),.hub/venv/bin/python,$(BIN)/python)
HUB_SWITCHES = $(if $(SOLUTIONS),--solutions $(SOLUTIONS)) $(if $(HINTS),--hints $(HINTS))
.hub/.installed: $(STAMP)
	$(BIN)/python -m pip install --quiet 'jupyterhub>=5' 'jupyterhub-idle-culler>=1.2'
	mkdir -p .hub && npm install --silent --no-audit --no-fund --prefix .hub configurable-http-proxy
	@# an install seen to come out incomplete once (a dependency without its dist/): check it
	@# runs, and install afresh once if it does not
	$(CHP) --version >/dev/null 2>&1 || { rm -rf .hub/node_modules && \
		npm install --silent --no-audit --no-fund --prefix .hub configurable-http-proxy && \
		$(CHP) --version >/dev/null; }
	if [ "$$(id -u)" = 0 ] && ! $(BIN)/python -m mcpmini.course.classroom.hub --python-reachable; \
		then $(MAKE) .hub/venv/.installed; fi
	touch $@
.hub/venv/.installed: pyproject.toml lab-overrides.json
	test -x .hub/venv/bin/python || $(HUB_SYSTEM_PYTHON) -m venv .hub/venv
	.hub/venv/bin/python -m pip install --quiet --upgrade pip
	.hub/venv/bin/python -m pip install --quiet -e '.[course]' 'jupyterhub>=5' 'jupyterhub-idle-culler>=1.2'
	mkdir -p .hub/venv/share/jupyter/lab/settings
	cp lab-overrides.json .hub/venv/share/jupyter/lab/settings/overrides.json
	chmod -R a+rX .hub/venv
	touch $@
hub: .hub/.installed $(LAB_OVERRIDES)
	$(HUB_PY) -m mcpmini.course.classroom.hub $(ROSTER) --port $(HUB_PORT) --edition $(EDITION) \
		$(HUB_SWITCHES) $(if $(HUB_START_TIMEOUT),--start-timeout $(HUB_START_TIMEOUT))
hub-class: $(STAMP)
	$(HUB_PY) -m mcpmini.course.classroom.hub $(HUB_SWITCHES)
hub-clean: $(STAMP)
	$(HUB_PY) -m mcpmini.course.classroom.hub --remove-accounts
