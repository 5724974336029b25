/**
 * An independent reader of the protobuf exposition: protobufjs with the MetricFamily
 * definitions of Prometheus (test/fixtures/exposition/metrics.proto, copied from
 * prometheus/prometheus prompb/io/prometheus/client/metrics.proto with the gogoproto options
 * removed). Nothing of src/exposition/protobuf.ts is used to read.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

const root = new protobuf.Root();
root.addJSON(protobuf.common.get('google/protobuf/timestamp.proto')!.nested!);
protobuf.parse(readFileSync('test/fixtures/exposition/metrics.proto', 'utf8'), root, { keepCase: true });
root.resolveAll();
const MetricFamily = root.lookupType('io.prometheus.client.MetricFamily');

/** A decoded label pair, exemplar, bucket span and metric family, as plain objects. */
export interface DecodedLabel {
  name: string;
  value: string;
}
interface DecodedTimestamp {
  seconds?: number;
  nanos?: number;
}
interface DecodedExemplar {
  label: DecodedLabel[];
  value: number;
  timestamp?: DecodedTimestamp;
}
interface DecodedHistogram {
  sample_count?: number;
  sample_sum?: number;
  bucket?: Array<{ cumulative_count?: number; upper_bound?: number; exemplar?: DecodedExemplar }>;
  schema?: number;
  zero_threshold?: number;
  zero_count?: number;
  negative_span?: Array<{ offset?: number; length?: number }>;
  negative_delta?: number[];
  positive_span?: Array<{ offset?: number; length?: number }>;
  positive_delta?: number[];
  exemplars?: DecodedExemplar[];
  /** Field 15, named created_timestamp in later copies of metrics.proto. */
  start_timestamp?: DecodedTimestamp;
}
interface DecodedMetric {
  label?: DecodedLabel[];
  gauge?: { value?: number };
  /** `start_timestamp`: field 3, named created_timestamp in later copies of metrics.proto. */
  counter?: { value?: number; exemplar?: DecodedExemplar; start_timestamp?: DecodedTimestamp };
  histogram?: DecodedHistogram;
}
export interface DecodedFamily {
  name: string;
  help?: string;
  type?: string;
  metric?: DecodedMetric[];
}

/** Decodes a delimited stream of MetricFamily messages. */
export function decodeDelimited(body: Uint8Array): DecodedFamily[] {
  const reader = protobuf.Reader.create(body);
  const families: DecodedFamily[] = [];
  while (reader.pos < reader.len) {
    const message = MetricFamily.decodeDelimited(reader);
    const family = MetricFamily.toObject(message, {
      longs: Number,
      enums: String,
      defaults: false,
    }) as DecodedFamily;
    // COUNTER is the enum's zero value, which proto3 readers report as absent.
    families.push({ ...family, type: family.type ?? 'COUNTER' });
  }
  return families;
}

/** Absolute bucket counts by key from spans and deltas (as Prometheus expands them). */
export function bucketsOf(
  spans: ReadonlyArray<{ offset?: number; length?: number }> = [],
  deltas: readonly number[] = [],
): Map<number, number> {
  const out = new Map<number, number>();
  let key = 0;
  let count = 0;
  let d = 0;
  for (const span of spans) {
    key += span.offset ?? 0;
    for (let j = 0; j < (span.length ?? 0); j++) {
      count += deltas[d++]!;
      if (count !== 0) out.set(key, count);
      key++;
    }
  }
  return out;
}
