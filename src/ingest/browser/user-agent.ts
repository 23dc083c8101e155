/**
 * The few `User-Agent` facts New Relic adds to browser events (`userAgentName`, `userAgentVersion`,
 * `userAgentOS`, `deviceType`), read with a short list of patterns: the common browsers and
 * systems. Anything else is `Other`; the header itself is not stored.
 */
export interface UserAgentFacts {
  readonly userAgentName: string;
  readonly userAgentVersion: string;
  readonly userAgentOS: string;
  readonly deviceType: 'Desktop' | 'Mobile' | 'Tablet';
}

const BROWSERS: readonly [RegExp, string][] = [
  [/Edg(?:e|A|iOS)?\/([\d.]+)/, 'Microsoft Edge'],
  [/OPR\/([\d.]+)/, 'Opera'],
  [/HeadlessChrome\/([\d.]+)/, 'Headless Chrome'],
  [/(?:Chrome|CriOS)\/([\d.]+)/, 'Chrome'],
  [/(?:Firefox|FxiOS)\/([\d.]+)/, 'Firefox'],
  [/Version\/([\d.]+).*Safari\//, 'Safari'],
];
const SYSTEMS: readonly [RegExp, string][] = [
  [/Android/, 'Android'], [/iPhone|iPad|iPod/, 'iOS'], [/Windows/, 'Windows'], [/Mac OS X|Macintosh/, 'Mac'], [/CrOS/, 'Chrome OS'], [/Linux/, 'Linux'],
];

export function userAgentFacts(header: string | undefined): UserAgentFacts {
  const ua = (header ?? '').slice(0, 1024);
  let userAgentName = 'Other';
  let userAgentVersion = '';
  for (const [pattern, name] of BROWSERS) {
    const m = pattern.exec(ua);
    if (m) {
      userAgentName = name;
      userAgentVersion = m[1]!.split('.').slice(0, 2).join('.');
      break;
    }
  }
  const userAgentOS = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1] ?? 'Other';
  const deviceType = /iPad|Tablet/.test(ua) || (/Android/.test(ua) && !/Mobile/.test(ua)) ? 'Tablet' : /Mobi|iPhone|iPod/.test(ua) ? 'Mobile' : 'Desktop';
  return { userAgentName, userAgentVersion, userAgentOS, deviceType };
}
