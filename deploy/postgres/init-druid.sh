#!/bin/sh
# Druid keeps its own metadata in the same PostgreSQL server, in a database of its own, as user
# druid with the password of the secret druid-db-password (deploy/make-secrets.sh).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -v password="$(cat /run/secrets/druid-db-password)" <<'SQL'
CREATE USER druid WITH PASSWORD :'password';
CREATE DATABASE druid OWNER druid;
SQL
