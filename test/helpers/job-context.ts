/** A collector context for job unit tests: a loaded config, a fake client, a silent logger. */
import pino from 'pino';
import { type CollectorContext, standaloneDependencies } from '../../src/collectors/collector.ts';
import { configFromObject } from '../../src/config/load.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';
import { Redactor } from '../../src/util/redact.ts';
import { type FakeAnswers, type FakeClient, fakeClient } from './fake-client.ts';

/** Builds a context from raw config keys (merged over a minimal upstream section). */
export function jobContext(
  raw: Record<string, unknown>,
  answers: FakeAnswers = {},
): CollectorContext & { client: FakeClient } {
  const config = configFromObject(
    { upstream: { base_url: 'http://fake', token: 't' }, ...raw },
    { env: {}, baseDir: '/' },
  );
  return {
    config,
    client: fakeClient(answers, config.upstream.baseUrl),
    logger: pino({ level: 'silent' }),
    yielder: new LoopYielder(),
    redact: new Redactor().apply,
    ...standaloneDependencies(),
  };
}
