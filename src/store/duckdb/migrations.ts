/**
 * Numbered schema migrations. A migration is never edited once released: a change to the
 * schema is a new entry. `schema_migrations` records what ran.
 *
 * Attribute maps are kept as JSON text exactly as the agent sent them (lossless); the
 * attributes that queries filter and group by most are typed columns beside them.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const AGENT_EVENT_COMMON = `
  account_id INTEGER NOT NULL,
  app_id INTEGER NOT NULL,
  host_id INTEGER NOT NULL,
  instance_id INTEGER NOT NULL,
  timestamp TIMESTAMP NOT NULL`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'catalog, timeslices and agent events',
    sql: `
CREATE TABLE accounts (
  id INTEGER NOT NULL,
  name VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL
);
CREATE TABLE api_keys (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  kind VARCHAR NOT NULL,            -- 'user' (REST, GraphQL) or 'license' (agents, ingest)
  key_hash VARCHAR NOT NULL,        -- sha256 hex of the key; the key itself is never stored
  hint VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL
);
CREATE TABLE applications (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  name VARCHAR NOT NULL,
  language VARCHAR,
  apdex_t DOUBLE NOT NULL,
  created_at TIMESTAMP NOT NULL
);
CREATE TABLE hosts (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  app_id INTEGER NOT NULL,
  name VARCHAR NOT NULL,
  display_name VARCHAR,
  created_at TIMESTAMP NOT NULL
);
CREATE TABLE instances (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  app_id INTEGER NOT NULL,
  host_id INTEGER NOT NULL,
  pid INTEGER,
  port INTEGER,
  language VARCHAR,
  agent_version VARCHAR,
  created_at TIMESTAMP NOT NULL
);
CREATE TABLE agent_runs (
  run_id VARCHAR NOT NULL,
  account_id INTEGER NOT NULL,
  primary_app_id INTEGER NOT NULL,
  targets VARCHAR NOT NULL,         -- JSON [[app_id, host_id, instance_id], …]: primary first, then roll-ups
  agent_version VARCHAR,
  language VARCHAR,
  user_agent VARCHAR,
  connected_at TIMESTAMP NOT NULL,
  shutdown_at TIMESTAMP
);
CREATE TABLE metric_names (
  id INTEGER NOT NULL,
  name VARCHAR NOT NULL
);
CREATE TABLE timeslices (
  account_id INTEGER NOT NULL,
  app_id INTEGER NOT NULL,
  host_id INTEGER NOT NULL,
  instance_id INTEGER NOT NULL,
  metric_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,        -- 0 = unscoped; otherwise a metric_names id (the transaction name)
  ts TIMESTAMP NOT NULL,            -- the minute the harvest is filed under
  call_count DOUBLE NOT NULL,
  total DOUBLE NOT NULL,
  exclusive DOUBLE NOT NULL,
  min DOUBLE NOT NULL,
  max DOUBLE NOT NULL,
  sum_of_squares DOUBLE NOT NULL
);
CREATE TABLE transaction_events (${AGENT_EVENT_COMMON},
  name VARCHAR,
  duration DOUBLE,
  total_time DOUBLE,
  queue_duration DOUBLE,
  error BOOLEAN,
  http_status_code INTEGER,
  trace_id VARCHAR,
  guid VARCHAR,
  intrinsics VARCHAR NOT NULL,
  user_attributes VARCHAR NOT NULL,
  agent_attributes VARCHAR NOT NULL
);
CREATE TABLE error_events (${AGENT_EVENT_COMMON},
  error_class VARCHAR,
  error_message VARCHAR,
  transaction_name VARCHAR,
  duration DOUBLE,
  trace_id VARCHAR,
  intrinsics VARCHAR NOT NULL,
  user_attributes VARCHAR NOT NULL,
  agent_attributes VARCHAR NOT NULL
);
CREATE TABLE span_events (${AGENT_EVENT_COMMON},
  name VARCHAR,
  category VARCHAR,
  duration DOUBLE,
  trace_id VARCHAR,
  guid VARCHAR,
  parent_id VARCHAR,
  transaction_id VARCHAR,
  intrinsics VARCHAR NOT NULL,
  user_attributes VARCHAR NOT NULL,
  agent_attributes VARCHAR NOT NULL
);
CREATE TABLE custom_events (${AGENT_EVENT_COMMON},
  event_type VARCHAR NOT NULL,
  attributes VARCHAR NOT NULL
);
CREATE TABLE log_events (${AGENT_EVENT_COMMON},
  level VARCHAR,
  message VARCHAR,
  trace_id VARCHAR,
  span_id VARCHAR,
  attributes VARCHAR NOT NULL
);
CREATE TABLE error_traces (${AGENT_EVENT_COMMON},
  transaction_name VARCHAR,
  message VARCHAR,
  error_class VARCHAR,
  transaction_guid VARCHAR,
  params VARCHAR NOT NULL
);
CREATE TABLE transaction_traces (${AGENT_EVENT_COMMON},
  duration_ms DOUBLE,
  transaction_name VARCHAR,
  uri VARCHAR,
  transaction_guid VARCHAR,
  trace VARCHAR NOT NULL            -- the decoded trace tree as JSON (or the raw value when it does not decode)
);
CREATE TABLE sql_traces (${AGENT_EVENT_COMMON},
  transaction_name VARCHAR,
  url VARCHAR,
  sql_id VARCHAR,
  sql VARCHAR,
  metric_name VARCHAR,
  call_count DOUBLE,
  total DOUBLE,
  min DOUBLE,
  max DOUBLE,
  params VARCHAR NOT NULL
);
`,
  },
  {
    version: 2,
    name: 'application settings and reporting name; metric presence',
    sql: `
-- name is the display name (REST renames it); agent_name is the name agents report under and are
-- matched by, fixed when the application is created. The table is rebuilt rather than altered:
-- DuckDB refuses to commit an UPDATE of a stored table altered in the same transaction.
CREATE TABLE applications_v2 (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  name VARCHAR NOT NULL,
  agent_name VARCHAR NOT NULL,
  language VARCHAR,
  apdex_t DOUBLE NOT NULL,
  end_user_apdex_t DOUBLE NOT NULL DEFAULT 7,
  enable_real_user_monitoring BOOLEAN NOT NULL DEFAULT false,
  use_server_side_config BOOLEAN NOT NULL DEFAULT false,
  created_at TIMESTAMP NOT NULL
);
INSERT INTO applications_v2 (id, account_id, name, agent_name, language, apdex_t, created_at)
  SELECT id, account_id, name, name, language, apdex_t, created_at FROM applications;
DROP TABLE applications;
ALTER TABLE applications_v2 RENAME TO applications;
-- Every unscoped metric ever stored per app, host and instance: REST lists metric names and
-- tells "no data in the window" from "never reported" without scanning timeslices.
CREATE TABLE metric_presence (
  account_id INTEGER NOT NULL,
  app_id INTEGER NOT NULL,
  host_id INTEGER NOT NULL,
  instance_id INTEGER NOT NULL,
  metric_id INTEGER NOT NULL
);
INSERT INTO metric_presence
  SELECT DISTINCT account_id, app_id, host_id, instance_id, metric_id FROM timeslices WHERE scope_id = 0;
`,
  },
  {
    version: 3,
    name: 'compacted timeslices',
    sql: `
-- Timeslices older than a few hours, moved out of arrival order into (account, app, metric, time)
-- order by the compactor: a query for one application's metrics then reads only its own blocks.
-- Same columns as timeslices; queries read both tables.
CREATE TABLE timeslices_compacted AS SELECT * FROM timeslices LIMIT 0;
`,
  },
  {
    version: 4,
    name: 'daily timeslice blocks',
    sql: `
-- Complete days of compacted timeslices, merged from their hour blocks into one block per day sorted by
-- (account, app, metric, time): a week of one application's metrics reads seven runs, not 168.
CREATE TABLE timeslices_daily AS SELECT * FROM timeslices LIMIT 0;
`,
  },
  {
    version: 5,
    name: 'deployment ids and deleted deployments',
    sql: `
-- Deployments are ChangeTrackingEvent rows of custom_events (store/deployments.ts). Their REST v2
-- ids come from this sequence: one for the store, never reused, not even after a deletion.
CREATE SEQUENCE deployment_ids START 1;
-- Deployments deleted through REST v2. Change tracking events are immutable (the graph API has no
-- delete and NRQL keeps reading them); REST listings and chart markers leave these ids out.
CREATE TABLE deleted_deployments (
  account_id INTEGER NOT NULL,
  app_id INTEGER NOT NULL,
  deployment_id BIGINT NOT NULL,
  deleted_at TIMESTAMP NOT NULL
);
`,
  },
  {
    version: 6,
    name: 'key transactions, mobile and browser applications',
    sql: `
CREATE TABLE key_transactions (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  app_id INTEGER NOT NULL,
  name VARCHAR NOT NULL,
  metric_name VARCHAR NOT NULL,     -- the transaction's metric, e.g. WebTransaction/Expressjs/GET//users
  apdex_t DOUBLE NOT NULL,
  browser_apdex_t DOUBLE NOT NULL,
  created_at TIMESTAMP NOT NULL
);
CREATE TABLE mobile_applications (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  name VARCHAR NOT NULL,            -- its Mobile events carry it as appName
  application_token VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL
);
CREATE TABLE browser_applications (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  name VARCHAR NOT NULL,
  browser_monitoring_key VARCHAR NOT NULL,
  cookies_enabled BOOLEAN NOT NULL,
  distributed_tracing_enabled BOOLEAN NOT NULL,
  loader_type VARCHAR NOT NULL,     -- SPA, PRO or LITE
  apm_app_id INTEGER,               -- the APM application it is the browser side of; NULL when standalone
  created_at TIMESTAMP NOT NULL
);
`,
  },
  {
    version: 7,
    name: 'agent, browser and mobile settings',
    sql: `
-- Settings NerdGraph reads and changes, as JSON (domain/agent-settings.ts); NULL: New Relic's defaults.
ALTER TABLE applications ADD COLUMN agent_settings VARCHAR;
-- Rebuilt rather than altered: DuckDB refuses to commit an UPDATE of a stored table altered in the
-- same transaction (see migration 2).
CREATE TABLE browser_applications_v7 (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  name VARCHAR NOT NULL,
  browser_monitoring_key VARCHAR NOT NULL,
  cookies_enabled BOOLEAN NOT NULL,
  distributed_tracing_enabled BOOLEAN NOT NULL,
  loader_type VARCHAR NOT NULL,     -- SPA, PRO or LITE
  apm_app_id INTEGER,               -- the APM application it is the browser side of; NULL when standalone
  created_at TIMESTAMP NOT NULL,
  -- A standalone application's Apdex T. A browser side has none of its own (NULL): its Apdex T is its
  -- APM application's end_user_apdex_t, the one place that fact is kept.
  apdex_t DOUBLE DEFAULT 7,
  -- The browser monitoring settings but loader_type, cookies_enabled and distributed_tracing_enabled.
  monitoring_settings VARCHAR
);
INSERT INTO browser_applications_v7
  SELECT *, CASE WHEN apm_app_id IS NULL THEN 7 END, NULL FROM browser_applications;
DROP TABLE browser_applications;
ALTER TABLE browser_applications_v7 RENAME TO browser_applications;
ALTER TABLE mobile_applications ADD COLUMN settings VARCHAR;
-- The highest id each entity store has handed out: deleting the newest key transaction, mobile or
-- browser application must not hand its id (and so its entity GUID) to the next one after a restart.
CREATE TABLE entity_ids (
  kind VARCHAR NOT NULL,            -- the store's table: key_transactions, mobile_applications, browser_applications
  highest INTEGER NOT NULL
);
INSERT INTO entity_ids
  SELECT 'key_transactions', coalesce(max(id), 0) FROM key_transactions
  UNION ALL SELECT 'mobile_applications', coalesce(max(id), 0) FROM mobile_applications
  UNION ALL SELECT 'browser_applications', coalesce(max(id), 0) FROM browser_applications;
`,
  },
  {
    version: 8,
    name: 'alerts: policies, conditions, evaluator state, incidents and issues',
    sql: `
-- One vocabulary (NerdGraph's); REST v2 renders the same rows (a REST violation is an incident, a REST
-- incident an issue). Bodies are the domain objects as JSON (src/alerts/alert-model.ts); the columns
-- beside them are what lookups filter on.
CREATE SEQUENCE alert_policy_ids START 1;
CREATE SEQUENCE alert_condition_ids START 1;
CREATE TABLE alert_policies (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  body VARCHAR NOT NULL,
  created_at BIGINT NOT NULL,       -- epoch ms
  updated_at BIGINT NOT NULL
);
CREATE TABLE alert_conditions (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  policy_id INTEGER NOT NULL,
  body VARCHAR NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
-- Each condition's evaluator memory (signals, pending windows, run counts): evaluation resumes from it.
CREATE TABLE alert_evaluator_states (
  condition_id INTEGER NOT NULL,
  state VARCHAR NOT NULL
);
CREATE TABLE alert_incidents (
  id VARCHAR NOT NULL,
  account_id INTEGER NOT NULL,
  condition_id INTEGER NOT NULL,
  issue_id VARCHAR,
  opened_at BIGINT NOT NULL,        -- wall time detected, epoch ms
  closed_at BIGINT,                 -- wall time the close was decided
  body VARCHAR NOT NULL
);
CREATE TABLE alert_issues (
  id VARCHAR NOT NULL,
  account_id INTEGER NOT NULL,
  state VARCHAR NOT NULL,
  created_at BIGINT NOT NULL,
  closed_at BIGINT,
  body VARCHAR NOT NULL
);
-- Notification destinations, channels and workflows (NerdGraph's aiNotifications and aiWorkflows).
CREATE TABLE alert_destinations (id VARCHAR NOT NULL, account_id INTEGER NOT NULL, body VARCHAR NOT NULL);
CREATE TABLE alert_channels (id VARCHAR NOT NULL, account_id INTEGER NOT NULL, body VARCHAR NOT NULL);
CREATE TABLE alert_workflows (id VARCHAR NOT NULL, account_id INTEGER NOT NULL, body VARCHAR NOT NULL);
-- The notification outbox and log: one row per (issue, channel, trigger, issue updatedAt), written in
-- the transaction of the issue change it announces, so a restart neither loses nor repeats one.
CREATE TABLE alert_notifications (
  key VARCHAR NOT NULL,
  account_id INTEGER NOT NULL,
  issue_id VARCHAR NOT NULL,
  channel_id VARCHAR NOT NULL,
  body VARCHAR NOT NULL,            -- the outbox entry as JSON: workflow, trigger, rendered payload
  status VARCHAR NOT NULL,          -- PENDING, SENT or FAILED
  attempts INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
`,
  },
  {
    version: 9,
    name: 'hourly timeslice rollups and maintenance state',
    sql: `
-- One row per (account, app, host, instance, metric, scope) and closed hour: the hour's timeslices merged
-- with the summary algebra (sums of counts, totals, exclusives and squares; min of mins; max of maxes; for
-- Apdex rows S, T, F summed and apdex_t kept in min/max). The columns of timeslices (ts is the hour), then
-- the sum and the number of the minutes' exclusive time per call (exclusive / call_count where call_count
-- is not 0), which REST's average_exclusive_time averages and no sum of the six numbers gives.
CREATE TABLE timeslices_hourly (
  account_id INTEGER NOT NULL,
  app_id INTEGER NOT NULL,
  host_id INTEGER NOT NULL,
  instance_id INTEGER NOT NULL,
  metric_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  ts TIMESTAMP NOT NULL,
  call_count DOUBLE NOT NULL,
  total DOUBLE NOT NULL,
  exclusive DOUBLE NOT NULL,
  min DOUBLE NOT NULL,
  max DOUBLE NOT NULL,
  sum_of_squares DOUBLE NOT NULL,
  exclusive_per_call DOUBLE,         -- NULL when no minute had calls
  exclusive_per_call_points DOUBLE NOT NULL
);
-- Background upkeep, one row per task: how far it got and when it last ran. The rollup's watermark
-- (hours before it are rolled up) commits in the transaction that writes the hour, so an hour is rolled
-- up exactly once, whatever kills the process. An upgraded store starts with no watermark: the rollup
-- begins at its oldest timeslice, and reads use 1-minute data until then, so answers do not change.
CREATE TABLE store_maintenance (
  task VARCHAR NOT NULL,            -- rollup or retention
  watermark TIMESTAMP,
  last_run_at TIMESTAMP,
  last_rows BIGINT NOT NULL
);
INSERT INTO store_maintenance VALUES ('rollup', NULL, NULL, 0), ('retention', NULL, NULL, 0);
`,
  },
  {
    version: 10,
    name: 'users, and user keys that belong to one',
    sql: `
-- A user has a name and an email (NerdGraph's actor.user) and reaches one account; an admin may
-- manage accounts, users and keys through the service's HTTP API (timeslice keys/users/accounts).
CREATE TABLE users (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  name VARCHAR NOT NULL,
  email VARCHAR,                    -- NULL for users made from keys that predate this table
  admin BOOLEAN NOT NULL,
  created_at TIMESTAMP NOT NULL
);
-- Each user key made before this table stood for a user whose id was the key's: keep those ids.
-- The first of them becomes the admin, so an existing install can manage its keys.
INSERT INTO users
  SELECT id, account_id, 'User of key ' || hint, NULL,
         id = (SELECT min(id) FROM api_keys WHERE kind = 'user'), created_at
  FROM api_keys WHERE kind = 'user';
-- Rebuilt rather than altered (see migration 2).
CREATE TABLE api_keys_v10 (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  kind VARCHAR NOT NULL,            -- 'user' (REST, GraphQL) or 'license' (agents, ingest)
  key_hash VARCHAR NOT NULL,        -- sha256 hex of the key; the key itself is never stored
  hint VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL,
  user_id INTEGER                   -- the user a user key belongs to; NULL for license keys
);
INSERT INTO api_keys_v10 SELECT *, CASE WHEN kind = 'user' THEN id END FROM api_keys;
DROP TABLE api_keys;
ALTER TABLE api_keys_v10 RENAME TO api_keys;
`,
  },
  {
    version: 11,
    name: 'alerts: numeric REST v2 ids for incidents and issues, REST notification channels',
    sql: `
-- REST v2 addresses incidents (its "violations") and issues (its "incidents") by integer; NerdGraph by
-- UUID. One number per (kind, UUID), from one sequence per kind, assigned in the transaction that first
-- stores the incident or issue and never changed, so both APIs name the same object for good.
CREATE SEQUENCE alert_incident_numbers START 1;
CREATE SEQUENCE alert_issue_numbers START 1;
CREATE TABLE alert_rest_ids (
  kind VARCHAR NOT NULL,            -- 'incident' (REST violation) or 'issue' (REST incident)
  id VARCHAR NOT NULL,              -- the UUID NerdGraph shows
  number BIGINT NOT NULL            -- the id REST v2 shows
);
-- What earlier versions stored gets its numbers in the order it happened.
INSERT INTO alert_rest_ids
  SELECT 'incident', id, nextval('alert_incident_numbers') FROM (SELECT id FROM alert_incidents ORDER BY opened_at, id);
INSERT INTO alert_rest_ids
  SELECT 'issue', id, nextval('alert_issue_numbers') FROM (SELECT id FROM alert_issues ORDER BY created_at, id);
-- REST v2's notification channels (alerts_channels): integer ids; the body holds the type, the
-- configuration as sent (secrets included: they are needed to deliver) and the linked policies.
CREATE SEQUENCE alert_legacy_channel_ids START 1;
CREATE TABLE alert_legacy_channels (
  id INTEGER NOT NULL,
  account_id INTEGER NOT NULL,
  body VARCHAR NOT NULL
);
`,
  },
  {
    version: 12,
    name: 'alert muting rules and issue settings',
    sql: `
-- NerdGraph's alertsMutingRule*: the rule as JSON (conditions, schedule, who made it); integer ids.
CREATE SEQUENCE alert_muting_rule_ids START 1;
CREATE TABLE alert_muting_rules (id INTEGER NOT NULL, account_id INTEGER NOT NULL, body VARCHAR NOT NULL);
-- aiIssuesUpdateGracePeriod / aiIssuesUpdateIssueTtl: an account's grace periods by priority and issue TTL (ms), as JSON.
CREATE TABLE alert_issue_settings (account_id INTEGER NOT NULL, body VARCHAR NOT NULL);
`,
  },
];
