/**
 * Per target, the first matching rule that sets it, else the default; patterns match a name or an
 * id, and a rule with a `station` pattern applies to stations only.
 */
import type { TargetRule, Targets, TargetsConfig } from '../../config/targets-schema.ts';

interface Named {
  readonly id: string;
  readonly name: string;
}

/** Where a line or a station sits; `station` is absent for a line. */
export interface TargetSubject {
  readonly site: Named;
  readonly line: Named;
  readonly station?: Named;
}

const fits = (pattern: RegExp | undefined, item: Named | undefined) =>
  pattern === undefined || (item !== undefined && (pattern.test(item.name) || pattern.test(item.id)));

function applies(rule: TargetRule, s: TargetSubject): boolean {
  if (rule.station !== undefined && s.station === undefined) return false;
  return fits(rule.site, s.site) && fits(rule.line, s.line) && fits(rule.station, s.station);
}

/** The targets of a line or station. */
export function targetsOf(config: Pick<TargetsConfig, 'default' | 'rules'>, subject: TargetSubject): Targets {
  const matching = config.rules.filter((r) => applies(r, subject));
  const pick = (key: keyof Targets) =>
    matching.find((r) => r[key] !== undefined)?.[key] ?? config.default[key];
  return {
    firstPassYield: pick('firstPassYield'),
    finalYield: pick('finalYield'),
    retryRate: pick('retryRate'),
  };
}
