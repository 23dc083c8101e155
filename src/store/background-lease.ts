/**
 * Background work (rollups, retention, compaction, idle expiry, alert evaluation and notification)
 * runs on exactly one node at a time: the one holding the store's background lease. A single-node
 * store holds it always; a shared catalog (PostgreSQL) hands it to one node and moves it to another
 * within seconds when the holder stops renewing it.
 */
export interface BackgroundLease {
  /** Whether this node may run background work now. */
  held(): boolean;
  /** Starts acquiring and renewing; `onChange` hears every gain and loss. */
  start(onChange?: (held: boolean) => void): void;
  /** Stops renewing and gives the lease up, so another node takes it without waiting for expiry. */
  close(): Promise<void>;
}

/** The lease of a store only one process can open: always held. */
export class AlwaysHeldLease implements BackgroundLease {
  held(): boolean {
    return true;
  }

  start(onChange?: (held: boolean) => void): void {
    onChange?.(true);
  }

  async close(): Promise<void> {}
}
