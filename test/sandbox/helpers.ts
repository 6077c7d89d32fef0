/** Shared helpers for the sandbox tests: a sandbox per test on 127.0.0.1 port 0, and plain undici calls. */
import { request } from 'undici';
import { startSandbox, type SandboxHandle, type SandboxOptions } from '../../src/sandbox/index.js';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export const IMPORT = '/member/v1/members/import';
export const subscriptionPath = (customerId: string) =>
  `/push/v1/customers/${encodeURIComponent(customerId)}/subscription`;

export function member(memberId: string, extra: Record<string, unknown> = {}) {
  return { memberId, isActive: true, createdAt: '2024-05-01T12:00:00Z', ...extra };
}

export function craftJwt(
  claims: Record<string, unknown>,
  header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' },
): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(claims)}.${Buffer.from('not-checked').toString('base64url')}`;
}

export async function call(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Reply> {
  const method = options.method ?? 'GET';
  // an admin call that changes state is JSON, as the admin API requires (admin-guard.ts)
  const jsonType =
    path.startsWith('/_sandbox') && method !== 'GET' && method !== 'HEAD' ? { 'content-type': 'application/json' } : {};
  const response = await request(`${base}${path}`, {
    method: method as 'GET',
    headers: { ...jsonType, ...options.headers },
    body: options.body,
  });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

export function importBatch(
  sandbox: SandboxHandle,
  items: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return call(sandbox.url, IMPORT, {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.memberToken}`, 'content-type': 'application/json', ...headers },
    body: typeof items === 'string' ? items : JSON.stringify(items),
  });
}

export function subscribe(
  sandbox: SandboxHandle,
  customerId: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return call(sandbox.url, subscriptionPath(customerId), {
    method: 'POST',
    headers: { authorization: `Bearer ${sandbox.pushToken}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Starts a sandbox for one test file's `beforeEach`, closed in `afterEach`. */
export function sandboxFixture(options: SandboxOptions = {}) {
  const state: { sandbox?: SandboxHandle } = {};
  return {
    start: async (extra: SandboxOptions = {}) => (state.sandbox = await startSandbox({ ...options, ...extra })),
    stop: async () => {
      await state.sandbox?.close();
      state.sandbox = undefined;
    },
    get sandbox(): SandboxHandle {
      if (!state.sandbox) throw new Error('sandbox not started');
      return state.sandbox;
    },
  };
}
