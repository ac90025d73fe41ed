export { wrapListener } from './index.d.ts';
