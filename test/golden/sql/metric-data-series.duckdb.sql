-- SQL
SELECT "metric_id" AS "g0", CAST((epoch_ms("ts") - $1) // $2 AS INTEGER) AS "bucket", sum("total") AS "a0", sum("call_count") AS "a1", min("min") AS "a2", max("max") AS "a3", sum(("exclusive" / NULLIF("call_count", 0))) AS "a4", count(("exclusive" / NULLIF("call_count", 0))) AS "a5", sum("sum_of_squares") AS "a6", sum("exclusive") AS "a7"
FROM (SELECT * FROM "timeslices" WHERE "account_id" = $3 AND "ts" >= $4 AND "ts" < $5 AND ("app_id" = $6 AND "metric_id" IN ($7, $8) AND "scope_id" = $9) UNION ALL SELECT * FROM "timeslices_compacted" WHERE "account_id" = $3 AND "ts" >= $4 AND "ts" < $5 AND ("app_id" = $6 AND "metric_id" IN ($7, $8) AND "scope_id" = $9)) AS "source"
GROUP BY "g0", "bucket"
ORDER BY "g0", "bucket"

-- params
[1795341600000,60000,1,{"timestampMs":1795341600000},{"timestampMs":1795343400000},7,3,5,0]

-- NRQL per metric
HttpDispatcher: SELECT average(newrelic.timeslice.value) * 1000 AS average_response_time, rate(count(newrelic.timeslice.value), 1 minute) AS calls_per_minute, count(newrelic.timeslice.value) AS call_count, min(newrelic.timeslice.value) * 1000 AS min_response_time, max(newrelic.timeslice.value) * 1000 AS max_response_time, average(newrelic.timeslice.value['totalExclusive'] / newrelic.timeslice.value['count']) * 1000 AS average_exclusive_time, average(newrelic.timeslice.value) AS average_value, rate(sum(newrelic.timeslice.value), 1 minute) AS total_call_time_per_minute, rate(count(newrelic.timeslice.value), 1 minute) AS requests_per_minute, stddev(newrelic.timeslice.value) * 1000 AS standard_deviation, average(newrelic.timeslice.value) * 1000 AS average_call_time FROM Metric WHERE appId = 7 AND metricTimesliceName = 'HttpDispatcher' AND scope IS NULL SINCE 1795341600000 UNTIL 1795343400000 TIMESERIES 1 minute
Apdex: SELECT count(newrelic.timeslice.value) AS s, sum(newrelic.timeslice.value) AS t, sum(newrelic.timeslice.value['totalExclusive']) AS f, count(newrelic.timeslice.value) + sum(newrelic.timeslice.value) + sum(newrelic.timeslice.value['totalExclusive']) AS count, apdex(newrelic.timeslice.value) AS score, apdex(newrelic.timeslice.value) AS value, max(newrelic.timeslice.value) AS threshold, min(newrelic.timeslice.value) AS threshold_min FROM Metric WHERE appId = 7 AND metricTimesliceName = 'Apdex' AND scope IS NULL SINCE 1795341600000 UNTIL 1795343400000 TIMESERIES 1 minute
