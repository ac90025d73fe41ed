/**
 * The period of the tabs that read their own sources (Search, Crawlers): a
 * number of days kept in the URL's `days`, so a link or a reload shows the
 * same period, as the report tabs keep theirs.
 */
import { navigate } from '../router.ts';

export interface DaysOption {
  days: number;
  label: string;
}

/** `days` of the URL when it is one of `options`, else the first option's. */
export function daysParam(search: URLSearchParams, options: readonly DaysOption[]): number {
  const asked = Number(search.get('days'));
  return options.find((o) => o.days === asked)?.days ?? (options[0] as DaysOption).days;
}

export function DaysPicker({ search, options }: { search: URLSearchParams; options: readonly DaysOption[] }) {
  const choose = (days: number) => {
    const q = new URLSearchParams(search);
    if (days === options[0]?.days) q.delete('days');
    else q.set('days', String(days));
    navigate(`${location.pathname}${q.size ? `?${q}` : ''}`, { replace: true });
  };
  return (
    <label class="inline-form">
      Period{' '}
      <select value={daysParam(search, options)} onChange={(e) => choose(Number((e.target as HTMLSelectElement).value))}>
        {options.map((o) => (
          <option key={o.days} value={o.days}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}
