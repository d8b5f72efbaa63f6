#!/bin/sh
# Makes the secrets the compose files mount (docker-compose.yml, deploy/scale/docker-compose.yml),
# as files in deploy/secrets/ (or the folder given): random keys and passwords, and the connection
# strings and credential files made of them. A file that exists is kept, so a database initialised
# with a password keeps it and sealed connector configurations stay readable: run it again freely.
# The folder is yours only (0700); the files in it are readable (0644) because compose mounts each
# one into its containers as is, where it is read by their own users.
set -eu
dir=${1:-$(dirname "$0")/secrets}
mkdir -p "$dir"
chmod 700 "$dir"
umask 022

random() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }
keep() { [ -s "$dir/$1" ] || printf '%s\n' "$2" > "$dir/$1"; }
value() { tr -d '\n' < "$dir/$1"; }

keep jwt-secret "$(random)"
keep connector-config-key "$(random)"
keep postgres-password "$(random)"
keep druid-db-password "$(random)"
keep minio-root-user gateway
keep minio-root-password "$(random)"

password=$(value postgres-password)
# The gateway's pool: PostgreSQL itself (docker-compose.yml), or PgBouncer (the scale stack), where
# LISTEN still goes straight to PostgreSQL (DATABASE_LISTEN_URL: database-url).
keep database-url "postgresql://gateway:$password@postgres:5432/gateway"
keep pgbouncer-url "postgresql://gateway:$password@pgbouncer:6432/gateway"
keep pgbouncer-userlist "\"gateway\" \"$password\""
# The AWS SDK's own file form (AWS_SHARED_CREDENTIALS_FILE): the gateway signs with MinIO's user.
keep s3-credentials "$(printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s' "$(value minio-root-user)" "$(value minio-root-password)")"
echo "secrets in $dir"
