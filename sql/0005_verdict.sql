-- A gate's verdict thresholds (docs/ci.md "Thresholds"): any of
-- max_diff_rate, max_error_rate, max_latency_ratio and min_requests; the
-- verdict query overrides them, and a threshold set nowhere takes its
-- built-in default. '{}': none set.
ALTER TABLE gates ADD COLUMN verdict jsonb NOT NULL DEFAULT '{}';
