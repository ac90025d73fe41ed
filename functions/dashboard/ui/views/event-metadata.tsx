/** An event's metadata, drilled into from the events table: its keys, then one key's top values; and the outbound links. Owner only. */
import { useState } from 'preact/hooks';
import { sitePath, useApi } from '../api.ts';
import { BreakdownList } from '../components/breakdown.tsx';
import { Load, Panel } from '../components/panel.tsx';

interface Counted {
  count: number;
  visitors: number;
}

export function EventMetadata({ hostname, event, query, onClose }: { hostname: string; event: string; query: string; onClose: () => void }) {
  const [key, setKey] = useState<string | null>(null);
  const base = `${sitePath(hostname)}/events/${encodeURIComponent(event)}/metadata?limit=20&${query}`;
  const keys = useApi<{ keys: (Counted & { key: string })[] }>(base);
  const values = useApi<{ values: (Counted & { value: string })[] }>(key === null ? null : `${base}&key=${encodeURIComponent(key)}`);
  const close = (
    <button type="button" onClick={onClose}>
      Close
    </button>
  );
  return (
    <Panel title={`Properties of ${event}`} id="event-metadata" actions={close}>
      <div data-testid="event-metadata">
        {key === null ? (
          <Load state={keys} label="properties">
            {(d) => (
              <BreakdownList
                rows={d.keys.map((k) => ({ name: k.key, value: k.count, visitors: k.visitors }))}
                filterDim={null}
                onDetails={setKey}
                detailsLabel="Show values"
                valueLabel="Events"
                emptyText="No properties were sent with this event in this range."
              />
            )}
          </Load>
        ) : (
          <>
            <p>
              <button type="button" onClick={() => setKey(null)}>
                All properties
              </button>{' '}
              Values of <strong>{key}</strong>
            </p>
            <Load state={values} label="values">
              {(d) => <BreakdownList rows={d.values.map((v) => ({ name: v.value, value: v.count, visitors: v.visitors }))} filterDim={null} valueLabel="Events" />}
            </Load>
          </>
        )}
      </div>
    </Panel>
  );
}

/** Outbound links (the `outbound` event by target host: tracked clicks and followed `/r` redirects) in the range. Owner only. */
export function OutboundLinks({ hostname, query }: { hostname: string; query: string }) {
  const hosts = useApi<{ values: (Counted & { value: string })[] }>(`${sitePath(hostname)}/events/outbound/metadata?key=host&limit=10&${query}`);
  return (
    <Panel title="Outbound links" id="outbound">
      <div data-testid="outbound-links">
        <Load state={hosts} label="outbound links">
          {(d) => (
            <BreakdownList
              rows={d.values.map((v) => ({ name: v.value, value: v.count, visitors: v.visitors }))}
              filterDim={null}
              valueLabel="Clicks"
              emptyText="No clicks on links to other sites in this range (script attribute data-outbound, or links through /r)."
            />
          )}
        </Load>
      </div>
    </Panel>
  );
}
