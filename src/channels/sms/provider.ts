// The SMS provider port. One adapter ships (Twilio's Messages API, which several providers also
// speak); tests run it against a local fake of that HTTP API. Adapters report acceptance only:
// "accepted" is the provider taking the message, which is what `channel_used: "sms"` promises.
export type SmsMessage = { to: string; body: string };

export type SmsSendResult = {
  accepted: boolean;
  /** HTTP status from the provider, null when no answer came. */
  status: number | null;
  /** Short, free of personal data: it is logged and recorded with the ring. */
  detail: string;
};

export interface SmsProvider {
  send(message: SmsMessage): Promise<SmsSendResult>;
}
