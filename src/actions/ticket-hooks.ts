// The installed modules' ticket hooks (core/module.ts), run by the event sink as each event about
// a ticket is recorded: the hook gets the ticket typed (its server-set `source` among it) and
// writes with the event's own writer, so what it sets off commits with the change or not at all.
import type { EventSink } from '../core/events.ts';
import type { JobWaker } from '../core/jobs.ts';
import type { TicketHook } from '../core/module.ts';

export function withTicketHooks(inner: EventSink, hooks: readonly TicketHook[], jobs: () => JobWaker): EventSink {
  if (hooks.length === 0) return inner;
  return {
    async record(event, out) {
      await inner.record(event, out);
      if (event.ticket === undefined) return;
      const change = { event, ticket: event.ticket, byRequest: event.fromRequest === true, wakeJobs: () => jobs().wake() };
      for (const hook of hooks) await hook(change, out);
    },
  };
}
