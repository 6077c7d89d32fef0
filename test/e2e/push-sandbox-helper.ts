/** One sandbox for a file of `subscribe` tests: started before them, emptied before each, stopped after them. */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { isolatedEnv } from './config-cli-helper.js';

export const APNS = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
export const FCM = `dXk3R2pTQ0eXa1b2:APA91b${'Hq3fK9xLmN2pQ7rStUvWxYz_-'.repeat(6)}`;

export function usePushSandbox(pushToken: string) {
  let sandbox: SandboxHandle;
  beforeAll(async () => {
    sandbox = await startSandbox({ pushToken, strictTokens: true });
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  beforeEach(() => sandbox.reset());
  return {
    sandbox: () => sandbox,
    /** The environment of a run against it: its URL and push token, nothing of the user's own config. */
    env: () => isolatedEnv({ MEMBERCTL_BASE_URL: sandbox.url, MEMBERCTL_PUSH_TOKEN: pushToken }),
    pushRequests: () => sandbox.requests().filter((r) => r.endpoint.includes('/push/')),
  };
}
