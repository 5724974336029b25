/**
 * Annotation queries: events drawn on every time series panel of a dashboard, e.g. the samples
 * of a control chart that break a rule. Each series returned by `expr` marks the times where it
 * has a value, through the `datasource` variable like every panel.
 */
import {
  AnnotationPanelFilterBuilder,
  AnnotationQueryBuilder,
} from '@grafana/grafana-foundation-sdk/dashboard';
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
  /**
   * Mark each event at the time the series' value holds (Unix milliseconds), e.g. a
   * `..._timestamp_seconds * 1000` series, instead of at every sample time.
   */
  readonly useValueForTime?: boolean;
  /** Draw the events on these panels only (ids from {@link panelIdOf}); on every panel without. */
  readonly panelIds?: readonly number[];
}

/** An annotation from a Prometheus query, enabled and shown in the dashboard's controls. */
export function promAnnotation(o: PromAnnotationOptions): AnnotationQueryBuilder {
  const b = new AnnotationQueryBuilder()
    .name(o.name)
    .datasource(DS)
    .enable(true)
    .hide(false)
    .iconColor(o.color ?? 'red')
    .expr(o.expr)
    .titleFormat(o.title)
    .textFormat(o.text)
    .tagKeys(o.tags ?? '')
    .useValueForTime(o.useValueForTime ?? false);
  return o.panelIds ? b.filter(new AnnotationPanelFilterBuilder().exclude(false).ids([...o.panelIds])) : b;
}
