// readybell display board: Preparing / Ready columns kept live over SSE, a chime and the number
// spoken on every call-out, and a confirmation to the server of each call-out (whether it could
// speak), which is what the ready call's `call_out_loud` reports.
(() => {
  'use strict';
  const main = document.getElementById('rb-board');
  if (!main) return;
  const $ = (id) => document.getElementById(id);
  const base = main.dataset.base;
  const heartbeat = Number(main.dataset.heartbeat) || 15000;
  const voice = main.dataset.voice === '1';
  const announced = new Map(); // ring id → whether it was spoken
  let audio = null;
  let unlocked = false;
  let source = null;
  let lastMessage = Date.now();
  let retryMs = 1000;
  let highlightTimers = [];

  function list(el, items) {
    el.replaceChildren(...items.map((n) => {
      const li = document.createElement('li');
      li.textContent = n;
      return li;
    }));
  }

  function render(v) {
    document.body.classList.remove('stale');
    $('t-prep').textContent = v.texts.preparing;
    $('t-ready').textContent = v.texts.ready;
    $('t-missed').textContent = v.texts.missed;
    list($('preparing'), v.preparing);
    list($('ready'), v.ready.map((r) => r.number));
    highlightTimers.forEach(clearTimeout);
    highlightTimers = [];
    v.ready.forEach((r, i) => {
      const li = $('ready').children[i];
      if (r.age_ms < v.highlight_ms) {
        li.className = 'new';
        highlightTimers.push(setTimeout(() => { li.className = ''; }, v.highlight_ms - r.age_ms));
      }
    });
    list($('missed'), v.missed);
    $('missed-box').hidden = v.missed.length === 0;
    list($('ann'), []);
    v.announcements.forEach((a) => {
      const p = document.createElement('p');
      p.textContent = a.message;
      $('ann').append(p);
      setTimeout(() => { p.remove(); $('ann').hidden = $('ann').children.length === 0; }, a.expires_in_ms);
    });
    $('ann').hidden = v.announcements.length === 0;
  }

  function chime() {
    if (!audio) return;
    const t0 = audio.currentTime + 0.05;
    [[659.3, 0], [880, 0.25], [1318.5, 0.5]].forEach(([f, o]) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.0001, t0 + o);
      gain.gain.exponentialRampToValueAtTime(0.5, t0 + o + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + o + 0.9);
      osc.connect(gain).connect(audio.destination);
      osc.start(t0 + o);
      osc.stop(t0 + o + 1);
    });
  }

  function speak(text, lang) {
    const synth = window.speechSynthesis;
    if (!synth || !window.SpeechSynthesisUtterance) return false;
    const u = new SpeechSynthesisUtterance(text);
    u.lang = lang;
    const v = synth.getVoices().find((x) => x.lang === lang) || synth.getVoices().find((x) => x.lang && x.lang.slice(0, 2) === lang.slice(0, 2));
    if (v) u.voice = v;
    u.rate = 0.9;
    // Let the chime finish first.
    setTimeout(() => synth.speak(u), audio ? 1200 : 0);
    return true;
  }

  function announce(a) {
    // A repeated request for the same ring (the first confirmation was lost) is confirmed again
    // with what happened the first time, without calling the number out twice.
    let spoke = announced.get(a.ring_id);
    if (spoke === undefined) {
      spoke = false;
      $('live').textContent = a.speech;
      if (voice && (unlocked || (audio && audio.state === 'running'))) {
        chime();
        spoke = speak(a.speech, a.speech_lang);
      }
      announced.set(a.ring_id, spoke);
      if (announced.size > 200) announced.delete(announced.keys().next().value);
    }
    fetch(base + '/ack', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ring_id: a.ring_id, spoke }) }).catch(() => {});
  }

  function seenMessage() {
    lastMessage = Date.now();
    $('offline').hidden = true;
    document.documentElement.dataset.live = 'on';
  }

  function gone() {
    if (source) source.close();
    source = null;
    location.reload();
  }

  function connect() {
    source = new EventSource(main.dataset.events);
    source.addEventListener('snapshot', (e) => { seenMessage(); render(JSON.parse(e.data)); });
    source.addEventListener('announce', (e) => { seenMessage(); announce(JSON.parse(e.data)); });
    source.addEventListener('gone', gone);
    source.addEventListener('ping', seenMessage);
    source.onopen = () => { retryMs = 1000; };
    source.onerror = () => {
      // While disconnected the lists may be out of date: dim them until a fresh snapshot comes.
      $('offline').hidden = false;
      document.body.classList.add('stale');
      if (source && source.readyState === 2) {
        source.close();
        source = null;
        // 404/410: the board was deleted; the page itself says so.
        fetch(base, { method: 'HEAD' }).then((r) => (r.status === 410 || r.status === 404 ? location.reload() : null)).catch(() => {});
        setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 30000);
      }
    };
  }

  setInterval(() => {
    if (source && Date.now() - lastMessage > heartbeat * 2.5) {
      source.close();
      source = null;
      $('offline').hidden = false;
      document.body.classList.add('stale');
      connect();
    }
  }, Math.min(heartbeat, 5000));

  const button = $('sound');
  if (voice) {
    try { audio = new (window.AudioContext || window.webkitAudioContext)(); } catch (e) { audio = null; }
    // A kiosk browser started with autoplay allowed needs no tap.
    button.hidden = Boolean(audio && audio.state === 'running');
    button.addEventListener('click', () => {
      if (audio) audio.resume();
      if (window.speechSynthesis && window.SpeechSynthesisUtterance) window.speechSynthesis.speak(new SpeechSynthesisUtterance(''));
      unlocked = true;
      button.hidden = true;
    });
  }
  connect();
})();
