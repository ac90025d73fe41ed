/** The dashboard page: one bundle, routed on the client (router.ts), over the public product API only. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import './tools.css';
import { currentToken, finishSignIn, loadConfig, renewToken, requireSignIn, signOut, startOidcSignIn, takeReturnPath } from './auth.ts';
import type { DashboardConfig } from '../config.ts';
import { linkClick, navigate, routeOf, useLocation } from './router.ts';
import { SitesView } from './views/sites.tsx';
import { AccountView } from './views/account.tsx';
import { FinishGoogleConsent } from './views/search.tsx';
import { FieldError } from './components/panel.tsx';
import { ShareView, SiteView } from './views/site.tsx';
import { ShareLinkView } from './views/share-link.tsx';

function LoginView() {
  const [config, setConfig] = useState<DashboardConfig | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const finish = () =>
      loadConfig()
        .then(async (c) => {
          setConfig(c);
          // A link in the address bar signs in anew; without one, a running session is enough.
          if ((await finishSignIn(c.signIn)) || (await renewToken())) navigate(takeReturnPath(), { replace: true });
        })
        .catch((e: Error) => setError(e.message));
    void finish();
    // A link pasted into a tab already on /login changes only the fragment: no new page load.
    window.addEventListener('hashchange', finish);
    return () => window.removeEventListener('hashchange', finish);
  }, []);
  return (
    <main class="page narrow">
      <h1>Sign in</h1>
      <FieldError message={error} />
      {config?.signIn.type === 'local' && (
        <p>
          On the machine that runs tinytrack, run <code>npm run admin -- login-link &lt;user&gt;</code> and open the link it prints. A link works once, for 10 minutes.
        </p>
      )}
      {config?.signIn.type === 'oidc' && (
        <button type="button" onClick={() => void startOidcSignIn(config.signIn as Extract<DashboardConfig['signIn'], { type: 'oidc' }>).catch((e: Error) => setError(e.message))}>
          Sign in
        </button>
      )}
      {!config && !error && <p role="status">Loading…</p>}
    </main>
  );
}

function TopBar({ signedIn }: { signedIn: boolean }) {
  return (
    <header class="topbar">
      <a class="brand" href="/" onClick={linkClick}>
        tinytrack
      </a>
      {signedIn && (
        <nav class="account-links" aria-label="Account">
          <a href="/account" onClick={linkClick} aria-current={location.pathname === '/account' ? 'page' : undefined}>
            Account
          </a>
          <button type="button" class="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </nav>
      )}
    </header>
  );
}

function App() {
  const { path, search } = useLocation();
  const route = routeOf(path);
  const needsToken = route.view === 'sites' || route.view === 'site' || route.view === 'account';
  const [, setRenewed] = useState(0);
  const token = currentToken();
  useEffect(() => {
    // A new tab, or a token that ran out: the session gives a new one, or it is back to sign-in.
    if (needsToken && !token) void renewToken().then((t) => (t ? setRenewed((n) => n + 1) : requireSignIn()));
  }, [needsToken, token]);
  if (needsToken && !token) return null;
  // Framed by another site: the share view alone, no bar with links into the dashboard.
  if (route.view === 'share-link' && route.embed) return <ShareLinkView slug={route.slug} search={search} />;
  return (
    <>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <TopBar signedIn={Boolean(token)} />
      <div id="content">
        {route.view === 'login' ? (
          <LoginView />
        ) : route.view === 'sites' ? (
          <SitesView />
        ) : route.view === 'account' ? (
          search.has('code') && search.has('state') ? (
            <main class="page">
              <FinishGoogleConsent search={search} />
            </main>
          ) : (
            <AccountView />
          )
        ) : route.view === 'site' ? (
          <SiteView key={route.hostname} hostname={route.hostname} tab={route.tab} search={search} />
        ) : route.view === 'share' ? (
          <ShareView key={route.hostname} hostname={route.hostname} search={search} />
        ) : route.view === 'share-link' ? (
          <ShareLinkView key={route.slug} slug={route.slug} search={search} />
        ) : (
          <main class="page">
            <h1>Not found</h1>
            <p>
              There is no such page. <a href="/">Go to your sites</a>.
            </p>
          </main>
        )}
      </div>
    </>
  );
}

const root = document.getElementById('app') as HTMLElement;
// The page's "Loading…" is for the time before this script runs.
root.textContent = '';
render(<App />, root);
