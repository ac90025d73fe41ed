export { tinytrackFastify } from './index.d.ts';
