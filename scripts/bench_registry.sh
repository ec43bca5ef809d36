#!/usr/bin/env bash
# `make bench-registry` (not in CI): N seeded registrations (default 10 000) in
# PostgreSQL, verified, served by gunicorn with production settings; then every
# list page and endpoint, 1 client then 8 concurrent clients
# (scripts/bench_registry.py). Figures: docs/benchmarks.md.
# BENCH_DATABASE_URL (default: a `registry_bench` database, created if missing
# and kept for the next run), BENCH_COUNT, BENCH_SEED, BENCH_REPEAT, BENCH_PORT,
# BENCH_WORKERS, BENCH_THREADS.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/production_server.sh
PY=.venv/bin/python
PORT="${BENCH_PORT:-8766}"
COUNT="${BENCH_COUNT:-10000}"
DB_URL="${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/registry_bench}"
WORKERS="${BENCH_WORKERS:-$DEFAULT_WORKERS}"
THREADS="${BENCH_THREADS:-$DEFAULT_THREADS}"
PLAN="$(mktemp /tmp/bench-registry-XXXX.json)"

production_settings "$DB_URL" bench
# `prepare` signs in with Django's test client (host testserver, plain HTTP).
export ALLOWED_HOSTS=127.0.0.1,localhost,testserver SECURE_COOKIES=false

if [ -z "${BENCH_DATABASE_URL:-}" ]; then
  createdb -h 127.0.0.1 -U postgres registry_bench 2>/dev/null || true
fi
$PY manage.py migrate --noinput -v0
have=$($PY manage.py shell -c "from registry.models import Registration as R; print(R.objects.filter(call__slug__startswith='seed-').count())" 2>/dev/null | tail -1)
if [ "$have" -lt "$COUNT" ]; then
  echo "seed_registry: $have seeded, adding $(( COUNT - have ))"
  /usr/bin/time -f "seed_registry: %e s wall, %M KB max RSS" \
    $PY manage.py seed_registry --count "$(( COUNT - have ))" --seed "${BENCH_SEED:-0}"
fi
/usr/bin/time -f "verify_registrations: %e s wall (with Django start-up)" \
  $PY manage.py verify_registrations
$PY manage.py collectstatic --noinput -v0
$PY scripts/bench_registry.py prepare "$PLAN"

start_gunicorn "$PORT" "$WORKERS" "$THREADS"
trap 'stop_gunicorn; rm -f "$PLAN"' EXIT
wait_until_served "http://127.0.0.1:$PORT/registry/" 150
echo "gunicorn: $WORKERS workers x $THREADS threads; PostgreSQL ${DB_URL##*/}; $(nproc) CPUs"
$PY scripts/bench_registry.py measure "$PLAN" --base "http://127.0.0.1:$PORT" \
  --repeat "${BENCH_REPEAT:-20}"
