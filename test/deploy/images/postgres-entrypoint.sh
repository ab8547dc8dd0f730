#!/bin/sh
# Entry point of the tests' stand-in for the official postgres:15 image (made from Debian's
# postgresql-15, test/deploy/helpers/base-images.ts): the same contract deploy/compose.yaml relies
# on. An empty PGDATA is initialised with POSTGRES_USER / POSTGRES_PASSWORD and POSTGRES_DB is
# created; then the server runs in the foreground, listening on every address, password required.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
bin=/usr/lib/postgresql/15/bin
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile="$(mktemp)"
  printf '%s' "$POSTGRES_PASSWORD" >"$pwfile"
  "$bin/initdb" -D "$PGDATA" -E UTF8 --locale=C.UTF-8 -U "$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  db="${POSTGRES_DB:-$POSTGRES_USER}"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$POSTGRES_USER\";" | "$bin/postgres" --single -D "$PGDATA" postgres >/dev/null
  fi
fi
exec "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/tmp
