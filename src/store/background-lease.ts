/**
 * Work shared by every node of a deployment (alert evaluation and notification, idle expiry of the
 * shared catalog; rollups and retention of a shared data engine) runs on exactly one node at a
 * time: the one holding the store's background lease. A single-node store holds it always; a shared
 * catalog (PostgreSQL) hands it to one node and moves it to another within seconds when the holder
 * stops renewing it. Work on what only this node holds (an embedded DuckDB file's rollups) needs
 * no lease.
 */
export interface BackgroundLease {
  /** Whether other nodes share the store (and may hold the lease); false for a store only this process opens. */
  readonly shared: boolean;
  /** Whether this node may run shared background work now. */
  held(): boolean;
  /** Hears every gain and loss, and now the current state; the returned function stops it. */
  watch(listener: (held: boolean) => void): () => void;
  /** Starts acquiring and renewing. */
  start(): void;
  /** Stops renewing and gives the lease up, so another node takes it without waiting for expiry. */
  close(): Promise<void>;
}

/** Listeners of a lease, told of each change once. */
export class LeaseListeners {
  private readonly listeners = new Set<(held: boolean) => void>();
  private last = false;

  /** Adds a listener and tells it the state told last. */
  add(listener: (held: boolean) => void): () => void {
    this.listeners.add(listener);
    listener(this.last);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener when `held` differs from what they were told last. */
  tell(held: boolean): void {
    if (this.last === held) return;
    this.last = held;
    for (const listener of this.listeners) listener(held);
  }
}

/** The lease of a store only one process can open: always held. */
export class AlwaysHeldLease implements BackgroundLease {
  readonly shared = false;

  held(): boolean {
    return true;
  }

  watch(listener: (held: boolean) => void): () => void {
    listener(true);
    return () => undefined;
  }

  start(): void {}

  async close(): Promise<void> {}
}
