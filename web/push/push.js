// readybell Web Push for the customer page. Defines window.readybellPush, which the page's
// "Alert me" button calls: that tap is the user gesture browsers require before asking for
// notification permission. The service worker (/sw.js, scope /t/) shows the ring.
(() => {
  'use strict';

  function supported() {
    return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
  }

  function keyBytes(b64url) {
    var b64 = b64url.replace(/-/g, '+').replace(/_/g, '/');
    var raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    var out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function sameKey(a, b) {
    if (!a || a.byteLength !== b.byteLength) return false;
    var x = new Uint8Array(a);
    for (let i = 0; i < x.length; i++) if (x[i] !== b[i]) return false;
    return true;
  }

  async function registration() {
    var existing = await navigator.serviceWorker.getRegistration('/t/');
    if (!existing) await navigator.serviceWorker.register('/sw.js', { scope: '/t/' });
    return navigator.serviceWorker.ready;
  }

  // Resolves { ok: true } when the server stored the subscription; { ok: false, reason } otherwise.
  async function subscribe() {
    if (!supported()) return { ok: false, reason: 'unsupported' };
    var match = /^(\/t\/[A-Z2-7]+)/.exec(location.pathname);
    if (!match) return { ok: false, reason: 'not-a-ticket-page' };
    var permission = await Notification.requestPermission();
    if (permission !== 'granted') return { ok: false, reason: 'permission-' + permission };
    var key = keyBytes((await (await fetch('/push/vapid.json')).json()).public_key);
    var reg = await registration();
    var sub = await reg.pushManager.getSubscription();
    // A subscription made for another server key (the operator rotated it) cannot be used.
    if (sub && !sameKey(sub.options?.applicationServerKey, key)) {
      await sub.unsubscribe();
      sub = null;
    }
    if (!sub) sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    var res = await fetch(match[1] + '/push', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(sub),
    });
    return res.ok ? { ok: true } : { ok: false, reason: 'server-' + res.status };
  }

  window.readybellPush = { supported: supported, subscribe: subscribe };
})();
