import type { RetentionOptions } from './store.js';

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30d`, `12h`, `90m` → milliseconds; `forever` → null. */
function period(text: string, what: string): number | null {
  if (text === 'forever') return null;
  const match = /^(\d{1,6})([mhd])$/.exec(text);
  if (!match || Number(match[1]) === 0) throw new Error(`${what} must be a whole number of minutes, hours or days (90m, 12h, 8d) or 'forever', got '${text}'`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

/**
 * Retention as written in one setting, each part overriding the default:
 * `minute=8d,hourly=90d,key=forever,events=8d,traces=8d,Log=30d,PageView=14d` — `minute` 1-minute
 * timeslices, `hourly` their rollups, `key` rollups of key metrics, `events` every event type not
 * named, `traces` traces, and any other name an event type of its own.
 */
export function parseRetention(text: string, defaults: RetentionOptions): RetentionOptions {
  let out: RetentionOptions = defaults;
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`expected name=period, got '${part}'`);
    const name = part.slice(0, eq).trim();
    const value = period(part.slice(eq + 1).trim(), name);
    switch (name) {
      case 'minute': out = { ...out, minuteMs: value }; break;
      case 'hourly': out = { ...out, hourlyMs: value }; break;
      case 'key': out = { ...out, keyMetricsMs: value }; break;
      case 'events': out = { ...out, otherEventsMs: value }; break;
      case 'traces': out = { ...out, tracesMs: value }; break;
      default:
        if (!/^[A-Za-z_][A-Za-z0-9_:.]*$/.test(name)) throw new Error(`'${name}' is not an event type name`);
        out = { ...out, eventsMs: { ...out.eventsMs, [name]: value } };
    }
  }
  return out;
}
