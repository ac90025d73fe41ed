import { describe, expect, it } from 'vitest';
import { routeKey, routes } from '#http/routes.ts';
import { groupHandlers } from '#http/handlers/index.ts';

// How requests reach these routes: test/unit/route-match.test.ts.
describe('route table', () => {
  it('has a handler for every route in its group, and no handler without a route', () => {
    for (const [group, handler] of Object.entries(groupHandlers)) {
      const declared = routes.filter((r) => r.group === group).map(routeKey).sort();
      expect(Object.keys(handler.routes).sort(), group).toEqual(declared);
    }
  });

  it('has unique route keys', () => {
    const keys = routes.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
