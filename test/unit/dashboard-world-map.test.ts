/** The countries map (issue 40, part 3): projected at build time, keyed by alpha-2, served as a hashed asset beside the script. */
import { describe, expect, it } from 'vitest';
import { buildDashboard } from '#dashboard/build.ts';
import { MAP_HEIGHT, MAP_WIDTH, worldMap } from '#dashboard/world-map.ts';

describe('dashboard world map', () => {
  it('has a path per Natural Earth country keyed by its alpha-2 code, without Antarctica', () => {
    const map = worldMap();
    expect([map.width, map.height]).toEqual([MAP_WIDTH, MAP_HEIGHT]);
    const ids = map.countries.map((c) => c.id);
    expect(ids.length).toBeGreaterThan(170);
    expect(ids.every((id) => /^[A-Z]{2}$/.test(id))).toBe(true);
    for (const id of ['DE', 'FR', 'US', 'BR', 'JP', 'XK']) expect(ids, id).toContain(id);
    expect(ids).not.toContain('AQ');
    expect(map.countries.every((c) => c.d.startsWith('M'))).toBe(true);
  });

  it('is a hashed JSON asset the bundle names, outside the script budget of 100 KB gzip', async () => {
    const built = await buildDashboard();
    const [path, file] = [...built.files].find(([p]) => /^\/dashboard\/world-[\w-]+\.json$/.test(p)) ?? [];
    expect(file?.contentType).toBe('application/json');
    expect(file?.immutable).toBe(true);
    expect(JSON.parse(file!.body.toString())).toEqual(worldMap());
    const script = [...built.files].find(([p]) => p.endsWith('.js'))![1].body.toString();
    expect(script).toContain(JSON.stringify(path));
    expect(script).not.toContain(worldMap().countries[0]!.d);
    expect(built.jsGzipBytes).toBeLessThanOrEqual(100 * 1024);
  });
});
