#!/bin/sh
# First start: a cluster in $PGDATA with the role and database `livestate` (password
# $POSTGRES_PASSWORD, SCRAM over the network). Every start: the server in the foreground.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "postgres: set POSTGRES_PASSWORD" >&2; exit 1; }
    initdb -D "$PGDATA" -U postgres -E UTF8 --locale=C.UTF-8 --auth=peer >/dev/null
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    # The socket for this container's own tools; the network only with the password.
    printf 'local all all peer\nhost all all all scram-sha-256\n' > "$PGDATA/pg_hba.conf"
    password=$(printf '%s' "$POSTGRES_PASSWORD" | sed "s/'/''/g")
    postgres --single -D "$PGDATA" postgres >/tmp/init.log 2>&1 <<SQL || { cat /tmp/init.log >&2; exit 1; }
CREATE ROLE livestate LOGIN PASSWORD '$password';
CREATE DATABASE livestate OWNER livestate;
SQL
    echo "postgres: new cluster in $PGDATA, database livestate"
fi
exec postgres -D "$PGDATA"
