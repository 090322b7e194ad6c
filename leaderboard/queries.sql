-- a2a-bench HumanEval leaderboard query (DuckDB), for an AgentBeats leaderboard repository.
-- AgentBeats runs it over the repository's records:
--   CREATE TABLE results AS SELECT * FROM read_json_auto('results/*.json');
-- one record per assessment. Both record shapes are read (schemas/leaderboard_record.schema.json):
--   quick-submit (current): {"status": "completed", "results": [<evaluation_bundle>],
--                            "participants": {"green": "<green id>", "agent": "<agent id>"}}
--   older:                  {"participants": {"agent": "<agent id>"}, "results": [<evaluation_bundle>]}
-- Fields that only some records or bundles have are read through to_json(...), so the query binds
-- over any mix of them (a directory of older records only has no `status` column at all), and agent
-- ids given as numbers (the gateway's example) or strings come out as the same text.
-- The first column must be the agent id. Runs whose runner failed (exit_code != 0) are left out.
-- Accuracy pools every judged item of every run; a partial run (its time budget ran out) counts the
-- items it judged, and its items not run are shown apart, never as failures. pass@1 is the agent's
-- best single run.
SELECT
  json_extract_string(to_json(t.participants), '$.agent') AS id,
  COUNT(*) AS "Runs",
  SUM(r.bundle.metrics.passed) AS "Passed",
  SUM(r.bundle.metrics.total) AS "Items",
  ROUND(SUM(r.bundle.metrics.passed) / SUM(r.bundle.metrics.total), 4) AS "Accuracy",
  MAX(r.bundle.metrics.pass_at_k."pass@1") AS "Best pass@1",
  SUM(CASE WHEN json_extract(to_json(r.bundle), '$.partial')::BOOLEAN THEN 1 ELSE 0 END) AS "Partial runs",
  SUM(COALESCE(json_array_length(to_json(r.bundle), '$.not_run'), 0)) AS "Not run"
FROM results t
CROSS JOIN UNNEST(t.results) AS r(bundle)
WHERE r.bundle.benchmark = 'humaneval' AND r.bundle.exit_code = 0
  AND COALESCE(json_extract_string(to_json(t), '$.status'), 'completed') = 'completed'
GROUP BY id
ORDER BY "Accuracy" DESC, "Items" DESC, id;
