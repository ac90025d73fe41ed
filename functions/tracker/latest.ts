/**
 * latest.js, the browser tracker (spec part 4 rule 8 and part 6, DESIGN.md §4
 * "Collector"). Beacons go to the origin of the script's own src. No cookies,
 * no storage written (one key read: a visitor's opt-out), no automatic download or form tracking; clicks on links to other
 * hosts only with data-outbound="true". Built by build.ts
 * (esbuild, ES2017, IIFE); keep it short: the budget is 2,048 bytes gzip.
 */
// The tracker is compiled without the DOM lib (tsconfig lib is ES2023), so browser objects are untyped here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;
type Meta = Record<string, string | number | boolean>;
declare const window: Any;
declare const document: Any;

((w: Any, d: Any) => {
  const script = d.currentScript || d.querySelector('script[src*="/latest.js"]');
  if (!script) return;
  const attr = (name: string): string | null => script.getAttribute('data-' + name);
  const ns = attr('namespace') || 'tt';
  const global = (key: string) => ns + '_' + key;
  const guard = global('tt_loaded');
  if (w[guard]) return;
  w[guard] = 1;

  const loc = w.location;
  const nav = w.navigator;
  const his = w.history;
  const origin = new URL(script.src).origin;
  const hostname = attr('hostname') || loc.hostname;
  const ua = nav.userAgent;
  let timezone: string | undefined;
  try {
    timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    // no Intl: country stays unknown
  }
  const dnt = attr('collect-dnt') == 'true';
  const auto = (w[global('settings')] || {}).autoCollect !== false && attr('auto-collect') != 'false';
  const referrer: string = d.referrer;
  let referrerHost = '';
  try {
    referrerHost = new URL(referrer).host;
  } catch {
    // empty or opaque referrer
  }

  /** 32 hex chars; never crypto.randomUUID (absent on http pages). */
  const rid = () => {
    const bytes = new Uint8Array(16);
    const c = w.crypto;
    if (c && c.getRandomValues) c.getRandomValues(bytes);
    else for (let i = 0; i < 16; i++) bytes[i] = Math.random() * 256;
    let out = '';
    bytes.forEach((b) => (out += (b + 256).toString(16).slice(1)));
    return out;
  };

  /** Copies the string, finite number and boolean values of a plain object into `into`. */
  const clean = (o: unknown, into: Meta = {}) => {
    if (o && Object.prototype.toString.call(o) == '[object Object]')
      for (const k of Object.keys(o)) {
        const v = (o as Any)[k];
        const t = typeof v;
        if (t == 'string' || t == 'boolean' || (t == 'number' && isFinite(v))) into[k] = v;
      }
    return into;
  };

  /** Event keys, then <ns>_metadata keys, then what the metadata collector returns. */
  const metadata = (type: string, own?: unknown, event?: string) => {
    const m = clean(w[global('metadata')], clean(own));
    const name = attr('metadata-collector');
    const collector = name && w[name];
    if (typeof collector == 'function')
      try {
        clean(collector(Object.assign({}, m, { type, event })), m);
      } catch {
        // a failing collector leaves the merged metadata
      }
    return Object.keys(m).length ? m : undefined;
  };

  const common = (o: Any) => {
    o.ua = ua;
    o.timezone = timezone;
    if (dnt) o['collect-dnt'] = true;
    return o;
  };

  // The visitor's objection, set by the site's opt-out control: nothing is sent while it holds.
  const optedOut = () => {
    try {
      return w.localStorage.getItem('tinytrack_ignore') == 'true';
    } catch {
      return false;
    }
  };

  const image = (o: Any, done?: () => void) => {
    if (optedOut()) return done && done();
    const q = new URLSearchParams();
    for (const k in o) {
      const v = o[k];
      if (v != null) q.append(k, typeof v == 'object' ? JSON.stringify(v) : '' + v);
    }
    const img = new w.Image();
    if (done) img.onload = img.onerror = done;
    img.src = origin + '/simple.gif?' + q;
  };

  /** POST JSON with sendBeacon (text/plain, no preflight); the image carries the same fields otherwise. */
  const post = (path: string, o: Any) => {
    if (optedOut()) return;
    let queued;
    try {
      queued = nav.sendBeacon(origin + path, JSON.stringify(o));
    } catch {
      // no sendBeacon
    }
    if (!queued) image(o);
  };

  // Engagement of the current page: visible milliseconds and the deepest scroll.
  let current: Any; // { id, path } of the last pageview
  let appended = false;
  let spent = 0;
  let since = 0;
  let scrolled = 0;
  const hidden = () => d.visibilityState == 'hidden';
  const measure = () => {
    const e = d.documentElement;
    const p = Math.round(Math.min(1, (w.scrollY + e.clientHeight) / e.scrollHeight) * 100) || 0;
    if (p > scrolled) scrolled = p;
  };
  const append = () => {
    if (!current || appended) return;
    appended = true;
    if (since) spent += Date.now() - since;
    since = 0;
    measure();
    post(
      '/append',
      common({
        type: 'append',
        hostname,
        path: current.path,
        id: rid(),
        original_id: current.id,
        duration: Math.min(86400, Math.round(spent / 1000)),
        scrolled,
      }),
    );
  };

  const pageview = (path: string) => {
    append();
    const id = rid();
    const first = !current;
    const params = new URLSearchParams(loc.search);
    const o: Any = { type: 'pageview', hostname, path };
    'utm_source utm_medium utm_campaign utm_term utm_content source ref medium campaign term content'
      .split(' ')
      .forEach((k) => (o[k] = params.get(k) || undefined));
    const external = referrerHost != loc.host;
    const hints = nav.userAgentData;
    Object.assign(o, {
      referrer: first && referrer && external ? referrer : undefined,
      id,
      page_id: id,
      unique: first && external,
      language: nav.language,
      viewport_width: w.innerWidth,
      viewport_height: w.innerHeight,
      screen_width: w.screen.width,
      screen_height: w.screen.height,
      https: loc.protocol == 'https:',
    });
    if (hints) {
      o.brands = hints.brands.map((b: Any) => b.brand + ';' + b.version).join(',');
      o.mobile = hints.mobile;
      o.os_name = hints.platform;
    }
    common(o).metadata = metadata('pageview');
    post('/events', o);
    current = { id, path };
    appended = false;
    spent = scrolled = 0;
    since = hidden() ? 0 : Date.now();
  };

  const event = (name: unknown, meta?: unknown, callback?: unknown) => {
    if (typeof meta == 'function') {
      callback = meta;
      meta = 0;
    }
    let called = 0;
    const done = () => {
      if (!called++ && typeof callback == 'function') callback();
    };
    try {
      if (typeof name == 'function') name = name();
    } catch {
      return done();
    }
    if (typeof name != 'string' && typeof name != 'number') return done();
    const clean = String(name)
      .slice(0, 256)
      .replace(/[^a-zA-Z0-9]+/g, '_')
      .replace(/^_|_$/g, '');
    if (!clean) return;
    const o = common({ type: 'event', event: clean, hostname, path: loc.pathname, id: rid() });
    o.metadata = metadata('event', meta, clean);
    image(o, done);
  };

  w.addEventListener('scroll', measure, { passive: true });
  w.addEventListener('pagehide', append);
  d.addEventListener('visibilitychange', () => (hidden() ? append() : (since = since || Date.now())));
  w[global('pageview')] = (path?: string) => pageview(path || loc.pathname);

  if (auto) {
    const navigated = () => {
      if (loc.pathname != current.path) pageview(loc.pathname);
    };
    ['pushState', 'replaceState'].forEach((k) => {
      const original = his[k];
      his[k] = function (this: unknown) {
        // eslint-disable-next-line prefer-rest-params
        const r = original.apply(this, arguments);
        navigated();
        return r;
      };
    });
    w.addEventListener('popstate', navigated);
    pageview(loc.pathname);
  }

  // Outbound links: a left or middle click on a link to another host sends an `outbound` event, by sendBeacon (the navigation never waits).
  if (attr('outbound') == 'true')
    ['click', 'auxclick'].forEach((k) =>
      d.addEventListener(
        k,
        (e: Any) => {
          const a = e.button < 2 && e.target.closest && e.target.closest('a[href]');
          try {
            const u = new URL(a.href);
            if (/^https?:$/.test(u.protocol) && u.host != loc.host)
              post('/events', common({ type: 'event', event: 'outbound', hostname, path: loc.pathname, id: rid(), metadata: { host: u.hostname } }));
          } catch {
            // no link, or an href no URL parses
          }
        },
        true,
      ),
    );

  // Take over the event global only when it is missing or a queue stub; replay the queue in order.
  const eventGlobal = attr('event-global') || attr('sa-global') || global('event');
  const existing = w[eventGlobal];
  if (!existing || Array.isArray(existing.q)) {
    w[eventGlobal] = event;
    if (existing) existing.q.forEach((args: Parameters<typeof event>) => event(...args));
  }
})(window, document);

export {};
