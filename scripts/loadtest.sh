#!/usr/bin/env bash
# `make loadtest` (not in CI): gunicorn + PostgreSQL with the demo data, then
# 50 concurrent clients for 2 minutes on registry pages and API.
# LOADTEST_DATABASE_URL (default: a throwaway `registry_loadtest` database),
# LOADTEST_CLIENTS, LOADTEST_SECONDS, LOADTEST_WORKERS, LOADTEST_THREADS,
# LOADTEST_PORT.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/production_server.sh
PY=.venv/bin/python
PORT="${LOADTEST_PORT:-8765}"
DB_URL="${LOADTEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/registry_loadtest}"
WORKERS="${LOADTEST_WORKERS:-$DEFAULT_WORKERS}"
THREADS="${LOADTEST_THREADS:-$DEFAULT_THREADS}"

production_settings "$DB_URL" loadtest
export ALLOWED_HOSTS=127.0.0.1,localhost

db_name="${DB_URL##*/}"
if [ -z "${LOADTEST_DATABASE_URL:-}" ]; then
  dropdb -h 127.0.0.1 -U postgres --if-exists "$db_name"
  createdb -h 127.0.0.1 -U postgres "$db_name"
fi
$PY manage.py migrate --noinput -v0
$PY manage.py load_demo >/dev/null
$PY manage.py collectstatic --noinput -v0

start_gunicorn "$PORT" "$WORKERS" "$THREADS"
trap stop_gunicorn EXIT
wait_until_served "http://127.0.0.1:$PORT/" 100
echo "gunicorn: $WORKERS workers x $THREADS threads, PostgreSQL $db_name, CONN_MAX_AGE=${CONN_MAX_AGE:-60}"
$PY scripts/loadtest.py --base "http://127.0.0.1:$PORT" \
  --clients "${LOADTEST_CLIENTS:-50}" --seconds "${LOADTEST_SECONDS:-120}"
