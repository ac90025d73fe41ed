/**
 * The countries panel's small world map: each country shaded by its share of
 * the panel's top visitors (a choropleth in the palette's accent, so it
 * follows dark mode). The paths are projected when the dashboard is built
 * (functions/dashboard/world-map.ts) and fetched as a JSON asset the first
 * time a map shows, so they cost the script nothing. The map is a picture of
 * the table beside it: its text alternative says so, and each shape's title
 * names the country and its visitors.
 */
import { useEffect, useState } from 'preact/hooks';
import { formatNumber } from '../format.ts';
import { shade, type PanelRow } from '../labels.ts';

/** The asset's path, set by the build (functions/dashboard/build.ts). */
declare const WORLD_MAP_URL: string;

interface MapData {
  width: number;
  height: number;
  countries: { id: string; d: string }[];
}

let loading: Promise<MapData> | null = null;

/** The map's shapes, fetched once per page. */
function loadMap(): Promise<MapData> {
  loading ??= fetch(WORLD_MAP_URL).then((r) => {
    if (!r.ok) throw new Error(`world map: ${r.status}`);
    return r.json() as Promise<MapData>;
  });
  loading.catch(() => (loading = null));
  return loading;
}

export function WorldMap({ rows }: { rows: readonly PanelRow[] }) {
  const [map, setMap] = useState<MapData | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    loadMap().then(
      (m) => live && setMap(m),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, []);
  if (failed) return null;
  if (!map) return <div class="world-map" aria-hidden="true" />;
  const byCode = new Map(rows.map((r) => [r.name.toUpperCase(), r]));
  const top = Math.max(0, ...rows.map((r) => r.visitors));
  return (
    <div class="world-map">
      <svg viewBox={`0 0 ${map.width} ${map.height}`} role="img" aria-label="World map of visitors by country; the table below lists the same numbers." data-testid="world-map">
        {map.countries.map((c, i) => {
          const row = byCode.get(c.id);
          const opacity = shade(row?.visitors ?? 0, top);
          return (
            <path key={`${c.id}-${i}`} d={c.d} data-country={c.id} class={opacity > 0 ? 'land shaded' : 'land'} style={opacity > 0 ? { fillOpacity: opacity } : undefined}>
              {row && <title>{`${row.label ?? c.id}: ${formatNumber(row.visitors)} visitors`}</title>}
            </path>
          );
        })}
      </svg>
    </div>
  );
}
