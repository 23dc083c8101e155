import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Only the service's own user may enter the data directory (and `tls/` in it). */
export const PRIVATE_DIR_MODE = 0o700;
/** Only the service's own user may read or write a file it creates: the store, its WAL, the TLS key. */
export const PRIVATE_FILE_MODE = 0o600;

/** The files and folders Timeslice keeps in its data directory, tightened when an earlier version left them open. */
const OWN_ENTRIES = ['timeslice.duckdb', 'timeslice.duckdb.wal', 'tls', 'tls/cert.pem', 'tls/key.pem'];

/**
 * Makes the data directory private before anything is written to it. The store holds every account's
 * telemetry and the hashes of their keys, and `tls/key.pem` the collector's private key, so nothing in
 * it is for other users of the machine: the directory is 0700 and the process's umask becomes 077, so
 * every file created from here on (DuckDB's database, WAL and spill files, the certificate and key) is
 * 0600 and every folder 0700. DuckDB creates its files itself, so the umask is the one place that
 * covers them all. A directory holding an earlier store has it and its own files tightened too; the
 * modes of anything else in a directory given by the user are left alone.
 */
export async function preparePrivateDataDir(dataDir: string): Promise<void> {
  process.umask(0o077);
  const existed = existsSync(dataDir);
  await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (existed && !(await isTimesliceDataDir(dataDir))) return;
  await chmod(dataDir, PRIVATE_DIR_MODE);
  for (const entry of OWN_ENTRIES) {
    const path = join(dataDir, entry);
    if (existsSync(path)) await chmod(path, entry === 'tls' ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE);
  }
}

/** An empty directory, or one that holds a Timeslice store: one whose mode is the service's to set. */
async function isTimesliceDataDir(dir: string): Promise<boolean> {
  const entries = await readdir(dir);
  return entries.length === 0 || entries.includes('timeslice.duckdb');
}
