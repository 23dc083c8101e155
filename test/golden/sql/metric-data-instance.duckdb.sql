-- SQL
SELECT "metric_id" AS "g0", CAST((epoch_ms("ts") - $1) // $2 AS INTEGER) AS "bucket", sum("call_count") AS "a0", sum("total") AS "a1"
FROM (SELECT * FROM "timeslices" WHERE "account_id" = $3 AND "ts" >= $4 AND "ts" < $5 AND ("app_id" = $6 AND "host_id" = $7 AND "instance_id" = $8 AND "metric_id" IN ($9) AND "scope_id" = $10) UNION ALL SELECT * FROM "timeslices_compacted" WHERE "account_id" = $3 AND "ts" >= $4 AND "ts" < $5 AND ("app_id" = $6 AND "host_id" = $7 AND "instance_id" = $8 AND "metric_id" IN ($9) AND "scope_id" = $10) UNION ALL SELECT * FROM "timeslices_daily" WHERE "account_id" = $3 AND "ts" >= $4 AND "ts" < $5 AND ("app_id" = $6 AND "host_id" = $7 AND "instance_id" = $8 AND "metric_id" IN ($9) AND "scope_id" = $10)) AS "source"
GROUP BY "g0", "bucket"
ORDER BY "g0", "bucket"

-- params
[1795341600000,600000,1,{"timestampMs":1795341600000},{"timestampMs":1795348800000},7,2,9,11,0]

-- NRQL per metric
WebFrontend/QueueTime: SELECT count(newrelic.timeslice.value) AS call_count, average(newrelic.timeslice.value) * 1000 AS average_response_time FROM Metric WHERE appId = 7 AND host = 'o\'brien' AND realAgentId = 9 AND metricTimesliceName = 'WebFrontend/QueueTime' AND scope IS NULL SINCE 1795341600000 UNTIL 1795348800000 TIMESERIES 10 minutes
