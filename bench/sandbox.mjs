#!/usr/bin/env node
// Sandbox throughput: N members (default 1,000,000) in batches of 500, 4 requests in flight, against
// `memberctl sandbox` in its own process. Prints rows/s per 10% slice (flat = no slowdown as the store grows).
// Usage: npx tsc -p . && node bench/sandbox.mjs [N] [--data]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';

const total = Number(process.argv[2] ?? 1_000_000);
const batchSize = 500;
const concurrency = 4;
const args = ['bin/memberctl.js', 'sandbox', '--port', '0', '--json'];
const dataDir = process.argv.includes('--data') ? mkdtempSync(join(tmpdir(), 'sbx-bench-')) : undefined;
if (dataDir) args.push('--data', join(dataDir, 'store.ndjson'));
const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
const info = await new Promise((resolve) =>
  createInterface({ input: child.stdout }).once('line', (l) => resolve(JSON.parse(l))),
);
const agent = new Agent({ connections: concurrency });

function body(start) {
  const items = [];
  for (let i = start; i < Math.min(start + batchSize, total); i++) {
    items.push({
      memberId: `M${i}`,
      email: `m${i}@example.com`,
      firstName: 'Ada',
      lastName: 'Lovelace',
      isActive: true,
      createdAt: '2024-05-01T12:00:00Z',
      address: { city: 'Oslo', zipCode: '0150', countryCode: 'NO' },
      metadata: { source: 'bench' },
    });
  }
  return JSON.stringify(items);
}

const startCpuMs = (await (await request(`${info.url}/_sandbox/stats`, { dispatcher: agent })).body.json()).cpuMs;
let next = 0;
let done = 0;
const slices = [];
let sliceStart = performance.now();
const started = sliceStart;
async function worker() {
  while (next < total) {
    const start = next;
    next += batchSize;
    const res = await request(`${info.url}/member/v1/members/import`, {
      method: 'POST',
      dispatcher: agent,
      body: body(start),
      headers: { authorization: `Bearer ${info.memberToken}`, 'content-type': 'application/json' },
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text}`);
    done += Math.min(batchSize, total - start);
    if (done >= (slices.length + 1) * (total / 10)) {
      const now = performance.now();
      slices.push(Math.round(total / 10 / ((now - sliceStart) / 1000)));
      sliceStart = now;
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const seconds = (performance.now() - started) / 1000;
const stats = await (await request(`${info.url}/_sandbox/stats`, { dispatcher: agent })).body.json();
const cpuPerRowUs = ((stats.cpuMs - startCpuMs) * 1000) / total;
console.log(
  `sandbox: ${total} members in ${seconds.toFixed(1)} s = ${Math.round(total / seconds)} rows/s (client generation included)`,
);
console.log(`rows/s per 10% slice: ${slices.join(' ')}`);
console.log(
  `sandbox CPU: ${cpuPerRowUs.toFixed(1)} µs per row = ${Math.round(1e6 / cpuPerRowUs)} rows/s per core (independent of machine load)`,
);
console.log(`store: ${stats.members} members, sandbox RSS ${Math.round(stats.rssBytes / 1048576)} MB`);
const closed = new Promise((resolve) => child.on('close', resolve));
const stopAt = performance.now();
child.kill('SIGTERM');
await closed;
console.log(`shutdown (incl. --data flush if any): ${((performance.now() - stopAt) / 1000).toFixed(1)} s`);
await agent.close();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
