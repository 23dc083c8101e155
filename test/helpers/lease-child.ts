/**
 * A node holding nothing but the background lease, for kill -9 tests: opens the catalog database
 * at argv[2] and runs a PgLease (ttl argv[3] ms, renewed every argv[4] ms), printing `held` and
 * `lost` as it changes, until the parent kills it.
 */
import { openPostgresDatabase } from '../../src/store/postgres/pg-database.js';
import { PgLease } from '../../src/store/postgres/pg-lease.js';

const [url, ttl, renew] = process.argv.slice(2);
const db = await openPostgresDatabase(url!);
const lease = new PgLease(db, { ttlMs: Number(ttl), renewEveryMs: Number(renew), holder: `child-${process.pid}` });
lease.watch((held) => process.stdout.write(held ? 'held\n' : 'lost\n'));
lease.start();
