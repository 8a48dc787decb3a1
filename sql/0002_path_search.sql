-- listRequests' `path` filter (an unanchored substring match, `*` for any
-- sequence) without reading every row of the gate. docs/storage.md "Path
-- filter" has the reasoning and the measurements.
--
-- A gate has far fewer distinct paths than requests. request_path_rollups
-- holds, per gate, path and method, how many requests are stored and how
-- many of them have a diff, maintained in the same statement as every
-- insert and delete of requests and sharded like request_rollups. A path
-- filter matches its pattern against these rows: their sum is the total
-- when there is no time range, and the matching paths select the rows
-- through requests_gate_path_created_idx, by equality.

CREATE TABLE request_path_rollups (
  gate_id       uuid     NOT NULL REFERENCES gates (id) ON DELETE CASCADE,
  path          text     COLLATE "C" NOT NULL,
  method        text     COLLATE "C" NOT NULL,
  shard         smallint NOT NULL,
  request_count bigint   NOT NULL,
  diff_count    bigint   NOT NULL
) WITH (fillfactor = 70);

-- Paths have no length limit: the key holds their md5, as gates' keys do.
CREATE UNIQUE INDEX request_path_rollups_key ON request_path_rollups (gate_id, md5(path), method, shard);

INSERT INTO request_path_rollups (gate_id, path, method, shard, request_count, diff_count)
SELECT gate_id, path, method, 0, count(*), count(*) FILTER (WHERE has_diff)
FROM requests
GROUP BY gate_id, path, method;

-- The rows of given paths, newest first or within a time range. The first
-- 512 characters keep every entry under btree's size limit, as in
-- requests_gate_path_idx; longer paths are matched with LIKE instead.
CREATE INDEX requests_gate_path_created_idx ON requests (gate_id, left(path, 512), created_at) INCLUDE (method, has_diff);
