/** The API analytics shapes of the OpenAPI document (issue 36): site API keys, POST /api/ingest, the API reports. */
import { z } from 'zod';
import { Timestamp } from './schemas.ts';

export const CreateSiteApiKeyRequest = z.object({ label: z.string().max(100).optional() }).meta({ id: 'CreateSiteApiKeyRequest' });
export const CreatedSiteApiKey = z
  .object({ id: z.string(), key: z.string().describe('tt_ + 48 lowercase hex; shown only here'), label: z.string(), created_at: Timestamp })
  .meta({ id: 'CreatedSiteApiKey' });
export const RotatedSiteApiKey = CreatedSiteApiKey.extend({ rotated_at: Timestamp }).meta({ id: 'RotatedSiteApiKey' });
export const SiteApiKey = z
  .object({ id: z.string(), label: z.string(), created_at: Timestamp, rotated_at: Timestamp.nullable(), last_used_at: Timestamp.nullable() })
  .meta({ id: 'SiteApiKey' });
export const SiteApiKeyList = z.object({ keys: z.array(SiteApiKey) }).meta({ id: 'SiteApiKeyList' });

export const IngestRequest = z
  .object({
    requests: z
      .array(
        z.object({
          method: z.string().regex(/^[A-Za-z]{1,16}$/),
          route: z.string().min(1).max(256).describe('The route template (/users/{id}), never a raw path with ids'),
          status: z.number().int().min(100).max(599),
          duration_ms: z.number().min(0).max(86_400_000),
          bytes_in: z.number().int().min(0).optional(),
          bytes_out: z.number().int().min(0).optional(),
          consumer: z.string().max(64).optional().describe('An opaque caller label'),
        }),
      )
      .min(1)
      .max(1000),
  })
  .meta({ id: 'IngestRequest' });
export const IngestAccepted = z.object({ accepted: z.number().int() }).meta({ id: 'IngestAccepted' });

const Latency = z.number().nullable().describe('Milliseconds, nearest-rank percentile from a log-bucketed histogram: within 3.9 % of (1 + the exact value); null without requests');
export const ApiTotals = z
  .object({
    requests: z.number().int(),
    client_errors: z.number().int().describe('Status 400–499'),
    server_errors: z.number().int().describe('Status 500–599'),
    error_rate: z.number().nullable().describe('server_errors ÷ requests, 0..1, 4 decimals; null without requests'),
    p50_ms: Latency,
    p95_ms: Latency,
    p99_ms: Latency,
    bytes_out: z.number().int(),
  })
  .meta({ id: 'ApiTotals' });
export const ApiOverview = z
  .object({
    totals: ApiTotals,
    previous: ApiTotals,
    series: z.array(ApiTotals.extend({ t: z.number().int().describe('Bucket start, Unix seconds') })),
    granularity: z.enum(['hour', 'day']),
    previous_range: z.object({ from: z.number().int(), to: z.number().int() }),
  })
  .meta({ id: 'ApiOverview' });
export const ApiBreakdown = z
  .object({
    rows: z.array(
      z.object({ name: z.string(), requests: z.number().int(), server_errors: z.number().int(), error_rate: z.number().nullable(), p50_ms: Latency, p95_ms: Latency }),
    ),
  })
  .meta({ id: 'ApiBreakdown' });

const AlertMetric = z.enum(['error_rate', 'p95_ms', 'requests', 'pageviews', 'visitors']);
const AlertFields = {
  name: z.string().min(1).max(100),
  metric: AlertMetric.describe('error_rate: server errors ÷ requests (0..1); p95_ms: milliseconds; requests, pageviews, visitors: counts'),
  comparator: z.enum(['>', '<']),
  threshold: z.number().min(0),
  window_minutes: z.number().int().min(5).max(1440),
  route: z.string().max(256).nullable().describe('API metrics only: one route template'),
  recipients: z.array(z.email()).min(1).max(10),
  enabled: z.boolean(),
};
export const AlertRule = z
  .object({
    id: z.string(),
    ...AlertFields,
    state: z.enum(['ok', 'firing']),
    last_evaluated_at: Timestamp.nullable(),
    last_changed_at: Timestamp.nullable(),
    created_at: Timestamp,
    history: z.array(z.object({ at: Timestamp, state: z.enum(['ok', 'firing']), value: z.number().nullable() })).describe('State changes, newest first, at most 20'),
  })
  .meta({ id: 'AlertRule' });
export const AlertRuleList = z.object({ alerts: z.array(AlertRule) }).meta({ id: 'AlertRuleList' });
export const CreateAlertRuleRequest = z
  .object({ ...AlertFields, route: AlertFields.route.optional(), recipients: AlertFields.recipients.optional().describe('Required with a management key; default: the ID token\'s e-mail'), enabled: z.boolean().optional() })
  .meta({ id: 'CreateAlertRuleRequest' });
export const UpdateAlertRuleRequest = CreateAlertRuleRequest.partial().meta({ id: 'UpdateAlertRuleRequest' });
export const DeletedAlertRule = z.object({ deleted: z.string() }).meta({ id: 'DeletedAlertRule' });
export const AlertTestSent = z.object({ sent: z.literal(true), recipients: z.array(z.string()) }).meta({ id: 'AlertTestSent' });
