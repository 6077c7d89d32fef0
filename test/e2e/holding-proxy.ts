/**
 * A loopback proxy in front of the sandbox that a test can freeze: while a request's `hold(records)` says so, the
 * request is kept open and never forwarded, so the CLI has requests in flight for as long as the test likes and
 * nothing moves on the server. A kill then lands at a chosen point of the run whatever the machine's load, with
 * no latency to race against.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  url: string;
  /** Requests held open right now. */
  held(): number;
  /** Import records forwarded and answered through the proxy since the last release. */
  answeredRecords(): number;
  /** Drops the requests held (their client is gone or about to be) and starts counting afresh. */
  release(): void;
  close(): Promise<void>;
}

/** `hold(records)`: asked per request, with the records of its body; true keeps it open, unforwarded. */
export async function startHoldingProxy(target: string, hold: (records: number) => boolean): Promise<HoldingProxy> {
  const open = new Set<ServerResponse>();
  let held = 0;
  let answered = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const records = countRecords(body);
      if (hold(records)) {
        held++;
        open.add(res);
        return;
      }
      const upstream = request(
        new URL(req.url ?? '/', target),
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res).on('finish', () => (answered += records));
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => held,
    answeredRecords: () => answered,
    release: () => {
      for (const res of open) res.destroy();
      open.clear();
      held = 0;
      answered = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function countRecords(body: Buffer): number {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return Array.isArray(parsed) ? parsed.length : 0;
  } catch {
    return 0;
  }
}
