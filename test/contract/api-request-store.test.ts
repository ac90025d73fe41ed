import './api-request-store.contract.ts';
