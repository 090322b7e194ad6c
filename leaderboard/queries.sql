-- a2a-bench HumanEval leaderboard query (DuckDB), for an AgentBeats leaderboard repository.
-- AgentBeats runs it over the repository's records:
--   CREATE TABLE results AS SELECT * FROM read_json_auto('results/*.json');
-- one record per assessment, as `a2a-bench smoke` writes it (<name>-results.json):
--   {"participants": {"agent": "<agent id>"}, "results": [<evaluation_bundle>]}
-- The first column must be the agent id. Runs whose runner failed (exit_code != 0) are left out;
-- Accuracy pools every item of every run, pass@1 is the agent's best single run.
SELECT
  t.participants.agent AS id,
  COUNT(*) AS "Runs",
  SUM(r.bundle.metrics.passed) AS "Passed",
  SUM(r.bundle.metrics.total) AS "Items",
  ROUND(SUM(r.bundle.metrics.passed) / SUM(r.bundle.metrics.total), 4) AS "Accuracy",
  MAX(r.bundle.metrics.pass_at_k."pass@1") AS "Best pass@1"
FROM results t
CROSS JOIN UNNEST(t.results) AS r(bundle)
WHERE r.bundle.benchmark = 'humaneval' AND r.bundle.exit_code = 0
GROUP BY id
ORDER BY "Accuracy" DESC, "Items" DESC, id;
