// INTERIM: a ringer that runs only the live channels (page, display) in parallel under the
// deadline, until the ring-policy Ringer (push, SMS, page, display) replaces it in src/app.ts.
// It holds no policy beyond "an acknowledged page is `page`, else `none`"; the real ringer owns
// the order and fallback rules of PRODUCT.md §2.
import type { Channel, ChannelAttempt, Ringer, RingOutcome, RingRequest } from './ringer.ts';

export class LiveOnlyRinger implements Ringer {
  private readonly channels: Channel[];
  constructor(channels: Channel[]) {
    this.channels = channels;
  }

  async ring(request: RingRequest, deadlineMs: number): Promise<RingOutcome> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), deadlineMs);
    try {
      const attempts = await Promise.all(
        this.channels.map((c) => c.ring(request, controller.signal).catch((err: unknown): ChannelAttempt => ({ channel: c.name, delivered: false, detail: `error: ${(err as Error).message}` }))),
      );
      const page = attempts.some((a) => a.channel === 'page' && a.delivered);
      return {
        rang: page,
        channel_used: page ? 'page' : 'none',
        call_out_loud: attempts.some((a) => a.channel === 'display' && a.delivered),
        attempts,
        complete: !controller.signal.aborted,
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
