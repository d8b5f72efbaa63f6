-- The password of the login role template queries run as (src/platform/database/query-reader.ts):
-- made once per database, so every gateway on this database connects with the same one.
CREATE TABLE "query_reader_credentials" (
    "role_name" VARCHAR(63) NOT NULL,
    "password" VARCHAR(128) NOT NULL,
    "created_date" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "query_reader_credentials_pkey" PRIMARY KEY ("role_name")
);
