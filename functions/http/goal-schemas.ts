/** The goals, funnels and event metadata shapes of the OpenAPI document (issue 37). */
import { z } from 'zod';
import { Timestamp } from './schemas.ts';

const GoalType = z.enum(['page', 'event']);
const Match = z
  .string()
  .min(1)
  .describe('page: a path, exact or with * wildcards (any characters, slashes included: /blog/*, */pricing); event: an event name, normalized as collected');
const Rate = z.number().describe('0..1, 4 decimals');

const GoalStep = z.object({ type: GoalType, match: Match }).meta({ id: 'GoalStep' });
export const Goal = GoalStep.extend({ id: z.string(), name: z.string(), created_at: Timestamp }).meta({ id: 'Goal' });
export const GoalList = z.object({ goals: z.array(Goal) }).meta({ id: 'GoalList' });
export const CreateGoalRequest = z
  .object({ type: GoalType, match: Match, name: z.string().min(1).max(100).optional().describe('Default: "Visit <path>" or the event name') })
  .meta({ id: 'CreateGoalRequest' });
export const UpdateGoalRequest = CreateGoalRequest.partial().meta({ id: 'UpdateGoalRequest' });
export const DeletedGoal = z.object({ deleted: z.string() }).meta({ id: 'DeletedGoal' });

const GoalCounts = z.object({
  id: z.string(),
  name: z.string(),
  type: GoalType,
  match: z.string(),
  conversions: z.number().int().describe('Matching canonical human rows, imported ones included'),
  visitors: z.number().int().describe('Distinct visitor-days that converted (imported rows have none)'),
  conversion_rate: Rate.describe('visitors ÷ the range’s visitor-days, 0..1, 4 decimals'),
});
export const GoalStats = z
  .object({
    goals: z.array(GoalCounts),
    previous: z.array(GoalCounts).describe('The same goals over the previous period'),
    visitors: z.number().int().describe('Visitor-days with a human pageview or event in the range'),
    previous_visitors: z.number().int(),
    previous_range: z.object({ from: z.number().int(), to: z.number().int() }),
  })
  .meta({ id: 'GoalStats' });

export const Funnel = z.object({ id: z.string(), name: z.string(), steps: z.array(GoalStep).min(2).max(6), created_at: Timestamp }).meta({ id: 'Funnel' });
export const FunnelList = z.object({ funnels: z.array(Funnel) }).meta({ id: 'FunnelList' });
export const CreateFunnelRequest = z.object({ name: z.string().min(1).max(100), steps: z.array(GoalStep).min(2).max(6) }).meta({ id: 'CreateFunnelRequest' });
export const UpdateFunnelRequest = CreateFunnelRequest.partial().meta({ id: 'UpdateFunnelRequest' });
export const DeletedFunnel = z.object({ deleted: z.string() }).meta({ id: 'DeletedFunnel' });
export const FunnelStats = z
  .object({
    id: z.string(),
    name: z.string(),
    visitors: z.number().int().describe('Visitor-days with a human pageview or event in the range'),
    steps: z.array(
      GoalStep.extend({
        visitors: z.number().int().describe('Visitor-days that reached this step after every step before it, in order'),
        dropoff: z.number().int().describe("The step before's visitors that did not reach this one (0 for the first)"),
        conversion_rate: Rate.describe("visitors ÷ the first step's visitors"),
      }),
    ),
  })
  .meta({ id: 'FunnelStats' });

const Counted = { count: z.number().int().describe('Events'), visitors: z.number().int().describe('Distinct visitor-days') };
export const EventMetadata = z
  .union([
    z.object({ event: z.string(), keys: z.array(z.object({ key: z.string(), ...Counted })) }),
    z.object({ event: z.string(), key: z.string(), values: z.array(z.object({ value: z.string().describe('Strings as they are; numbers, booleans and others as JSON text'), ...Counted })) }),
  ])
  .meta({ id: 'EventMetadata' });
