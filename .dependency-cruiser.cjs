/**
 * The layers of functions/ (docs/architecture.md), checked by `npm run lint`.
 * An arrow pointing back fails the lint.
 */
/** A forbidden import: from one layer to another it must not reach. */
const backArrow = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    backArrow(
      'domain-is-pure',
      'domain/ is the rules of the product: it imports nothing of the project outside itself.',
      { path: '^functions/domain/' },
      { path: '^(functions/(?!domain/|ports/)|lib/|bin/|test/)' },
    ),
    backArrow(
      'domain-names-ports-as-types',
      'A use case in domain/ is handed its ports (the interfaces it needs of the outside) and names them as types only: `import type`, erased when compiled, so the domain runs on nothing outside itself.',
      { path: '^functions/domain/' },
      { path: '^functions/ports/', dependencyTypesNot: ['type-only'] },
    ),
    backArrow(
      'ports-name-domain-types-only',
      'ports/ are interfaces: they import only domain types and other ports.',
      { path: '^functions/ports/' },
      { path: '^(functions/(?!domain/|ports/)|lib/|bin/|test/)' },
    ),
    backArrow(
      'adapters-below-runtimes',
      'adapters implement ports; the HTTP layer, the workers and the runtimes use them, never the reverse.',
      { path: '^functions/adapters/' },
      { path: '^(functions/(http|workers|local|aws|platform)/|lib/|bin/|test/)' },
    ),
    backArrow(
      'reports-over-ports',
      'reports/ builds statements and answers over ports; the stores (adapters) call it, not the reverse.',
      { path: '^functions/reports/' },
      { path: '^(functions/(adapters|http|workers|local|aws|platform)/|lib/|bin/|test/)' },
    ),
    backArrow(
      'writers-below-reports',
      'The write paths (event stores, their schemas, the flag index, the workers) share rows with the reports through domain/rows, never by importing reports/.',
      { path: '^functions/(workers/|adapters/[^/]+/([a-z-]*event-store|schema|migrations|compactor|chunk-stager|flag-[a-z-]+)\\.ts$)' },
      { path: '^functions/reports/' },
    ),
    backArrow(
      'no-circular',
      'A cycle makes two modules one: load order bugs and no layer between them.',
      {},
      { circular: true },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|^functions/dashboard/ui/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
    },
  },
};
