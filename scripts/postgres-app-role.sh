#!/bin/sh
# PostgreSQL's image runs this once, on a fresh data volume
# (/docker-entrypoint-initdb.d): the application's login role, which owns
# nothing. The web service's start grants it row access after the migrations
# (`manage.py grant_app_role`). Without POSTGRES_APP_PASSWORD nothing is made
# and the application connects as the owner, as before (docs/operations.md).
set -eu
if [ -z "${POSTGRES_APP_PASSWORD:-}" ]; then
    echo "POSTGRES_APP_PASSWORD unset: no application role made" >&2
    exit 0
fi
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v app="${POSTGRES_APP_USER:-registry_app}" -v password="$POSTGRES_APP_PASSWORD" <<'SQL'
CREATE ROLE :"app" LOGIN PASSWORD :'password';
SQL
