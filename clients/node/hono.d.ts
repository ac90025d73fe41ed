export { tinytrackHono } from './index.d.ts';
