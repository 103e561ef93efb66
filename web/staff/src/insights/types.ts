// The answers of GET /v1/insights… as the OpenAPI document defines them (generated into
// packages/client/src/schema.d.ts from the route schemas): nothing here restates a field.
import type { components } from '../../../../packages/client/src/schema.d.ts';
import type { Answer } from '../api.ts';

export type Figures = components['schemas']['InsightFigures'];
export type Channel = keyof Figures['reached'];
export const CHANNELS: readonly Channel[] = ['push', 'wallet', 'page', 'sms', 'none', 'unknown'];

export type Summary = Answer<'getInsights'>;
export type ByDay = Answer<'getInsightsByDay'>;
export type ByHour = Answer<'getInsightsByHour'>;
export type ByWeekdayHour = Answer<'getInsightsByWeekdayHour'>;
