/**
 * The layers of functions/ (docs/architecture.md), checked by `npm run lint`.
 * An arrow pointing back fails the lint.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ is the rules of the product: it imports nothing of the project outside itself.',
      severity: 'error',
      from: { path: '^functions/domain/' },
      to: { path: '^(functions/(?!domain/|ports/)|lib/|bin/|test/)' },
    },
    {
      name: 'domain-names-ports-as-types',
      comment:
        'A use case in domain/ is handed its ports (the interfaces it needs of the outside) and names them as types only: `import type`, erased when compiled, so the domain runs on nothing outside itself.',
      severity: 'error',
      from: { path: '^functions/domain/' },
      to: { path: '^functions/ports/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'ports-name-domain-types-only',
      comment: 'ports/ are interfaces: they import only domain types and other ports.',
      severity: 'error',
      from: { path: '^functions/ports/' },
      to: { path: '^(functions/(?!domain/|ports/)|lib/|bin/|test/)' },
    },
    {
      name: 'adapters-below-runtimes',
      comment: 'adapters implement ports; the HTTP layer, the workers and the runtimes use them, never the reverse.',
      severity: 'error',
      from: { path: '^functions/adapters/' },
      to: { path: '^(functions/(http|workers|local|aws|platform)/|lib/|bin/|test/)' },
    },
    {
      name: 'reports-over-ports',
      comment: 'reports/ builds statements and answers over ports; the stores (adapters) call it, not the reverse.',
      severity: 'error',
      from: { path: '^functions/reports/' },
      to: { path: '^(functions/(adapters|http|workers|local|aws|platform)/|lib/|bin/|test/)' },
    },
    {
      name: 'writers-below-reports',
      comment: 'The write paths (event stores, their schemas, the flag index, the workers) share rows with the reports through domain/rows, never by importing reports/.',
      severity: 'error',
      from: { path: '^functions/(workers/|adapters/[^/]+/([a-z-]*event-store|schema|migrations|compactor|chunk-stager|flag-[a-z-]+)\\.ts$)' },
      to: { path: '^functions/reports/' },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes two modules one: load order bugs and no layer between them.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
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
