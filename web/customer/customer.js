// readybell customer page: live status over SSE, the ring (colour, chime, vibration, screen
// reader announcement), "Alert me" (sound unlock, wake lock, push where offered), and forms that
// post without leaving the page. The page works without this script; this only makes it live.
(() => {
  'use strict';
  const root = document.documentElement;
  const main = document.getElementById('rb');
  if (!main) return;
  const $ = (id) => document.getElementById(id);
  const base = main.dataset.base;
  const heartbeat = Number(main.dataset.heartbeat) || 15000;
  const seenKey = 'rb-rings:' + base;
  let seen = [];
  try {
    seen = JSON.parse(sessionStorage.getItem(seenKey) || '[]');
  } catch {
    seen = [];
  }
  let audio = null;
  let wakeLock = null;
  let source = null;
  let lastMessage = Date.now();
  let open = main.dataset.open === '1';
  let retryMs = 1000;

  function setText(el, text) {
    if (!el) return;
    el.textContent = text || '';
    el.hidden = !text;
  }

  function render(v) {
    root.dataset.state = v.state;
    if (v.state !== 'ready') delete root.dataset.ringing;
    setText($('shop'), v.shop);
    setText($('num'), v.number);
    $('ticket').dataset.len = String(Math.min(8, Math.max(3, v.number.length)));
    setText($('heading'), v.heading);
    setText($('detail'), v.detail);
    setText($('pos'), v.position_text);
    setText($('wait'), v.wait_text);
    const ann = $('ann-list');
    ann.replaceChildren(
      ...v.announcements.map((a) => {
        const p = document.createElement('p');
        p.textContent = a.message;
        setTimeout(() => {
          p.remove();
          $('ann').hidden = ann.children.length === 0;
        }, a.expires_in_ms);
        return p;
      }),
    );
    $('ann').hidden = v.announcements.length === 0;
    $('alertbox').hidden = !v.open;
    const phonebox = $('phonebox');
    if (phonebox) {
      phonebox.hidden = !v.phone_entry;
      setText($('phone-on'), v.phone_text);
    }
    open = v.open;
    main.dataset.rung = v.rung_text;
    document.title = v.title;
    if (v.ring && !seen.includes(v.ring.id)) ring(v.ring.id, v.rung_text);
    if (!open && source) {
      source.close();
      source = null;
    }
  }

  // Called from a tap (the user gesture browsers demand before a page may make sound), so that
  // a later ring can chime.
  function unlockSound() {
    if (!audio)
      try {
        audio = new (window.AudioContext || window.webkitAudioContext)();
      } catch {
        audio = null;
      }
    if (audio) {
      audio.resume();
      const b = audio.createBuffer(1, 1, 22050);
      const s = audio.createBufferSource();
      s.buffer = b;
      s.connect(audio.destination);
      s.start();
    }
  }

  function chime() {
    if (!audio)
      try {
        audio = new (window.AudioContext || window.webkitAudioContext)();
      } catch {
        return;
      }
    if (audio.state === 'suspended') audio.resume();
    const t0 = audio.currentTime + 0.05;
    for (const d of [0, 0.9, 1.8]) {
      for (const [f, o] of [
        [880, 0],
        [1318.5, 0.22],
      ]) {
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

  function ring(id, text) {
    // Every ring event is confirmed (a repeat may mean our first confirmation was lost); each
    // ring is shown only once.
    fetch(base + '/ring-ack', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ring_id: id }),
      keepalive: true,
    }).catch(() => {});
    if (seen.includes(id)) return;
    seen = seen.concat(id).slice(-20);
    try {
      sessionStorage.setItem(seenKey, JSON.stringify(seen));
    } catch {
      /* private mode */
    }
    root.dataset.state = 'ready';
    root.dataset.ringing = '1';
    chime();
    if (navigator.vibrate) navigator.vibrate([400, 150, 400, 150, 800]);
    const live = $('live');
    live.textContent = '';
    setTimeout(() => {
      live.textContent = text;
    }, 50);
  }

  function connect() {
    if (!open || !window.EventSource) return;
    source = new EventSource(main.dataset.events);
    source.addEventListener('snapshot', (e) => {
      seenMessage();
      render(JSON.parse(e.data));
    });
    source.addEventListener('ring', (e) => {
      seenMessage();
      const r = JSON.parse(e.data);
      ring(r.ring_id, main.dataset.rung);
    });
    source.addEventListener('ping', seenMessage);
    source.onopen = () => {
      retryMs = 1000;
    };
    source.onerror = () => {
      $('offline').hidden = false;
      // CLOSED means the browser gave up (an error status); reconnect by hand, backing off.
      if (source && source.readyState === 2) {
        source.close();
        source = null;
        setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 30000);
      }
    };
  }

  function seenMessage() {
    lastMessage = Date.now();
    $('offline').hidden = true;
    root.dataset.live = 'on';
  }

  // A link that died silently (phone network switched) gets no error event: pings stop coming.
  setInterval(
    () => {
      if (source && Date.now() - lastMessage > heartbeat * 2.5) {
        source.close();
        source = null;
        $('offline').hidden = false;
        connect();
      }
    },
    Math.min(heartbeat, 5000),
  );

  document.addEventListener('submit', (e) => {
    const form = e.target;
    if (!form.action) return;
    e.preventDefault();
    unlockSound();
    fetch(form.action, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(new FormData(form)),
    })
      .then((r) =>
        r.json().then((body) => {
          if (form.id === 'phone-form') phoneAnswered(form, r.ok ? null : r.status === 422 ? body.detail : null);
          if (r.ok) render(body);
          else if (!(form.id === 'phone-form' && r.status === 422)) location.reload();
        }),
      )
      .catch(() => form.submit());
  });

  // "Text me": a refused number is said beside the field; a kept one is shown only masked (the
  // snapshot's phone_text), so the field is emptied.
  function phoneAnswered(form, error) {
    const input = $('phone');
    setText($('phone-error'), error);
    if (error) {
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    } else {
      input.removeAttribute('aria-invalid');
      form.reset();
    }
  }

  async function lockScreen() {
    try {
      if (navigator.wakeLock) wakeLock = await navigator.wakeLock.request('screen');
    } catch {
      wakeLock = null;
    }
  }
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && wakeLock !== null) lockScreen();
  });

  // Safari on an iPhone or iPad gives Web Push only to a page opened from the Home Screen. In a tab,
  // "Alert me" explains the two taps instead of asking; the sound and the wake lock this tap
  // obtained keep the open page ringing meanwhile.
  const ios = /iP(hone|ad|od)/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
  const standalone = navigator.standalone === true || (!!window.matchMedia && matchMedia('(display-mode: standalone)').matches);

  $('alert').addEventListener('click', async () => {
    unlockSound();
    await lockScreen();
    $('alert').hidden = true;
    if (ios && !standalone) {
      $('ios').hidden = false;
      $('ios-h').focus({ preventScroll: true });
      $('ios').scrollIntoView({ block: 'nearest' });
      return;
    }
    $('alert-on').hidden = false;
    const push = window.readybellPush;
    if (push?.supported?.()) push.subscribe().catch(() => {});
  });

  $('alertbox').hidden = !open;
  $('alert').hidden = false;
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js', { scope: '/t/' }).catch(() => {});
  connect();
})();
