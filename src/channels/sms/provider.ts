// The SMS provider port. One adapter ships (Twilio's Messages API, which several providers also
// speak); tests run it against a local fake of that HTTP API. Adapters report acceptance only:
// "accepted" is the provider taking the message, which is what `channel_used: "sms"` promises;
// what happened next arrives later, through the status callback URL given with the send.
export type SmsMessage = {
  to: string;
  body: string;
  /** Where the provider reports the message's delivery (Twilio's `StatusCallback`). */
  statusCallback?: string;
};

export type SmsSendResult = {
  accepted: boolean;
  /** HTTP status from the provider, null when no answer came. */
  status: number | null;
  /** Short, free of personal data: it is logged and recorded with the ring. */
  detail: string;
  /** The provider's id of an accepted message (Twilio's `sid`), when it gave one. */
  sid?: string;
  /** The provider's error code of a refusal (Twilio's `code`), when it gave one. */
  errorCode?: string;
};

export interface SmsProvider {
  send(message: SmsMessage): Promise<SmsSendResult>;
}
