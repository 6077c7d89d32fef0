/** Spawns the built CLI with an isolated home and config folder, so no real ~/.config or MEMBERCTL_* leaks in. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export const CLI = join(import.meta.dirname, '..', '..', 'bin', 'memberctl.js');

export function isolatedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'memberctl-home-'));
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('MEMBERCTL_') && key !== 'XDG_CONFIG_HOME' && key !== 'NO_COLOR') env[key] = value;
  }
  return { ...env, HOME: home, FORCE_COLOR: '0', ...extra };
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** A folder with a config file (XDG layout) and token files; returns env pointing at it. */
export function configDir(config: unknown, tokens: Record<string, { text: string; mode?: number }> = {}) {
  const xdg = mkdtempSync(join(tmpdir(), 'memberctl-xdg-'));
  const dir = join(xdg, 'memberctl');
  mkdirSync(dir);
  writeFileSync(join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  for (const [name, token] of Object.entries(tokens)) {
    writeFileSync(join(dir, name), `${token.text}\n`);
    chmodSync(join(dir, name), token.mode ?? 0o600);
  }
  return { dir, xdg, configPath: join(dir, 'config.json') };
}

/** An unsigned JWT with the given claims (config check decodes, never verifies). */
export function craftJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.${Buffer.from('signature-not-checked').toString('base64url')}`;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

/** An isolated environment whose config file's default profile "staging" takes these settings and token file. */
export function profileEnv(profile: Record<string, unknown>, token: string, mode = 0o600) {
  const { xdg } = configDir(
    { defaultProfile: 'staging', profiles: { staging: { tokenFile: 'staging.token', ...profile } } },
    { 'staging.token': { text: token, mode } },
  );
  return isolatedEnv({ XDG_CONFIG_HOME: xdg });
}
