# Sourced by scripts/bench_registry.sh and scripts/loadtest.sh (not run on its
# own): the production settings of a local measurement, and gunicorn serving them
# (its default size below).

# The measured server size, a script's default: nproc + 1 GIL-bound processes
# keep the CPUs busy; 8 threads each cover the waits on PostgreSQL (measured
# better than 2 x nproc + 1 workers x 4 threads).
DEFAULT_WORKERS=$(( $(nproc) + 1 ))
DEFAULT_THREADS=8

# production_settings DATABASE_URL NAME: config.settings.production against that
# database with a throwaway secret key (NAME-<time>-…), plain HTTP, quiet logs.
production_settings() {
  export DJANGO_SETTINGS_MODULE=config.settings.production
  export DATABASE_URL="$1"
  export SECRET_KEY="$2-$(date +%s)-not-a-real-secret-xxxxxxxxxxxxxxxxxxxxxx"
  export SECURE_SSL_REDIRECT=false LOG_LEVEL=WARNING
}

# start_gunicorn PORT WORKERS THREADS: gunicorn (gthread workers, app preloaded)
# on 127.0.0.1:PORT in the background; its process id in GUNICORN.
start_gunicorn() {
  .venv/bin/gunicorn config.wsgi:application --bind "127.0.0.1:$1" \
    --workers "$2" --worker-class gthread --threads "$3" --preload \
    --log-level warning &
  GUNICORN=$!
}

# stop_gunicorn: stops the server start_gunicorn started (for an EXIT trap).
stop_gunicorn() {
  kill "$GUNICORN" 2>/dev/null
  wait "$GUNICORN" 2>/dev/null || true
}

# wait_until_served URL TRIES: polls URL every 0.2 s until it answers, at most
# TRIES times.
wait_until_served() {
  for _ in $(seq "$2"); do
    curl -sf -o /dev/null "$1" && break
    sleep 0.2
  done
}
