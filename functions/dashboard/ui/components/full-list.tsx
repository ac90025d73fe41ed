/**
 * A panel's full list (issue 40, part 3) in a modal dialog: up to the API's
 * 1,000 rows of the panel's breakdown, searched and paged in the page (the
 * breakdown has no offset or total), each row with its percentage, and the
 * rows found as CSV. Escape or the close button closes it, and focus goes back
 * to the button that opened it.
 */
import type { ComponentChildren } from 'preact';
import type { FilterDim } from '#domain/reports/filter.ts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { BreakdownList, type ShareColumn } from './breakdown.tsx';
import { CsvButton } from './csv-button.tsx';
import { breakdownCsv } from '../csv.ts';
import { formatNumber } from '../format.ts';
import { pageOf, searchRows, type PanelRow } from '../labels.ts';

/**
 * A modal dialog titled `title` that opens on mount; Escape or its Close button closes it, focus
 * goes back to where it was, then `onClose` runs.
 */
export function Dialog({ title, id, onClose, children }: { title: string; id: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    const dialog = ref.current;
    if (!dialog) return;
    dialog.showModal();
    const closed = () => {
      opener?.focus();
      onClose();
    };
    dialog.addEventListener('close', closed);
    return () => dialog.removeEventListener('close', closed);
  }, []);
  return (
    <dialog
      ref={ref}
      class="full-list"
      aria-labelledby={`${id}-heading`}
      data-testid={id}
      // Escape closes the dialog from anywhere in it, the search box too (which would take the first one to clear itself).
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault();
        ref.current?.close();
      }}
    >
      <header class="panel-head">
        <h2 id={`${id}-heading`}>{title}</h2>
        <button type="button" class="link" onClick={() => ref.current?.close()}>
          Close
        </button>
      </header>
      {children}
    </dialog>
  );
}

export function FullList({ title, rows, filename, valueLabel, share, emptyName, showVariants, filterDim, onFilter }: {
  title: string;
  rows: readonly PanelRow[];
  filename: string;
  valueLabel: string | null;
  share: ShareColumn | null;
  emptyName: string;
  showVariants: boolean;
  filterDim: FilterDim | null;
  /** A row click: the panel's filter. */
  onFilter: (dim: FilterDim, value: string) => void;
}) {
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(0);
  const found = searchRows(rows, search);
  const shown = pageOf(found, page);
  const id = `full-${filename.replace(/\W+/g, '-')}`;
  return (
    <>
      <div class="full-list-tools">
        <label for={`${id}-search`}>Search</label>
        <input
          id={`${id}-search`}
          type="search"
          value={search}
          onInput={(e) => {
            setSearch((e.currentTarget as HTMLInputElement).value);
            setPage(0);
          }}
        />
        <CsvButton what={`the ${title} list`} filename={filename} csv={() => breakdownCsv(found, valueLabel)} />
      </div>
      <p class="note" role="status">
        {formatNumber(found.length)} of {formatNumber(rows.length)} rows
      </p>
      <BreakdownList
        rows={shown.rows}
        filterDim={filterDim}
        onFilter={onFilter}
        valueLabel={valueLabel}
        share={share}
        emptyName={emptyName}
        emptyText="No rows match."
        showVariants={showVariants}
      />
      {shown.pages > 1 && (
        <nav class="pager" aria-label={`${title} pages`}>
          <button type="button" disabled={shown.page === 0} onClick={() => setPage(shown.page - 1)}>
            Previous
          </button>
          <span>
            Page {shown.page + 1} of {shown.pages}
          </span>
          <button type="button" disabled={shown.page === shown.pages - 1} onClick={() => setPage(shown.page + 1)}>
            Next
          </button>
        </nav>
      )}
    </>
  );
}
