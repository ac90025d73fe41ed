/** Timestream has no export: it is frozen (DESIGN.md §1); the export answers 501. */
import { NotAvailableOnStoreError } from '#domain/errors.ts';
import type { RowExportStore } from '#ports/row-export.ts';

const refuse = () => Promise.reject(new NotAvailableOnStoreError());

export const TIMESTREAM_ROW_EXPORT: RowExportStore = { exportPage: refuse, exportCount: refuse };
