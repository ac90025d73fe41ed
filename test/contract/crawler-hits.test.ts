import './crawler-hits.contract.ts';
