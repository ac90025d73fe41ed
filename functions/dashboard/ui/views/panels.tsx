/**
 * The overview's breakdown panels (issue 40, part 3): each shows the top 10
 * of its chosen tab (kept in the URL's `tabs`), each row a filter, and opens
 * its full list (search, paging, percentages, CSV). Countries are named and
 * drawn on a small map, languages grouped by primary language, and the
 * sources list has its "Direct / None" row.
 */
import { useState } from 'preact/hooks';
import type { FilterDim } from '#domain/reports/filter.ts';
import { useApi, type Loaded } from '../api.ts';
import { Load, Panel } from '../components/panel.tsx';
import { BreakdownList, type ShareColumn } from '../components/breakdown.tsx';
import { CsvButton } from '../components/csv-button.tsx';
import { Dialog, FullList } from '../components/full-list.tsx';
import { WorldMap } from '../components/world-map.tsx';
import { breakdownCsv, csvFileName } from '../csv.ts';
import { DIRECT_NONE, groupLanguages, withCountryNames, withDirect, type PanelRow } from '../labels.ts';

/** A panel's choices: the breakdown dimension, its label, and the filter a row sets (none for screens). */
export type Choice = { dim: string; label: string; filter: FilterDim | null; valueLabel?: string };

export const PANELS: { title: string; choices: Choice[] }[] = [
  {
    title: 'Pages',
    choices: [
      { dim: 'pages', label: 'Top pages', filter: 'page' },
      { dim: 'entry_pages', label: 'Entry pages', filter: 'page', valueLabel: 'Entries' },
      { dim: 'exit_pages', label: 'Exit pages', filter: 'page', valueLabel: 'Exits' },
    ],
  },
  {
    title: 'Sources',
    choices: [
      { dim: 'sources', label: 'Sources', filter: 'source' },
      { dim: 'referrers', label: 'Referrers', filter: 'referrer' },
      { dim: 'utm_sources', label: 'UTM sources', filter: 'utm_source' },
      { dim: 'utm_mediums', label: 'UTM mediums', filter: 'utm_medium' },
      { dim: 'utm_campaigns', label: 'UTM campaigns', filter: 'utm_campaign' },
      { dim: 'utm_terms', label: 'UTM terms', filter: 'utm_term' },
      { dim: 'utm_contents', label: 'UTM contents', filter: 'utm_content' },
    ],
  },
  { title: 'Countries', choices: [{ dim: 'countries', label: 'Countries', filter: 'country' }] },
  {
    title: 'Devices',
    choices: [
      { dim: 'devices', label: 'Devices', filter: 'device' },
      { dim: 'browsers', label: 'Browsers', filter: 'browser' },
      { dim: 'os', label: 'Operating systems', filter: 'os' },
      { dim: 'screens', label: 'Screen sizes', filter: null },
      { dim: 'languages', label: 'Languages', filter: 'language' },
    ],
  },
  { title: 'Events', choices: [{ dim: 'events', label: 'Events', filter: 'event', valueLabel: 'Events' }] },
];

/** A panel's key in the URL's `tabs`: its title in lower case. */
export const panelKey = (title: string) => title.toLowerCase();

/** The panel's choice the URL names, or its first. */
export const chosen = (choices: readonly Choice[], dim: string | undefined): Choice => choices.find((c) => c.dim === dim) ?? (choices[0] as Choice);

const PANEL_ROWS = 10;
/** The full list: the API's largest breakdown. */
const FULL_LIMIT = 1000;
/** Languages are grouped in the page and countries all drawn on the map, so their panels read more rows than they show. */
const WIDE_LIMIT = 300;
const WIDE = new Set(['languages', 'countries']);

/** The rows as a panel shows them: names for countries, groups for languages, the direct row for sources. */
export function shapeRows(dim: string, rows: readonly PanelRow[], direct: { visitors: number; pageviews: number } | null): PanelRow[] {
  if (dim === 'countries') return withCountryNames(rows);
  if (dim === 'languages') return groupLanguages(rows);
  if (dim === 'sources') return withDirect(rows, direct);
  return [...rows];
}

const emptyNameOf = (dim: string) => (dim === 'referrers' || dim === 'sources' ? DIRECT_NONE : '(none)');

/** The report's query with `source:` (visits without a source) added to its filters. */
function directQuery(query: string): string {
  const q = new URLSearchParams(query);
  const filter = q.get('filter');
  q.set('filter', filter ? `${filter};source:` : 'source:');
  return q.toString();
}

/**
 * The sources' direct count: under `source:` (an empty label matches visits without one), the
 * referrers breakdown's empty row, as a visit without a source has no referring host either. A
 * breakdown, not the overview's totals: the same counts without a series, a previous period and live.
 */
function useDirect(base: string, query: string, dim: string, signedIn: boolean): { visitors: number; pageviews: number } | null {
  const read = useApi<{ rows: { name: string; value: number; visitors: number }[] }>(dim === 'sources' ? `${base}/breakdown?dim=referrers&limit=10&${directQuery(query)}` : null, signedIn);
  if (!read.data) return null;
  const none = read.data.rows.find((r) => r.name === '');
  return { visitors: none?.visitors ?? 0, pageviews: none?.value ?? 0 };
}

/** The percentage column: events of the listed events' sum, anything else of the period's visitors. */
function shareOf(dim: string, rows: readonly PanelRow[], visitors: number | null): ShareColumn | null {
  if (dim === 'events') return { whole: rows.reduce((sum, r) => sum + (r.value ?? 0), 0), of: 'value' };
  return visitors === null ? null : { whole: visitors, of: 'visitors' };
}

export interface PanelProps {
  hostname: string;
  /** Where the reads go: the site's (`/api/sites/{hostname}`) or a share link's (`/api/share/{slug}`). */
  base: string;
  query: string;
  choices: Choice[];
  title: string;
  signedIn: boolean;
  /** The chosen dimension (from the URL), and how another is chosen (null: the first). */
  dim: string | undefined;
  onChoose: (dim: string | null) => void;
  /** The period's visitors (the overview's totals), the base of the full list's percentages. */
  visitors: number | null;
  onFilter: (dim: FilterDim, value: string) => void;
  /** The events panel's drill-down into an event's metadata (owners only). */
  onDetails?: (name: string) => void;
}

function FullListDialog({ props, choice, direct, onClose }: { props: PanelProps; choice: Choice; direct: { visitors: number; pageviews: number } | null; onClose: () => void }) {
  const state = useApi<{ rows: PanelRow[] }>(`${props.base}/breakdown?dim=${choice.dim}&limit=${FULL_LIMIT}&${props.query}`, props.signedIn);
  return (
    <Dialog title={choice.label} id={`full-list-${panelKey(props.title)}`} onClose={onClose}>
      <Load state={state} label={choice.label.toLowerCase()}>
        {(d) => {
          const rows = shapeRows(choice.dim, d.rows, direct);
          return (
            <FullList
              title={choice.label}
              rows={rows}
              filename={csvFileName(props.hostname, choice.label)}
              valueLabel={choice.valueLabel ?? 'Pageviews'}
              share={shareOf(choice.dim, rows, props.visitors)}
              emptyName={emptyNameOf(choice.dim)}
              showVariants={choice.dim === 'languages'}
              filterDim={choice.filter}
              onFilter={(dim, value) => {
                onClose();
                props.onFilter(dim, value);
              }}
            />
          );
        }}
      </Load>
    </Dialog>
  );
}

function PanelActions({ props, choice, rows, onOpen }: { props: PanelProps; choice: Choice; rows: readonly PanelRow[] | undefined; onOpen: () => void }) {
  const { choices, title, hostname } = props;
  const selectId = `${panelKey(title)}-dim`;
  return (
    <span class="panel-choice">
      {choices.length > 1 && (
        <>
          <label for={selectId}>Show</label>
          <select id={selectId} value={choice.dim} onChange={(e) => props.onChoose(chosenDim(choices, (e.currentTarget as HTMLSelectElement).value))}>
            {choices.map((c) => (
              <option key={c.dim} value={c.dim}>
                {c.label}
              </option>
            ))}
          </select>
        </>
      )}
      {rows && <CsvButton what={choice.label} filename={csvFileName(hostname, choice.label)} csv={() => breakdownCsv(rows, choice.valueLabel ?? 'Pageviews')} />}
      <button type="button" class="view-all" aria-label={`View all ${choice.label.toLowerCase()}`} onClick={onOpen}>
        View all
      </button>
    </span>
  );
}

/** The dimension to keep in the URL: null for the panel's first (the default needs no param). */
const chosenDim = (choices: readonly Choice[], dim: string): string | null => (choices[0]?.dim === dim ? null : dim);

export function BreakdownPanel(props: PanelProps) {
  const { base, query, choices, title, signedIn, onFilter, onDetails } = props;
  const choice = chosen(choices, props.dim);
  const [open, setOpen] = useState(false);
  const state: Loaded<{ rows: PanelRow[] }> = useApi(`${base}/breakdown?dim=${choice.dim}&limit=${WIDE.has(choice.dim) ? WIDE_LIMIT : PANEL_ROWS}&${query}`, signedIn);
  const direct = useDirect(base, query, choice.dim, signedIn);
  const all = state.data ? shapeRows(choice.dim, state.data.rows, direct) : undefined;
  const rows = all?.slice(0, PANEL_ROWS);
  return (
    <Panel title={title} actions={<PanelActions props={props} choice={choice} rows={rows} onOpen={() => setOpen(true)} />}>
      <div data-testid={`breakdown-${choice.dim}`}>
        <Load state={state} label={choice.label.toLowerCase()}>
          {() => (
            <>
              {choice.dim === 'countries' && <WorldMap rows={all ?? []} />}
              <BreakdownList
                rows={rows ?? []}
                filterDim={choice.filter}
                onFilter={onFilter}
                onDetails={choice.dim === 'events' ? onDetails : undefined}
                detailsLabel="Properties"
                valueLabel={choice.valueLabel}
                emptyName={emptyNameOf(choice.dim)}
              />
            </>
          )}
        </Load>
      </div>
      {open && <FullListDialog props={props} choice={choice} direct={direct} onClose={() => setOpen(false)} />}
    </Panel>
  );
}
