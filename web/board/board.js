// readybell display board: Preparing / Ready columns kept live over SSE and fitted to the screen,
// the shop's clock, a chime and the number spoken on every call-out (with the number flashing in
// step), and a confirmation to the server of each call-out (whether it could speak), which is
// what the ready call's `call_out_loud` reports.
(() => {
  'use strict';
  const main = document.getElementById('rb-board');
  if (!main) return;
  const $ = (id) => document.getElementById(id);
  const base = main.dataset.base;
  const heartbeat = Number(main.dataset.heartbeat) || 15000;
  const voice = main.dataset.voice === '1';
  const lang = document.documentElement.lang;
  // The chime's three notes are this far apart; the flash pulses with them.
  const NOTE_S = 0.5;
  const FLASH_MS = 3 * NOTE_S * 1000;
  // A number that became ready this recently, unseen before, flashes on arrival.
  const FRESH_MS = 10000;
  const announced = new Map(); // ring id → whether it was spoken
  const flashes = new Map(); // number → when its flash started (this browser's clock)
  let audio = null;
  let unlocked = false;
  let source = null;
  let lastMessage = Date.now();
  let retryMs = 1000;
  let highlightTimers = [];
  let shown = null; // the ready numbers on screen; null until the first snapshot

  // The clock shows the server's time in the shop's zone: a TV's own clock or zone may be wrong.
  const offset = Number(main.dataset.now) - Date.now() || 0;
  let clockFormat;
  try {
    clockFormat = new Intl.DateTimeFormat(main.dataset.locale, { hour: '2-digit', minute: '2-digit', timeZone: main.dataset.tz });
  } catch (_e) {
    clockFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
  }
  function tick() {
    const now = new Date(Date.now() + offset);
    $('clock').textContent = clockFormat.format(now);
    $('clock').setAttribute('datetime', now.toISOString());
  }

  function fillLevel(n) {
    return n <= 3 ? 'few' : n <= 6 ? 'some' : n <= 12 ? 'many' : n <= 20 ? 'lots' : 'full';
  }

  // The largest size at which every number fits the list's box, trying each column count; the
  // list's box does not depend on its content (flex: 1 1 0), so this cannot loop.
  function fit(list, maxPx) {
    const n = list.children.length;
    list.closest('section').dataset.fill = fillLevel(n);
    if (n === 0) return;
    const box = list.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;
    list.style.setProperty('--size', '100px');
    list.style.setProperty('--cols', '1');
    let widest = 0;
    for (const li of list.children) widest = Math.max(widest, li.getBoundingClientRect().width);
    const style = getComputedStyle(list);
    const w = widest / 100;
    const gapX = parseFloat(style.columnGap) / 100 || 0;
    const gapY = parseFloat(style.rowGap) / 100 || 0;
    const line = parseFloat(style.lineHeight) / 100 || 1;
    let best = 0;
    let cols = 1;
    for (let c = 1; c <= n; c++) {
      const r = Math.ceil(n / c);
      const size = Math.min(box.width / (c * w + (c - 1) * gapX), box.height / (r * line + (r - 1) * gapY));
      if (size > best) {
        best = size;
        cols = c;
      }
    }
    list.style.setProperty('--size', Math.max(8, Math.floor(Math.min(best * 0.97, maxPx))) + 'px');
    list.style.setProperty('--cols', String(cols));
  }

  function layout() {
    const vh = window.innerHeight;
    fit($('ready'), vh * 0.45);
    fit($('preparing'), vh * 0.14);
  }

  function list(el, items) {
    el.replaceChildren(
      ...items.map((n) => {
        const li = document.createElement('li');
        li.textContent = n;
        return li;
      }),
    );
  }

  function readyItem(number) {
    for (const li of $('ready').children) if (li.textContent === number) return li;
    return null;
  }

  // A flash survives the list being redrawn: a redrawn item resumes it where it was.
  function showFlash(li, number) {
    const at = flashes.get(number);
    if (at === undefined || !li) return;
    const elapsed = Date.now() - at;
    if (elapsed >= FLASH_MS) {
      flashes.delete(number);
      return;
    }
    li.classList.remove('flash');
    void li.offsetWidth; // restart the animation
    li.style.animationDelay = -elapsed + 'ms';
    li.classList.add('flash');
    setTimeout(() => li.classList.remove('flash'), FLASH_MS - elapsed);
  }

  function flash(number) {
    flashes.set(number, Date.now());
    showFlash(readyItem(number), number);
  }

  function render(v) {
    // A new language or voice setting changes the whole page: load it again.
    if (v.lang !== lang || v.voice !== voice) {
      location.reload();
      return;
    }
    document.body.classList.remove('stale');
    $('shop').textContent = v.shop;
    document.title = v.shop + ' · ' + $('t-ready').textContent;
    list($('preparing'), v.preparing);
    list(
      $('ready'),
      v.ready.map((r) => r.number),
    );
    $('ready-empty').hidden = v.ready.length > 0;
    highlightTimers.forEach(clearTimeout);
    highlightTimers = [];
    const before = shown;
    shown = new Set(v.ready.map((r) => r.number));
    v.ready.forEach((r, i) => {
      const li = $('ready').children[i];
      if (r.age_ms < v.highlight_ms) {
        li.classList.add('new');
        highlightTimers.push(
          setTimeout(() => {
            li.classList.remove('new');
          }, v.highlight_ms - r.age_ms),
        );
      }
      if (before !== null && !before.has(r.number) && r.age_ms < FRESH_MS && !flashes.has(r.number)) flashes.set(r.number, Date.now());
      showFlash(li, r.number);
    });
    list($('missed'), v.missed);
    $('missed-box').hidden = v.missed.length === 0;
    list($('ann'), []);
    v.announcements.forEach((a) => {
      const p = document.createElement('p');
      p.textContent = a.message;
      $('ann').append(p);
      setTimeout(() => {
        p.remove();
        $('ann').hidden = $('ann').children.length === 0;
        layout();
      }, a.expires_in_ms);
    });
    $('ann').hidden = v.announcements.length === 0;
    layout();
  }

  function chime() {
    if (!audio) return;
    const t0 = audio.currentTime + 0.05;
    [
      [659.3, 0],
      [880, NOTE_S],
      [1318.5, 2 * NOTE_S],
    ].forEach(([f, o]) => {
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

  function speak(text, speechLang) {
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

  function soundIsOn() {
    return unlocked || Boolean(audio && audio.state === 'running');
  }

  function showSound() {
    $('sound-box').hidden = !voice;
    $('sound').hidden = soundIsOn();
    $('sound-on').hidden = !soundIsOn();
  }

  function announce(a) {
    // A repeated request for the same ring (the first confirmation was lost) is confirmed again
    // with what happened the first time, without calling the number out twice.
    let spoke = announced.get(a.ring_id);
    if (spoke === undefined) {
      spoke = false;
      $('live').textContent = a.speech;
      flash(a.number);
      if (voice && soundIsOn()) {
        chime();
        spoke = speak(a.speech, a.speech_lang);
      }
      announced.set(a.ring_id, spoke);
      if (announced.size > 200) announced.delete(announced.keys().next().value);
    }
    fetch(base + '/ack', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ring_id: a.ring_id, spoke }),
    }).catch(() => {});
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
    source.addEventListener('snapshot', (e) => {
      seenMessage();
      render(JSON.parse(e.data));
    });
    source.addEventListener('announce', (e) => {
      seenMessage();
      announce(JSON.parse(e.data));
    });
    source.addEventListener('gone', gone);
    source.addEventListener('ping', seenMessage);
    source.onopen = () => {
      retryMs = 1000;
    };
    source.onerror = () => {
      // While disconnected the lists may be out of date: dim them until a fresh snapshot comes.
      $('offline').hidden = false;
      document.body.classList.add('stale');
      if (source && source.readyState === 2) {
        source.close();
        source = null;
        // 404/410: the board was deleted; the page itself says so.
        fetch(base, { method: 'HEAD' })
          .then((r) => (r.status === 410 || r.status === 404 ? location.reload() : null))
          .catch(() => {});
        setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 30000);
      }
    };
  }

  setInterval(
    () => {
      if (source && Date.now() - lastMessage > heartbeat * 2.5) {
        source.close();
        source = null;
        $('offline').hidden = false;
        document.body.classList.add('stale');
        connect();
      }
    },
    Math.min(heartbeat, 5000),
  );

  if (voice) {
    try {
      audio = new (window.AudioContext || window.webkitAudioContext)();
    } catch (_e) {
      audio = null;
    }
    // A kiosk browser started with autoplay allowed needs no tap.
    if (audio) audio.addEventListener('statechange', showSound);
    $('sound').addEventListener('click', () => {
      if (audio) audio.resume();
      if (window.speechSynthesis && window.SpeechSynthesisUtterance) window.speechSynthesis.speak(new SpeechSynthesisUtterance(''));
      unlocked = true;
      showSound();
      $('sound-on').focus();
    });
    showSound();
  }
  // The lists themselves are watched, not the page: a banner, the missed list or an announcement
  // changes their room without resizing the window.
  if (window.ResizeObserver) {
    const watch = new ResizeObserver(layout);
    watch.observe($('ready'));
    watch.observe($('preparing'));
  } else window.addEventListener('resize', layout);
  tick();
  setInterval(tick, 1000);
  layout();
  connect();
})();
