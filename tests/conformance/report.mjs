// Reads what run.sh collected (a manifest of scenario runs and their checks.json files), prints one
// table row per run and the details that matter, and decides the exit code:
//   0  every FAILURE check is listed in the expected-failures file (CONFORMANCE_EXPECTED) and every listed entry still fails;
//   1  an unexpected FAILURE, a stale expected-failures entry (it passes now, or never fails), a
//      required check (CONFORMANCE_REQUIRED) that is not SUCCESS in a run of its scenario, or a
//      run that produced no checks.json / no checks / crashed / timed out.
// Usage: node report.mjs MANIFEST EXPECTED_FAILURES_FILE [REQUIRED_SUCCESSES_FILE]
// MANIFEST: tab-separated lines  LABEL  SCENARIO  EXIT_CODE  CHECKS_JSON_PATH(or empty)  LOG_PATH
import { readFileSync, existsSync } from 'node:fs';

const [manifestPath, expectedPath, requiredPath] = process.argv.slice(2);
if (!manifestPath || !expectedPath) {
  console.error('usage: node report.mjs MANIFEST EXPECTED_FAILURES_FILE [REQUIRED_SUCCESSES_FILE]');
  process.exit(2);
}

// ---- the expected-failures and required-successes files: "scenario check-id  # reason"
// scenario: a run label (e.g. server-stateless@0.2.0/2026-07-28) or a bare scenario name (every run of
// it); check-id: a check's id, or its name (ids repeat inside some scenarios, names tell them apart).
const entryErrors = [];
function readEntries(path) {
  const read = [];
  if (!path || !existsSync(path)) return read;
  readFileSync(path, 'utf8').split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const hash = line.indexOf('#');
    const body = (hash === -1 ? line : line.slice(0, hash)).trim();
    const reason = hash === -1 ? '' : line.slice(hash + 1).trim();
    const fields = body.split(/\s+/);
    if (fields.length !== 2 || !reason) {
      entryErrors.push(`${path}:${i + 1}: expected "scenario check-id  # reason", got: ${raw}`);
      return;
    }
    read.push({ scenario: fields[0], check: fields[1], reason, line: i + 1, matched: 0, inScope: false });
  });
  return read;
}
const entries = readEntries(expectedPath);
// Checks that must be SUCCESS in every run of their scenario: a scenario whose SHOULDs the
// server meets would otherwise pass with WARNINGs alone if that ever regressed.
const required = readEntries(requiredPath);

const runs = readFileSync(manifestPath, 'utf8').split('\n').filter(Boolean).map((l) => {
  const [label, scenario, rc, checksPath, logPath] = l.split('\t');
  return { label, scenario, rc: Number(rc), checksPath, logPath };
});

const STATUSES = ['SUCCESS', 'FAILURE', 'WARNING'];
const rows = [];
const unexpected = [];
const missing = [];
const expected = [];
const warnings = [];
const errors = [...entryErrors];
const totals = { SUCCESS: 0, FAILURE: 0, WARNING: 0, OTHER: 0 };

for (const run of runs) {
  const entryMatches = (e) => e.scenario === run.label || e.scenario === run.scenario;
  entries.filter(entryMatches).forEach((e) => { e.inScope = true; });
  const counts = { SUCCESS: 0, FAILURE: 0, WARNING: 0, OTHER: 0 };
  let checks = null;
  let error = null;
  if (run.rc === 124 || run.rc === 137) error = `timed out (run.sh limit), see ${run.logPath}`;
  else if (!run.checksPath) error = `no checks.json (the CLI crashed, or skipped a scenario not applicable at this spec version), see ${run.logPath}`;
  else {
    try {
      checks = JSON.parse(readFileSync(run.checksPath, 'utf8'));
      if (!Array.isArray(checks)) { error = `checks.json is not an array: ${run.checksPath}`; checks = null; }
      else if (checks.length === 0) error = `checks.json holds no checks: ${run.checksPath}`;
    } catch (err) {
      error = `unreadable checks.json ${run.checksPath}: ${err.message}`;
    }
  }
  let unexpectedHere = 0;
  let expectedHere = 0;
  let missingHere = 0;
  for (const r of required.filter(entryMatches)) {
    if (!checks) continue;
    const mine = checks.filter((c) => c.id === r.check || c.name === r.check);
    if (!mine.some((c) => c.status === 'SUCCESS')) {
      missingHere++;
      const got = mine.map((c) => `${c.status}: ${oneLine(c.errorMessage ?? c.description)}`).join('; ') || 'no such check';
      missing.push(`${run.label} ${r.check} is required to be SUCCESS (${requiredPath}:${r.line}), got ${got}`);
    }
  }
  for (const c of checks ?? []) {
    const status = STATUSES.includes(c.status) ? c.status : 'OTHER';
    counts[status]++;
    totals[status]++;
    const where = `${run.label} ${c.id} (${c.name})`;
    if (c.status === 'FAILURE') {
      const hit = entries.filter((e) => entryMatches(e) && (e.check === c.id || e.check === c.name));
      hit.forEach((e) => { e.matched++; });
      if (hit.length > 0) { expectedHere++; expected.push(`${where}  # ${hit[0].reason}`); }
      else { unexpectedHere++; unexpected.push(`${where}: ${oneLine(c.errorMessage ?? c.description)}`); }
    } else if (c.status === 'WARNING') {
      warnings.push(`${where}: ${oneLine(c.errorMessage ?? c.description)}`);
    }
  }
  // The CLI exits 1 exactly when a check FAILed; any other non-zero exit is a crash.
  if (!error && run.rc !== 0 && counts.FAILURE === 0) error = `the CLI exited ${run.rc} without a FAILURE check, see ${run.logPath}`;
  if (error) errors.push(`${run.label}: ${error}`);
  const result = error ? 'ERROR' : unexpectedHere > 0 || missingHere > 0 ? 'FAIL' : expectedHere > 0 ? 'ok (expected failures)' : 'ok';
  rows.push([run.label, counts.SUCCESS, counts.FAILURE, counts.WARNING, counts.OTHER, result]);
}

const stale = entries.filter((e) => e.inScope && e.matched === 0)
  .map((e) => `${expectedPath}:${e.line}: ${e.scenario} ${e.check} did not fail in this run: remove it  # ${e.reason}`);

// ---- output
const header = ['scenario@package/spec', 'SUCCESS', 'FAILURE', 'WARNING', 'other', 'result'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
const fmt = (r) => r.map((v, i) => (i === 0 || i === 5 ? String(v).padEnd(widths[i]) : String(v).padStart(widths[i]))).join('  ');
console.log(fmt(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
rows.forEach((r) => console.log(fmt(r)));
console.log(`\ntotal: ${runs.length} runs, ${totals.SUCCESS} SUCCESS, ${totals.FAILURE} FAILURE ` +
  `(${expected.length} expected), ${totals.WARNING} WARNING, ${totals.OTHER} other (INFO/SKIPPED)`);

const section = (title, items) => {
  if (items.length === 0) return;
  console.log(`\n${title} (${items.length}):`);
  items.forEach((i) => console.log(`  ${i}`));
};
section('warnings (do not fail the run)', warnings);
section('expected failures (listed in the expected-failures file)', expected);
section('UNEXPECTED FAILURES', unexpected);
section('STALE expected-failures entries', stale);
section('REQUIRED SUCCESSES MISSING', missing);
section('ERRORS', errors);

const failed = unexpected.length > 0 || stale.length > 0 || missing.length > 0 || errors.length > 0;
console.log(failed ? '\nconformance: FAILED' : '\nconformance: PASSED');
process.exit(failed ? 1 : 0);

function oneLine(s) {
  const t = String(s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > 300 ? `${t.slice(0, 297)}...` : t;
}
