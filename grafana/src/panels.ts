/**
 * Small panel builders on top of the SDK's: each takes a title, a description, a unit and its
 * queries, sets the house defaults, and returns the SDK builder, so that a caller can still
 * chain any SDK option onto it. Sizes are set here; {@link dashboard} assigns ids and positions.
 */
import {
  BigValueColorMode,
  BigValueGraphMode,
  BigValueJustifyMode,
  BigValueTextMode,
  GraphDrawStyle,
  LegendDisplayMode,
  LegendPlacement,
  ReduceDataOptionsBuilder,
  SortOrder,
  StackingConfigBuilder,
  StackingMode,
  TooltipDisplayMode,
  VisibilityMode,
  VizLegendOptionsBuilder,
  VizOrientation,
  VizTooltipOptionsBuilder,
} from '@grafana/grafana-foundation-sdk/common';
import {
  FieldColorBuilder,
  FieldColorModeId,
  RowBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  type ValueMapping,
} from '@grafana/grafana-foundation-sdk/dashboard';
import * as statPanel from '@grafana/grafana-foundation-sdk/stat';
import * as timeseriesPanel from '@grafana/grafana-foundation-sdk/timeseries';
import { DS, INSTANT, type Query, RANGE, targets, type Unit } from './query.ts';

/** Threshold steps as `[colour, from]`; the first step's value is null (the base colour). */
export type Steps = ReadonlyArray<readonly [string, number | null]>;

/** What every panel builder takes. */
export interface Common {
  readonly title: string;
  readonly description: string;
  readonly unit: Unit;
  readonly queries: readonly Query[];
  readonly w?: number;
  readonly h?: number;
  readonly min?: number;
  readonly max?: number;
  readonly decimals?: number;
  readonly thresholds?: Steps;
  readonly mappings?: ValueMapping[];
}

/** The field and panel options shared by the SDK's stat and time series builders. */
type Base = statPanel.PanelBuilder | timeseriesPanel.PanelBuilder;

/** A section header. */
export function row(title: string): RowBuilder {
  return new RowBuilder(title).collapsed(false);
}

/** Threshold steps for the SDK; without steps, one green base step. */
function thresholds(steps: Steps = [['green', null]]): ThresholdsConfigBuilder {
  return new ThresholdsConfigBuilder()
    .mode(ThresholdsMode.Absolute)
    .steps(steps.map(([color, value]) => ({ color, value })));
}

function base<B extends Base>(b: B, c: Common, w: number, h: number): B {
  b.title(c.title)
    .description(c.description)
    .datasource(DS)
    .unit(c.unit)
    .span(c.w ?? w)
    .height(c.h ?? h);
  if (c.decimals !== undefined) b.decimals(c.decimals);
  if (c.min !== undefined) b.min(c.min);
  if (c.max !== undefined) b.max(c.max);
  b.thresholds(thresholds(c.thresholds));
  if (c.mappings) b.mappings(c.mappings);
  return b;
}

/** A single big number per series (last value). */
export function stat(c: Common & { readonly textMode?: BigValueTextMode }): statPanel.PanelBuilder {
  const color = c.thresholds ? FieldColorModeId.Thresholds : FieldColorModeId.Fixed;
  return base(new statPanel.PanelBuilder(), c, 4, 4)
    .colorScheme(new FieldColorBuilder().mode(color))
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']).fields('').values(false))
    .colorMode(BigValueColorMode.Value)
    .graphMode(BigValueGraphMode.None)
    .justifyMode(BigValueJustifyMode.Auto)
    .orientation(VizOrientation.Auto)
    .textMode(c.textMode ?? BigValueTextMode.Auto)
    .targets(targets(c.queries, INSTANT));
}

/** Lines over time, with a table legend showing the last, the minimum and the maximum value. */
export function timeseries(c: Common & { readonly stack?: boolean }): timeseriesPanel.PanelBuilder {
  return base(new timeseriesPanel.PanelBuilder(), c, 12, 8)
    .colorScheme(new FieldColorBuilder().mode(FieldColorModeId.PaletteClassic))
    .drawStyle(GraphDrawStyle.Line)
    .lineWidth(1)
    .fillOpacity(c.stack ? 30 : 0)
    .showPoints(VisibilityMode.Never)
    .spanNulls(false)
    .stacking(new StackingConfigBuilder().mode(c.stack ? StackingMode.Normal : StackingMode.None).group('A'))
    .legend(
      new VizLegendOptionsBuilder()
        .displayMode(LegendDisplayMode.Table)
        .placement(LegendPlacement.Bottom)
        .showLegend(true)
        .calcs(['lastNotNull', 'min', 'max']),
    )
    .tooltip(new VizTooltipOptionsBuilder().mode(TooltipDisplayMode.Multi).sort(SortOrder.Descending))
    .targets(targets(c.queries, RANGE));
}
