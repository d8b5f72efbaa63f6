-- Authentication (issue 10): the session store behind the `connect.sid` cookie and API keys for
-- machine clients. Written by hand.

-- The session store, in the layout of connect-pg-simple (express-session's PostgreSQL store), so a
-- web console using that store and this gateway can share the table. IF NOT EXISTS: the console may
-- have created it already in a shared database.
CREATE TABLE IF NOT EXISTS "session" (
    "sid" VARCHAR NOT NULL,
    "sess" JSON NOT NULL,
    "expire" TIMESTAMP(6) NOT NULL,

    CONSTRAINT "session_pkey" PRIMARY KEY ("sid")
);

CREATE INDEX IF NOT EXISTS "IDX_session_expire" ON "session"("expire");

-- API keys: only the SHA-256 of a key is kept; the key itself is shown once, when it is made.
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "name" VARCHAR(120) NOT NULL,
    "key_hash" CHAR(64) NOT NULL,
    "key_prefix" VARCHAR(16) NOT NULL,
    "roles" VARCHAR(64)[] NOT NULL,
    "created_by" VARCHAR(120) NOT NULL,
    "created_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "api_keys_name_key" ON "api_keys"("name");

CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");
