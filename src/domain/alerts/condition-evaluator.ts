import {
  breaches,
  evaluationStepMs,
  operatorSymbol,
  termPriorityToIssuePriority,
  type CloseCause,
  type ConditionTerm,
  type Incident,
  type NrqlCondition,
  type TermKey,
} from './alert-model.js';

/**
 * One aggregated value of one signal's window, as the NRQL pipeline reported it at `arrivalAt`.
 * A later observation of the same window replaces the value (the query re-read the whole window).
 */
export interface WindowObservation {
  /** FACET values in the condition's facet order; empty without FACET. */
  readonly facets: readonly string[];
  /** Data time: start of the window. */
  readonly windowStart: number;
  readonly value: number;
  /** Data time of the newest data in the window (EVENT_FLOW's watermark); defaults to `windowStart`. */
  readonly timestamp?: number;
  /** Wall time the value was read. */
  readonly arrivalAt: number;
}

export type EvaluatorEvent =
  | { readonly kind: 'incidentOpened'; readonly incident: Incident }
  | { readonly kind: 'incidentClosed'; readonly incident: Incident };

/** One closed window as evaluated, for explainability (New Relic's NrAiSignal). */
export interface EvaluatedPoint {
  readonly signalKey: string;
  readonly windowStart: number;
  /** After gap filling; null = empty window. */
  readonly value: number | null;
  readonly filled: boolean;
}

interface PendingWindow {
  windowStart: number;
  value: number;
  lastArrivalAt: number;
}

interface TermState {
  breachCount: number;
  breachStart: number | null;
  recoveryCount: number;
  recoveryStart: number | null;
  openIncidentId: string | null;
}

interface SignalState {
  facets: string[];
  firstWindowStart: number;
  lastArrivalAt: number;
  lastClosedWindow: number | null;
  pending: PendingWindow[];
  lastValue: number | null;
  lastValueWindow: number | null;
  /** Set while the signal is lost; gap windows after a loss are not filled. */
  lostAt: number | null;
  lostIncidentId: string | null;
  terms: Partial<Record<TermKey, TermState>>;
}

/** Everything the evaluator remembers, as plain JSON-able data (persisted by the store). */
export interface ConditionEvaluatorState {
  /** Wall time of the last resetting edit: windows that start before it are not evaluated. */
  resetAt: number | null;
  /** EVENT_FLOW: the newest data timestamp seen for the condition (the watermark is per condition). */
  watermark: number | null;
  signals: Record<string, SignalState>;
  /** Open incidents by id. */
  open: Record<string, Incident>;
  /** Late observations dropped since start (a closed window cannot change). */
  droppedLate: number;
}

/** EVENT_FLOW closes a window it has held this long with no newer data (New Relic's 65-minute hint). */
export const EVENT_FLOW_FLUSH_MS = 65 * 60_000;
/** Signal memory: LAST_VALUE fill and an idle signal are kept at least this long (or a term's duration). */
export const SIGNAL_MEMORY_MS = 2 * 60 * 60_000;

export function emptyEvaluatorState(): ConditionEvaluatorState {
  return { resetAt: null, watermark: null, signals: {}, open: {}, droppedLate: 0 };
}

/** Whether the entity an account knows by this name (application, host, GUID, id) stopped expectedly. */
export type ExpectedTermination = (accountId: number, name: string) => boolean;

/** Facet attributes whose value names an entity (reference §4.11, a choice; alertSeverity uses the same). */
export const ENTITY_ATTRIBUTES: readonly string[] = ['appName', 'entity.name', 'entity.guid', 'entityGuid', 'host', 'hostname'];

export function signalKeyOf(facets: readonly string[]): string {
  return JSON.stringify(facets);
}

/**
 * New Relic's streaming evaluation of one NRQL static condition (alerts reference §4): windows close
 * by aggregation method, empty windows are filled, each term counts breaching and recovering points,
 * incidents open and close (recovery back-dated), time limits and loss of signal act on the wall clock.
 * Deterministic: its only inputs are observations and `now` values, so tests drive it with an
 * injected clock; its state is plain data.
 */
/** The fields of an incident set the same way for every kind of incident a condition opens. */
type IncidentIdentity = 'id' | 'accountId' | 'policyId' | 'conditionId' | 'conditionName' | 'signalKey' | 'facets' | 'detectedAt' | 'closedAt' | 'closeCause' | 'closeDetectedAt' | 'issueId';

export class ConditionEvaluator {
  private events: EvaluatorEvent[] = [];
  private changes = 0;
  readonly evaluated: EvaluatedPoint[] = [];

  constructor(
    private condition: NrqlCondition,
    readonly state: ConditionEvaluatorState,
    private readonly newId: () => string,
    /** Keep evaluated points for explainability (tests); off in the service to bound memory. */
    private readonly keepEvaluated = false,
  ) {}

  get current(): NrqlCondition {
    return this.condition;
  }

  /**
   * Counts the state changes a commit must keep: windows closed, incidents opened or closed, signals
   * added, lost or forgotten, resets. Values of windows still open, arrival times and the watermark
   * are not counted: they come back by reading the open windows again.
   */
  get revision(): number {
    return this.changes;
  }

  /** Feeds values read from the NRQL pipeline; returns the incidents opened and closed as a result. */
  observe(observations: readonly WindowObservation[], now: number): EvaluatorEvent[] {
    const sig = this.condition.signal;
    const step = evaluationStepMs(sig);
    for (const o of observations) {
      if (!Number.isFinite(o.value)) continue;
      if (this.state.resetAt !== null && o.windowStart < this.state.resetAt) continue;
      const key = signalKeyOf(o.facets);
      let signal = this.state.signals[key];
      if (signal === undefined) {
        signal = {
          facets: [...o.facets],
          firstWindowStart: o.windowStart,
          lastArrivalAt: o.arrivalAt,
          lastClosedWindow: null,
          pending: [],
          lastValue: null,
          lastValueWindow: null,
          lostAt: null,
          lostIncidentId: null,
          terms: {},
        };
        this.state.signals[key] = signal;
        this.changes += 1;
      }
      signal.lastArrivalAt = Math.max(signal.lastArrivalAt, o.arrivalAt);
      if (signal.lostIncidentId !== null) this.close(signal.lostIncidentId, o.arrivalAt, 'EVALUATOR', now);
      signal.lostIncidentId = null;
      const windowStart = Math.floor(o.windowStart / step) * step;
      const cadenceClosed = sig.aggregationMethod === 'CADENCE' && o.arrivalAt >= windowStart + sig.aggregationWindow * 1000 + (sig.aggregationDelay ?? 0) * 1000;
      if (cadenceClosed || (signal.lastClosedWindow !== null && windowStart <= signal.lastClosedWindow)) {
        this.state.droppedLate += 1;
        continue;
      }
      const existing = signal.pending.find((p) => p.windowStart === windowStart);
      if (existing !== undefined) {
        existing.value = o.value;
        existing.lastArrivalAt = o.arrivalAt;
      } else {
        signal.pending.push({ windowStart, value: o.value, lastArrivalAt: o.arrivalAt });
        signal.pending.sort((a, b) => a.windowStart - b.windowStart);
      }
      const stamp = o.timestamp ?? o.windowStart;
      this.state.watermark = this.state.watermark === null ? stamp : Math.max(this.state.watermark, stamp);
    }
    if (sig.aggregationMethod === 'EVENT_FLOW') this.closeByWatermark(now);
    return this.drain();
  }

  /** Advances the wall clock: timers, cadence, flushes, time limits, loss of signal, forgetting. */
  /**
   * Closes the windows that are due and applies the wall-clock rules. `endedExpectedly` says whether an
   * entity, by name, stopped expectedly (its agents shut down): with `ignoreOnExpectedTermination`, a lost
   * signal whose FACET names such an entity opens no incident.
   */
  tick(now: number, endedExpectedly?: ExpectedTermination): EvaluatorEvent[] {
    const sig = this.condition.signal;
    const windowMs = sig.aggregationWindow * 1000;
    for (const signal of Object.values(this.state.signals)) {
      while (signal.pending.length > 0) {
        const first = signal.pending[0]!;
        let due: boolean;
        if (sig.aggregationMethod === 'EVENT_TIMER') due = now >= first.lastArrivalAt + (sig.aggregationTimer ?? 60) * 1000;
        else if (sig.aggregationMethod === 'CADENCE') due = now >= first.windowStart + windowMs + (sig.aggregationDelay ?? 0) * 1000;
        else due = now >= first.lastArrivalAt + EVENT_FLOW_FLUSH_MS;
        if (!due) break;
        this.closeWindow(signal, now);
      }
    }
    this.expireTimeLimits(now);
    this.lossOfSignal(now, endedExpectedly);
    this.forget(now);
    return this.drain();
  }

  /** Closes an open incident for a reason outside evaluation (user, condition change); resets its term. */
  closeIncident(incidentId: string, cause: CloseCause, now: number): EvaluatorEvent[] {
    this.close(incidentId, now, cause, now);
    return this.drain();
  }

  /**
   * Applies an edit. An edit that changes what a point means (query, window, method, delay, timer,
   * fill, slide, the close-on-loss flag, a term's operator/threshold/duration or the set of terms)
   * closes the open incidents (CONDITION_MODIFIED) and forgets all signals; other edits keep state.
   */
  edit(next: NrqlCondition, now: number): EvaluatorEvent[] {
    const previous = this.condition;
    this.condition = next;
    if (!next.enabled) return this.resetAll('CONDITION_DISABLED', now);
    if (editResetsEvaluation(previous, next) || !previous.enabled) return this.resetAll('CONDITION_MODIFIED', now);
    return [];
  }

  /** The condition or its policy is gone: close everything with `cause`. */
  remove(cause: 'CONDITION_DELETED' | 'POLICY_DELETED', now: number): EvaluatorEvent[] {
    return this.resetAll(cause, now);
  }

  private resetAll(cause: CloseCause, now: number): EvaluatorEvent[] {
    this.changes += 1;
    for (const id of Object.keys(this.state.open)) this.close(id, now, cause, now);
    this.state.signals = {};
    this.state.watermark = null;
    this.state.resetAt = now;
    return this.drain();
  }

  private drain(): EvaluatorEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }

  private closeByWatermark(now: number): void {
    const watermark = this.state.watermark;
    if (watermark === null) return;
    const sig = this.condition.signal;
    const reach = sig.aggregationWindow * 1000 + (sig.aggregationDelay ?? 0) * 1000;
    for (const signal of Object.values(this.state.signals)) {
      while (signal.pending.length > 0 && signal.pending[0]!.windowStart + reach <= watermark) this.closeWindow(signal, now);
    }
  }

  /** Closes the signal's earliest pending window: first the empty windows of the gap before it. */
  private closeWindow(signal: SignalState, now: number): void {
    const window = signal.pending.shift()!;
    this.changes += 1;
    const step = evaluationStepMs(this.condition.signal);
    if (signal.lastClosedWindow !== null) {
      const memory = this.memoryMs();
      const firstGap = Math.max(signal.lastClosedWindow + step, window.windowStart - memory - step);
      for (let start = firstGap; start < window.windowStart; start += step) {
        const filled = signal.lostAt === null ? this.fill(signal, start) : null;
        this.evaluatePoint(signal, start, filled, filled !== null, now);
      }
    }
    signal.lostAt = null;
    signal.lastClosedWindow = window.windowStart;
    signal.lastValue = window.value;
    signal.lastValueWindow = window.windowStart;
    this.evaluatePoint(signal, window.windowStart, window.value, false, now);
  }

  private memoryMs(): number {
    return Math.max(SIGNAL_MEMORY_MS, ...this.condition.terms.map((t) => t.thresholdDuration * 1000));
  }

  private fill(signal: SignalState, windowStart: number): number | null {
    const sig = this.condition.signal;
    if (sig.fillOption === 'STATIC') return sig.fillValue ?? 0;
    if (sig.fillOption === 'LAST_VALUE' && signal.lastValue !== null && signal.lastValueWindow !== null) {
      return windowStart - signal.lastValueWindow <= this.memoryMs() ? signal.lastValue : null;
    }
    return null;
  }

  private evaluatePoint(signal: SignalState, windowStart: number, value: number | null, filled: boolean, now: number): void {
    const sig = this.condition.signal;
    if (sig.evaluationDelay !== null && windowStart < signal.firstWindowStart + sig.evaluationDelay * 1000) return;
    const key = signalKeyOf(signal.facets);
    if (this.keepEvaluated) this.evaluated.push({ signalKey: key, windowStart, value, filled });
    const step = evaluationStepMs(sig);
    const windowEnd = windowStart + sig.aggregationWindow * 1000;
    for (const term of this.condition.terms) {
      const state = (signal.terms[term.priority] ??= { breachCount: 0, breachStart: null, recoveryCount: 0, recoveryStart: null, openIncidentId: null });
      const needed = Math.max(1, Math.round((term.thresholdDuration * 1000) / step));
      const breaching = value !== null && breaches(term.operator, value, term.threshold);
      if (state.openIncidentId === null) {
        if (breaching) {
          if (state.breachCount === 0) state.breachStart = windowStart;
          state.breachCount += 1;
          const opens = term.thresholdOccurrences === 'AT_LEAST_ONCE' || state.breachCount >= needed;
          if (opens) this.open(signal, term, state, windowEnd, now);
        } else if (term.thresholdOccurrences === 'ALL' || value === null) {
          // ALL needs consecutive breaches; an empty (unfilled) window breaks any run.
          state.breachCount = 0;
          state.breachStart = null;
        }
      } else if (breaching || value === null) {
        state.recoveryCount = 0;
        state.recoveryStart = null;
      } else {
        if (state.recoveryCount === 0) state.recoveryStart = windowStart;
        state.recoveryCount += 1;
        if (state.recoveryCount >= needed) this.close(state.openIncidentId, state.recoveryStart!, 'EVALUATOR', now);
      }
    }
  }

  private open(signal: SignalState, term: ConditionTerm, state: TermState, openedAt: number, now: number): void {
    const incident = this.opened(signal, {
      termKey: term.priority,
      priority: termPriorityToIssuePriority(term.priority),
      evaluationType: 'Threshold',
      operator: term.operator,
      threshold: term.threshold,
      thresholdDuration: term.thresholdDuration,
      thresholdOccurrences: term.thresholdOccurrences,
      disableHealthStatusReporting: term.disableHealthStatusReporting,
      title: thresholdTitle(this.condition, signal.facets, term),
      degradationAt: state.breachStart ?? openedAt,
      openedAt,
    }, now);
    state.openIncidentId = incident.id;
    state.breachCount = 0;
    state.breachStart = null;
    state.recoveryCount = 0;
    state.recoveryStart = null;
  }

  /** A new open incident of this condition on `signal` (what differs by kind given), recorded as opened. */
  private opened(signal: SignalState, kind: Omit<Incident, IncidentIdentity>, now: number): Incident {
    const condition = this.condition;
    const incident: Incident = {
      ...kind,
      id: this.newId(),
      accountId: condition.accountId,
      policyId: condition.policyId,
      conditionId: condition.id,
      conditionName: condition.name,
      signalKey: signalKeyOf(signal.facets),
      facets: facetRecord(condition.facets, signal.facets),
      detectedAt: now,
      closedAt: null,
      closeCause: null,
      closeDetectedAt: null,
      issueId: null,
    };
    this.changes += 1;
    this.state.open[incident.id] = incident;
    this.events.push({ kind: 'incidentOpened', incident });
    return incident;
  }

  /** Closes an incident at `closedAt`; the term it belonged to restarts its count from there. */
  private close(incidentId: string, closedAt: number, cause: CloseCause, now: number): void {
    const incident = this.state.open[incidentId];
    if (incident === undefined) return;
    this.changes += 1;
    delete this.state.open[incidentId];
    const closed: Incident = { ...incident, closedAt: Math.max(closedAt, incident.openedAt), closeCause: cause, closeDetectedAt: now };
    const signal = this.state.signals[incident.signalKey];
    if (signal !== undefined) {
      if (signal.lostIncidentId === incidentId) signal.lostIncidentId = null;
      const state = signal.terms[incident.termKey];
      if (state !== undefined && state.openIncidentId === incidentId) {
        state.openIncidentId = null;
        state.breachCount = 0;
        state.breachStart = null;
        state.recoveryCount = 0;
        state.recoveryStart = null;
      }
    }
    this.events.push({ kind: 'incidentClosed', incident: closed });
  }

  private expireTimeLimits(now: number): void {
    const limit = this.condition.violationTimeLimitSeconds * 1000;
    for (const incident of Object.values(this.state.open)) {
      if (now >= incident.openedAt + limit) this.close(incident.id, incident.openedAt + limit, 'EXPIRED', now);
    }
  }

  private lossOfSignal(now: number, endedExpectedly: ExpectedTermination | undefined): void {
    const exp = this.condition.expiration;
    if (exp.expirationDuration === null) return;
    const duration = exp.expirationDuration * 1000;
    for (const signal of Object.values(this.state.signals)) {
      if (signal.lostAt !== null) continue;
      const lostAt = signal.lastArrivalAt + duration;
      if (now < lostAt) continue;
      signal.lostAt = lostAt;
      this.changes += 1;
      if (exp.closeViolationsOnExpiration) {
        for (const state of Object.values(signal.terms)) {
          if (state?.openIncidentId != null) this.close(state.openIncidentId, lostAt, 'LOSS_OF_SIGNAL', now);
        }
      }
      for (const state of Object.values(signal.terms)) {
        if (state === undefined) continue;
        state.breachCount = 0;
        state.breachStart = null;
      }
      if (exp.openViolationOnExpiration && signal.lostIncidentId === null && !this.terminatedExpectedly(signal, endedExpectedly)) this.openLost(signal, lostAt, now);
    }
  }

  /** The signal's entity (a FACET on an entity attribute) ended expectedly, and the condition ignores that. */
  private terminatedExpectedly(signal: SignalState, endedExpectedly: ExpectedTermination | undefined): boolean {
    if (!this.condition.expiration.ignoreOnExpectedTermination || endedExpectedly === undefined) return false;
    return this.condition.facets.some((attribute, i) => ENTITY_ATTRIBUTES.includes(attribute) && endedExpectedly(this.condition.accountId, signal.facets[i] ?? ''));
  }

  private openLost(signal: SignalState, lostAt: number, now: number): void {
    const incident = this.opened(signal, {
      termKey: 'LOSS_OF_SIGNAL',
      priority: 'CRITICAL',
      evaluationType: 'Expiration',
      operator: null,
      threshold: null,
      thresholdDuration: null,
      thresholdOccurrences: null,
      disableHealthStatusReporting: false,
      title: `${targetName(this.condition, signal.facets)} signal lost on '${this.condition.name}'`,
      degradationAt: lostAt,
      openedAt: lostAt,
    }, now);
    signal.lostIncidentId = incident.id;
  }

  /** An idle signal with nothing open and nothing pending is forgotten; its next point starts afresh. */
  private forget(now: number): void {
    const memory = this.memoryMs();
    for (const [key, signal] of Object.entries(this.state.signals)) {
      const holdsIncident = Object.values(signal.terms).some((t) => t?.openIncidentId != null) || signal.lostIncidentId !== null;
      if (!holdsIncident && signal.pending.length === 0 && now - signal.lastArrivalAt > memory) {
        delete this.state.signals[key];
        this.changes += 1;
      }
    }
  }
}

/** Fields whose change resets evaluation (reference §4.5 "Condition edits can reset"). */
export function editResetsEvaluation(a: NrqlCondition, b: NrqlCondition): boolean {
  const sa = a.signal;
  const sb = b.signal;
  if (a.query !== b.query) return true;
  if (
    sa.aggregationWindow !== sb.aggregationWindow ||
    sa.aggregationMethod !== sb.aggregationMethod ||
    sa.aggregationDelay !== sb.aggregationDelay ||
    sa.aggregationTimer !== sb.aggregationTimer ||
    sa.fillOption !== sb.fillOption ||
    sa.fillValue !== sb.fillValue ||
    sa.slideBy !== sb.slideBy ||
    sa.evaluationDelay !== sb.evaluationDelay
  ) {
    return true;
  }
  if (a.expiration.closeViolationsOnExpiration !== b.expiration.closeViolationsOnExpiration) return true;
  if (a.terms.length !== b.terms.length) return true;
  for (const ta of a.terms) {
    const tb = b.terms.find((t) => t.priority === ta.priority);
    if (tb === undefined || tb.operator !== ta.operator || tb.threshold !== ta.threshold || tb.thresholdDuration !== ta.thresholdDuration) return true;
  }
  return false;
}

function facetRecord(names: readonly string[], values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  names.forEach((name, i) => {
    out[name] = values[i] ?? '';
  });
  return out;
}

/** The incident's target: the facet values, or the condition's name for a condition without FACET. */
export function targetName(condition: NrqlCondition, facets: readonly string[]): string {
  return facets.length > 0 ? facets.join(', ') : condition.name;
}

function thresholdTitle(condition: NrqlCondition, facets: readonly string[], term: ConditionTerm): string {
  const minutes = term.thresholdDuration / 60;
  const span = Number.isInteger(minutes) ? `${minutes} minutes` : `${term.thresholdDuration} seconds`;
  const occurrence = term.thresholdOccurrences === 'ALL' ? `for ${span}` : `at least once in ${span}`;
  return `${targetName(condition, facets)} query result is ${operatorSymbol(term.operator)} ${term.threshold} ${occurrence} on '${condition.name}'`;
}
