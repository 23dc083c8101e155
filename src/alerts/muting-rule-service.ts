import type { Clock } from '../clock.js';
import type { AlertEngine } from '../domain/alerts/alert-engine.js';
import { checkMutingRule, type MutingRule, type MutingRuleUser, type MutingSchedule } from '../domain/alerts/muting-rules.js';
import type { AlertRecords } from '../store/alert-records.js';

/** Muting rules per account. */
export const MAX_MUTING_RULES_PER_ACCOUNT = 1_000;

/** A rule as NerdGraph's AlertsMutingRuleInput gives it (update: every field optional; explicit null resets). */
export interface MutingRuleInput {
  readonly name?: string | null;
  readonly description?: string | null;
  readonly enabled?: boolean | null;
  readonly actionOnMutingRuleWindowEnded?: MutingRule['actionOnMutingRuleWindowEnded'] | null;
  readonly condition?: MutingRule['condition'] | null;
  readonly schedule?: Partial<{ [K in keyof MutingSchedule]: MutingSchedule[K] | null }> | null;
}

/** A refusal: NerdGraph's Validation Error (`validationErrors`), or a rule the account does not hold. */
export class MutingRuleError extends Error {
  constructor(message: string, readonly validationErrors: ReadonlyArray<{ name: string; reason: string }> = []) {
    super(message);
  }
}

/**
 * NerdGraph's alertsMutingRuleCreate / Update / Delete over the alert store; the engine holds every
 * account's rules and mutes incidents as they open. Changes take turns with evaluation cycles (`serial`).
 */
export class MutingRuleService {
  private readonly rules = new Map<string, MutingRule>();

  constructor(
    private readonly records: AlertRecords,
    /** The engine in force: the service's may be replaced by a reload of the whole state. */
    private readonly engine: () => AlertEngine,
    private readonly clock: Clock,
    private readonly serial: <T>(work: () => Promise<T>) => Promise<T>,
  ) {}

  /** Reads the rules from the store (again, after another node changed them), replacing those held. */
  async load(): Promise<void> {
    const rules = (await this.records.loadMutingRules?.()) ?? [];
    this.rules.clear();
    for (const rule of rules) this.rules.set(rule.id, rule);
    this.engine().setMutingRules([...this.rules.values()]);
  }

  list(accountId: number): MutingRule[] {
    return [...this.rules.values()].filter((r) => r.accountId === accountId).sort((a, b) => Number(a.id) - Number(b.id));
  }

  get(accountId: number, id: string): MutingRule {
    const rule = this.rules.get(String(id));
    if (rule === undefined || rule.accountId !== accountId) throw new MutingRuleError(`Muting rule ${id} Not Found`);
    return rule;
  }

  create(accountId: number, input: MutingRuleInput, user: MutingRuleUser): Promise<MutingRule> {
    return this.serial(async () => {
      const records = this.records;
      if (!records.saveMutingRule || !records.nextMutingRuleId) throw new MutingRuleError('This store keeps no muting rules');
      if (this.list(accountId).length >= MAX_MUTING_RULES_PER_ACCOUNT) {
        throw new MutingRuleError('Validation Error', [{ name: 'rule', reason: `An account holds at most ${MAX_MUTING_RULES_PER_ACCOUNT} muting rules` }]);
      }
      const now = this.clock.now();
      const draft = build('', accountId, input, null, now, user);
      const rule = { ...draft, id: String(await records.nextMutingRuleId()) };
      await records.saveMutingRule(rule);
      this.put(rule);
      return rule;
    });
  }

  update(accountId: number, id: string, input: MutingRuleInput, user: MutingRuleUser): Promise<MutingRule> {
    return this.serial(async () => {
      const current = this.get(accountId, id);
      const rule = build(current.id, accountId, input, current, this.clock.now(), user);
      await this.records.saveMutingRule!(rule);
      this.put(rule);
      return rule;
    });
  }

  delete(accountId: number, id: string): Promise<string> {
    return this.serial(async () => {
      const current = this.get(accountId, id);
      await this.records.deleteMutingRule!(accountId, current.id);
      this.rules.delete(current.id);
      this.engine().setMutingRules([...this.rules.values()]);
      return current.id;
    });
  }

  private put(rule: MutingRule): void {
    this.rules.set(rule.id, rule);
    this.engine().setMutingRules([...this.rules.values()]);
  }
}

/** The rule an input makes of the current one (absent keys keep, explicit nulls reset), or its refusal. */
function build(id: string, accountId: number, input: MutingRuleInput, current: MutingRule | null, now: number, user: MutingRuleUser): MutingRule {
  const has = (key: keyof MutingRuleInput) => Object.prototype.hasOwnProperty.call(input, key);
  let schedule: MutingSchedule | null = current?.schedule ?? null;
  if (has('schedule')) {
    const s = input.schedule;
    if (s === null || s === undefined) schedule = null;
    else {
      const base = schedule;
      const pick = <K extends keyof MutingSchedule>(key: K, fallback: MutingSchedule[K]): MutingSchedule[K] =>
        Object.prototype.hasOwnProperty.call(s, key) ? ((s[key] ?? fallback) as MutingSchedule[K]) : (base?.[key] ?? fallback);
      schedule = {
        startTime: pick('startTime', null), endTime: pick('endTime', null), timeZone: pick('timeZone', 'UTC'), repeat: pick('repeat', null),
        endRepeat: pick('endRepeat', null), repeatCount: pick('repeatCount', null), weeklyRepeatDays: pick('weeklyRepeatDays', null),
      };
    }
  }
  const rule: MutingRule = {
    id, accountId,
    name: input.name ?? current?.name ?? '',
    description: has('description') ? (input.description ?? '') : (current?.description ?? ''),
    enabled: input.enabled ?? current?.enabled ?? false,
    actionOnMutingRuleWindowEnded: input.actionOnMutingRuleWindowEnded ?? current?.actionOnMutingRuleWindowEnded ?? 'CLOSE_ISSUES_ON_INACTIVE',
    condition: input.condition
      ? { operator: input.condition.operator, conditions: input.condition.conditions.map((c) => ({ attribute: c.attribute, operator: c.operator, values: c.values.map((v) => v ?? '') })) }
      : (current?.condition ?? { operator: 'AND', conditions: [] }),
    schedule,
    createdAt: current?.createdAt ?? now, updatedAt: now,
    createdBy: current?.createdBy ?? user, updatedBy: user,
  };
  const errors = checkMutingRule(rule);
  if (errors.length > 0) throw new MutingRuleError('Validation Error', errors);
  return rule;
}
