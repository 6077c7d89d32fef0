/**
 * Can this machine reach the API? Each step on its own (DNS, TCP, TLS) so a failure names the layer to fix:
 * a typo in the host, a firewall, or a proxy/certificate problem. Then an optional authenticated probe.
 */
import { lookup } from 'node:dns/promises';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { lazy } from '../lazy.js';

const undici = lazy<typeof import('undici')>('undici');
export interface StepResult {
  step: 'dns' | 'tcp' | 'tls';
  ok: boolean;
  message: string;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const reason = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

export async function probeReachability(url: URL, timeoutMs: number): Promise<StepResult[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const steps: StepResult[] = [];
  let address = host;
  if (!isIP(host)) {
    try {
      const addresses = await withTimeout(lookup(host, { all: true }), timeoutMs, 'DNS lookup');
      address = addresses[0]!.address;
      steps.push({
        step: 'dns',
        ok: true,
        message: `${host} resolves to ${addresses.map((a) => a.address).join(', ')}`,
      });
    } catch (error) {
      steps.push({ step: 'dns', ok: false, message: `cannot resolve ${host} (${reason(error)})` });
      return steps;
    }
  }
  let socket: Socket;
  try {
    socket = await withTimeout(openSocket(address, port), timeoutMs, 'TCP connect');
    steps.push({ step: 'tcp', ok: true, message: `TCP connection to ${address} port ${port} opened` });
  } catch (error) {
    steps.push({ step: 'tcp', ok: false, message: `cannot connect to ${address} port ${port} (${reason(error)})` });
    return steps;
  }
  if (url.protocol !== 'https:') {
    socket.destroy();
    return steps;
  }
  try {
    steps.push({
      step: 'tls',
      ok: true,
      message: await withTimeout(handshake(socket, host), timeoutMs, 'TLS handshake'),
    });
  } catch (error) {
    steps.push({ step: 'tls', ok: false, message: `TLS handshake with ${host} failed (${reason(error)})` });
  } finally {
    socket.destroy();
  }
  return steps;
}

function openSocket(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host, port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', (error) => {
      socket.destroy();
      reject(error);
    });
  });
}

function handshake(socket: Socket, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // host (not only servername, which must not be an IP) is what the certificate is checked against.
    const tls = tlsConnect({ socket, host: servername, servername: isIP(servername) ? undefined : servername });
    tls.once('secureConnect', () => {
      const cert = tls.getPeerCertificate();
      resolve(
        `TLS ${tls.getProtocol() ?? ''} handshake ok; certificate for ${cert.subject?.CN ?? servername} valid until ${cert.valid_to}`,
      );
      tls.destroy();
    });
    tls.once('error', (error) => {
      tls.destroy();
      reject(error);
    });
  });
}

export type ProbeOutcome =
  | { kind: 'accepted'; status: number }
  | { kind: 'refused'; status: number }
  | { kind: 'not-found'; status: number }
  | { kind: 'server-error'; status: number }
  | { kind: 'unexpected'; status: number }
  | { kind: 'network'; message: string };

/**
 * POSTs an empty array to the import endpoint: the API requires at least one item, so a server that checks
 * credentials first answers 400 (credentials fine) or 401/403 (refused) and nothing can be written.
 */
export async function probeImportEndpoint(baseUrl: URL, token: string, timeoutMs: number): Promise<ProbeOutcome> {
  const { Agent, request } = undici();
  const agent = new Agent({ connect: { timeout: timeoutMs } });
  try {
    const response = await request(new URL('member/v1/members/import', baseUrl), {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '[]',
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    await response.body.dump();
    const status = response.statusCode;
    if (status === 401 || status === 403) return { kind: 'refused', status };
    if (status === 404 || status === 405) return { kind: 'not-found', status };
    if (status >= 500) return { kind: 'server-error', status };
    return status === 400 || (status >= 200 && status < 300)
      ? { kind: 'accepted', status }
      : { kind: 'unexpected', status };
  } catch (error) {
    return { kind: 'network', message: reason(error) };
  } finally {
    await agent.close();
  }
}
