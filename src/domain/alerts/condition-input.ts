import type {
  AggregationMethod,
  ConditionExpiration,
  ConditionSignal,
  ConditionTerm,
  FillOption,
  NrqlCondition,
  TermOperator,
  TermPriority,
  ThresholdOccurrences,
} from './alert-model.js';
import { checkIncidentTemplates } from './incident-annotations.js';

/** NerdGraph's AlertsNrqlConditionStaticInput as the domain takes it (seconds, enum strings). */
export interface NrqlConditionInput {
  readonly name: string;
  readonly enabled: boolean;
  readonly query: string;
  readonly facets?: readonly string[];
  readonly description?: string | null;
  readonly runbookUrl?: string | null;
  readonly titleTemplate?: string | null;
  readonly targetEntity?: string | null;
  readonly dataAccountId?: number | null;
  readonly terms?: ReadonlyArray<{
    readonly priority: TermPriority;
    readonly operator: TermOperator;
    readonly threshold: number;
    readonly thresholdDuration: number;
    readonly thresholdOccurrences: ThresholdOccurrences;
    readonly disableHealthStatusReporting?: boolean | null;
    readonly disableEventCreation?: boolean | null;
  }>;
  readonly signal?: Partial<{ [K in keyof ConditionSignal]: ConditionSignal[K] | null }> | null;
  readonly expiration?: Partial<{ [K in keyof ConditionExpiration]: ConditionExpiration[K] | null }> | null;
  readonly violationTimeLimitSeconds?: number | null;
  readonly entityTargets?: readonly string[];
  readonly apmMetric?: NrqlCondition['apmMetric'];
}

/** One entry of NerdGraph's `extensions.validationErrors`. */
export interface ConditionValidationError {
  readonly name: string;
  readonly reason: string;
}

export const CONDITION_DEFAULTS = {
  aggregationWindow: 60,
  aggregationMethod: 'EVENT_FLOW' as AggregationMethod,
  aggregationDelay: 120,
  aggregationTimer: 60,
  fillOption: 'NONE' as FillOption,
  violationTimeLimitSeconds: 259_200,
};

/**
 * Applies New Relic's defaults to a condition input and checks its ranges (reference §2.4); the
 * query itself is checked by the NRQL compiler elsewhere. Returns the condition or every problem.
 */
export function buildNrqlCondition(
  ids: { readonly id: string; readonly accountId: number; readonly policyId: string },
  input: NrqlConditionInput,
): { condition: NrqlCondition; errors: [] } | { condition: null; errors: ConditionValidationError[] } {
  const errors: ConditionValidationError[] = [];
  const s = input.signal ?? {};
  const method = s.aggregationMethod ?? CONDITION_DEFAULTS.aggregationMethod;
  const window = s.aggregationWindow ?? CONDITION_DEFAULTS.aggregationWindow;
  const signal: ConditionSignal = {
    aggregationWindow: window,
    aggregationMethod: method,
    aggregationDelay: method === 'EVENT_TIMER' ? null : (s.aggregationDelay ?? CONDITION_DEFAULTS.aggregationDelay),
    aggregationTimer: method === 'EVENT_TIMER' ? (s.aggregationTimer ?? CONDITION_DEFAULTS.aggregationTimer) : null,
    evaluationDelay: s.evaluationDelay ?? null,
    fillOption: s.fillOption ?? CONDITION_DEFAULTS.fillOption,
    fillValue: s.fillOption === 'STATIC' ? (s.fillValue ?? 0) : (s.fillValue ?? null),
    slideBy: s.slideBy ?? null,
  };
  const e = input.expiration ?? {};
  const expiration: ConditionExpiration = {
    expirationDuration: e.expirationDuration ?? null,
    openViolationOnExpiration: e.openViolationOnExpiration ?? false,
    closeViolationsOnExpiration: e.closeViolationsOnExpiration ?? false,
    ignoreOnExpectedTermination: e.ignoreOnExpectedTermination ?? false,
  };
  const terms: ConditionTerm[] = (input.terms ?? []).map((t) => ({
    priority: t.priority,
    operator: t.operator,
    threshold: t.threshold,
    thresholdDuration: t.thresholdDuration,
    thresholdOccurrences: t.thresholdOccurrences,
    disableHealthStatusReporting: t.disableHealthStatusReporting ?? false,
    disableEventCreation: t.disableEventCreation ?? false,
  }));

  if (input.name.length < 1 || input.name.length > 128) errors.push({ name: 'name', reason: 'Name must be between 1 and 128 characters' });
  if (!Number.isInteger(window) || window < 30 || window > 21_600 || window % 15 !== 0) {
    errors.push({ name: 'signal.aggregationWindow', reason: `Aggregation window must be a multiple of 15 seconds between 30 and 21600 seconds but was ${window} seconds` });
  }
  if (method === 'EVENT_TIMER' && s.aggregationDelay != null) errors.push({ name: 'signal.aggregationDelay', reason: 'Aggregation delay cannot be used with the EVENT_TIMER aggregation method' });
  if (method !== 'EVENT_TIMER' && s.aggregationTimer != null) errors.push({ name: 'signal.aggregationTimer', reason: 'Aggregation timer can only be used with the EVENT_TIMER aggregation method' });
  const maxDelay = method === 'CADENCE' ? 3600 : 1200;
  if (signal.aggregationDelay !== null && (signal.aggregationDelay < 0 || signal.aggregationDelay > maxDelay)) {
    errors.push({ name: 'signal.aggregationDelay', reason: `Aggregation delay must be between 0 and ${maxDelay} seconds but was ${signal.aggregationDelay} seconds` });
  }
  if (signal.aggregationTimer !== null && (signal.aggregationTimer < 5 || signal.aggregationTimer > 1200)) {
    errors.push({ name: 'signal.aggregationTimer', reason: `Aggregation timer must be between 5 and 1200 seconds but was ${signal.aggregationTimer} seconds` });
  }
  if (signal.evaluationDelay !== null && (signal.evaluationDelay < 0 || signal.evaluationDelay > 7200)) {
    errors.push({ name: 'signal.evaluationDelay', reason: `Evaluation delay must be between 0 and 7200 seconds but was ${signal.evaluationDelay} seconds` });
  }
  if (signal.slideBy !== null && (signal.slideBy <= 0 || signal.slideBy >= window || window % signal.slideBy !== 0)) {
    errors.push({ name: 'signal.slideBy', reason: `Slide by must be less than the aggregation window (${window} seconds) and divide it but was ${signal.slideBy} seconds` });
  }
  if (expiration.expirationDuration !== null && (expiration.expirationDuration < 30 || expiration.expirationDuration > 172_800)) {
    errors.push({ name: 'expiration.expirationDuration', reason: `Expiration duration must be between 30 and 172800 seconds but was ${expiration.expirationDuration} seconds` });
  }
  if (expiration.expirationDuration === null && (expiration.openViolationOnExpiration || expiration.closeViolationsOnExpiration)) {
    errors.push({ name: 'expiration.expirationDuration', reason: 'An expiration duration is required to open or close incidents on signal loss' });
  }
  const limit = input.violationTimeLimitSeconds ?? CONDITION_DEFAULTS.violationTimeLimitSeconds;
  if (!Number.isInteger(limit) || limit < 300 || limit > 2_592_000) {
    errors.push({ name: 'violationTimeLimitSeconds', reason: `Violation time limit must be between 300 and 2592000 seconds but was ${limit} seconds` });
  }
  if (terms.length === 0 && expiration.expirationDuration === null) {
    errors.push({ name: 'terms', reason: 'A condition needs at least one term unless it is a loss of signal condition' });
  }
  for (const priority of ['CRITICAL', 'WARNING'] as const) {
    if (terms.filter((t) => t.priority === priority).length > 1) errors.push({ name: 'terms[].priority', reason: `A condition can have at most one ${priority} term` });
  }
  const step = signal.slideBy ?? window;
  for (const term of terms) {
    if (!Number.isFinite(term.threshold)) errors.push({ name: 'terms[].threshold', reason: 'Threshold must be a number' });
    if (term.thresholdDuration < 60 || term.thresholdDuration > 86_400) {
      errors.push({ name: 'terms[].thresholdDuration', reason: `Term duration must be between 60 and 86400 seconds but was ${term.thresholdDuration} seconds` });
    } else if (term.thresholdDuration % step !== 0) {
      const what = signal.slideBy !== null ? 'slide by interval' : 'aggregation window';
      errors.push({ name: 'terms[].thresholdDuration', reason: `Term duration must be a multiple of the ${what} (${step} seconds) but was ${term.thresholdDuration} seconds` });
    }
  }
  errors.push(...checkIncidentTemplates(input));
  if (input.dataAccountId != null && input.dataAccountId !== ids.accountId) {
    errors.push({ name: 'nrql.dataAccountId', reason: `A condition reads the data of its own account (${ids.accountId}), not of account ${input.dataAccountId}` });
  }
  if (errors.length > 0) return { condition: null, errors };
  return {
    condition: {
      id: ids.id,
      accountId: ids.accountId,
      policyId: ids.policyId,
      name: input.name,
      enabled: input.enabled,
      query: input.query,
      facets: input.facets ?? [],
      description: input.description ?? null,
      runbookUrl: input.runbookUrl ?? null,
      titleTemplate: input.titleTemplate ?? null,
      targetEntity: input.targetEntity ?? null,
      dataAccountId: input.dataAccountId ?? null,
      terms,
      signal,
      expiration,
      violationTimeLimitSeconds: limit,
      ...(input.entityTargets !== undefined ? { entityTargets: input.entityTargets } : {}),
      ...(input.apmMetric !== undefined ? { apmMetric: input.apmMetric } : {}),
    },
    errors: [],
  };
}
