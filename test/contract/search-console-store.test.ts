import './search-console-store.contract.ts';
