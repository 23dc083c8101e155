/**
 * The PostgreSQL catalog's numbered schema migrations (its own numbering: the DuckDB file's are in
 * store/duckdb/migrations). Never edited once released; a change is a new entry. Times are epoch
 * ms in BIGINT, as the DuckDB alert tables keep them, so both engines hand back the same numbers.
 */
export interface PgMigration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'alert state and the background lease',
    sql: `
-- Alerting, as the DuckDB store keeps it (its migration 8), with keys: bodies are the domain objects as
-- JSON text, the columns beside them what lookups filter on. seq keeps insertion order where DuckDB has rowid.
CREATE SEQUENCE alert_policy_ids START 1;
CREATE SEQUENCE alert_condition_ids START 1;
CREATE TABLE alert_policies (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE alert_conditions (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL,
  policy_id INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX alert_conditions_policy ON alert_conditions (account_id, policy_id);
CREATE TABLE alert_evaluator_states (
  condition_id INTEGER PRIMARY KEY,
  state TEXT NOT NULL
);
CREATE TABLE alert_incidents (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL,
  condition_id INTEGER NOT NULL,
  issue_id TEXT,
  opened_at BIGINT NOT NULL,
  closed_at BIGINT,
  body TEXT NOT NULL
);
CREATE INDEX alert_incidents_account ON alert_incidents (account_id, opened_at);
CREATE TABLE alert_issues (
  id TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL,
  state TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  closed_at BIGINT,
  body TEXT NOT NULL
);
CREATE INDEX alert_issues_account ON alert_issues (account_id, created_at);
CREATE TABLE alert_destinations (id TEXT PRIMARY KEY, seq BIGINT GENERATED ALWAYS AS IDENTITY, account_id INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE alert_channels (id TEXT PRIMARY KEY, seq BIGINT GENERATED ALWAYS AS IDENTITY, account_id INTEGER NOT NULL, body TEXT NOT NULL);
CREATE TABLE alert_workflows (id TEXT PRIMARY KEY, seq BIGINT GENERATED ALWAYS AS IDENTITY, account_id INTEGER NOT NULL, body TEXT NOT NULL);
-- The outbox: the idempotency key is the primary key, so however many nodes decide the same
-- notification, one row exists; its status changes in the transaction that records the send.
CREATE TABLE alert_notifications (
  key TEXT PRIMARY KEY,
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  account_id INTEGER NOT NULL,
  issue_id TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX alert_notifications_pending ON alert_notifications (created_at, seq) WHERE status = 'PENDING';
-- Who runs background work: one row per lease, its holder and expiry on the database's clock, and an
-- epoch that grows with every change of holder (a fencing token).
CREATE TABLE background_leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  epoch BIGINT NOT NULL
);
`,
  },
];
