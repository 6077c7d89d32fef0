/**
 * A real node:http server on 127.0.0.1:0 that answers each request with the next step of a script, and records
 * what arrived (path, headers, body, socket, time) so tests can assert on order and reuse.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Index of the socket it came on (0 = first socket the server accepted). */
  socket: number;
  at: number;
}

/** Answers one request. */
export type Responder = (req: IncomingMessage, res: ServerResponse, body: string) => void;
/** A step answers one request; `hold` never answers (a timeout), `reset` drops the connection. */
export type Step = Responder | 'hold' | 'reset';

export interface ScriptedServer {
  url: URL;
  received: Received[];
  sockets: number;
  close(): Promise<void>;
}

export function reply(status: number, body: unknown = '', headers: Record<string, string> = {}): Responder {
  return (_req, res) => {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const type = typeof body === 'string' ? 'text/plain' : 'application/json';
    res.writeHead(status, { 'content-type': type, ...headers });
    res.end(text);
  };
}

/** Runs `steps` in order; once they run out, `fallback` answers every further request. */
export async function startScriptedServer(
  steps: Step[],
  fallback: Step = reply(500, 'script exhausted'),
): Promise<ScriptedServer> {
  const received: Received[] = [];
  const sockets = new Map<Socket, number>();
  const held: ServerResponse[] = [];
  const queue = [...steps];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        socket: sockets.get(req.socket) ?? -1,
        at: Date.now(),
      });
      const step = queue.shift() ?? fallback;
      if (step === 'hold') held.push(res);
      else if (step === 'reset') req.socket.destroy();
      else step(req, res, body);
    });
  });
  server.on('connection', (socket) => sockets.set(socket, sockets.size));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: new URL(`http://127.0.0.1:${port}/`),
    received,
    get sockets() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
