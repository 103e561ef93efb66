// The built-in job kinds: the ring module's (finishing rings, reminders, snooze ends). The
// composition root adds the webhook kind (webhooks/install.ts) and hands the registry to the runner.
import { JobRegistry } from './registry.ts';
import { registerRingJobs } from '../ring/jobs.ts';

export { ctxForBranch } from './system-ctx.ts'; // for maintenance.ts; new code imports system-ctx.ts

export function builtinTasks(): JobRegistry {
  return registerRingJobs(new JobRegistry());
}
