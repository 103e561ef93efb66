// Wire shapes of the /v1 objects the staff page reads (see /v1/openapi.json).
import type { BranchSettings } from '../../../src/domain/branch-settings.ts';
export type Role = 'owner' | 'manager' | 'staff';
export type TicketStatus = 'created' | 'ready' | 'collected' | 'cancelled' | 'expired';

export type Ticket = {
  object: 'ticket';
  id: string;
  display_number: string;
  queue: string;
  status: TicketStatus;
  url: string;
  external_ref: string | null;
  livemode: boolean;
  branch: string;
  created_at: string;
  ready_at: string | null;
  collected_at: string | null;
  cancelled_at: string | null;
  expired_at: string | null;
  cancellation_reason: string | null;
  customer: {
    viewed_at: string | null;
    notifications: 'none' | 'push' | 'sms';
    acknowledged_at: string | null;
    snoozed_until: string | null;
  };
  rings: number;
};

export type RingResult = {
  rang: boolean;
  channel_used: 'push' | 'page' | 'sms' | 'none' | 'unknown';
  call_out_loud: boolean;
  ticket: Ticket;
};

export type Session = {
  object: 'session';
  user: { id: string; email: string; role: Role };
  account: { id: string; name: string; plan: string; api_access: boolean };
  branch: { id: string; name: string; timezone: string };
  branches: Array<{ id: string; name: string }>;
  /** The mode the request that read this session acted in (Readybell-Mode). */
  mode: 'live' | 'test';
  csrf_token: string;
  expires_at: string;
  idle_timeout_seconds: number;
};

export type List<T> = { object: 'list'; data: T[]; has_more: boolean };

export type Queue = { object: 'queue'; name: string; is_default: boolean; open_tickets: number; created_at: string };

// The wire shape of a branch is its identity plus the settings, flattened (src/actions/present.ts).
export type Branch = { object: 'branch'; id: string; name: string; plan: string; timezone: string; default_queue: string } & BranchSettings;

export type ApiKey = {
  object: 'api_key';
  id: string;
  name: string | null;
  mode: 'live' | 'test';
  redacted: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  secret: string | null;
};

export type User = { object: 'user'; id: string; email: string; role: Role; created_at: string; password: string | null };

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: Array<{ pointer: string; detail: string }>;
  ticket_status?: string;
  retry_after?: number;
};

/** A live update from GET /v1/stream. */
export type LiveMessage = { type: string; ticket_id?: string; status?: TicketStatus; display_number?: string; queue?: string };

export type Display = { object: 'display'; id: string; name: string; queues: string[]; voice: boolean; url: string; created_at: string };
export type Announcement = { object: 'announcement'; id: string; message: string; created_at: string; expires_at: string };

export type WebhookEndpoint = {
  object: 'webhook_endpoint';
  id: string;
  url: string;
  enabled_events: string[];
  description: string | null;
  disabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  secret?: string;
};
export type WebhookSecret = {
  object: 'webhook_endpoint_secret';
  endpoint: string;
  secret: string;
  previous_secret_expires_at: string | null;
};
export type WebhookAttempt = {
  attempted_at: string;
  response_status: number | null;
  duration_ms: number;
  response_body: string | null;
  error: string | null;
  manual: boolean;
};
export type WebhookDelivery = {
  object: 'webhook_delivery';
  id: string;
  event: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
  attempts: WebhookAttempt[];
};
