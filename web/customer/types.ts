// What the customer page's live stream and its forms' JSON answers send: src/realtime/page-view.ts's
// PageView (only the fields the script reads), and a ring event. Restated here so the page's build
// needs nothing from src.

export type PageSnapshot = {
  state: string;
  open: boolean;
  number: string;
  shop: string;
  title: string;
  heading: string;
  detail: string;
  position_text: string | null;
  wait_text: string | null;
  announcements: Array<{ message: string; expires_in_ms: number }>;
  ring: { id: string } | null;
  rung_text: string;
  phone_entry: boolean;
  phone_text: string | null;
};

export type RingEvent = { ring_id: string };
