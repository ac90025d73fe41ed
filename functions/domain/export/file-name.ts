/**
 * An export's file name (issue 42): `<hostname>-<series>-<from>-<to>.<csv|ndjson>`, days as given. The
 * route's Content-Disposition and the dashboard's download both use it (a hostname has no character a
 * name must escape), so this module imports nothing the dashboard's bundle would carry.
 */
import type { ExportFormat, ExportSeries } from './columns.ts';

export const exportFileName = (hostname: string, q: { series: ExportSeries; format: ExportFormat; fromDay: string; toDay: string }): string =>
  `${hostname}-${q.series}-${q.fromDay}-${q.toDay}.${q.format}`;
