/**
 * Text renders as tests read them, through the entry points the exposition cache uses:
 * {@link renderFamiliesToBuffer} (in one go) and {@link renderFamiliesInto} (step by step,
 * yielding to the event loop between steps).
 */
import type { Family } from '../../src/exposition/model.ts';
import {
  renderFamiliesInto,
  renderFamiliesToBuffer,
  type StreamOptions,
  type TextFormat,
} from '../../src/exposition/render.ts';

/** The families rendered in one go, as a string. */
export function renderFamilies(families: readonly Family[], format: TextFormat): string {
  return renderFamiliesToBuffer(families, format).toString('utf8');
}

/** A stepped render: a copy of each step's bytes, the samples rendered and the time taken. */
export async function renderFamiliesInSteps(
  families: readonly Family[],
  format: TextFormat,
  opts: Omit<StreamOptions, 'consume'> = {},
): Promise<{ readonly chunks: Buffer[]; readonly samples: number; readonly busyMs: number }> {
  const chunks: Buffer[] = [];
  const consume = async (step: Buffer[]) => {
    // The renderer writes over a step's bytes once the next step starts.
    for (const c of step) chunks.push(Buffer.from(c));
  };
  const rendered = await renderFamiliesInto(families, format, { ...opts, consume });
  return { chunks, ...rendered };
}
