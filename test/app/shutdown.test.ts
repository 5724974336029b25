import { describe, expect, it } from 'vitest';
import { SHUTDOWN_DEADLINE_MS, type ShutdownStep, shutdownOnce } from '../../src/app/shutdown.ts';
import { manualTimers } from '../helpers/timers.ts';

/** A shutdown on manual timers, recording its log lines and exit codes. */
function harness(runningPolls: string[] = []) {
  const { timers, advance, flush } = manualTimers();
  const lines: Array<{ level: string; fields: unknown; msg?: string }> = [];
  const exits: number[] = [];
  const log =
    (level: string) =>
    (fields: unknown, msg?: string): void =>
      void lines.push({ level, fields, msg });
  const logger = { info: log('info'), error: log('error') } as never;
  const shutdown = shutdownOnce({
    logger,
    timers,
    runningPolls: () => runningPolls,
    exit: (code) => void exits.push(code),
  });
  return { shutdown, lines, exits, advance, flush };
}

const done = (name: string, order: string[]): ShutdownStep => ({
  name,
  run: async () => void order.push(name),
});

describe('shutdownOnce', () => {
  it('runs the steps in order and exits 0 when they end before the deadline', async () => {
    const h = harness();
    const order: string[] = [];
    const outcome = await h.shutdown([done('listener', order), done('polls', order)]);
    expect(outcome).toBe('done');
    expect(order).toEqual(['listener', 'polls']);
    expect(h.exits).toEqual([0]);
    // The deadline timer was cleared: moving past it exits no second time.
    await h.advance(SHUTDOWN_DEADLINE_MS * 2);
    expect(h.exits).toEqual([0]);
  });

  it('exits 1 at the deadline when a poll never ends, naming the step and the running polls', async () => {
    const h = harness(['summary', 'units']);
    const order: string[] = [];
    const stuck: ShutdownStep = { name: 'waiting for running polls', run: () => new Promise<void>(() => {}) };
    const outcome = h.shutdown([done('closing the listener', order), stuck, done('after', order)]);
    await h.flush();
    await h.advance(SHUTDOWN_DEADLINE_MS - 1);
    expect(h.exits).toEqual([]);
    await h.advance(1);
    expect(await outcome).toBe('deadline');
    expect(h.exits).toEqual([1]);
    expect(order).toEqual(['closing the listener']);
    expect(h.lines.at(-1)).toEqual({
      level: 'error',
      fields: {
        deadline_seconds: 10,
        step: 'waiting for running polls',
        running_polls: ['summary', 'units'],
      },
      msg: 'shutdown deadline passed: exiting with work still running',
    });
  });

  it('runs once: a second signal joins the first shutdown', async () => {
    const h = harness();
    const order: string[] = [];
    const first = h.shutdown([done('listener', order)]);
    const second = h.shutdown([done('again', order)]);
    expect(await second).toBe(await first);
    expect(order).toEqual(['listener']);
    expect(h.exits).toEqual([0]);
  });

  it('goes on after a failed step and exits 1', async () => {
    const h = harness();
    const order: string[] = [];
    const failing: ShutdownStep = {
      name: 'closing the listener',
      run: async () => {
        throw new Error('already closed');
      },
    };
    expect(await h.shutdown([failing, done('polls', order)])).toBe('done');
    expect(order).toEqual(['polls']);
    expect(h.exits).toEqual([1]);
  });
});
