-- Insights: endpoints, diff signatures and field statistics per gate and
-- time window, read from rollups, never from the capture rows.
-- docs/insights.md says what they mean; docs/storage.md "Insight rollups"
-- has the design, the measurements and the limits.

-- Explicit endpoint templates of a gate, in order: the first that matches
-- a path names its endpoint (docs/insights.md "Explicit templates").
ALTER TABLE gates ADD COLUMN endpoints jsonb NOT NULL DEFAULT '[]';

-- What each capture is counted under: its route template and, for a
-- capture with a diff, its signature. NULL template: stored before this
-- migration and not yet given one by the backfill the migrator runs
-- (src/store/insight-backfill.ts); such rows count in no insight rollup.
ALTER TABLE requests ADD COLUMN template text COLLATE "C";
ALTER TABLE requests ADD COLUMN signature_id text COLLATE "C";

-- listRequests' `signature` and `template` filters. Only captures with a
-- signature are in the first; the template is cut to 512 characters as
-- paths are in requests_gate_path_idx (btree's entry size limit).
CREATE INDEX requests_gate_signature_created_idx ON requests (gate_id, signature_id, created_at, id)
  WHERE signature_id IS NOT NULL;
CREATE INDEX requests_gate_template_created_idx ON requests (gate_id, left(template, 512), created_at, id);
-- What the backfill has left to do; empty once it is done (new captures always get a template).
CREATE INDEX requests_template_missing_idx ON requests (created_at, id) WHERE template IS NULL;

-- The templates a gate has counted captures under, for the cap of
-- MAX_TEMPLATES_PER_GATE (src/insights/endpoint.ts): past it, new ones
-- count as `(other)`, which is never listed here. Never pruned, so a
-- template, once admitted, stays admitted for every replica.
CREATE TABLE insight_templates (
  gate_id  uuid NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
  template text COLLATE "C" NOT NULL
);
CREATE UNIQUE INDEX insight_templates_key ON insight_templates (gate_id, md5(template));

-- Signature definitions, stored once per gate (src/insights/signature.ts):
-- `ops` the generalised [{op, path}] of a diff signature ([] otherwise),
-- the error classes of an error one. Capped like the templates, the
-- overflow ("(other)") ones aside; never pruned.
CREATE TABLE insight_signatures (
  gate_id      uuid    NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
  id           text    COLLATE "C" NOT NULL,
  kind         text    NOT NULL CHECK (kind IN ('diff', 'error')),
  method       text    COLLATE "C" NOT NULL,
  template     text    COLLATE "C" NOT NULL,
  overflow     boolean NOT NULL,
  ops          jsonb   NOT NULL,
  truncated    boolean NOT NULL,
  live_error   text,
  shadow_error text,
  PRIMARY KEY (gate_id, id)
);

-- The bucket of a latency for the histograms below: the number of these
-- thresholds at or below it (LATENCY_THRESHOLDS_MS in
-- src/insights/latency-histogram.ts, kept equal by a test).
CREATE FUNCTION latency_bucket(ms bigint) RETURNS smallint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT width_bucket(ms, '{1,2,3,4,5,6,7,8,10,13,16,20,25,32,40,51,64,81,102,128,161,203,256,323,406,512,645,813,1024,1290,1625,2048,2580,3251,4096,5161,6502,8192,10321,13004,16384,20643,26008,32768,41285,52016,65536}'::bigint[])::smallint $$;

-- The start of a timestamp's bucket of `grain` minutes (1 or 60), from
-- the same fixed origin as request_bucket.
CREATE FUNCTION insight_bucket(ts timestamptz, grain smallint) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT date_bin(grain * interval '1 minute', ts, timestamptz '2000-01-01 00:00:00+00') $$;

-- Per gate, endpoint (method, template) and bucket, at two grains: every
-- capture counts once in its minute (grain 1) and once in its hour (grain
-- 60), so that a window reads whole hours and at most two partial hours
-- of minutes. Maintained in the same statement as every insert, backfill
-- and delete of requests, sharded and compacted like request_rollups.
-- live_NN / shadow_NN: how many latencies fell in bucket NN.
CREATE TABLE endpoint_rollups (
  gate_id        uuid        NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
  grain          smallint    NOT NULL,
  bucket         timestamptz NOT NULL,
  method         text        COLLATE "C" NOT NULL,
  template       text        COLLATE "C" NOT NULL,
  shard          smallint    NOT NULL,
  request_count  bigint      NOT NULL,
  has_diff_count bigint      NOT NULL,
  diff_count     bigint      NOT NULL,
  error_count    bigint      NOT NULL,
  live_00 integer NOT NULL, live_01 integer NOT NULL, live_02 integer NOT NULL, live_03 integer NOT NULL, live_04 integer NOT NULL, live_05 integer NOT NULL, live_06 integer NOT NULL, live_07 integer NOT NULL, live_08 integer NOT NULL, live_09 integer NOT NULL, live_10 integer NOT NULL, live_11 integer NOT NULL,
  live_12 integer NOT NULL, live_13 integer NOT NULL, live_14 integer NOT NULL, live_15 integer NOT NULL, live_16 integer NOT NULL, live_17 integer NOT NULL, live_18 integer NOT NULL, live_19 integer NOT NULL, live_20 integer NOT NULL, live_21 integer NOT NULL, live_22 integer NOT NULL, live_23 integer NOT NULL,
  live_24 integer NOT NULL, live_25 integer NOT NULL, live_26 integer NOT NULL, live_27 integer NOT NULL, live_28 integer NOT NULL, live_29 integer NOT NULL, live_30 integer NOT NULL, live_31 integer NOT NULL, live_32 integer NOT NULL, live_33 integer NOT NULL, live_34 integer NOT NULL, live_35 integer NOT NULL,
  live_36 integer NOT NULL, live_37 integer NOT NULL, live_38 integer NOT NULL, live_39 integer NOT NULL, live_40 integer NOT NULL, live_41 integer NOT NULL, live_42 integer NOT NULL, live_43 integer NOT NULL, live_44 integer NOT NULL, live_45 integer NOT NULL, live_46 integer NOT NULL, live_47 integer NOT NULL,
  shadow_00 integer NOT NULL, shadow_01 integer NOT NULL, shadow_02 integer NOT NULL, shadow_03 integer NOT NULL, shadow_04 integer NOT NULL, shadow_05 integer NOT NULL, shadow_06 integer NOT NULL, shadow_07 integer NOT NULL, shadow_08 integer NOT NULL, shadow_09 integer NOT NULL, shadow_10 integer NOT NULL, shadow_11 integer NOT NULL,
  shadow_12 integer NOT NULL, shadow_13 integer NOT NULL, shadow_14 integer NOT NULL, shadow_15 integer NOT NULL, shadow_16 integer NOT NULL, shadow_17 integer NOT NULL, shadow_18 integer NOT NULL, shadow_19 integer NOT NULL, shadow_20 integer NOT NULL, shadow_21 integer NOT NULL, shadow_22 integer NOT NULL, shadow_23 integer NOT NULL,
  shadow_24 integer NOT NULL, shadow_25 integer NOT NULL, shadow_26 integer NOT NULL, shadow_27 integer NOT NULL, shadow_28 integer NOT NULL, shadow_29 integer NOT NULL, shadow_30 integer NOT NULL, shadow_31 integer NOT NULL, shadow_32 integer NOT NULL, shadow_33 integer NOT NULL, shadow_34 integer NOT NULL, shadow_35 integer NOT NULL,
  shadow_36 integer NOT NULL, shadow_37 integer NOT NULL, shadow_38 integer NOT NULL, shadow_39 integer NOT NULL, shadow_40 integer NOT NULL, shadow_41 integer NOT NULL, shadow_42 integer NOT NULL, shadow_43 integer NOT NULL, shadow_44 integer NOT NULL, shadow_45 integer NOT NULL, shadow_46 integer NOT NULL, shadow_47 integer NOT NULL,
  CHECK (grain IN (1, 60))
) WITH (fillfactor = 70);
CREATE UNIQUE INDEX endpoint_rollups_key ON endpoint_rollups (gate_id, grain, bucket, method, md5(template), shard);
CREATE INDEX endpoint_rollups_unfolded_idx ON endpoint_rollups (bucket, gate_id) WHERE shard <> 0;

-- Per gate, signature and bucket (same grains and shards): how many
-- captures, the first and last created_at counted, and the id of the
-- last one as an example. A row made by a decrement has no times.
CREATE TABLE signature_rollups (
  gate_id       uuid        NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
  grain         smallint    NOT NULL CHECK (grain IN (1, 60)),
  bucket        timestamptz NOT NULL,
  signature_id  text        COLLATE "C" NOT NULL,
  shard         smallint    NOT NULL,
  capture_count bigint      NOT NULL,
  first_seen    timestamptz,
  last_seen     timestamptz,
  example_id    uuid,
  PRIMARY KEY (gate_id, grain, bucket, signature_id, shard)
) WITH (fillfactor = 70);
CREATE INDEX signature_rollups_unfolded_idx ON signature_rollups (bucket, gate_id) WHERE shard <> 0;
