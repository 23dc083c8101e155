-- SQL
SELECT "metric_id" AS "g0", sum("call_count") AS "a0", sum("total") AS "a1", sum("exclusive") AS "a2"
FROM (SELECT * FROM "timeslices" WHERE "account_id" = $1 AND "ts" >= $2 AND "ts" < $3 AND ("app_id" = $4 AND "metric_id" IN ($5, $6) AND "scope_id" = $7) UNION ALL SELECT * FROM "timeslices_compacted" WHERE "account_id" = $1 AND "ts" >= $2 AND "ts" < $3 AND ("app_id" = $4 AND "metric_id" IN ($5, $6) AND "scope_id" = $7) UNION ALL SELECT * FROM "timeslices_daily" WHERE "account_id" = $1 AND "ts" >= $2 AND "ts" < $3 AND ("app_id" = $4 AND "metric_id" IN ($5, $6) AND "scope_id" = $7)) AS "source"
GROUP BY "g0"
ORDER BY "g0"

-- params
[1,{"timestampMs":1795341600000},{"timestampMs":1795343400000},7,3,5,0]

-- NRQL per metric
HttpDispatcher: SELECT count(newrelic.timeslice.value) AS call_count, average(newrelic.timeslice.value) * 1000 AS average_call_time FROM Metric WHERE appId = 7 AND metricTimesliceName = 'HttpDispatcher' AND scope IS NULL SINCE 1795341600000 UNTIL 1795343400000
Apdex: SELECT apdex(newrelic.timeslice.value) AS score FROM Metric WHERE appId = 7 AND metricTimesliceName = 'Apdex' AND scope IS NULL SINCE 1795341600000 UNTIL 1795343400000
