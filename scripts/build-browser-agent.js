#!/usr/bin/env node
// Builds the browser agent's loaders (lite = "rum", pro = "full", spa) from the pinned
// @newrelic/browser-agent package into one self-contained file each, so the service serves them
// without reaching New Relic's CDN. The package ships no browser-ready bundle: its ESM build loads
// each feature's aggregate lazily, and a CDN loader would fetch those chunks from js-agent.newrelic.com.
// Bundling with every dynamic import inlined gives one file that needs nothing else.
//
// Output: build/browser-agent/nr-loader-{rum,full,spa}.min.js and manifest.json (version, sizes).
// Run by `npm run prepare`/`build`/`test`; skipped when the outputs are newer than the package.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'build', 'browser-agent');
const agentPackageJson = join(root, 'node_modules', '@newrelic', 'browser-agent', 'package.json');
const { version } = JSON.parse(await readFile(agentPackageJson, 'utf8'));

// Feature sets of the package's own src/cdn/{lite,pro,spa}.js, less session replay: Timeslice stores
// no replays and answers sr:0, so its recorder (rrweb, ~220 KB) would only be dead weight.
const LITE = ['PageViewEvent', 'PageViewTiming', 'Metrics'];
const PRO = ['PageViewEvent', 'PageViewTiming', 'SessionTrace', 'Ajax', 'Metrics', 'JSErrors', 'GenericEvents', 'Logging'];
const SPA = ['Ajax', 'PageViewEvent', 'PageViewTiming', 'SessionTrace', 'Metrics', 'JSErrors', 'GenericEvents', 'Logging', 'SoftNav'];
const MODULE = {
  PageViewEvent: 'page_view_event', PageViewTiming: 'page_view_timing', Metrics: 'metrics', JSErrors: 'jserrors',
  Ajax: 'ajax', SessionTrace: 'session_trace', GenericEvents: 'generic_events', Logging: 'logging', SoftNav: 'soft_navigations',
};
const LOADERS = [
  { file: 'nr-loader-rum.min.js', loaderType: 'lite', features: LITE },
  { file: 'nr-loader-full.min.js', loaderType: 'pro', features: PRO },
  { file: 'nr-loader-spa.min.js', loaderType: 'spa', features: SPA },
];

async function upToDate() {
  try {
    const manifest = JSON.parse(await readFile(join(outDir, 'manifest.json'), 'utf8'));
    if (manifest.version !== version) return false;
    const built = (await stat(join(outDir, 'manifest.json'))).mtimeMs;
    const self = (await stat(fileURLToPath(import.meta.url))).mtimeMs;
    for (const l of LOADERS) await stat(join(outDir, l.file));
    return built >= self;
  } catch {
    return false;
  }
}

function entrySource(loader) {
  const imports = loader.features.map((f) => `import { Instrument as ${f} } from '@newrelic/browser-agent/features/${MODULE[f]}';`);
  return [
    `import { Agent } from '@newrelic/browser-agent/loaders/agent';`,
    ...imports,
    `new Agent({ features: [${loader.features.join(', ')}], loaderType: '${loader.loaderType}' });`,
    '',
  ].join('\n');
}

async function build() {
  const { rolldown } = await import('rolldown');
  await mkdir(outDir, { recursive: true });
  const scratch = await mkdtemp(join(tmpdir(), 'timeslice-browser-agent-'));
  const manifest = { version, loaders: {} };
  try {
    for (const loader of LOADERS) {
      const entry = join(scratch, `${loader.loaderType}.js`);
      await writeFile(entry, entrySource(loader));
      const bundle = await rolldown({
        input: entry,
        resolve: { modules: [join(root, 'node_modules')] },
        platform: 'browser',
        logLevel: 'silent',
      });
      const { output } = await bundle.generate({ format: 'iife', minify: true, codeSplitting: false });
      await bundle.close();
      const code = output[0].code;
      if (/js-agent\.newrelic\.com/.test(code) && /import\(/.test(code)) {
        throw new Error(`${loader.file}: the bundle still loads chunks at run time`);
      }
      await writeFile(join(outDir, loader.file), code);
      manifest.loaders[loader.file] = { loaderType: loader.loaderType, bytes: Buffer.byteLength(code) };
    }
    await writeFile(join(outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return manifest;
}

if (process.argv.includes('--force') || !(await upToDate())) {
  const started = Date.now();
  const manifest = await build();
  const sizes = Object.entries(manifest.loaders).map(([f, m]) => `${f} ${Math.round(m.bytes / 1024)} KB`).join(', ');
  console.log(`browser agent ${version}: ${sizes} (${Date.now() - started} ms)`);
}
