// The ring's chime. Browsers allow a page sound only after a tap, so every tap that may precede a
// ring (a form, "Alert me") unlocks it first.

let audio: AudioContext | null = null;

function newAudio(): AudioContext | null {
  try {
    return new (window.AudioContext || window.webkitAudioContext!)();
  } catch {
    return null;
  }
}

/** Called from a tap (the user gesture browsers demand before a page may make sound), so that a later ring can chime. */
export function unlockSound(): void {
  if (!audio) audio = newAudio();
  if (audio) {
    audio.resume();
    const b = audio.createBuffer(1, 1, 22050);
    const s = audio.createBufferSource();
    s.buffer = b;
    s.connect(audio.destination);
    s.start();
  }
}

/** Two notes, three times. */
export function chime(): void {
  if (!audio) audio = newAudio();
  if (!audio) return;
  if (audio.state === 'suspended') audio.resume();
  const t0 = audio.currentTime + 0.05;
  const notes: Array<[hz: number, at: number]> = [
    [880, 0],
    [1318.5, 0.22],
  ];
  for (const d of [0, 0.9, 1.8]) {
    for (const [f, o] of notes) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.0001, t0 + d + o);
      gain.gain.exponentialRampToValueAtTime(0.6, t0 + d + o + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + d + o + 0.6);
      osc.connect(gain).connect(audio.destination);
      osc.start(t0 + d + o);
      osc.stop(t0 + d + o + 0.65);
    }
  }
}
