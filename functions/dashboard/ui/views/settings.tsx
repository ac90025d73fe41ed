/**
 * A site's settings: name, public toggle and pin (PATCH), the install snippets
 * (the site's, and the one for testing on another host) with copy buttons and
 * what the setup check found (with a check on demand), the data's retention and
 * erasure (views/data-retention.tsx), and deleting the site.
 * The account's management keys are on the account page (views/account.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, sitePath, useApi } from '../api.ts';
import { EmailReports } from './email-reports.tsx';
import { ShareLinks } from './share-links.tsx';
import { DataPanels } from './data-retention.tsx';
import { DataExport } from './data-export.tsx';
import type { ReportState } from '../report-state.ts';
import { FieldError, Load, Outcome, Panel } from '../components/panel.tsx';
import { formatTimestamp } from '../format.ts';
import { Snippets, type Setup, type Verification } from '../components/snippets.tsx';
import { navigate } from '../router.ts';
import type { SiteInfo } from './sites.tsx';

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
  // The setup answer a save was made over: what was typed stays until a newer answer replaces it.
  const [savedOver, setSavedOver] = useState<object | null | undefined>(undefined);
  useEffect(() => {
    if (savedOver === undefined || setup.data === savedOver) return;
    setValues(null);
    setSavedOver(undefined);
  }, [setup.data, savedOver]);
  const shown = values ?? setup.data?.[field].join(', ') ?? '';
  return (
    <form
      class="control-row"
      onSubmit={(e) => {
        e.preventDefault();
        // Saved, the field shows the values as stored (normalized); refused, what was typed stays.
        void save(shown.split(',').map((h) => h.trim()).filter(Boolean)).then((saved) => {
          if (!saved) return;
          setSavedOver(setup.data);
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

/**
 * What the page read found. Before verification, why the page does not pass, as read now. Once
 * verified, a failing read is no longer the site's state (it verified, and beacons count): the
 * last recorded check is history, folded away with its date.
 */
function PageCheck({ setup }: { setup: Setup }) {
  if (!setup.verified) {
    return setup.verification.ok ? null : (
      <p class="note" data-testid="verification-reason">
        The page as read now: {setup.verification.detail}
      </p>
    );
  }
  const last = setup.last_check;
  if (!last || last.ok) return null;
  return (
    <details class="note" data-testid="last-check">
      <summary>Last page check</summary>
      On {formatTimestamp(last.checked_at)}: {last.detail}
    </details>
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
          <PageCheck setup={s} />
          <Snippets setup={s} />
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

function DeleteSite({ hostname }: { hostname: string }) {
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class="control-row"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          // Unlinking Search Console revokes its Google grant; the delete alone only drops the sealed token. Not linked is fine.
          await api(`${sitePath(hostname)}/gsc/link`, { method: 'DELETE' }).catch(() => undefined);
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

/** `state`: the report state the owner came with (its period starts the export's). */
export function SettingsView({ site, onSaved, state }: { site: SiteInfo; onSaved: () => void; state: ReportState }) {
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
      <DataPanels hostname={site.hostname} />
      <DataExport hostname={site.hostname} kind={site.kind} state={state} />
      <Panel title="Delete" id="delete">
        <DeleteSite hostname={site.hostname} />
      </Panel>
    </div>
  );
}
