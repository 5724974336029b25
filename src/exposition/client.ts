/**
 * The Prometheus client library, imported in this one place: the self-metrics, the plan and
 * web-config metrics and the process collectors use its registry and metric types, and the
 * exposition reads them back (registry-families.ts). test/exposition/self-families.e2e.test.ts pins
 * the families it produces, so that a change of library shows up there.
 */
export { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from '@prometheus-io/client';
