// What a customer may answer to a ring, wherever the answer comes from: how long a snooze may be,
// and how they answered (a button on their page, or a text back to a ring's SMS; decision 0026).
// The action (actions/customer-action.ts) enforces it; the event schemas document it.
import { ANSWER_CHANNELS, type AnswerChannel } from '../core/channel-catalogue.ts';

/** A snooze, in whole minutes. */
export const SNOOZE_MINUTES = { min: 1, max: 30, default: 5 } as const;

/** The channels a customer answers through (the catalogue's `answers`). */
export type CustomerVia = AnswerChannel;
export const CUSTOMER_VIAS: readonly CustomerVia[] = ANSWER_CHANNELS;
