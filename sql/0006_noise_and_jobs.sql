-- Noise checks, their rollups, and background jobs over stored captures.
-- docs/insights.md "Noise" says what they mean; docs/storage.md "Noise
-- rollups" and "Jobs" have the design.

-- A capture's noise check (live asked a second time): NULL when none was
-- made; 'quiet' when live's two answers matched under the gate's
-- diff_config, 'noisy' when they differed, 'error' when a side failed.
-- A noisy capture is counted under the signature of its noise patch
-- (docs/insights.md "Signatures", the same ids and caps as the diffs).
ALTER TABLE requests ADD COLUMN noise_result text COLLATE "C" CHECK (noise_result IN ('quiet', 'noisy', 'error'));
ALTER TABLE requests ADD COLUMN noise_signature_id text COLLATE "C";

-- Live's second answer, stored as the others are (redacted), and the noise
-- patch (live's first answer to its second): what re-diffing recomputes.
ALTER TABLE request_payloads
  ADD COLUMN repeat_response_id uuid,
  ADD COLUMN repeat_status      integer,
  ADD COLUMN repeat_headers     jsonb,
  ADD COLUMN repeat_body        bytea,
  ADD COLUMN repeat_latency_ms  bigint,
  ADD COLUMN repeat_created_at  timestamptz,
  ADD COLUMN noise              jsonb;

-- Per endpoint and bucket: the captures whose noise check compared two
-- answers (quiet or noisy). A constant default: no table rewrite.
ALTER TABLE endpoint_rollups ADD COLUMN noise_checks bigint NOT NULL DEFAULT 0;

-- Per gate, noise signature and bucket (grains and shards as
-- signature_rollups): how many noisy captures. A field's noise count is
-- the sum over the noise signatures holding its (op, path), as its diff
-- count is over the diff signatures. Maintained in the same statement as
-- every insert, re-diff and delete of requests.
CREATE TABLE noise_rollups (
  gate_id       uuid        NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
  grain         smallint    NOT NULL CHECK (grain IN (1, 60)),
  bucket        timestamptz NOT NULL,
  signature_id  text        COLLATE "C" NOT NULL,
  shard         smallint    NOT NULL,
  capture_count bigint      NOT NULL,
  PRIMARY KEY (gate_id, grain, bucket, signature_id, shard)
) WITH (fillfactor = 70);
CREATE INDEX noise_rollups_unfolded_idx ON noise_rollups (bucket, gate_id) WHERE shard <> 0;

-- Background jobs of a gate (re-diffing its stored captures), in a table
-- so that any replica can answer for them and one that restarts can take
-- them up again. `heartbeat_at` is renewed by the process running the job
-- (`owner`); a queued or running job whose heartbeat is stale is taken
-- over (resumed after `cursor_at`, `cursor_id`) or, after too many
-- attempts, failed. The diff settings are those of the gate when the job
-- was made. At most one queued or running job per gate.
CREATE TABLE gate_jobs (
  id              uuid        PRIMARY KEY,
  gate_id         uuid        NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
  kind            text        NOT NULL CHECK (kind IN ('rediff')),
  state           text        NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  window_from     timestamptz NOT NULL,
  window_to       timestamptz NOT NULL,
  diff_config     jsonb       NOT NULL,
  redacted_fields jsonb       NOT NULL,
  total           bigint      NOT NULL,
  done            bigint      NOT NULL DEFAULT 0,
  cursor_at       timestamptz,
  cursor_id       uuid,
  owner           text,
  heartbeat_at    timestamptz,
  attempts        integer     NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL DEFAULT now(),
  started_at      timestamptz,
  finished_at     timestamptz,
  error           text
);
CREATE UNIQUE INDEX gate_jobs_active_key ON gate_jobs (gate_id) WHERE state IN ('queued', 'running');
CREATE INDEX gate_jobs_unfinished_idx ON gate_jobs (heartbeat_at) WHERE state IN ('queued', 'running');
CREATE INDEX gate_jobs_finished_idx ON gate_jobs (finished_at) WHERE finished_at IS NOT NULL;
