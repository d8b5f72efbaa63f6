-- Rate-limit decisions in batches (src/auth/shared-rate-limit.ts): a gateway sends the decisions
-- that arrived while its previous call was under way as one call, so a busy copy makes one round
-- trip for many callers' decisions instead of one UPSERT each. The decisions come sorted by key
-- (every copy sorts the same way, so two copies' calls never wait on each other's rows in a cycle),
-- and each caller's in the order they arrived. Per key: the row is created or locked once, its
-- decisions are made one after another on the generic cell rate algorithm's tat (see the source
-- file), and the row is written once. Answers one row per decision, in the order given.
CREATE OR REPLACE FUNCTION rate_limit_decide(keys TEXT[], costs DOUBLE PRECISION[], tolerances DOUBLE PRECISION[])
RETURNS TABLE (fits BOOLEAN, full_at_ms DOUBLE PRECISION, ahead_ms DOUBLE PRECISION)
LANGUAGE plpgsql AS $$
DECLARE
  -- The database's clock is the one clock of all copies; one instant for the whole batch.
  now_ms DOUBLE PRECISION := extract(epoch FROM clock_timestamp()) * 1000;
  bucket_key TEXT;
  bucket_tat DOUBLE PRECISION;
  last_fits BOOLEAN;
BEGIN
  FOR i IN 1 .. coalesce(array_length(keys, 1), 0) LOOP
    IF bucket_key IS DISTINCT FROM keys[i] THEN
      IF bucket_key IS NOT NULL THEN
        UPDATE rate_limit_buckets SET tat_ms = bucket_tat, allowed = last_fits, seen_ms = now_ms WHERE key = bucket_key;
      END IF;
      bucket_key := keys[i];
      -- A new caller's bucket is full (tat = now); an existing row is locked until the batch commits.
      INSERT INTO rate_limit_buckets AS b (key, tat_ms, allowed, seen_ms) VALUES (bucket_key, now_ms, true, now_ms)
      ON CONFLICT (key) DO UPDATE SET seen_ms = EXCLUDED.seen_ms
      RETURNING greatest(b.tat_ms, now_ms) INTO bucket_tat;
    END IF;
    last_fits := bucket_tat + costs[i] - now_ms <= tolerances[i];
    IF last_fits THEN
      bucket_tat := bucket_tat + costs[i];
    END IF;
    fits := last_fits;
    full_at_ms := bucket_tat;
    ahead_ms := bucket_tat - now_ms;
    RETURN NEXT;
  END LOOP;
  IF bucket_key IS NOT NULL THEN
    UPDATE rate_limit_buckets SET tat_ms = bucket_tat, allowed = last_fits, seen_ms = now_ms WHERE key = bucket_key;
  END IF;
END
$$;
