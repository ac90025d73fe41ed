/**
 * A site's secret share links in its settings (issue 40, part 5): the list
 * (label, password or not, when made) with revoke, and a form that makes a
 * link with a label and an optional password. A new link's URL is shown
 * once, with a copy button: only its hash is stored.
 */
import { useState } from 'preact/hooks';
import { api, sitePath, useApi, useChanges, useSubmit } from '../api.ts';
import { FieldError, Load, Panel, StatusNote } from '../components/panel.tsx';
import { formatTimestamp } from '../format.ts';

interface ShareLink {
  id: string;
  label: string;
  password: boolean;
  created_at: string;
}
interface CreatedLink extends ShareLink {
  share_path: string;
  embed_path: string;
}

function CopyField({ label, value, testId }: { label: string; value: string; testId: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setCopied('Copied.'),
      () => setCopied('Could not copy: select the text and copy it.'),
    );
  return (
    <div class="control-row">
      <label class="control grow">
        <span>{label}</span>
        <input readOnly value={value} data-testid={testId} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
      </label>
      <button type="button" onClick={() => void copy()}>
        Copy
      </button>
      {copied && (
        <span class="note" role="status">
          {copied}
        </span>
      )}
    </div>
  );
}

/** The link just made: shown this once. */
function NewLink({ link }: { link: CreatedLink }) {
  return (
    <div class="stack" data-testid="new-share-link">
      <p class="note">Copy the link now: it is shown only once. Anyone holding it can read this site's statistics{link.password ? ' with the password' : ''}.</p>
      <CopyField label="Share link" value={`${location.origin}${link.share_path}`} testId="share-url" />
      <CopyField label="Embed address (for sites listed under embedding)" value={`${location.origin}${link.embed_path}`} testId="embed-url" />
    </div>
  );
}

function ShareForm({ hostname, onCreated }: { hostname: string; onCreated: (link: CreatedLink) => void }) {
  const [label, setLabel] = useState('');
  const [password, setPassword] = useState('');
  const { submit, error } = useSubmit(async () => {
    onCreated(await api<CreatedLink>(`${sitePath(hostname)}/shares`, { method: 'POST', body: { label, ...(password ? { password } : {}) } }));
    setLabel('');
    setPassword('');
  }, 'The link was not made.');
  return (
    <form class="rule-form" onSubmit={submit} data-testid="share-form">
      <label class="control">
        <span>Label</span>
        <input value={label} maxLength={100} onInput={(e) => setLabel((e.currentTarget as HTMLInputElement).value)} placeholder="Investors" />
      </label>
      <label class="control">
        <span>Password (optional, 8 characters or more)</span>
        <input type="password" autocomplete="new-password" value={password} onInput={(e) => setPassword((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <button type="submit">Create share link</button>
      <FieldError message={error} />
    </form>
  );
}

export function ShareLinks({ hostname, verified }: { hostname: string; verified: boolean }) {
  const links = useApi<{ shares: ShareLink[] }>(`${sitePath(hostname)}/shares`);
  const { call, outcome } = useChanges(links.reload);
  const [created, setCreated] = useState<CreatedLink | null>(null);
  return (
    <Panel title="Share links" id="share-links">
      <p class="note">A secret link shows this site's statistics to whoever holds it, without making the site public. Revoke it to end that.</p>
      <Load state={links} label="share links">
        {(d) =>
          d.shares.length === 0 ? (
            <p class="empty">No share links yet.</p>
          ) : (
            <ul class="rule-list" data-testid="share-links">
              {d.shares.map((l) => (
                <li key={l.id}>
                  <strong>{l.label || 'Unlabelled link'}</strong>
                  {l.password ? ' · password' : ''} · made {formatTimestamp(l.created_at)}{' '}
                  <button type="button" aria-label={`Revoke ${l.label || 'unlabelled link'}`} onClick={() => window.confirm('Revoke this share link? It stops working at once.') && call(`${sitePath(hostname)}/shares/${l.id}`, 'DELETE', undefined, 'Link revoked.')}>
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </Load>
      <StatusNote text={outcome} />
      {created && <NewLink link={created} />}
      {verified ? (
        <ShareForm
          hostname={hostname}
          onCreated={(link) => {
            setCreated(link);
            links.reload();
          }}
        />
      ) : (
        <p class="note">Verify the site to share it.</p>
      )}
    </Panel>
  );
}
