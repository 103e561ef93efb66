// Where WhatsApp's messages are kept (decision 0091): in SMS's records of paid messages
// (store/sms-messages.ts: the ticket's `sms_status`, the reply lookup, usage, retention and
// account deletion all read them), under the ring's id with a suffix, since a ring may send both
// an SMS and a WhatsApp message and each keeps its own status.
const SUFFIX = ':whatsapp';

export const whatsappRecordId = (ringId: string): string => `${ringId}${SUFFIX}`;

/** WhatsApp's addresses are the number after `whatsapp:`; null for anything else. */
export function whatsappNumber(address: string | undefined): string | null {
  return address?.startsWith('whatsapp:') === true ? address.slice('whatsapp:'.length) : null;
}
