/**
 * A breakdown list: one row per name with a bar for its share of the top
 * value, pageviews and visitors, and in full lists each row's percentage. A
 * row whose dimension can filter is a button that adds `dim:name` to the
 * view's filters. A grouped row (a language) may list its variants under it.
 * Visitors of a row counted from imported events alone read "—", with a note.
 */
import type { FilterDim } from '#domain/reports/filter.ts';
import { formatNumber, formatPercentOf } from '../format.ts';
import { importedOnly, type PanelRow } from '../labels.ts';

export type BreakdownRow = PanelRow;

/** The percentage column: each row's visitors (or value) of `whole`. */
export interface ShareColumn {
  whole: number;
  of: 'visitors' | 'value';
}

export const IMPORTED_NOTE = 'Imported events carry no visitors: imports count events, not who sent them.';

interface ListProps {
  rows: readonly PanelRow[];
  filterDim: FilterDim | null;
  onFilter?: (dim: FilterDim, value: string) => void;
  /** A second button per row (`detailsLabel`), for a drill-down of the row's name. */
  onDetails?: (name: string) => void;
  detailsLabel?: string;
  /** null: visitors only. */
  valueLabel?: string | null;
  emptyName?: string;
  emptyText?: string;
  share?: ShareColumn | null;
  /** Grouped rows list their variants under them. */
  showVariants?: boolean;
}

function NameCell({ row, props, top, variant }: { row: PanelRow; props: ListProps; top: number; variant: boolean }) {
  const { filterDim, onFilter, onDetails, detailsLabel = 'Details', valueLabel = 'Pageviews', emptyName = '(none)' } = props;
  const shown = row.label ?? (row.name || emptyName);
  const bar = valueLabel === null ? row.visitors : (row.value ?? 0);
  const title = row.variants && row.variants.length > 1 ? `${shown}: ${row.variants.map((v) => v.name || emptyName).join(', ')}` : `Filter by ${shown}`;
  return (
    <th scope="row" class={variant ? 'name variant' : 'name'}>
      <span class="bar" style={{ width: `${(bar / top) * 100}%` }} aria-hidden="true" />
      {filterDim && onFilter ? (
        <button type="button" class="row-filter" title={title} onClick={() => onFilter(filterDim, row.name)}>
          {shown}
        </button>
      ) : (
        <span>{shown}</span>
      )}
      {onDetails && (
        <button type="button" class="row-details" aria-label={`${detailsLabel}: ${shown}`} onClick={() => onDetails(row.name)}>
          {detailsLabel}
        </button>
      )}
    </th>
  );
}

function Row({ row, props, top, variant = false }: { row: PanelRow; props: ListProps; top: number; variant?: boolean }) {
  const { valueLabel = 'Pageviews', share } = props;
  const imported = importedOnly(row);
  const part = share?.of === 'value' ? (row.value ?? 0) : row.visitors;
  return (
    <tr class={variant ? 'variant-row' : undefined}>
      <NameCell row={row} props={props} top={top} variant={variant} />
      <td class="num">
        {imported ? (
          <span class="imported" title={IMPORTED_NOTE} aria-label={`none: ${IMPORTED_NOTE}`}>
            —<sup aria-hidden="true">*</sup>
          </span>
        ) : (
          formatNumber(row.visitors)
        )}
      </td>
      {valueLabel !== null && <td class="num">{formatNumber(row.value ?? 0)}</td>}
      {share && <td class="num">{imported && share.of === 'visitors' ? '—' : (formatPercentOf(part, share.whole) ?? '—')}</td>}
    </tr>
  );
}

export function BreakdownList(props: ListProps) {
  const { rows, valueLabel = 'Pageviews', emptyText = 'No data for this range.', share, showVariants = false } = props;
  if (rows.length === 0) return <p class="empty">{emptyText}</p>;
  const barOf = (r: PanelRow) => (valueLabel === null ? r.visitors : (r.value ?? 0));
  const top = Math.max(...rows.map(barOf), 1);
  const anyImported = rows.some((r) => importedOnly(r) || (showVariants && (r.variants ?? []).some(importedOnly)));
  return (
    <>
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
            {share && (
              <th scope="col" class="num">
                %
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.flatMap((r) => [
            <Row key={r.name} row={r} props={props} top={top} />,
            ...(showVariants && r.variants && (r.variants.length > 1 || r.variants[0]?.name !== r.name)
              ? r.variants.map((v) => <Row key={`${r.name}/${v.name}`} row={v} props={props} top={top} variant />)
              : []),
          ])}
        </tbody>
      </table>
      {anyImported && (
        <p class="footnote" data-testid="imported-note">
          * {IMPORTED_NOTE}
        </p>
      )}
    </>
  );
}
