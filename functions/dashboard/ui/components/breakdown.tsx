/**
 * A breakdown list: one row per name with a bar for its share of the top
 * value, pageviews and visitors. A row whose dimension can filter is a button
 * that adds `dim:name` to the view's filters.
 */
import type { FilterDim } from '#domain/reports/filter.ts';
import { formatCompact } from '../format.ts';

export interface BreakdownRow {
  name: string;
  visitors: number;
  /** Absent in lists of visitors alone (the live panel's). */
  value?: number;
}

/** `onDetails`: a second button per row (`detailsLabel`), for a drill-down of the row's name. `valueLabel` null: visitors only. */
export function BreakdownList({ rows, filterDim, onFilter, onDetails, detailsLabel = 'Details', valueLabel = 'Pageviews', emptyName = '(none)', emptyText = 'No data for this range.' }: {
  rows: readonly BreakdownRow[];
  filterDim: FilterDim | null;
  onFilter?: (dim: FilterDim, value: string) => void;
  onDetails?: (name: string) => void;
  detailsLabel?: string;
  valueLabel?: string | null;
  emptyName?: string;
  emptyText?: string;
}) {
  if (rows.length === 0) return <p class="empty">{emptyText}</p>;
  const barOf = (r: BreakdownRow) => (valueLabel === null ? r.visitors : (r.value ?? 0));
  const top = Math.max(...rows.map(barOf), 1);
  return (
    <table class="breakdown">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col" class="num">
            Visitors
          </th>
          {valueLabel !== null && (
            <th scope="col" class="num">
              {valueLabel}
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.name}>
            <th scope="row" class="name">
              <span class="bar" style={{ width: `${(barOf(r) / top) * 100}%` }} aria-hidden="true" />
              {filterDim && onFilter ? (
                <button type="button" class="row-filter" title={`Filter by ${r.name || emptyName}`} onClick={() => onFilter(filterDim, r.name)}>
                  {r.name || emptyName}
                </button>
              ) : (
                <span>{r.name || emptyName}</span>
              )}
              {onDetails && (
                <button type="button" class="row-details" aria-label={`${detailsLabel}: ${r.name || emptyName}`} onClick={() => onDetails(r.name)}>
                  {detailsLabel}
                </button>
              )}
            </th>
            <td class="num">{formatCompact(r.visitors)}</td>
            {valueLabel !== null && <td class="num">{formatCompact(r.value ?? 0)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
