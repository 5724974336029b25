/**
 * Template variables: the data source picker and `label_values` queries, chained through the
 * variables before them (`station_info{site="$site"}`), refreshed when the time range changes.
 */
import {
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  VariableHide,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DS } from './query.ts';

/** A template variable builder (data source or query). */
export type VariableBuilder = DatasourceVariableBuilder | QueryVariableBuilder;

/** The data source picker, limited to Prometheus data sources (Grafana picks the default one). */
export function datasourceVariable(): DatasourceVariableBuilder {
  return new DatasourceVariableBuilder('datasource')
    .label('Data source')
    .type('prometheus')
    .hide(VariableHide.DontHide)
    .regex('');
}

/** Options of {@link labelValues}. */
export interface LabelValuesOptions {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  /** The series selector, e.g. `station_info{site="$site"}`; chaining comes from its matchers. */
  readonly selector: string;
  /** The label to list; defaults to `name`. */
  readonly of?: string;
  /** Several values at once, with an "All" entry matching everything. */
  readonly multi?: boolean;
}

/** A variable listing the values of a label, refreshed when the time range changes. */
export function labelValues(o: LabelValuesOptions): QueryVariableBuilder {
  const query = `label_values(${o.selector}, ${o.of ?? o.name})`;
  const v = new QueryVariableBuilder(o.name)
    .label(o.label)
    .description(o.description)
    .datasource(DS)
    .query(query)
    .definition(query)
    .hide(VariableHide.DontHide)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .regex('')
    .sort(VariableSort.AlphabeticalAsc)
    .multi(o.multi ?? false)
    .includeAll(o.multi ?? false);
  // With "All", a match-everything regex keeps the query short instead of listing every value.
  return o.multi ? v.allValue('.*') : v;
}

/** The `window` variable: windows present at any summary level (levels are configurable). */
export function windowVariable(): QueryVariableBuilder {
  return labelValues({
    name: 'window',
    label: 'Window',
    description: 'Statistics window (the exporter `windows` setting), e.g. 1h, 24h, shift, today.',
    selector: '{__name__=~"station_(site_|line_|group_)?unique_output_units"}',
  });
}
