-- Initial schema: gates, captured requests (summary + payload), and the
-- rollups that make 24 h statistics and list totals cheap. The reasoning,
-- the measurements and what stays slow are in docs/storage.md.

-- Text columns that are sorted or compared use the "C" collation so that
-- PostgreSQL and PGlite order them identically (byte order), whatever the
-- database's default locale is.

CREATE TABLE gates (
  id              uuid        PRIMARY KEY,
  name            text        COLLATE "C" NOT NULL,
  live_url        text        COLLATE "C" NOT NULL,
  shadow_url      text        COLLATE "C" NOT NULL,
  diff_config     jsonb       NOT NULL DEFAULT
    '{"ignored_fields": [], "included_fields": [], "float_tolerance": 0, "sort_arrays": false}',
  redacted_fields jsonb       NOT NULL DEFAULT '[]',
  -- Go duration as given by the user; '' = the global retention floor.
  retention       text        NOT NULL DEFAULT '',
  created_at      timestamptz NOT NULL DEFAULT now()
);

-- Uniqueness is enforced by the database so that concurrent creates cannot
-- both win. The keys are hashed: a btree entry is limited to ~2.7 kB and
-- URLs have no length limit.
CREATE UNIQUE INDEX gates_name_key ON gates (md5(name));
CREATE UNIQUE INDEX gates_url_pair_key ON gates (md5(live_url), md5(shadow_url));
CREATE INDEX gates_created_at_idx ON gates (created_at, id);

-- One row per captured request: only what lists filter, sort and show, so
-- that list queries touch a narrow heap. Payloads live in request_payloads.
CREATE TABLE requests (
  id                uuid        PRIMARY KEY,
  gate_id           uuid        NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
  method            text        COLLATE "C" NOT NULL,
  path              text        COLLATE "C" NOT NULL,
  raw_query         text        NOT NULL DEFAULT '',
  created_at        timestamptz NOT NULL,
  live_status       integer     NOT NULL,
  live_latency_ms   bigint      NOT NULL,
  shadow_status     integer     NOT NULL,
  shadow_latency_ms bigint      NOT NULL,
  has_diff          boolean     NOT NULL
);

-- Default list order and time ranges; method and has_diff are included so
-- that filtered scans and edge counts can stay in the index.
CREATE INDEX requests_gate_created_idx ON requests (gate_id, created_at, id) INCLUDE (method, has_diff);
CREATE INDEX requests_gate_diff_created_idx ON requests (gate_id, created_at, id) WHERE has_diff;
CREATE INDEX requests_gate_method_idx ON requests (gate_id, method, id);
-- Sort by path: the first 512 characters keep every entry under btree's limit.
CREATE INDEX requests_gate_path_idx ON requests (gate_id, left(path, 512), id);

CREATE TABLE request_payloads (
  request_id         uuid        PRIMARY KEY REFERENCES requests (id) ON DELETE CASCADE,
  headers            jsonb       NOT NULL,
  body               bytea       NOT NULL,
  live_response_id   uuid        NOT NULL,
  live_headers       jsonb       NOT NULL,
  live_body          bytea       NOT NULL,
  live_created_at    timestamptz NOT NULL,
  shadow_response_id uuid        NOT NULL,
  shadow_headers     jsonb       NOT NULL,
  shadow_body        bytea       NOT NULL,
  shadow_created_at  timestamptz NOT NULL,
  diff               jsonb       NOT NULL
);

-- The rollup bucket of a timestamp: the start of its minute. date_bin from a
-- fixed origin does not depend on the session's time zone (date_trunc on a
-- timestamptz would). Infinity stays infinity.
CREATE FUNCTION request_bucket(ts timestamptz) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT date_bin('1 minute', ts, timestamptz '2000-01-01 00:00:00+00') $$;

-- Rollups: per gate, per minute of created_at (request_bucket), per method:
-- how many requests are stored and how many of them have a diff. Maintained
-- in the same statement as every insert and every delete of requests, so at
-- any time the sum over shards of request_count = count(*) of the stored
-- requests of that gate/minute/method. 24 h stats and filtered list totals
-- read these instead of counting rows.
--
-- Shards: ingest adds to shard 1 + pg_backend_pid() % 8, so that concurrent
-- inserts into a busy gate do not all queue on one row lock; maintenance
-- (cleanup, compaction, rebuild) writes shard 0 only, and compaction folds
-- the ingest shards of past minutes into shard 0. A shard may go negative
-- (a decrement lands in shard 0); only sums mean anything.
CREATE FUNCTION ingest_shard() RETURNS smallint
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT (1 + pg_backend_pid() % 8)::smallint $$;

CREATE TABLE request_rollups (
  gate_id       uuid        NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
  bucket        timestamptz NOT NULL,
  method        text        COLLATE "C" NOT NULL,
  shard         smallint    NOT NULL,
  request_count bigint      NOT NULL,
  diff_count    bigint      NOT NULL,
  PRIMARY KEY (gate_id, bucket, method, shard)
) WITH (fillfactor = 70);

-- Finds what compaction has left to fold: the ingest shards of past minutes.
CREATE INDEX request_rollups_unfolded_idx ON request_rollups (bucket, gate_id) WHERE shard <> 0;

-- Per gate (sum over shards): the number of stored requests, which is the
-- unfiltered list total, and (max over shards) the created_at of the most
-- recent capture ever received. Sharded like request_rollups.
CREATE TABLE gate_counters (
  gate_id       uuid        NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
  shard         smallint    NOT NULL,
  request_count bigint      NOT NULL,
  last_active   timestamptz,
  PRIMARY KEY (gate_id, shard)
) WITH (fillfactor = 50);
