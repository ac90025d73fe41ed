import './row-export.contract.ts';
