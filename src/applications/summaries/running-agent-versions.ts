/** NerdGraph's `ApmApplicationRunningAgentVersions`. */
export interface ApmApplicationRunningAgentVersions {
  readonly minVersion: string;
  readonly maxVersion: string;
}

/**
 * The oldest and newest of the agent versions an application's live instances run; null when
 * none of them said (an empty or missing version is not a version).
 */
export function runningAgentVersions(versions: readonly (string | null | undefined)[]): ApmApplicationRunningAgentVersions | null {
  const known = versions.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
  if (known.length === 0) return null;
  const sorted = [...known].sort(compareAgentVersions);
  return { minVersion: sorted[0]!, maxVersion: sorted[sorted.length - 1]! };
}

/**
 * Orders agent versions: dot-separated numbers compared as numbers, a missing part counting as 0
 * (`13.2.0` after `9.8.1`, `10.30.0.0` after `10.3.0`). A version with a suffix after its
 * numbers (`1.2.0-beta.1`) comes before the same numbers without one, as in semver; otherwise
 * suffixes compare as text. Not the `semver` package: the .NET and PHP agents report four
 * numbers (`10.30.0.0`, `11.0.0.14`), which semver refuses.
 */
export function compareAgentVersions(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < Math.max(pa.numbers.length, pb.numbers.length); i++) {
    const d = (pa.numbers[i] ?? 0) - (pb.numbers[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (pa.suffix === pb.suffix) return 0;
  if (pa.suffix === '') return 1;
  if (pb.suffix === '') return -1;
  return pa.suffix < pb.suffix ? -1 : 1;
}

function parse(version: string): { numbers: number[]; suffix: string } {
  const match = /^(\d+(?:\.\d+)*)(.*)$/.exec(version);
  if (!match) return { numbers: [], suffix: version };
  return { numbers: match[1]!.split('.').map(Number), suffix: match[2]! };
}
