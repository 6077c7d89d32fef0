// A loopback server that costs the machine almost nothing, for measuring the client alone: it answers
// POST /member/v1/members/import with every item counted as imported, counting the body's top-level items with
// a byte scan (no JSON parsing, no validation, nothing stored). On a 2-core machine the sandbox (~14 µs of CPU
// per row: parse, validate, upsert) takes a core's worth of the time the client is being measured in; this does
// not. Usage: node bench/null-server.mjs [--latency MS]; prints {"url"} on stdout when listening.
import { createServer } from 'node:http';

const latencyAt = process.argv.indexOf('--latency');
const latency = latencyAt > 0 ? Number(process.argv[latencyAt + 1]) : 0;

/** Top-level elements of a JSON array, by depth and string state (the client sends well-formed JSON). */
function countItems(body) {
  let depth = 0;
  let inString = false;
  let items = 0;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      if (depth === 1) items++;
      depth++;
    } else if (byte === 0x7d || byte === 0x5d) depth--;
  }
  return items;
}

const server = createServer((request, response) => {
  const parts = [];
  request.on('data', (part) => parts.push(part));
  request.on('end', () => {
    const items = countItems(Buffer.concat(parts));
    const body = JSON.stringify({ importedCount: items, updatedCount: 0, skipped: [] });
    const answer = () => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      response.end(body);
    };
    if (latency > 0) setTimeout(answer, latency);
    else answer();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
