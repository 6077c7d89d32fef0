// What the server receives from two builds, compared: each case (bench/received-ab-inputs.mjs, the fixtures, flags
// that change the path) run by build A and build B against one sandbox behind a proxy that records every import
// body. Compared: the exit code, stdout (--json) and stderr, the --rejects file, the items received (each item's
// bytes as sent, as a multiset), and the members the sandbox stored at the end. Normalised: times, durations, the
// temp folder, the adaptive concurrency, batch counts and a lock's pid (a batch closes early while rows wait for
// their member's earlier row to settle: timing, in either build). Variants: the CSV parsed here and in the worker
// (MEMBERCTL_CSV_WORKER), with and without --rejects (rows the worker encodes reach the sender only without it),
// and B with its worker encoding every chunk ("B+enc", a copy of B's dist patched). Differences are written to
// OUT/<case>/; exit 1 if any.
//   node bench/received-ab.mjs DIR_A [DIR_B=this checkout] [FILTER regexp] [OUT=/tmp/received-ab]
import { spawn } from 'node:child_process';
import { cpSync, createReadStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { writeInputs } from './received-ab-inputs.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const [dirA, dirB = root, filterText = '', out = '/tmp/received-ab'] = process.argv.slice(2);
if (!dirA) {
  console.error('usage: node bench/received-ab.mjs DIR_A [DIR_B] [FILTER] [OUT]');
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'received-ab-'));
const inputs = join(work, 'in');
const csvNames = writeInputs(inputs);

/** B with its worker encoding from the first chunk it can (csv-worker.ts `everyChunk`, set by tests only). */
function encodingBuild() {
  const dir = join(work, 'b-enc');
  for (const name of ['bin', 'dist', 'package.json'])
    cpSync(join(builds.B, name), join(dir, name), { recursive: true });
  symlinkSync(join(builds.B, 'node_modules'), join(dir, 'node_modules'));
  const file = join(dir, 'dist/io/csv-worker.js');
  const text = readFileSync(file, 'utf8');
  const patched = text
    .replace('let everyChunk = false;', 'let everyChunk = true;')
    .replace(/everyChunk = spec\.everyChunk === true;/, '');
  if (patched === text) return undefined;
  writeFileSync(file, patched);
  return dir;
}
const builds = { A: resolve(dirA), B: resolve(dirB) };
const encoding = encodingBuild();
if (encoding) builds['B+enc'] = encoding;
else console.log('note: no everyChunk in B\'s csv-worker.js: no "B+enc" runs');

let bodies = [];
let onBody = () => {};
const sandbox = spawn(process.execPath, [join(builds.B, 'bin/memberctl.js'), 'sandbox', '--port', '0', '--json'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const info = JSON.parse(
  await new Promise((resolve) => createInterface({ input: sandbox.stdout }).once('line', resolve)),
);
const sandboxUrl = new URL(info.url);
const proxy = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    if (req.url.endsWith('/members/import')) {
      bodies.push(body);
      onBody(bodies.length);
    }
    const options = { host: sandboxUrl.hostname, port: sandboxUrl.port, path: req.url, method: req.method };
    const forward = http.request({ ...options, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    forward.end(body);
  });
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyUrl = `http://127.0.0.1:${proxy.address().port}/`;

async function admin(method, path) {
  const headers = method === 'GET' ? {} : { 'content-type': 'application/json' };
  const res = await fetch(new URL(path, sandboxUrl), { method, headers, body: method === 'GET' ? undefined : '{}' });
  return res.status === 204 ? undefined : res.json();
}
async function storedMembers() {
  const all = [];
  for (let offset = 0; ; offset += 10_000) {
    const page = await admin('GET', `/_sandbox/members?offset=${offset}&limit=10000`);
    for (const member of page.members) all.push(JSON.stringify(member));
    if (page.members.length === 0 || all.length >= page.total) return all.sort();
  }
}

/** The items of a body, each as its bytes (latin1 text), split at the array's top-level commas. */
function items(body) {
  const text = body.toString('latin1');
  const found = [];
  let depth = 0;
  let start = 0;
  for (let i = 0, inString = false; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (++depth === 2) start = i;
    } else if ((c === '}' || c === ']') && --depth === 1) found.push(text.slice(start, i + 1));
  }
  return found;
}

function runCli(build, args, { cwd, env, taskset, stdin, killAfterBodies }) {
  const argv = [join(builds[build], 'bin/memberctl.js'), ...args];
  const [command, commandArgs] = taskset
    ? ['taskset', ['-c', taskset, process.execPath, ...argv]]
    : [process.execPath, argv];
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MEMBERCTL_')));
  const childEnv = { ...clean, HOME: join(cwd, '.home'), FORCE_COLOR: '0', NO_COLOR: '1', ...env };
  Object.assign(childEnv, { MEMBERCTL_TOKEN: info.memberToken, MEMBERCTL_BASE_URL: proxyUrl });
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, {
      cwd,
      env: childEnv,
      stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    if (stdin)
      createReadStream(join(cwd, stdin))
        .pipe(child.stdin)
        .on('error', () => {});
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    if (killAfterBodies) onBody = (n) => n >= killAfterBodies && child.kill('SIGKILL');
    child.on('close', (code, signal) => {
      onBody = () => {};
      resolve({ code: code ?? signal, stdout, stderr });
    });
  });
}

const normalise = (text, dir) =>
  text
    .split(dir)
    .join('<DIR>')
    .replaceAll(proxyUrl.slice(0, -1), '<URL>')
    .replace(/"concurrency":\{[^}]*\}/g, '"concurrency":<C>')
    .replace(/"(startedAt|finishedAt)":"[^"]*"/g, '"$1":"<T>"')
    .replace(/"(durationMs|batches|requests)":\d+/g, '"$1":<N>')
    .replace(/\d+(\.\d+)? ?(ms|s)\b/g, '<D>')
    .replace(/lock of pid \d+/g, 'lock of pid <P>');

/** One case through one build in a folder of its own: per step what it printed and wrote, what was received. */
async function runCase(build, kase) {
  const dir = mkdtempSync(join(work, `run-${build.replace('+', '')}-`));
  for (const file of kase.files) cpSync(file, join(dir, basename(file)));
  await admin('POST', '/_sandbox/reset');
  const steps = [];
  for (const step of kase.steps) {
    bodies = [];
    const result = await runCli(build, step.args, { cwd: dir, env: kase.env, taskset: kase.taskset, ...step });
    // a killed run prints nothing whole; the run resuming it counts what the killed one settled, which is timing
    const killed = step.killAfterBodies !== undefined;
    const counts = !killed && !step.resumed;
    const written = readdirSync(dir).filter((name) => name.startsWith('rejects'));
    steps.push({
      code: result.code,
      stdout: counts ? normalise(result.stdout, dir) : '',
      stderr: counts ? normalise(result.stderr, dir) : '',
      rejects: written.map((name) => `${name}:\n${normalise(readFileSync(join(dir, name), 'utf8'), dir)}`).join('\n'),
      items: counts ? bodies.flatMap(items).sort().join('\n') : '',
    });
  }
  const members = await storedMembers();
  rmSync(dir, { recursive: true, force: true });
  return { steps, members };
}

function differences(name, a, b, label) {
  const found = [];
  const keep = (what, x, y) => {
    mkdirSync(join(out, name), { recursive: true });
    writeFileSync(join(out, name, `${what}.A`), x);
    writeFileSync(join(out, name, `${what}.${label}`), y);
  };
  a.steps.forEach((stepA, i) => {
    const stepB = b.steps[i];
    if (stepA.code !== stepB.code) found.push(`step ${i + 1}: exit ${stepA.code} vs ${stepB.code}`);
    for (const key of ['stdout', 'stderr', 'rejects', 'items'])
      if (stepA[key] !== stepB[key]) {
        found.push(`step ${i + 1}: ${key}`);
        keep(`${i + 1}.${key}`, stepA[key], stepB[key]);
      }
  });
  if (a.members.join('\n') !== b.members.join('\n')) {
    found.push(`stored members (${a.members.length} vs ${b.members.length})`);
    keep('members', a.members.join('\n'), b.members.join('\n'));
  }
  return found;
}

const cases = (await import('./received-ab-cases.mjs')).receivedAbCases({ inputs, csvNames, root });
const filter = new RegExp(filterText);
let compared = 0;
let differing = 0;
for (const kase of cases.filter((k) => filter.test(k.name))) {
  const a = await runCase('A', kase);
  for (const label of Object.keys(builds).filter((b) => b !== 'A' && (b === 'B' || kase.encodes))) {
    const found = differences(`${kase.name}.${label.replace('+', '')}`, a, await runCase(label, kase), label);
    compared++;
    if (found.length > 0) differing++;
    const exits = a.steps.map((s) => s.code).join(',');
    console.log(
      `${found.length ? 'DIFF' : 'same'} ${kase.name} A~${label} exit=${exits} members=${a.members.length} ${found.join('; ')}`,
    );
  }
}
console.log(`${compared} comparisons, ${differing} with differences${differing ? ` (files in ${out})` : ''}`);
// wait for the sandbox to go: exiting at once could leave it running
const gone = new Promise((resolve) => sandbox.once('exit', resolve));
sandbox.kill();
await gone;
proxy.close();
proxy.closeAllConnections();
rmSync(work, { recursive: true, force: true });
process.exit(differing > 0 ? 1 : 0);
