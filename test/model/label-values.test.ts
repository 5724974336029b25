import pino from 'pino';
import { describe, expect, it } from 'vitest';
import {
  LabelValues,
  MAX_LABEL_VALUE_LENGTH,
  TRUNCATION_MARKER,
  truncateLabelValue,
} from '../../src/model/label-values.ts';
import { REDACTED, Redactor } from '../../src/util/redact.ts';

const TOKEN = 'tok-3f9a8b7c6d5e4f';

function setup() {
  const redactor = new Redactor();
  redactor.add(TOKEN);
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });
  const values = new LabelValues({ redact: redactor.apply, logger, collector: 'topology' });
  return { values, lines };
}

describe('label values from the upstream', () => {
  it('mask a known token and a Bearer credential, count them and log once without the value', () => {
    const { values, lines } = setup();
    expect(values.value(`w-${TOKEN}`, 'site name')).toBe(`w-${REDACTED}`);
    expect(values.value('echo: Bearer abc.def-123', 'station description')).toBe(`echo: Bearer ${REDACTED}`);
    expect(values.value('Oven 3', 'station name')).toBe('Oven 3');
    expect(values.take()).toEqual([{ reason: 'secret', count: 2 }]);
    expect(values.take()).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"field":"site name"');
    expect(lines.join('')).not.toContain(TOKEN);
    expect(lines.join('')).not.toContain('abc.def-123');
  });

  it(`cut values longer than ${MAX_LABEL_VALUE_LENGTH} characters, with a marker, and count them`, () => {
    const { values } = setup();
    const cut = values.value('x'.repeat(1_000_000), 'station name');
    expect(cut).toHaveLength(MAX_LABEL_VALUE_LENGTH);
    expect(cut.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(values.value('y'.repeat(MAX_LABEL_VALUE_LENGTH), 'station name')).toHaveLength(
      MAX_LABEL_VALUE_LENGTH,
    );
    expect(values.take()).toEqual([{ reason: 'too_long', count: 1 }]);
  });

  it('replace lone surrogates by U+FFFD, as UTF-8 would write them, count them and keep pairs', () => {
    const { values, lines } = setup();
    expect(values.value('P\ud800', 'site name')).toBe('P\ufffd');
    expect(values.value('P\udbffx\udc00', 'site name')).toBe('P\ufffdx\ufffd');
    expect(values.value('P\ufffd', 'site name')).toBe('P\ufffd');
    expect(values.value('Oven 😀', 'station name')).toBe('Oven 😀');
    expect(values.take()).toEqual([{ reason: 'ill_formed', count: 2 }]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('lone UTF-16 surrogate');
  });

  it('never cut a surrogate pair in half', () => {
    const text = `${'a'.repeat(MAX_LABEL_VALUE_LENGTH - 2)}😀😀`;
    const cut = truncateLabelValue(text);
    expect(cut).toBe(`${'a'.repeat(MAX_LABEL_VALUE_LENGTH - 2)}${TRUNCATION_MARKER}`);
    expect(Buffer.from(cut, 'utf8').toString('utf8')).toBe(cut);
  });

  it('mask an identity without cutting it', () => {
    const { values } = setup();
    expect(values.masked(`SN-${TOKEN}`, 'unit serial')).toBe(`SN-${REDACTED}`);
    expect(values.masked('s'.repeat(1000), 'unit serial')).toHaveLength(1000);
    expect(values.take()).toEqual([{ reason: 'secret', count: 1 }]);
  });

  it('refuse ids that carry a secret or are too long (their element is left out), counted', () => {
    const { values } = setup();
    expect(values.acceptsId('65f1c0de0000000000000001', 'station id')).toBe(true);
    expect(values.acceptsId(`id-${TOKEN}`, 'station id')).toBe(false);
    expect(values.acceptsId('9'.repeat(MAX_LABEL_VALUE_LENGTH + 1), 'station id')).toBe(false);
    expect(values.take()).toEqual([
      { reason: 'secret', count: 1 },
      { reason: 'too_long', count: 1 },
    ]);
  });
});
