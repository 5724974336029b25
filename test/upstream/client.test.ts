import pino from 'pino';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { wireExporter } from '../../src/app/wire.ts';
import { configFromObject } from '../../src/config/load.ts';
import { type ClientOptions, createClient } from '../../src/upstream/client.ts';
import { UpstreamError } from '../../src/upstream/errors.ts';
import type { RequestEvent } from '../../src/upstream/layers.ts';
import { LoopYielder } from '../../src/util/loop-yield.ts';

const BASE = 'http://upstream.test';
const TOKEN = 'secret-token-value';
const S1 = 'a'.repeat(24);
const S2 = 'b'.repeat(24);

let agent: MockAgent;
let events: RequestEvent[];
let skipped: Array<[string, string, number]>;

/** A client of the mock upstream that records its requests and skips; `more` adds options. */
function client(timeoutMs = 1000, more: Partial<ClientOptions> = {}) {
  return createClient({
    baseUrl: `${BASE}/`,
    token: () => TOKEN,
    timeoutMs,
    dispatcher: agent,
    observer: {
      request: (e) => events.push(e),
      skipped: ({ endpoint, reason, count }) => skipped.push([endpoint, reason, count]),
    },
    ...more,
  });
}

const ok = (data: unknown) => ({ data, message: 'ok', meta: { request_id: 'r1' } });

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  events = [];
  skipped = [];
});
afterEach(async () => {
  await agent.close();
});

describe('query encoding', () => {
  it('sends the bearer token and encodes station_ids, names and the window', async () => {
    let seen: { path: string; headers: Record<string, string> } | undefined;
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/metrics'), method: 'GET' })
      .reply(200, (opts) => {
        seen = { path: opts.path, headers: opts.headers as Record<string, string> };
        return ok([]);
      });
    await client().metrics({
      stationIds: [S1, S2],
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-02T00:00:00Z'),
      names: ['volt age', 'b,c'],
    });
    expect(seen?.path).toBe(
      `/metrics?station_ids=${S1},${S2}&from=2026-11-01T00%3A00%3A00.000Z&to=2026-11-02T00%3A00%3A00.000Z&names=volt%20age&names=b%2Cc`,
    );
    expect(seen?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('encodes unit filters as repeated keys', async () => {
    let path = '';
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/units') })
      .reply(200, (opts) => {
        path = opts.path;
        return ok([]);
      });
    await client().units({
      stationIds: [S1],
      types: ['x', 'y'],
      serialNumber: 'SN 1',
      directions: ['input', 'output'],
    });
    expect(path).toBe(
      `/units?station_ids=${S1}&type=x&type=y&serial_number=SN%201&direction=input&direction=output`,
    );
  });

  it('rejects malformed identifiers before sending anything', async () => {
    await expect(client().stationSummary({ stationIds: ['nothex'] })).rejects.toThrow(/invalid identifier/);
    await expect(client().getSite('123')).rejects.toThrow(RangeError);
    expect(events).toHaveLength(0);
  });
});

describe('mapping at the edge', () => {
  it('maps metrics, keeps raw values, parses numbers and times, skips bad records', async () => {
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/metrics') })
      .reply(
        200,
        ok([
          {
            station_id: S1,
            slot: null,
            unit_serial: 'SN1',
            time_created: '2026-11-01T10:00:00.500Z',
            tz: null,
            mode: null,
            tags: [],
            name: 'v',
            value: ' 3.25 ',
            unit: 'V',
            type: null,
            limit_upper: '3.6',
            limit_lower: null,
            time_inserted: '2026-11-01T10:00:01Z',
            future_field: 1,
          },
          {
            station_id: S1,
            slot: '1',
            unit_serial: 'SN2',
            time_created: '2026-11-01 10:00:00',
            tz: 'UTC',
            mode: 'p',
            tags: [],
            name: 'ok',
            value: 'PASS',
            unit: '',
            type: 'string',
            limit_upper: null,
            limit_lower: null,
          },
          {
            station_id: S1,
            unit_serial: 'SN3',
            time_created: 'yesterday',
            name: 'v',
            value: '1',
            unit: 'V',
            tags: [],
          },
          { station_id: S1, name: 'v' },
        ]),
      );
    const list = await client().metrics({});
    expect(list.received).toBe(4);
    expect(list.records).toHaveLength(2);
    const [a, b] = list.records;
    expect(a).toMatchObject({
      raw: ' 3.25 ',
      // A padded numeral is a number: ASCII whitespace around it is trimmed.
      value: 3.25,
      inserted: Date.parse('2026-11-01T10:00:01Z'),
      upper: 3.6,
      lower: undefined,
      time: Date.parse('2026-11-01T10:00:00.500Z'),
    });
    expect(b).toMatchObject({
      raw: 'PASS',
      value: undefined,
      slot: '1',
      time: Date.parse('2026-11-01T10:00:00Z'),
    });
    expect(skipped).toEqual(
      expect.arrayContaining([
        ['metrics', 'bad_time', 1],
        ['metrics', 'schema', 1],
      ]),
    );
  });

  it('maps the summary object and leaves non-numeric fields out', async () => {
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/station/summary') })
      .reply(
        200,
        ok({
          unique_units: 10,
          total_input: 12,
          unique_input: 10,
          total_output: 12,
          unique_output: 10,
          first_pass: 8,
          final_pass: 9,
          first_pass_yield: 0.8,
          final_yield: '0.9',
          retry_rate: null,
        }),
      );
    const s = await client().stationSummary({ stationIds: [S1] });
    expect(s).toEqual({
      uniqueUnits: 10,
      totalInput: 12,
      uniqueInput: 10,
      totalOutput: 12,
      uniqueOutput: 10,
      firstPass: 8,
      finalPass: 9,
      firstPassYield: 0.8,
      finalYield: 0.9,
    });
    expect(s.retryRate).toBeUndefined();
    expect(skipped).toEqual([['station_summary', 'missing_field', 1]]);
  });

  it('refuses a site with more values than an item may hold, from /sites/{id} too, as too_large', async () => {
    const g = 'c'.repeat(24);
    const elements = new Array(60_000).fill({});
    const site = {
      id: g,
      name: 'P',
      description: '',
      lines: [{ id: S1, name: 'L', description: '', elements }],
    };
    agent
      .get(BASE)
      .intercept({ path: `/sites/${g}` })
      .reply(200, ok(site));
    await expect(client().getSite(g)).rejects.toMatchObject({ endpoint: 'site', reason: 'too_large' });
    expect(events.map((e) => e.statusClass)).toEqual(['too_large']);
  });

  it('leaves out summary values their field cannot hold, counted by reason, and keeps the rest', async () => {
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/station/summary') })
      .reply(
        200,
        ok({
          unique_units: 10,
          total_input: '12',
          unique_input: -5,
          total_output: 1e308,
          unique_output: 10,
          first_pass: 2.5,
          final_pass: 9,
          first_pass_yield: 250,
          final_yield: 90,
          retry_rate: -0.1,
        }),
      );
    const s = await client().stationSummary({ stationIds: [S1] });
    // 90 may be a percentage: its scale is the summary collector's to decide, with the whole answer.
    expect(s).toEqual({ uniqueUnits: 10, totalInput: 12, uniqueOutput: 10, finalPass: 9, finalYield: 90 });
    expect(skipped).toEqual([
      ['station_summary', 'bad_count', 3],
      ['station_summary', 'out_of_range', 2],
    ]);
  });

  it('exports none of the impossible summary values, at station or line level, and counts them', async () => {
    const line = 'd'.repeat(24);
    const site = 'e'.repeat(24);
    const pool = agent.get(BASE);
    const station = (id: string, name: string) => ({ id, name, description: '', type: 'station' });
    pool
      .intercept({ path: '/sites' })
      .reply(
        200,
        ok([
          {
            id: site,
            name: 'Plant',
            description: '',
            lines: [
              { id: line, name: 'L1', description: '', elements: [station(S1, 'A'), station(S2, 'B')] },
            ],
          },
        ]),
      )
      .persist();
    let summaries = 0;
    pool
      .intercept({ path: (p) => p.startsWith('/station/summary') })
      .reply(200, () => {
        summaries++;
        return ok({
          unique_units: 10,
          total_input: 12,
          unique_input: -5,
          total_output: 1e308,
          unique_output: 10,
          first_pass: 8,
          final_pass: 9,
          first_pass_yield: 0.8,
          final_yield: 0.9,
          retry_rate: 0.1,
        });
      })
      .persist();
    pool
      .intercept({ path: (p) => p.startsWith('/units') || p.startsWith('/metrics') })
      .reply(200, ok([]))
      .persist();
    const config = configFromObject(
      {
        upstream: { base_url: BASE, token: TOKEN },
        windows: ['1h'],
        summary: { levels: ['station', 'line'], skip_idle: false },
      },
      { env: {}, baseDir: '/' },
    );
    const exporter = wireExporter(config, { dispatcher: agent, logger: pino({ level: 'silent' }) });
    try {
      await exporter.scheduler.pollOnce();
      const text = await (
        await exporter.app.request('/metrics', { headers: { accept: 'text/plain' } })
      ).text();
      const samples = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
      const summaryLines = samples.filter((l) => /^station_(line_)?[a-z_]+_(units|ratio)\{/.test(l));
      // Two stations and their line, each with the fields it could hold.
      expect(summaries).toBe(3);
      expect(summaryLines.filter((l) => l.startsWith('station_unique_units{'))).toHaveLength(2);
      expect(summaryLines.filter((l) => l.startsWith('station_line_unique_units{'))).toHaveLength(1);
      for (const family of ['unique_input_units', 'output_units']) {
        expect(summaryLines.filter((l) => l.startsWith(`station_${family}{`))).toEqual([]);
        expect(summaryLines.filter((l) => l.startsWith(`station_line_${family}{`))).toEqual([]);
      }
      expect(samples.filter((l) => / (-5|1e\+308)$/.test(l))).toEqual([]);
      expect(text).toContain(
        'station_exporter_records_skipped_total{endpoint="station_summary",reason="bad_count"} 6',
      );
    } finally {
      await exporter.close();
    }
  });

  it('maps sites with stations and groups, skipping malformed elements', async () => {
    const g = 'c'.repeat(24);
    agent
      .get(BASE)
      .intercept({ path: '/sites' })
      .reply(
        200,
        ok([
          {
            id: S1,
            name: 'Site',
            description: 'd',
            lines: [
              {
                id: S2,
                name: 'L',
                description: '',
                elements: [
                  { id: 'd'.repeat(24), name: 'St', description: 'x', type: 'station' },
                  {
                    id: g,
                    name: 'G',
                    description: '',
                    type: 'group',
                    stations: [
                      { id: 'e'.repeat(24), name: 'G1', description: '' },
                      { id: 'bad', name: 'x', description: '' },
                    ],
                  },
                  { id: 'f'.repeat(24), name: 'odd', description: '', type: 'robot' },
                ],
              },
            ],
          },
        ]),
      );
    const list = await client().listSites();
    const line = list.records[0]?.lines[0];
    expect(line?.elements.map((e) => e.kind)).toEqual(['station', 'group']);
    const group = line?.elements[1];
    expect(group?.kind === 'group' && group.stations.map((s) => s.name)).toEqual(['G1']);
    expect(skipped).toEqual(
      expect.arrayContaining([
        ['sites', 'bad_id', 1],
        ['sites', 'schema', 1],
      ]),
    );
  });
});

describe('typed errors', () => {
  it('carries status and the upstream error code, never the token', async () => {
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/station/summary') })
      .reply(403, { error: { code: 'FORBIDDEN', message: 'Insufficient permissions', details: null } });
    const err = await client()
      .stationSummary({ stationIds: [S1] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({
      endpoint: 'station_summary',
      reason: 'status',
      status: 403,
      code: 'FORBIDDEN',
    });
    expect(String((err as Error).message)).not.toContain(TOKEN);
    expect(events[0]?.statusClass).toBe('4xx');
  });

  it('reports an error status without a documented body', async () => {
    agent.get(BASE).intercept({ path: '/sites' }).reply(500, 'oops');
    await expect(client().listSites()).rejects.toMatchObject({
      reason: 'status',
      status: 500,
      code: undefined,
    });
    expect(events[0]?.statusClass).toBe('5xx');
  });

  it('classifies malformed JSON and a wrong envelope as invalid_body', async () => {
    agent.get(BASE).intercept({ path: '/sites' }).reply(200, '{"data": [');
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/units') })
      .reply(200, { data: { not: 'a list' }, message: 'x' });
    await expect(client().listSites()).rejects.toMatchObject({ reason: 'invalid_body' });
    await expect(client().units({})).rejects.toMatchObject({ reason: 'invalid_body', endpoint: 'units' });
    expect(events.map((e) => e.statusClass)).toEqual(['invalid_body', 'invalid_body']);
  });

  it('classifies a connection failure as network', async () => {
    agent.get(BASE).intercept({ path: '/sites' }).replyWithError(new Error('ECONNREFUSED'));
    await expect(client().listSites()).rejects.toMatchObject({ reason: 'network' });
  });

  it('times out a request that does not answer in time', async () => {
    agent.get(BASE).intercept({ path: '/sites' }).reply(200, ok([])).delay(2000);
    const err = await client(30)
      .listSites()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ reason: 'timeout', endpoint: 'sites' });
    expect(events[0]?.statusClass).toBe('timeout');
  });
});

describe('stale keep-alive connections', () => {
  it('sends a GET once more when the connection was closed under it', async () => {
    const closed = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    agent.get(BASE).intercept({ path: '/sites' }).replyWithError(closed);
    agent.get(BASE).intercept({ path: '/sites' }).reply(200, ok([]));
    await expect(client().listSites()).resolves.toMatchObject({ received: 0 });
    expect(events.map((e) => e.statusClass)).toEqual(['network', '2xx']);
  });

  it('retries only once', async () => {
    const closed = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    agent.get(BASE).intercept({ path: '/sites' }).replyWithError(closed);
    agent.get(BASE).intercept({ path: '/sites' }).replyWithError(closed);
    await expect(client().listSites()).rejects.toMatchObject({ reason: 'network' });
    expect(events).toHaveLength(2);
  });

  it('does not retry other network failures', async () => {
    agent.get(BASE).intercept({ path: '/sites' }).replyWithError(new Error('ECONNREFUSED'));
    agent.get(BASE).intercept({ path: '/sites' }).reply(200, ok([]));
    await expect(client().listSites()).rejects.toMatchObject({ reason: 'network' });
    expect(events).toHaveLength(1);
  });
});

describe('record answers in hand', () => {
  /** A yielder whose yields wait for `open()`: an answer decoded in more than one step waits there. */
  function heldTurns() {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const yielder = new (class extends LoopYielder {
      override yieldToLoop() {
        return gate.then(() => super.yieldToLoop());
      }
    })();
    return { yielder, open };
  }

  // 1,000 records of about 250 bytes: an answer of several decoding slices (96 KiB each), so
  // that its decoding reaches a yield and waits there while the gate is shut.
  const RECORDS = 1000;
  const bigRecords = () =>
    ok(
      Array.from({ length: RECORDS }, (_, i) => ({
        station_id: S1,
        slot: null,
        unit_serial: `SN-${i}`,
        time_created: '2026-11-01T00:00:00Z',
        name: 'v',
        value: i,
        unit: 'V',
        type: 'num',
        mode: null,
        limit_upper: null,
        limit_lower: null,
        padding: 'x'.repeat(80),
      })),
    );

  const window = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-01T01:00:00Z') };

  /** Answers every `/metrics` request with {@link RECORDS} records; counts the requests. */
  function serveRecords(): { count: number } {
    const served = { count: 0 };
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/metrics') })
      .reply(200, () => {
        served.count++;
        return bigRecords();
      })
      .persist();
    return served;
  }

  /** A client whose answers wait before parsing until `open()`. */
  function heldClient(recordAnswersInHand?: number) {
    const { yielder, open } = heldTurns();
    const held = client(5000, {
      yielder,
      ...(recordAnswersInHand === undefined ? {} : { recordAnswersInHand }),
    });
    return { client: held, open };
  }

  /** Lets the event loop turn a while, for requests that must not be sent. */
  async function settle(): Promise<void> {
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
  }

  it.each([
    { inHand: 2, option: 2 },
    { inHand: 2, option: undefined },
    { inHand: 3, option: 3 },
  ])(
    'sends no further record request while $inHand answers wait to be parsed (option $option)',
    async ({ inHand, option }) => {
      const received = serveRecords();
      let summaries = 0;
      agent
        .get(BASE)
        .intercept({ path: (p) => p.startsWith('/station/summary') })
        .reply(200, () => {
          summaries++;
          return ok({ unique_units: 1 });
        })
        .persist();
      const { client: c, open } = heldClient(option);
      // Two requests from each of three collectors.
      const lists = Array.from({ length: 6 }, (_, i) =>
        c.forCollector(`collector ${i % 3}`).metrics({ stationIds: [S1], ...window }),
      );
      await vi.waitFor(() => expect(received.count).toBe(inHand));
      await settle();
      expect(received.count).toBe(inHand);
      // Requests to other endpoints are not held back by the record answers.
      const summary = c.stationSummary({ stationIds: [S1], ...window });
      await vi.waitFor(() => expect(summaries).toBe(1));
      open();
      const done = await Promise.all(lists);
      await expect(summary).resolves.toMatchObject({ uniqueUnits: 1 });
      expect(received.count).toBe(6);
      expect(done.map((l) => l.records.length)).toEqual(Array(6).fill(RECORDS));
    },
  );
});

describe('one hostile answer cannot starve another collector', () => {
  it("decodes a small answer of one collector while another's huge answer is still being decoded", async () => {
    // 24,000 empty objects: under the item limit, 12 slices of decoding; the small answer takes
    // about 4 turns of the loop, so it is done well before the huge one.
    const huge = `{"data":[${Array(24_000).fill('{}').join(',')}],"message":"ok"}`;
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/units') })
      .reply(200, huge);
    let measurementsSent = 0;
    agent
      .get(BASE)
      .intercept({ path: (p) => p.startsWith('/metrics') })
      .reply(200, () => {
        measurementsSent++;
        return ok([
          {
            station_id: S1,
            slot: null,
            unit_serial: 'SN-1',
            time_created: '2026-11-01T00:00:00Z',
            name: 'v',
            value: 1,
            unit: 'V',
            type: null,
            mode: null,
            limit_upper: null,
            limit_lower: null,
          },
        ]);
      });
    let turnsTaken = 0;
    const yielder = new (class extends LoopYielder {
      override yieldToLoop() {
        turnsTaken++;
        return super.yieldToLoop();
      }
    })();
    const c = client(60_000, { yielder });
    let unitsDone = false;
    const units = c
      .forCollector('units')
      .units({})
      .finally(() => {
        unitsDone = true;
      });
    // The huge answer has arrived and its decoding has begun (its first turn is asked for).
    await vi.waitFor(() => expect(turnsTaken).toBeGreaterThan(0), { timeout: 30_000 });
    const measurements = await c.forCollector('measurements').metrics({
      stationIds: [S1],
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-01T01:00:00Z'),
    });
    expect(measurementsSent).toBe(1);
    expect(measurements.records).toHaveLength(1);
    // Decoded one whole answer at a time, this would wait for all 12 slices.
    expect(unitsDone).toBe(false);
    await expect(units).resolves.toMatchObject({ received: 24_000, records: [] });
  });
});
