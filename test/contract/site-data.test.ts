import './site-data.contract.ts';
