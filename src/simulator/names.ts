/** Realistic names for the synthetic plant. */

export const SITE_TEMPLATES: readonly { city: string; code: string; tz: string }[] = [
  { city: 'Austin', code: 'AUS', tz: 'America/Chicago' },
  { city: 'Guadalajara', code: 'GDL', tz: 'America/Mexico_City' },
  { city: 'Penang', code: 'PEN', tz: 'Asia/Kuala_Lumpur' },
  { city: 'Dresden', code: 'DRS', tz: 'Europe/Berlin' },
  { city: 'Shenzhen', code: 'SZX', tz: 'Asia/Shanghai' },
  { city: 'Brno', code: 'BRQ', tz: 'Europe/Prague' },
  { city: 'Chennai', code: 'MAA', tz: 'Asia/Kolkata' },
  { city: 'Monterrey', code: 'MTY', tz: 'America/Monterrey' },
];

export const LINE_KINDS: readonly { name: string; what: string }[] = [
  { name: 'SMT Line', what: 'Surface-mount assembly and board test' },
  { name: 'Final Assembly Line', what: 'Final assembly and end-of-line test' },
  { name: 'Box Build Line', what: 'System integration, burn-in and pack-out' },
];

/** Test steps in line order; short acronyms number their parallel stations ("ICT-1"), others letter them. */
export const STEP_NAMES: readonly string[] = [
  'SPI',
  'AOI',
  'ICT',
  'Flash',
  'Functional Test',
  'Calibration',
  'RF Test',
  'Burn-In',
  'Hi-Pot',
  'Leak Test',
  'Vision Check',
  'EOL Test',
  'Final Inspection',
  'Pack-Out Scan',
];

export const PRODUCTS: readonly string[] = [
  'Controller Board X1',
  'Sensor Module S3',
  'Power Supply P200',
  'Gateway G5',
  'Motor Driver MD-40',
  'Display Unit D7',
];

/** Names with a quote, a backslash, a newline and non-ASCII text, used when `exoticNames` is on. */
export const EXOTIC = {
  site: 'Werk Zürich "Süd"',
  line: 'Linie 2 \\ Prüfung',
  station: 'Prüfstand "A"\n2',
} as const;

/** Names that are markup, used when `hostileNames` is on: they must show as text on any page. */
export const HOSTILE = {
  site: 'Plant <b>Nord</b> & "Süd"',
  line: "Line <img src=x onerror=alert(1)> 'Ω'",
  station: '<script>alert("pwned")</script> Prüfstand \'Ä\' & 测试',
} as const;

/** Name of station `i` of a step with `size` parallel stations. */
export function stationName(step: string, i: number, size: number): string {
  if (size === 1) return step;
  return /^[A-Z]+$/.test(step) ? `${step}-${i + 1}` : `${step} ${String.fromCharCode(65 + i)}`;
}
