/** The report and conversion properties on the S3 store (issue 44), over s3rver and dynalite, on its share of the cases. */
import { describeConversionProperties } from './conversion-properties.contract.ts';
import { describeReportProperties } from './report-properties.contract.ts';
import { S3_STORES } from './report-stores.ts';

describeReportProperties(S3_STORES);
describeConversionProperties(S3_STORES);
