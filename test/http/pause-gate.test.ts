import { describe, expect, it } from 'vitest';
import { PauseGate } from '../../src/http/pause-gate.js';
import { sleep } from '../../src/http/sleep.js';

describe('PauseGate', () => {
  it('is open until paused; a later pause extends, an earlier one never shortens', () => {
    let now = 1000;
    const gate = new PauseGate(() => now);
    expect(gate.remainingMs()).toBe(0);
    gate.pauseFor(500);
    expect(gate.remainingMs()).toBe(500);
    gate.pauseFor(100);
    expect(gate.remainingMs()).toBe(500);
    now += 200;
    gate.pauseFor(1000);
    expect(gate.remainingMs()).toBe(1000);
    now += 1000;
    expect(gate.remainingMs()).toBe(0);
  });

  it('wait resolves true when open and false when aborted during a pause', async () => {
    const gate = new PauseGate();
    expect(await gate.wait()).toBe(true);
    gate.pauseFor(60_000);
    const controller = new AbortController();
    const waiting = gate.wait(controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
  });

  it('sleep is cancelled by an abort and reports it', async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort();
    expect(await pending).toBe(false);
    expect(await sleep(1)).toBe(true);
    expect(await sleep(1, AbortSignal.abort())).toBe(false);
  });
});
