// The board's voice: a three-note chime and the number spoken. Browsers allow sound only after a
// tap, so the "Sound on" button unlocks it; a kiosk browser started with autoplay allowed needs
// no tap.
import { byId } from '../shared/dom.ts';
import { FLASH_MS, NOTE_S } from './flash.ts';

let audio: AudioContext | null = null;
let unlocked = false;

export function soundIsOn(): boolean {
  return unlocked || Boolean(audio && audio.state === 'running');
}

function showSound(): void {
  byId('sound-box').hidden = false;
  byId('sound').hidden = soundIsOn();
  byId('sound-on').hidden = !soundIsOn();
}

function unlock(): void {
  if (audio) audio.resume();
  if (window.speechSynthesis && window.SpeechSynthesisUtterance) window.speechSynthesis.speak(new SpeechSynthesisUtterance(''));
  unlocked = true;
  showSound();
  byId('sound-on').focus();
}

/** For a board with voice on: the audio context and the button that unlocks it. */
export function setUpSound(): void {
  try {
    audio = new (window.AudioContext || window.webkitAudioContext!)();
  } catch (_e) {
    audio = null;
  }
  if (audio) audio.addEventListener('statechange', showSound);
  byId('sound').addEventListener('click', unlock);
  showSound();
}

export function chime(): void {
  if (!audio) return;
  const ctx = audio;
  const t0 = ctx.currentTime + 0.05;
  const notes: Array<[hz: number, at: number]> = [
    [659.3, 0],
    [880, NOTE_S],
    [1318.5, 2 * NOTE_S],
  ];
  for (const [f, o] of notes) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = f;
    gain.gain.setValueAtTime(0.0001, t0 + o);
    gain.gain.exponentialRampToValueAtTime(0.5, t0 + o + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t0 + o + 0.9);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t0 + o);
    osc.stop(t0 + o + 1);
  }
}

/** Speaks `text` after the chime; false when the browser cannot speak. */
export function speak(text: string, speechLang: string): boolean {
  const synth = window.speechSynthesis;
  if (!synth || !window.SpeechSynthesisUtterance) return false;
  const u = new SpeechSynthesisUtterance(text);
  u.lang = speechLang;
  const voices = synth.getVoices();
  const v = voices.find((x) => x.lang === speechLang) || voices.find((x) => x.lang && x.lang.slice(0, 2) === speechLang.slice(0, 2));
  if (v) u.voice = v;
  u.rate = 0.9;
  // Let the chime finish first.
  setTimeout(() => synth.speak(u), audio ? FLASH_MS + 200 : 0);
  return true;
}
