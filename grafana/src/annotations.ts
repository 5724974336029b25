/**
 * Annotation queries: events drawn on every time series panel of a dashboard, e.g. the samples
 * of a control chart that break a rule. Each series returned by `expr` marks the times where it
 * has a value, through the `datasource` variable like every panel.
 */
import { AnnotationQueryBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { DS } from './query.ts';

/** Options of {@link promAnnotation}. */
export interface PromAnnotationOptions {
  readonly name: string;
  /** A PromQL expression whose series exist only while the event holds (e.g. `x > limit`). */
  readonly expr: string;
  /** Title and text of an event, with `{{label}}` placeholders. */
  readonly title: string;
  readonly text: string;
  readonly color?: string;
  /** Labels shown as the event's tags, comma-separated. */
  readonly tags?: string;
}

/** An annotation from a Prometheus query, enabled and shown in the dashboard's controls. */
export function promAnnotation(o: PromAnnotationOptions): AnnotationQueryBuilder {
  return new AnnotationQueryBuilder()
    .name(o.name)
    .datasource(DS)
    .enable(true)
    .hide(false)
    .iconColor(o.color ?? 'red')
    .expr(o.expr)
    .titleFormat(o.title)
    .textFormat(o.text)
    .tagKeys(o.tags ?? '')
    .useValueForTime(false);
}
