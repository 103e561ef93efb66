import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TICKET_STATUSES, isOpen, nextStatus } from '../../src/domain/ticket-state.ts';
import type { TicketOperation } from '../../src/domain/ticket-state.ts';
import type { TicketStatus } from '../../src/core/ticket.ts';

const C = 'created';
const R = 'ready';
const X = null;

// Rows: operation; columns in order created, ready, collected, cancelled, expired (PRODUCT.md §2).
const EXPECTED: Record<TicketOperation, readonly (TicketStatus | null)[]> = {
  ready: [R, X, X, X, X],
  ring: [X, R, X, X, X],
  remind: [X, R, X, X, X],
  snooze_end: [X, R, X, X, X],
  collect: ['collected', 'collected', X, X, X],
  cancel: ['cancelled', 'cancelled', X, X, X],
  expire: ['expired', 'expired', X, X, X],
  // Back to `created` here; to `ready` for a ticket that had been made ready (below).
  reopen: [X, X, C, C, X],
  customer_view: [C, R, 'collected', 'cancelled', 'expired'],
  customer_subscribe: [C, R, X, X, X],
  customer_acknowledge: [X, R, X, X, X],
  customer_snooze: [X, R, X, X, X],
};

describe('nextStatus', () => {
  it('lists the statuses in the order the table uses', () => {
    assert.deepEqual(TICKET_STATUSES, ['created', 'ready', 'collected', 'cancelled', 'expired']);
  });

  for (const op of Object.keys(EXPECTED) as TicketOperation[]) {
    TICKET_STATUSES.forEach((from, column) => {
      const expected = EXPECTED[op][column];
      it(`${from} --${op}--> ${expected ?? 'forbidden'}`, () => {
        assert.equal(nextStatus(from, op), expected);
      });
    });
  }
});

describe('reopen', () => {
  it('brings a ticket that had been made ready back to ready', () => {
    assert.equal(nextStatus('collected', 'reopen', true), R);
    assert.equal(nextStatus('cancelled', 'reopen', true), R);
    assert.equal(nextStatus('expired', 'reopen', true), X);
  });
});

describe('isOpen', () => {
  it('is true only for created and ready', () => {
    assert.deepEqual(
      TICKET_STATUSES.filter((s) => isOpen(s)),
      ['created', 'ready'],
    );
  });
});
