-- Day files the exhaust API wrote to the object store, with the event count each was written from.
CREATE TABLE "exhaust_files" (
    "dataset_id" VARCHAR(200) NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "day" DATE NOT NULL,
    "events" BIGINT NOT NULL,
    "object_key" VARCHAR(1024) NOT NULL,
    "written_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "exhaust_files_pkey" PRIMARY KEY ("dataset_id","kind","day")
);
