import { describe, expect, it } from 'vitest';
import { AnswerDecoder } from '../../src/upstream/decode.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';

/** Turns handed out only when the test says so: the order of steps is the test's, not timing's. */
function manualTurns() {
  const waiting: Array<() => void> = [];
  const yielder = new (class extends LoopYielder {
    override yieldToLoop() {
      return new Promise<void>((resolve) => waiting.push(resolve));
    }
  })();
  /** Hands out turns one at a time until no step waits for one. */
  const drain = async () => {
    for (;;) {
      for (let i = 0; i < 20; i++) await Promise.resolve();
      const next = waiting.shift();
      if (!next) return;
      next();
    }
  };
  return { yielder, drain };
}

describe('DecodeTurns', () => {
  it('takes the steps of busy lanes in turns, one step each, whatever their number', async () => {
    const { yielder, drain } = manualTurns();
    const decode = new AnswerDecoder({ yielder, maxItems: 1 });
    const order: string[] = [];
    const steps = async (lane: string, n: number) => {
      const run = decode.lane(lane);
      for (let i = 1; i <= n; i++) await run(() => order.push(`${lane}${i}`));
    };
    // One lane with a huge answer (many steps), one with a small one.
    const done = Promise.all([steps('units', 6), steps('measurements', 2)]);
    await drain();
    await done;
    expect(order).toEqual([
      'units1',
      'measurements1',
      'units2',
      'measurements2',
      'units3',
      'units4',
      'units5',
      'units6',
    ]);
  });

  it('lets a lane that joins late in at the next step, not after the busy lane is done', async () => {
    const { yielder, drain } = manualTurns();
    const decode = new AnswerDecoder({ yielder, maxItems: 1 });
    const order: string[] = [];
    const units = decode.lane('units');
    const busy = (async () => {
      for (let i = 1; i <= 100; i++)
        await units(() => {
          order.push('units');
          // The small answer arrives while the huge one is decoded.
          if (i === 10) void decode.lane('measurements')(() => order.push('measurements'));
        });
    })();
    await drain();
    await busy;
    expect(order.indexOf('measurements')).toBe(10);
  });
});

describe('DecodeTurns.answer', () => {
  it("runs an answer's first step at once and the later ones in turns", async () => {
    const { yielder, drain } = manualTurns();
    const decode = new AnswerDecoder({ yielder, maxItems: 1 });
    const order: string[] = [];
    const run = decode.answer('summary');
    await run(() => order.push('first'));
    expect(order).toEqual(['first']);
    const second = run(() => order.push('second'));
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(order).toEqual(['first']);
    await drain();
    await second;
    expect(order).toEqual(['first', 'second']);
  });
});
