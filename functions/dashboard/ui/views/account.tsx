/**
 * /account: who is signed in (GET /api/me) and the account's management keys
 * (list, create with scopes, revoke): keys reach every site of the account,
 * so they live here rather than under one site. A new key's secret is shown
 * once, with a Copy button.
 */
import { useState } from 'preact/hooks';
import { api, ApiError, useApi } from '../api.ts';
import { CopyField } from '../components/copy-field.tsx';
import { FieldError, Load, Panel } from '../components/panel.tsx';
import { formatNumber, formatTimestamp } from '../format.ts';

interface Me {
  uid: string;
  auth: 'id_token' | 'management_key';
  scopes: string[];
  site_count: number;
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

function Who() {
  const me = useApi<Me>('/api/me');
  return (
    <Load state={me} label="your account">
      {(m) => (
        <dl class="facts" data-testid="me">
          <dt>Signed in as</dt>
          <dd>
            <code>{m.uid}</code>
          </dd>
          <dt>Sites</dt>
          <dd>{formatNumber(m.site_count)}</dd>
        </dl>
      )}
    </Load>
  );
}

function KeyList({ keys, onRevoke }: { keys: Key[]; onRevoke: (id: string) => void }) {
  if (keys.length === 0) return <p class="empty">No management keys.</p>;
  return (
    <ul class="keys" data-testid="keys">
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

function NewKeyForm({ onCreated }: { onCreated: (secret: string) => void }) {
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<string[]>(['read']);
  const [error, setError] = useState<string | null>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await api<{ key: string }>('/api/management-keys', { method: 'POST', body: { label, scopes } });
      setLabel('');
      onCreated(r.key);
    } catch (err) {
      setError(message(err, 'Could not create the key.'));
    }
  };
  return (
    <form class="stack" onSubmit={create}>
      <label class="control">
        <span>New key's label</span>
        <input value={label} maxLength={100} onInput={(e) => setLabel((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <fieldset class="control-row">
        <legend>Scopes</legend>
        {SCOPES.map((s) => (
          <label key={s} class="check">
            <input type="checkbox" checked={scopes.includes(s)} onChange={(e) => setScopes((e.currentTarget as HTMLInputElement).checked ? [...scopes, s] : scopes.filter((x) => x !== s))} />
            <span>{s}</span>
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={scopes.length === 0}>
        Create key
      </button>
      <FieldError message={error} />
    </form>
  );
}

function Keys() {
  const keys = useApi<{ keys: Key[] }>('/api/management-keys');
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
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
      <p class="note">A management key calls the API for every site of this account, with the scopes it was given.</p>
      <Load state={keys} label="management keys">
        {(d) => <KeyList keys={d.keys} onRevoke={(id) => void revoke(id)} />}
      </Load>
      <FieldError message={error} />
      <NewKeyForm
        onCreated={(secret) => {
          setCreated(secret);
          keys.reload();
        }}
      />
      {created && (
        <div class="secret">
          <CopyField label="The new key, shown only now: copy it" name="the new key" value={created} testId="new-management-key" />
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
    </div>
  );
}

export function AccountView() {
  return (
    <main class="page">
      <h1>Account</h1>
      <div class="stack">
        <Panel title="Signed in" id="me">
          <Who />
        </Panel>
        <Panel title="Management keys" id="keys">
          <Keys />
        </Panel>
      </div>
    </main>
  );
}
