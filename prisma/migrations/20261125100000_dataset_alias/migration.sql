-- A Live dataset may be given an alias, another name its data can be queried by (the original's
-- POST /v2/datasets/alias). It lives on the live row; no two live rows share one.
ALTER TABLE "datasets" ADD COLUMN "alias" VARCHAR(200);
CREATE INDEX "datasets_alias_idx" ON "datasets"("alias");
CREATE UNIQUE INDEX "datasets_live_alias_key" ON "datasets"("alias") WHERE "stage" = 'live';
