import { describe, expect, it, vi } from 'vitest';
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

  it('a pause beyond what one timer holds (24.8 days) still waits: its timer is never one node fires at once', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const gate = new PauseGate();
    gate.pauseFor(99_999 * 1000 * 1000); // a Retry-After of 99,999,000 s
    const controller = new AbortController();
    const waiting = gate.wait(controller.signal);
    const delays = timers.mock.calls.map((call) => call[1] ?? 0);
    timers.mockRestore();
    expect(delays).toEqual([2 ** 31 - 1]); // node turns a longer delay into 1 ms (TimeoutOverflowWarning)
    controller.abort();
    expect(await waiting).toBe(false);
  });
});
