/**
 * A secret share link's page (issue 40, part 5): `/share/link/{slug}`, and
 * `/embed/{slug}` for the sites allowed to frame it. The site's public
 * reports through the link's reads, read-only; a password form first when
 * the link has one (its grant is kept for the tab, the password never).
 */
import { useState } from 'preact/hooks';
import { api, ApiError, setShareGrant, useApi, useSubmit } from '../api.ts';
import { FieldError, Load } from '../components/panel.tsx';
import { OverviewView } from './overview.tsx';
import { SiteHeader, useReportState } from './site.tsx';

interface SharedSite {
  hostname: string;
  display_name: string;
  label: string;
  password: boolean;
}

function PasswordForm({ base, onUnlocked }: { base: string; onUnlocked: () => void }) {
  const [password, setPassword] = useState('');
  const { submit, error } = useSubmit(async () => {
    const { grant } = await api<{ grant: string }>(`${base}/unlock`, { method: 'POST', body: { password }, signedIn: false });
    setShareGrant(grant);
    setPassword('');
    onUnlocked();
  }, 'Could not check the password.');
  return (
    <main class="page narrow">
      <h1>This link is protected</h1>
      <p>Enter the password you were given with the link to see its statistics.</p>
      <form class="stack" onSubmit={submit} data-testid="share-password">
        <label class="control">
          <span>Password</span>
          <input type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit">Open</button>
        <FieldError message={error} />
      </form>
    </main>
  );
}

export function ShareLinkView({ slug, search }: { slug: string; search: URLSearchParams }) {
  const base = `/api/share/${encodeURIComponent(slug)}`;
  const shared = useApi<SharedSite>(base, false);
  const [state, setState] = useReportState(search);
  if (shared.error instanceof ApiError && shared.error.status === 401) return <PasswordForm base={base} onUnlocked={shared.reload} />;
  if (shared.error instanceof ApiError && shared.error.status === 404) {
    return (
      <main class="page">
        <h1>Not available</h1>
        <p data-testid="not-shared">This share link does not exist or was revoked.</p>
      </main>
    );
  }
  return (
    <main class="page">
      <Load state={shared} label="the shared site">
        {(s) => (
          <>
            <SiteHeader site={s} signedIn={false} icon={false}>
              <p class="note">Shared statistics{s.label ? `: ${s.label}` : ''}</p>
            </SiteHeader>
            <OverviewView hostname={s.hostname} base={base} state={state} setState={setState} signedIn={false} />
          </>
        )}
      </Load>
    </main>
  );
}
