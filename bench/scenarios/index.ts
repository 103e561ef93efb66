// The run order matters: create measures the rate the ready run sizes its tickets by, and ready
// leaves the tickets get reads. New scenarios go at the end unless they feed an earlier one.
import { baseline } from './baseline.ts';
import { create } from './create.ts';
import { ready } from './ready.ts';
import { get } from './get.ts';
import { webhooks } from './webhooks.ts';
import { live } from './live.ts';
import { liveMemory } from './live-memory.ts';
import { cluster } from './cluster.ts';
import { history } from './history.ts';
import { insights } from './insights.ts';
import { tenants } from './tenants.ts';
import type { Scenario } from './types.ts';

export const scenarios: Scenario[] = [baseline, create, ready, get, webhooks, live, liveMemory, cluster, history, insights, tenants];
