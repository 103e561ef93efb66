// A call-out: the number is said to screen readers, flashes, and (voice on, sound unlocked) is
// chimed and spoken; then the server is told whether it could be spoken, which is what the ready
// call's `call_out_loud` reports.
import { byId } from '../shared/dom.ts';
import { flash } from './flash.ts';
import { chime, soundIsOn, speak } from './sound.ts';
import type { CallOut } from './types.ts';

const announced = new Map<string, boolean>(); // ring id → whether it was spoken

function callOut(a: CallOut, voice: boolean): boolean {
  byId('live').textContent = a.speech;
  flash(a.number);
  if (!voice || !soundIsOn()) return false;
  chime();
  return speak(a.speech, a.speech_lang);
}

export function announce(a: CallOut, voice: boolean, base: string): void {
  // A repeated request for the same ring (the first confirmation was lost) is confirmed again
  // with what happened the first time, without calling the number out twice.
  let spoke = announced.get(a.ring_id);
  if (spoke === undefined) {
    spoke = callOut(a, voice);
    announced.set(a.ring_id, spoke);
    if (announced.size > 200) announced.delete(announced.keys().next().value!);
  }
  fetch(base + '/ack', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ring_id: a.ring_id, spoke }),
  }).catch(() => {});
}
