# The two commands a newcomer needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The settings keep DEBUG off unless it is set; these are development targets.
export DEBUG ?= 1

.PHONY: demo test lint faults bench bench-ingest bench-pages bench-registry bench-report loadtest serve clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	$(PY) manage.py runserver 127.0.0.1:8000

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest -n 2 $(PYTEST_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# The fault suite (issue 20): private PostgreSQL + Redis servers, real workers;
# kills, restarts and fills them. Skips (exit 0) unless DATABASE_URL is PostgreSQL.
faults: $(STAMP)
	$(PY) -m tests.faults.stack $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) -m ranking.benchmark
	$(PY) -m casemodels.benchmark

# 1 000 000 generated result rows through read_upload → validated → commit_results
# against DATABASE_URL (rolled back afterwards); figures in docs/benchmarks.md.
bench-ingest: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) -m analysis.bench_ingest

# Every demo page's first load per role (issue 28: <= 500 ms), slowest first,
# against the demo database (scripts/bench_pages.py); figures in docs/benchmarks.md.
bench-pages: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	$(PY) scripts/bench_pages.py --repeat 3 $(BENCH_ARGS)

# Not in CI: 10 000 seeded registrations, gunicorn + PostgreSQL, every list page
# with 1 and 8 clients (scripts/bench_registry.sh); figures in docs/benchmarks.md.
bench-registry: $(STAMP)
	scripts/bench_registry.sh

# The PDF report from a stored analysis (MSD demo; 19 algorithms x 10 tasks),
# now and the way it was rendered before, in one run; figures in docs/.
bench-report: $(STAMP)
	$(PY) -m analysis.bench_report

# Not in CI: gunicorn + PostgreSQL, 50 clients for 2 minutes (scripts/loadtest.sh).
loadtest: $(STAMP)
	scripts/loadtest.sh

clean:
	rm -rf $(VENV) db.sqlite3 media
