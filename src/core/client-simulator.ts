// The customer pages and display boards readybell plays itself in test mode (decision 0018), as
// the test helpers open them: so that an integrator sees `channel_used: "page"` and
// `call_out_loud: true` with a test key and no browser. src/realtime/simulated-clients.ts holds
// this node's; they live on the node that opened them.
import type { Mode } from './tenancy.ts';

/** A test-mode ticket or display of a branch. */
export type SimulatedTarget = { id: string; branchId: string; mode: Mode };

export interface ClientSimulator {
  /** Opens the ticket's page (again: for `minutes` from now); resolves once a ring would reach it. */
  openPage(ticket: SimulatedTarget, minutes: number): Promise<void>;
  /** Connects a board of the display with sound enabled (again: for `minutes` from now). */
  connectBoard(display: SimulatedTarget, minutes: number): Promise<void>;
}
