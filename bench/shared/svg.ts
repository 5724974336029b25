/**
 * Curves as a small self-contained SVG line chart, so a bench's figures can be seen in the docs
 * without a plotting service: axes with ticks, one polyline and marker set per series, a legend.
 */

/** One line of a chart. A dashed line is a reference (a bound, a target), not a measurement. */
export interface CurveSeries {
  readonly name: string;
  readonly points: readonly (readonly [number, number])[];
  readonly dashed?: boolean;
}

/** Scale of an axis: linear, or logarithmic (base 10) for rates and run lengths. */
export type AxisScale = 'linear' | 'log';

export interface Axis {
  readonly label: string;
  readonly scale?: AxisScale;
}

/** A chart: `id` names its file (`<bench>-<id>.svg`). */
export interface Curve {
  readonly id: string;
  readonly title: string;
  readonly x: Axis;
  readonly y: Axis;
  readonly series: readonly CurveSeries[];
}

const WIDTH = 720;
const HEIGHT = 420;
const LEFT = 70;
const RIGHT = 200;
const TOP = 40;
const BOTTOM = 55;
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

interface Scale {
  readonly toPx: (v: number) => number;
  readonly ticks: readonly number[];
}

/** The SVG text of `curve`. Points that a log axis cannot show (≤ 0) are left out. */
export function renderCurveSvg(curve: Curve): string {
  const shown = curve.series.map((s) => ({
    ...s,
    points: s.points.filter(
      ([x, y]) => Number.isFinite(x) && Number.isFinite(y) && okOnAxis(x, curve.x) && okOnAxis(y, curve.y),
    ),
  }));
  const xs = shown.flatMap((s) => s.points.map((p) => p[0]));
  const ys = shown.flatMap((s) => s.points.map((p) => p[1]));
  const x = makeScale(xs, curve.x.scale ?? 'linear', LEFT, WIDTH - RIGHT);
  const y = makeScale(ys, curve.y.scale ?? 'linear', HEIGHT - BOTTOM, TOP);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(curve.title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="14">${escapeXml(curve.title)}</text>`,
    ...axes(curve, x, y),
    ...shown.flatMap((s, i) => seriesParts(s, COLOURS[i % COLOURS.length]!, x, y, i)),
    '</svg>',
  ];
  return `${parts.join('\n')}\n`;
}

function okOnAxis(v: number, axis: Axis): boolean {
  return axis.scale !== 'log' || v > 0;
}

function makeScale(values: readonly number[], scale: AxisScale, from: number, to: number): Scale {
  if (scale === 'log') {
    const lo = Math.floor(Math.log10(Math.min(...values, 1)));
    const hi = Math.ceil(Math.log10(Math.max(...values, 10)));
    const span = Math.max(1, hi - lo);
    const ticks = Array.from({ length: span + 1 }, (_, i) => 10 ** (lo + i));
    return { toPx: (v) => from + ((Math.log10(v) - lo) / span) * (to - from), ticks };
  }
  const lo = Math.min(0, ...values);
  const hi = values.length > 0 ? Math.max(...values) : 1;
  const step = niceStep((hi - lo || 1) / 5);
  const top = Math.ceil(hi / step) * step || step;
  const bottom = Math.floor(lo / step) * step;
  const ticks: number[] = [];
  for (let t = bottom; t <= top + step / 2; t += step) ticks.push(Number(t.toPrecision(12)));
  return { toPx: (v) => from + ((v - bottom) / (top - bottom)) * (to - from), ticks };
}

function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  const m = raw / power;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

function axes(curve: Curve, x: Scale, y: Scale): string[] {
  const x0 = LEFT;
  const x1 = WIDTH - RIGHT;
  const y0 = HEIGHT - BOTTOM;
  const y1 = TOP;
  return [
    `<line x1="${x0}" y1="${y0}" x2="${x1}" y2="${y0}" stroke="black"/>`,
    `<line x1="${x0}" y1="${y0}" x2="${x0}" y2="${y1}" stroke="black"/>`,
    ...x.ticks.map((t) => {
      const px = x.toPx(t).toFixed(1);
      return `<line x1="${px}" y1="${y0}" x2="${px}" y2="${y0 + 4}" stroke="black"/><text x="${px}" y="${y0 + 18}" text-anchor="middle">${label(t)}</text>`;
    }),
    ...y.ticks.map((t) => {
      const py = y.toPx(t).toFixed(1);
      return `<line x1="${x0 - 4}" y1="${py}" x2="${x1}" y2="${py}" stroke="#ddd"/><text x="${x0 - 8}" y="${py}" text-anchor="end" dominant-baseline="middle">${label(t)}</text>`;
    }),
    `<text x="${(x0 + x1) / 2}" y="${HEIGHT - 12}" text-anchor="middle">${escapeXml(curve.x.label)}</text>`,
    `<text transform="translate(16 ${(y0 + y1) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(curve.y.label)}</text>`,
  ];
}

function seriesParts(s: CurveSeries, colour: string, x: Scale, y: Scale, index: number): string[] {
  const pts = s.points.map(([a, b]) => `${x.toPx(a).toFixed(1)},${y.toPx(b).toFixed(1)}`);
  const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
  const legendY = TOP + 8 + index * 18;
  return [
    `<polyline fill="none" stroke="${colour}" stroke-width="2"${dash} points="${pts.join(' ')}"/>`,
    ...(s.dashed
      ? []
      : pts.map((p) => `<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="3" fill="${colour}"/>`)),
    `<line x1="${WIDTH - RIGHT + 12}" y1="${legendY}" x2="${WIDTH - RIGHT + 36}" y2="${legendY}" stroke="${colour}" stroke-width="2"${dash}/>`,
    `<text x="${WIDTH - RIGHT + 42}" y="${legendY}" dominant-baseline="middle">${escapeXml(s.name)}</text>`,
  ];
}

function label(v: number): string {
  if (v !== 0 && (Math.abs(v) >= 1e5 || Math.abs(v) < 1e-3)) return v.toExponential(0);
  return Number(v.toPrecision(6)).toLocaleString('en-US');
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}
