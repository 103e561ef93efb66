// The answers of GET /v1/insights… as the OpenAPI document defines them (generated into
// packages/client/src/schema.d.ts from the route schemas): nothing here restates a field.
import type { components } from '../../../../packages/client/src/schema.d.ts';
import type { Answer } from '../api.ts';
import { CHANNELS_USED } from '../../../../src/core/channel-catalogue.ts';

export type Figures = components['schemas']['InsightFigures'];
export type Channel = keyof Figures['reached'];
/** A ring's results, from the server's catalogue (decision 0074): the channels by strength, then `none` and `unknown`. */
export const CHANNELS: readonly Channel[] = CHANNELS_USED;

export type Summary = Answer<'getInsights'>;
export type ByDay = Answer<'getInsightsByDay'>;
export type ByHour = Answer<'getInsightsByHour'>;
export type ByWeekdayHour = Answer<'getInsightsByWeekdayHour'>;
