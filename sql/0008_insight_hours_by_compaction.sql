-- Hour rows of the insight rollups built by compaction instead of by
-- every insert (docs/storage.md "Insight rollups", "Hours by compaction").
--
-- Counting each capture at two grains made every insert statement upsert
-- twice the rollup rows; the hour rows only serve reads of long windows.
-- Now a gate's hour rows (grain 60) are exact for every hour before its
-- mark `through`, and there are none at or after it: writers (the insert
-- trigger, backfill, cleanup, re-diff, rebuild) count a capture in its
-- minute always and in its hour only when that hour is before the mark,
-- and compaction (src/store/fold-insight-hours.ts) moves the mark forward
-- over past hours, summing their minute rows, under a SHARE lock on the
-- rollup tables so that no writer that read the old mark is still
-- writing. Reads take whole hours before the mark from the hour rows and
-- everything else from the minute rows. A gate without a mark has no hour
-- rows yet.
CREATE TABLE insight_hour_marks (
  gate_id uuid        PRIMARY KEY REFERENCES gates (id) ON DELETE CASCADE,
  through timestamptz NOT NULL
);

-- Until now every capture was also counted in its hour: the mark of each
-- gate goes past the last hour that has an hour row, and at least past
-- the current one.
INSERT INTO insight_hour_marks (gate_id, through)
SELECT g.id, greatest(insight_bucket(now(), 60::smallint), h.last_hour) + interval '1 hour'
FROM gates g LEFT JOIN (
  SELECT gate_id, max(bucket) AS last_hour FROM (
    SELECT gate_id, bucket FROM endpoint_rollups WHERE grain = 60
    UNION ALL SELECT gate_id, bucket FROM signature_rollups WHERE grain = 60
    UNION ALL SELECT gate_id, bucket FROM noise_rollups WHERE grain = 60
  ) AS b GROUP BY gate_id
) AS h ON h.gate_id = g.id;

-- The insert trigger of migration 0007, counting hours only before the mark.
CREATE OR REPLACE FUNCTION count_inserted_requests() RETURNS trigger
  LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO endpoint_rollups AS r (gate_id, grain, bucket, method, template, shard,
        request_count, has_diff_count, diff_count, error_count, noise_checks, live_00, live_01, live_02,
        live_03, live_04, live_05, live_06, live_07, live_08, live_09, live_10,
        live_11, live_12, live_13, live_14, live_15, live_16, live_17, live_18,
        live_19, live_20, live_21, live_22, live_23, live_24, live_25, live_26,
        live_27, live_28, live_29, live_30, live_31, live_32, live_33, live_34,
        live_35, live_36, live_37, live_38, live_39, live_40, live_41, live_42,
        live_43, live_44, live_45, live_46, live_47, shadow_00, shadow_01, shadow_02,
        shadow_03, shadow_04, shadow_05, shadow_06, shadow_07, shadow_08, shadow_09, shadow_10,
        shadow_11, shadow_12, shadow_13, shadow_14, shadow_15, shadow_16, shadow_17, shadow_18,
        shadow_19, shadow_20, shadow_21, shadow_22, shadow_23, shadow_24, shadow_25, shadow_26,
        shadow_27, shadow_28, shadow_29, shadow_30, shadow_31, shadow_32, shadow_33, shadow_34,
        shadow_35, shadow_36, shadow_37, shadow_38, shadow_39, shadow_40, shadow_41, shadow_42,
        shadow_43, shadow_44, shadow_45, shadow_46, shadow_47)
    SELECT x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.method, x.template, ingest_shard(),
      count(*),
      count(*) FILTER (WHERE x.has_diff),
      count(*) FILTER (WHERE x.kind = 'diff'),
      count(*) FILTER (WHERE x.kind = 'error'),
      count(*) FILTER (WHERE x.noise_result IN ('quiet', 'noisy')),
      count(*) FILTER (WHERE x.live_bucket = 0), count(*) FILTER (WHERE x.live_bucket = 1), count(*) FILTER (WHERE x.live_bucket = 2), count(*) FILTER (WHERE x.live_bucket = 3),
      count(*) FILTER (WHERE x.live_bucket = 4), count(*) FILTER (WHERE x.live_bucket = 5), count(*) FILTER (WHERE x.live_bucket = 6), count(*) FILTER (WHERE x.live_bucket = 7),
      count(*) FILTER (WHERE x.live_bucket = 8), count(*) FILTER (WHERE x.live_bucket = 9), count(*) FILTER (WHERE x.live_bucket = 10), count(*) FILTER (WHERE x.live_bucket = 11),
      count(*) FILTER (WHERE x.live_bucket = 12), count(*) FILTER (WHERE x.live_bucket = 13), count(*) FILTER (WHERE x.live_bucket = 14), count(*) FILTER (WHERE x.live_bucket = 15),
      count(*) FILTER (WHERE x.live_bucket = 16), count(*) FILTER (WHERE x.live_bucket = 17), count(*) FILTER (WHERE x.live_bucket = 18), count(*) FILTER (WHERE x.live_bucket = 19),
      count(*) FILTER (WHERE x.live_bucket = 20), count(*) FILTER (WHERE x.live_bucket = 21), count(*) FILTER (WHERE x.live_bucket = 22), count(*) FILTER (WHERE x.live_bucket = 23),
      count(*) FILTER (WHERE x.live_bucket = 24), count(*) FILTER (WHERE x.live_bucket = 25), count(*) FILTER (WHERE x.live_bucket = 26), count(*) FILTER (WHERE x.live_bucket = 27),
      count(*) FILTER (WHERE x.live_bucket = 28), count(*) FILTER (WHERE x.live_bucket = 29), count(*) FILTER (WHERE x.live_bucket = 30), count(*) FILTER (WHERE x.live_bucket = 31),
      count(*) FILTER (WHERE x.live_bucket = 32), count(*) FILTER (WHERE x.live_bucket = 33), count(*) FILTER (WHERE x.live_bucket = 34), count(*) FILTER (WHERE x.live_bucket = 35),
      count(*) FILTER (WHERE x.live_bucket = 36), count(*) FILTER (WHERE x.live_bucket = 37), count(*) FILTER (WHERE x.live_bucket = 38), count(*) FILTER (WHERE x.live_bucket = 39),
      count(*) FILTER (WHERE x.live_bucket = 40), count(*) FILTER (WHERE x.live_bucket = 41), count(*) FILTER (WHERE x.live_bucket = 42), count(*) FILTER (WHERE x.live_bucket = 43),
      count(*) FILTER (WHERE x.live_bucket = 44), count(*) FILTER (WHERE x.live_bucket = 45), count(*) FILTER (WHERE x.live_bucket = 46), count(*) FILTER (WHERE x.live_bucket = 47),
      count(*) FILTER (WHERE x.shadow_bucket = 0), count(*) FILTER (WHERE x.shadow_bucket = 1), count(*) FILTER (WHERE x.shadow_bucket = 2), count(*) FILTER (WHERE x.shadow_bucket = 3),
      count(*) FILTER (WHERE x.shadow_bucket = 4), count(*) FILTER (WHERE x.shadow_bucket = 5), count(*) FILTER (WHERE x.shadow_bucket = 6), count(*) FILTER (WHERE x.shadow_bucket = 7),
      count(*) FILTER (WHERE x.shadow_bucket = 8), count(*) FILTER (WHERE x.shadow_bucket = 9), count(*) FILTER (WHERE x.shadow_bucket = 10), count(*) FILTER (WHERE x.shadow_bucket = 11),
      count(*) FILTER (WHERE x.shadow_bucket = 12), count(*) FILTER (WHERE x.shadow_bucket = 13), count(*) FILTER (WHERE x.shadow_bucket = 14), count(*) FILTER (WHERE x.shadow_bucket = 15),
      count(*) FILTER (WHERE x.shadow_bucket = 16), count(*) FILTER (WHERE x.shadow_bucket = 17), count(*) FILTER (WHERE x.shadow_bucket = 18), count(*) FILTER (WHERE x.shadow_bucket = 19),
      count(*) FILTER (WHERE x.shadow_bucket = 20), count(*) FILTER (WHERE x.shadow_bucket = 21), count(*) FILTER (WHERE x.shadow_bucket = 22), count(*) FILTER (WHERE x.shadow_bucket = 23),
      count(*) FILTER (WHERE x.shadow_bucket = 24), count(*) FILTER (WHERE x.shadow_bucket = 25), count(*) FILTER (WHERE x.shadow_bucket = 26), count(*) FILTER (WHERE x.shadow_bucket = 27),
      count(*) FILTER (WHERE x.shadow_bucket = 28), count(*) FILTER (WHERE x.shadow_bucket = 29), count(*) FILTER (WHERE x.shadow_bucket = 30), count(*) FILTER (WHERE x.shadow_bucket = 31),
      count(*) FILTER (WHERE x.shadow_bucket = 32), count(*) FILTER (WHERE x.shadow_bucket = 33), count(*) FILTER (WHERE x.shadow_bucket = 34), count(*) FILTER (WHERE x.shadow_bucket = 35),
      count(*) FILTER (WHERE x.shadow_bucket = 36), count(*) FILTER (WHERE x.shadow_bucket = 37), count(*) FILTER (WHERE x.shadow_bucket = 38), count(*) FILTER (WHERE x.shadow_bucket = 39),
      count(*) FILTER (WHERE x.shadow_bucket = 40), count(*) FILTER (WHERE x.shadow_bucket = 41), count(*) FILTER (WHERE x.shadow_bucket = 42), count(*) FILTER (WHERE x.shadow_bucket = 43),
      count(*) FILTER (WHERE x.shadow_bucket = 44), count(*) FILTER (WHERE x.shadow_bucket = 45), count(*) FILTER (WHERE x.shadow_bucket = 46), count(*) FILTER (WHERE x.shadow_bucket = 47)
    FROM (
      SELECT n.gate_id, n.created_at, n.method, n.template, n.has_diff, n.noise_result, k.kind,
        latency_bucket(n.live_latency_ms) AS live_bucket, latency_bucket(n.shadow_latency_ms) AS shadow_bucket
      FROM inserted_requests n LEFT JOIN insight_signatures k ON k.gate_id = n.gate_id AND k.id = n.signature_id
      WHERE n.template IS NOT NULL
    ) AS x CROSS JOIN (VALUES (1::smallint), (60::smallint)) AS g (grain)
      LEFT JOIN insight_hour_marks m ON m.gate_id = x.gate_id
    WHERE g.grain = 1 OR insight_bucket(x.created_at, 60::smallint) < m.through
    GROUP BY x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.method, x.template
    ORDER BY x.gate_id, g.grain, insight_bucket(x.created_at, g.grain), x.method, md5(x.template)
    ON CONFLICT (gate_id, grain, bucket, method, md5(template), shard) DO UPDATE SET
      request_count = r.request_count + excluded.request_count, has_diff_count = r.has_diff_count + excluded.has_diff_count, diff_count = r.diff_count + excluded.diff_count,
      error_count = r.error_count + excluded.error_count, noise_checks = r.noise_checks + excluded.noise_checks, live_00 = r.live_00 + excluded.live_00,
      live_01 = r.live_01 + excluded.live_01, live_02 = r.live_02 + excluded.live_02, live_03 = r.live_03 + excluded.live_03,
      live_04 = r.live_04 + excluded.live_04, live_05 = r.live_05 + excluded.live_05, live_06 = r.live_06 + excluded.live_06,
      live_07 = r.live_07 + excluded.live_07, live_08 = r.live_08 + excluded.live_08, live_09 = r.live_09 + excluded.live_09,
      live_10 = r.live_10 + excluded.live_10, live_11 = r.live_11 + excluded.live_11, live_12 = r.live_12 + excluded.live_12,
      live_13 = r.live_13 + excluded.live_13, live_14 = r.live_14 + excluded.live_14, live_15 = r.live_15 + excluded.live_15,
      live_16 = r.live_16 + excluded.live_16, live_17 = r.live_17 + excluded.live_17, live_18 = r.live_18 + excluded.live_18,
      live_19 = r.live_19 + excluded.live_19, live_20 = r.live_20 + excluded.live_20, live_21 = r.live_21 + excluded.live_21,
      live_22 = r.live_22 + excluded.live_22, live_23 = r.live_23 + excluded.live_23, live_24 = r.live_24 + excluded.live_24,
      live_25 = r.live_25 + excluded.live_25, live_26 = r.live_26 + excluded.live_26, live_27 = r.live_27 + excluded.live_27,
      live_28 = r.live_28 + excluded.live_28, live_29 = r.live_29 + excluded.live_29, live_30 = r.live_30 + excluded.live_30,
      live_31 = r.live_31 + excluded.live_31, live_32 = r.live_32 + excluded.live_32, live_33 = r.live_33 + excluded.live_33,
      live_34 = r.live_34 + excluded.live_34, live_35 = r.live_35 + excluded.live_35, live_36 = r.live_36 + excluded.live_36,
      live_37 = r.live_37 + excluded.live_37, live_38 = r.live_38 + excluded.live_38, live_39 = r.live_39 + excluded.live_39,
      live_40 = r.live_40 + excluded.live_40, live_41 = r.live_41 + excluded.live_41, live_42 = r.live_42 + excluded.live_42,
      live_43 = r.live_43 + excluded.live_43, live_44 = r.live_44 + excluded.live_44, live_45 = r.live_45 + excluded.live_45,
      live_46 = r.live_46 + excluded.live_46, live_47 = r.live_47 + excluded.live_47, shadow_00 = r.shadow_00 + excluded.shadow_00,
      shadow_01 = r.shadow_01 + excluded.shadow_01, shadow_02 = r.shadow_02 + excluded.shadow_02, shadow_03 = r.shadow_03 + excluded.shadow_03,
      shadow_04 = r.shadow_04 + excluded.shadow_04, shadow_05 = r.shadow_05 + excluded.shadow_05, shadow_06 = r.shadow_06 + excluded.shadow_06,
      shadow_07 = r.shadow_07 + excluded.shadow_07, shadow_08 = r.shadow_08 + excluded.shadow_08, shadow_09 = r.shadow_09 + excluded.shadow_09,
      shadow_10 = r.shadow_10 + excluded.shadow_10, shadow_11 = r.shadow_11 + excluded.shadow_11, shadow_12 = r.shadow_12 + excluded.shadow_12,
      shadow_13 = r.shadow_13 + excluded.shadow_13, shadow_14 = r.shadow_14 + excluded.shadow_14, shadow_15 = r.shadow_15 + excluded.shadow_15,
      shadow_16 = r.shadow_16 + excluded.shadow_16, shadow_17 = r.shadow_17 + excluded.shadow_17, shadow_18 = r.shadow_18 + excluded.shadow_18,
      shadow_19 = r.shadow_19 + excluded.shadow_19, shadow_20 = r.shadow_20 + excluded.shadow_20, shadow_21 = r.shadow_21 + excluded.shadow_21,
      shadow_22 = r.shadow_22 + excluded.shadow_22, shadow_23 = r.shadow_23 + excluded.shadow_23, shadow_24 = r.shadow_24 + excluded.shadow_24,
      shadow_25 = r.shadow_25 + excluded.shadow_25, shadow_26 = r.shadow_26 + excluded.shadow_26, shadow_27 = r.shadow_27 + excluded.shadow_27,
      shadow_28 = r.shadow_28 + excluded.shadow_28, shadow_29 = r.shadow_29 + excluded.shadow_29, shadow_30 = r.shadow_30 + excluded.shadow_30,
      shadow_31 = r.shadow_31 + excluded.shadow_31, shadow_32 = r.shadow_32 + excluded.shadow_32, shadow_33 = r.shadow_33 + excluded.shadow_33,
      shadow_34 = r.shadow_34 + excluded.shadow_34, shadow_35 = r.shadow_35 + excluded.shadow_35, shadow_36 = r.shadow_36 + excluded.shadow_36,
      shadow_37 = r.shadow_37 + excluded.shadow_37, shadow_38 = r.shadow_38 + excluded.shadow_38, shadow_39 = r.shadow_39 + excluded.shadow_39,
      shadow_40 = r.shadow_40 + excluded.shadow_40, shadow_41 = r.shadow_41 + excluded.shadow_41, shadow_42 = r.shadow_42 + excluded.shadow_42,
      shadow_43 = r.shadow_43 + excluded.shadow_43, shadow_44 = r.shadow_44 + excluded.shadow_44, shadow_45 = r.shadow_45 + excluded.shadow_45,
      shadow_46 = r.shadow_46 + excluded.shadow_46, shadow_47 = r.shadow_47 + excluded.shadow_47;


    INSERT INTO noise_rollups AS s (gate_id, grain, bucket, signature_id, shard, capture_count)
    SELECT n.gate_id, g.grain, insight_bucket(n.created_at, g.grain), n.noise_signature_id, ingest_shard(), count(*)
    FROM inserted_requests n CROSS JOIN (VALUES (1::smallint), (60::smallint)) AS g (grain)
      LEFT JOIN insight_hour_marks m ON m.gate_id = n.gate_id
    WHERE n.template IS NOT NULL AND n.noise_signature_id IS NOT NULL
      AND (g.grain = 1 OR insight_bucket(n.created_at, 60::smallint) < m.through)
    GROUP BY n.gate_id, g.grain, insight_bucket(n.created_at, g.grain), n.noise_signature_id
    ORDER BY n.gate_id, g.grain, insight_bucket(n.created_at, g.grain), n.noise_signature_id
    ON CONFLICT (gate_id, grain, bucket, signature_id, shard) DO UPDATE SET capture_count = s.capture_count + excluded.capture_count;

    INSERT INTO signature_rollups AS s (gate_id, grain, bucket, signature_id, shard, capture_count, first_seen, last_seen, example_id)
    SELECT n.gate_id, g.grain, insight_bucket(n.created_at, g.grain), n.signature_id, ingest_shard(),
      count(*), min(n.created_at), max(n.created_at), (array_agg(n.id ORDER BY n.created_at DESC, n.id DESC))[1]
    FROM inserted_requests n CROSS JOIN (VALUES (1::smallint), (60::smallint)) AS g (grain)
      LEFT JOIN insight_hour_marks m ON m.gate_id = n.gate_id
    WHERE n.template IS NOT NULL AND n.signature_id IS NOT NULL
      AND (g.grain = 1 OR insight_bucket(n.created_at, 60::smallint) < m.through)
    GROUP BY n.gate_id, g.grain, insight_bucket(n.created_at, g.grain), n.signature_id
    ORDER BY n.gate_id, g.grain, insight_bucket(n.created_at, g.grain), n.signature_id
    ON CONFLICT (gate_id, grain, bucket, signature_id, shard) DO UPDATE SET
      capture_count = s.capture_count + excluded.capture_count,
      first_seen = least(s.first_seen, excluded.first_seen),
      last_seen = greatest(s.last_seen, excluded.last_seen),
      example_id = CASE WHEN excluded.last_seen IS NOT NULL AND (s.last_seen IS NULL OR excluded.last_seen > s.last_seen
          OR (excluded.last_seen = s.last_seen AND excluded.example_id > s.example_id))
        THEN excluded.example_id ELSE s.example_id END;

    RETURN NULL;
  END
  $$;

