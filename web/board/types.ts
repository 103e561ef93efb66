// What the board's live stream sends, as the server writes it: a snapshot is
// src/realtime/board-view.ts's BoardView, a call-out src/realtime/board-live.ts's 'announce'.
// Restated here (only the fields the script reads) so the page's build needs nothing from src.

export type BoardSnapshot = {
  shop: string;
  lang: string;
  voice: boolean;
  preparing: string[];
  ready: Array<{ number: string; age_ms: number }>;
  missed: string[];
  announcements: Array<{ message: string; expires_in_ms: number }>;
  highlight_ms: number;
};

export type CallOut = { ring_id: string; number: string; speech: string; speech_lang: string };
