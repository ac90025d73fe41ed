/**
 * A site's settings: name, public toggle and pin (PATCH), the install snippet
 * and what the setup check found (with a check on demand), the account's
 * management keys (a new key's secret is shown once), and deleting the site.
 */
import { useState } from 'preact/hooks';
import { api, ApiError, sitePath, useApi } from '../api.ts';
import { EmailReports } from './email-reports.tsx';
import { ShareLinks } from './share-links.tsx';
import { FieldError, Load, Outcome, Panel } from '../components/panel.tsx';
import { formatTimestamp } from '../format.ts';
import { navigate } from '../router.ts';
import type { SiteInfo } from './sites.tsx';

interface Verification {
  ok: boolean;
  reason: string | null;
  detail: string;
}
interface Setup {
  verified: boolean;
  verified_at: string | null;
  last_seen_at: string | null;
  verification: Verification;
  last_check: (Verification & { checked_at: string }) | null;
  snippet: string | null;
}
interface Key {
  id: string;
  label: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const SCOPES = ['read', 'manage', 'ingest'] as const;

const message = (e: unknown, fallback: string) => (e instanceof ApiError ? e.message : fallback);

function SiteSettings({ site, onSaved }: { site: SiteInfo; onSaved: () => void }) {
  const [name, setName] = useState(site.display_name);
  const [status, setStatus] = useState<{ error: boolean; text: string } | null>(null);
  /** Saves settings: whether they were taken. */
  const patch = async (body: Record<string, unknown>, done: string) => {
    setStatus(null);
    try {
      await api(sitePath(site.hostname), { method: 'PATCH', body });
      setStatus({ error: false, text: done });
      onSaved();
      return true;
    } catch (e) {
      setStatus({ error: true, text: message(e, 'Could not save.') });
      return false;
    }
  };
  return (
    <div class="stack">
      <form
        class="control-row"
        onSubmit={(e) => {
          e.preventDefault();
          void patch({ display_name: name }, 'Name saved.');
        }}
      >
        <label class="control grow">
          <span>Display name</span>
          <input value={name} maxLength={100} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit">Save name</button>
      </form>
      <label class="check">
        <input type="checkbox" checked={site.is_public} data-testid="public-toggle" onChange={(e) => void patch({ is_public: (e.currentTarget as HTMLInputElement).checked }, 'Visibility saved.')} />
        <span>
          Public: anyone can read this site's reports at <a href={`/share/${encodeURIComponent(site.hostname)}`}>/share/{site.hostname}</a> (verified sites only)
        </span>
      </label>
      <label class="check">
        <input type="checkbox" checked={Boolean(site.pinned_at)} onChange={(e) => void patch({ pinned: (e.currentTarget as HTMLInputElement).checked }, 'Pin saved.')} />
        <span>Pinned to the top of the sites list</span>
      </label>
      {LIST_SETTINGS.map((l) => (
        <SetupList key={l.field} hostname={site.hostname} {...l} save={(values) => patch({ [l.field]: values }, l.done)} />
      ))}
      <Outcome outcome={status} />
    </div>
  );
}

type ListField = 'redirect_hosts' | 'embed_origins';

const LIST_SETTINGS: readonly { field: ListField; label: string; placeholder: string; button: string; done: string }[] = [
  { field: 'redirect_hosts', label: 'Outbound redirects (/r) may also go to (comma-separated hosts)', placeholder: 'pay.example.com', button: 'Save hosts', done: 'Redirect hosts saved.' },
  {
    field: 'embed_origins',
    label: "Sites that may embed this site's share links (comma-separated https origins; none: no embedding)",
    placeholder: 'https://blog.example.com',
    button: 'Save origins',
    done: 'Embedding origins saved.',
  },
];

/**
 * A list setting the setup read shows, edited as comma-separated text: the hosts `/r` may redirect to
 * besides the site and its subdomains, the origins that may frame its share links.
 */
function SetupList({ hostname, field, label, placeholder, button, save }: { hostname: string; field: ListField; label: string; placeholder: string; button: string; save: (values: string[]) => Promise<boolean> }) {
  const setup = useApi<Record<ListField, string[]>>(`${sitePath(hostname)}/setup`);
  const [values, setValues] = useState<string | null>(null);
  const shown = values ?? setup.data?.[field].join(', ') ?? '';
  return (
    <form
      class="control-row"
      onSubmit={(e) => {
        e.preventDefault();
        // Saved, the field shows the values as stored (normalized); refused, what was typed stays.
        void save(shown.split(',').map((h) => h.trim()).filter(Boolean)).then((saved) => {
          if (!saved) return;
          setValues(null);
          setup.reload();
        });
      }}
    >
      <label class="control grow">
        <span>{label}</span>
        <input value={shown} onInput={(e) => setValues((e.currentTarget as HTMLInputElement).value)} placeholder={placeholder} data-testid={field.replace('_', '-')} />
      </label>
      <button type="submit">{button}</button>
    </form>
  );
}

function Install({ hostname }: { hostname: string }) {
  const setup = useApi<Setup>(`${sitePath(hostname)}/setup`);
  const [check, setCheck] = useState<{ error: boolean; text: string } | null>(null);
  const verify = async () => {
    setCheck(null);
    try {
      const r = await api<{ verification: Verification }>(`${sitePath(hostname)}/verify`, { method: 'POST', body: {} });
      setCheck({ error: !r.verification.ok, text: r.verification.ok ? 'Verified.' : r.verification.detail });
      setup.reload();
    } catch (e) {
      setCheck({ error: true, text: message(e, 'Could not check the site.') });
    }
  };
  return (
    <Load state={setup} label="the setup check">
      {(s) => (
        <div class="stack">
          <p data-testid="verification">
            {s.verified ? `Verified${s.verified_at ? ` on ${formatTimestamp(s.verified_at)}` : ''}.` : 'Not verified yet.'}{' '}
            {s.last_seen_at ? `Last beacon ${formatTimestamp(s.last_seen_at)}.` : 'No beacon stored yet.'}
          </p>
          {!s.verification.ok && (
            <p class="note" data-testid="verification-reason">
              The page as read now: {s.verification.detail}
            </p>
          )}
          {s.snippet && (
            <label class="control">
              <span>Add this to every page, inside &lt;head&gt;</span>
              <textarea readOnly rows={2} value={s.snippet} onFocus={(e) => (e.currentTarget as HTMLTextAreaElement).select()} />
            </label>
          )}
          {!s.verified && (
            <button type="button" onClick={() => void verify()}>
              Check the site now
            </button>
          )}
          <Outcome outcome={check} />
        </div>
      )}
    </Load>
  );
}

function KeyList({ keys, onRevoke }: { keys: Key[]; onRevoke: (id: string) => void }) {
  if (keys.length === 0) return <p class="empty">No management keys.</p>;
  return (
    <ul class="keys">
      {keys.map((k) => (
        <li key={k.id}>
          <span>
            <strong>{k.label || k.id}</strong> · {k.scopes.join(', ')} · created {formatTimestamp(k.created_at)}
            {k.last_used_at ? ` · last used ${formatTimestamp(k.last_used_at)}` : ''}
            {k.revoked_at ? ` · revoked ${formatTimestamp(k.revoked_at)}` : ''}
          </span>
          {!k.revoked_at && (
            <button type="button" aria-label={`Revoke key ${k.label || k.id}`} onClick={() => onRevoke(k.id)}>
              Revoke
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

function Keys() {
  const keys = useApi<{ keys: Key[] }>('/api/management-keys');
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<string[]>(['read']);
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await api<{ key: string }>('/api/management-keys', { method: 'POST', body: { label, scopes } });
      setCreated(r.key);
      setLabel('');
      keys.reload();
    } catch (err) {
      setError(message(err, 'Could not create the key.'));
    }
  };
  const revoke = async (id: string) => {
    setError(null);
    try {
      await api(`/api/management-keys/${encodeURIComponent(id)}`, { method: 'DELETE' });
      keys.reload();
    } catch (err) {
      setError(message(err, 'Could not revoke the key.'));
    }
  };
  return (
    <div class="stack">
      <Load state={keys} label="management keys">
        {(d) => <KeyList keys={d.keys} onRevoke={(id) => void revoke(id)} />}
      </Load>
      <form class="stack" onSubmit={create}>
        <label class="control">
          <span>New key's label</span>
          <input value={label} maxLength={100} onInput={(e) => setLabel((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <fieldset class="control-row">
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label key={s} class="check">
              <input
                type="checkbox"
                checked={scopes.includes(s)}
                onChange={(e) => setScopes((e.currentTarget as HTMLInputElement).checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
              />
              <span>{s}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={scopes.length === 0}>
          Create key
        </button>
      </form>
      {created && (
        <div class="secret" role="status">
          <label class="control">
            <span>The new key, shown only now: copy it</span>
            <input readOnly value={created} data-testid="new-key" onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
          </label>
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <FieldError message={error} />
    </div>
  );
}

function DeleteSite({ hostname }: { hostname: string }) {
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class="control-row"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          await api(sitePath(hostname), { method: 'DELETE' });
          navigate('/');
        } catch (err) {
          setError(message(err, 'Could not delete the site.'));
        }
      }}
    >
      <label class="control grow">
        <span>Type the hostname to delete the site (collected data stays)</span>
        <input value={confirm} onInput={(e) => setConfirm((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <button type="submit" class="danger" disabled={confirm !== hostname}>
        Delete site
      </button>
      <FieldError message={error} />
    </form>
  );
}

export function SettingsView({ site, onSaved }: { site: SiteInfo; onSaved: () => void }) {
  return (
    <div class="stack">
      <Panel title="Site" id="site-settings">
        <SiteSettings key={`${site.hostname}${site.is_public}${site.pinned_at}`} site={site} onSaved={onSaved} />
      </Panel>
      {site.kind === 'web' && (
        <Panel title="Install and verify" id="install">
          <Install hostname={site.hostname} />
        </Panel>
      )}
      {site.kind === 'web' && <ShareLinks hostname={site.hostname} verified={Boolean(site.verified_at)} />}
      <EmailReports hostname={site.hostname} />
      <Panel title="Management keys" id="keys">
        <Keys />
      </Panel>
      <Panel title="Delete" id="delete">
        <DeleteSite hostname={site.hostname} />
      </Panel>
    </div>
  );
}
