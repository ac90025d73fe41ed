export { tinytrackExpress } from './index.d.ts';
