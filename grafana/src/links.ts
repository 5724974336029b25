/**
 * Dashboard uids and the links between dashboards: header links, and data links from table
 * cells that open the line or station of the clicked row.
 */
import type { Builder } from '@grafana/grafana-foundation-sdk/cog';
import type { DashboardLink } from '@grafana/grafana-foundation-sdk/dashboard';
import { DashboardLinkBuilder, DashboardLinkType } from '@grafana/grafana-foundation-sdk/dashboard';

/** Stable uids: links and bookmarks depend on them, so they never change. */
export const UID = {
  overview: 'station-exporter-overview',
  line: 'station-exporter-line',
  station: 'station-exporter-station',
  health: 'station-exporter-health',
} as const;

/** A data link of a table cell or a series (Grafana's DataLink, which the SDK types loosely). */
export interface DataLink {
  readonly title: string;
  readonly url: string;
}

/** Query parameters that carry the data source, the time range and the window to a linked dashboard. */
const CARRY = `\${datasource:queryparam}&\${window:queryparam}&\${__url_time_range}`;

/** A data link (table cell) to the line dashboard for the row's site and line. */
export function lineLink(): DataLink {
  return {
    title: `Open line \${__data.fields.site} / \${__data.fields.line}`,
    url: `/d/${UID.line}/line?${CARRY}&var-site=\${__data.fields.site}&var-line=\${__data.fields.line}`,
  };
}

/** A data link (table cell) to the station dashboard for the row's station, within `$site`/`$line`. */
export function stationLink(): DataLink {
  return {
    title: `Open station \${__data.fields.station}`,
    url: `/d/${UID.station}/station?${CARRY}&\${site:queryparam}&\${line:queryparam}&var-station=\${__data.fields.station}`,
  };
}

/**
 * A header link to another dashboard; the current variables and time range come along.
 * The SDK places every link in the controls dropdown (`placement: inControlsMenu`, which Grafana
 * 12 hides from the header); the placement is dropped so that the links stay in the header.
 */
export function dashboardLink(title: string, uid: string, tooltip: string): Builder<DashboardLink> {
  const link = new DashboardLinkBuilder(title)
    .type(DashboardLinkType.Link)
    .url(`/d/${uid}`)
    .icon('dashboard')
    .tooltip(tooltip)
    .includeVars(true)
    .keepTime(true)
    .asDropdown(false)
    .targetBlank(false)
    .tags([]);
  return {
    build: () => {
      const { placement: _inMenu, ...header } = link.build();
      return header;
    },
  };
}
