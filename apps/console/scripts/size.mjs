#!/usr/bin/env node
// Prints the gzip size of the JavaScript the browser loads for /login (the entry
// chunk, the sign-in route chunk and everything they import statically) and fails
// above the budget. Reads the Vite manifest of the production build.
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = Number(process.env.SIZE_BUDGET_KB ?? 350);
const root = join(dirname(fileURLToPath(import.meta.url)), '../../../dist/apps/console');
let manifest;
try {
  manifest = JSON.parse(readFileSync(join(root, '.vite/manifest.json'), 'utf8'));
} catch {
  console.error(`No build at ${root}; run the console build first.`);
  process.exit(1);
}

/** Chunks a set of manifest keys load before running: themselves and their static imports. */
function closure(keys) {
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`manifest has no ${key}`);
    seen.add(key);
    (chunk.imports ?? []).forEach(visit);
  };
  keys.forEach(visit);
  return [...seen].map((k) => manifest[k].file);
}

const kb = (bytes) => (bytes / 1024).toFixed(1);
function report(label, keys) {
  let raw = 0;
  let gz = 0;
  const rows = closure(keys).map((file) => {
    const buf = readFileSync(join(root, file));
    const g = gzipSync(buf, { level: 9 }).length;
    raw += buf.length;
    gz += g;
    return { file, raw: buf.length, gz: g };
  });
  rows.sort((a, b) => b.gz - a.gz).forEach((r) => console.log(`  ${r.file.padEnd(44)} ${kb(r.raw).padStart(8)} KB  ${kb(r.gz).padStart(7)} KB gzip`));
  console.log(`${label}: ${rows.length} files, ${kb(raw)} KB raw, ${kb(gz)} KB gzip`);
  return gz;
}

const login = report('Initial JS for /login', ['index.html', 'src/features/auth/routes/login.tsx']);
console.log('');
report('Initial JS for /dashboard (signed in)', [
  'index.html',
  'src/components/layout/app-shell.tsx',
  'src/features/workbench/pages.tsx',
]);
const lazyDomains = Object.keys(manifest).filter((k) => /^src\/features\/[^/]+\/pages\.tsx$/.test(k) && manifest[k].isDynamicEntry);
console.log(`\nLazy domain chunks: ${lazyDomains.length} (${lazyDomains.map((k) => k.split('/')[2]).join(', ')})`);

if (login / 1024 > BUDGET_KB) {
  console.error(`FAIL: /login loads ${kb(login)} KB gzip, budget ${BUDGET_KB} KB`);
  process.exit(1);
}
console.log(`OK: /login ${kb(login)} KB gzip within the ${BUDGET_KB} KB budget`);
