/**
 * Line-level queries the dashboards compute inline, so that they work without the rule file
 * loaded. They are the expressions of the recording rules
 * `site_line_window:station_rolled_throughput_yield:ratio` and
 * `site_line:station_line_output_units:per_hour`, restricted by `matchers`; keep them in step.
 */

/**
 * Rolled throughput yield per line and window: the product of the first-pass yields of its
 * steps (a group as one step, from its group-level yield), steps without output left out.
 * `matchers` select site, line and window.
 */
export function rolledThroughputYield(matchers: string): string {
  return (
    `exp(sum by (site, line, window) (` +
    `ln(station_first_pass_yield_ratio{${matchers}, group=""} and on (station_id, window) station_unique_output_units{${matchers}} > 0)` +
    ` or ln(station_group_first_pass_yield_ratio{${matchers}} and on (site, line, group, window) station_group_unique_output_units{${matchers}} > 0)` +
    `))`
  );
}

/**
 * Units per hour leaving each line: distinct output units of the line's last element
 * (`station_line_output_info`) over the 1h window. `matchers` select site and line.
 */
export function unitsPerHour(matchers: string): string {
  return (
    `sum by (site, line) (station_unique_output_units{${matchers}, window="1h", group=""} and on (station_id) station_line_output_info)` +
    ` or sum by (site, line) (station_group_unique_output_units{${matchers}, window="1h"} and on (site, line, group) station_line_output_info)`
  );
}
