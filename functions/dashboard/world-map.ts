/**
 * The countries panel's world map (issue 40, part 3), made when the dashboard
 * is built: Natural Earth's 110m countries (world-atlas, TopoJSON) projected
 * once with d3-geo into SVG paths, each keyed by its ISO 3166-1 alpha-2 code
 * (world-atlas keys countries by numeric code; i18n-iso-countries maps them).
 * The page fetches this JSON asset when it shows the countries panel, so the
 * map costs its script nothing but the few lines that draw the paths.
 */
import { createRequire } from 'node:module';
import { geoEqualEarth, geoPath } from 'd3-geo';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countries from 'i18n-iso-countries';

/** The map's drawing size (its SVG viewBox); the page scales it to the panel's width. */
export const MAP_WIDTH = 480;
export const MAP_HEIGHT = 220;

/**
 * Shapes Natural Earth gives no numeric code, by the code a location lookup reports for them:
 * Kosovo's user-assigned XK, and the northern parts of Cyprus and Somalia as their countries.
 */
const UNNUMBERED: Readonly<Record<string, string>> = { Kosovo: 'XK', 'N. Cyprus': 'CY', Somaliland: 'SO' };

/** Antarctica (010): no visitors, and a third of the map's height. */
const LEFT_OUT = new Set(['010']);

export interface WorldMap {
  width: number;
  height: number;
  /** One path per shape, by alpha-2 code (a code may have several shapes). */
  countries: { id: string; d: string }[];
}

export function worldMap(): WorldMap {
  const require = createRequire(import.meta.url);
  const topology = require('world-atlas/countries-110m.json') as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const shapes = feature(topology, topology.objects.countries).features.filter((f) => !LEFT_OUT.has(String(f.id)));
  const projection = geoEqualEarth().fitSize([MAP_WIDTH, MAP_HEIGHT], { type: 'FeatureCollection', features: shapes });
  const path = geoPath(projection).digits(1);
  const out: WorldMap['countries'] = [];
  for (const shape of shapes) {
    const name = shape.properties.name;
    const id = shape.id === undefined ? UNNUMBERED[name] : countries.numericToAlpha2(String(shape.id));
    const d = path(shape);
    if (id && d) out.push({ id, d });
  }
  return { width: MAP_WIDTH, height: MAP_HEIGHT, countries: out };
}
