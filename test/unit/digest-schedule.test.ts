/**
 * When digests go out (domain/digests/schedule.ts): 07:00 on the local wall
 * clock whatever the UTC offset, through the DST changes of Europe/Amsterdam
 * (March and October) and America/New_York (November), and the periods they
 * report.
 */
import { describe, expect, it } from 'vitest';
import { latestSendAt, nextSendAt, periodBefore, type DigestFrequency } from '#domain/digests/schedule.ts';

const at = (iso: string) => Date.parse(iso);
const utc = (ms: number) => new Date(ms).toISOString();

/** Every send time of a frequency from `from` to `to`, walking nextSendAt. */
function sends(frequency: DigestFrequency, tz: string, from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = nextSendAt(frequency, tz, at(from)); t <= at(to); t = nextSendAt(frequency, tz, t)) out.push(utc(t));
  return out;
}

describe('digest send times', () => {
  it('are 07:00 in Amsterdam every day across the March change (06:00 UTC before, 05:00 after)', () => {
    expect(sends('daily', 'Europe/Amsterdam', '2027-03-26T00:00:00Z', '2027-03-30T00:00:00Z')).toEqual([
      '2027-03-26T06:00:00.000Z',
      '2027-03-27T06:00:00.000Z',
      '2027-03-28T05:00:00.000Z',
      '2027-03-29T05:00:00.000Z',
    ]);
  });

  it('are 07:00 in Amsterdam across the October change, weekly on Mondays and monthly on the 1st', () => {
    expect(sends('daily', 'Europe/Amsterdam', '2027-10-30T00:00:00Z', '2027-11-01T12:00:00Z')).toEqual([
      '2027-10-30T05:00:00.000Z',
      '2027-10-31T06:00:00.000Z',
      '2027-11-01T06:00:00.000Z',
    ]);
    expect(sends('weekly', 'Europe/Amsterdam', '2027-10-20T00:00:00Z', '2027-11-09T00:00:00Z')).toEqual(['2027-10-25T05:00:00.000Z', '2027-11-01T06:00:00.000Z', '2027-11-08T06:00:00.000Z']);
    expect(sends('monthly', 'Europe/Amsterdam', '2027-09-15T00:00:00Z', '2027-12-01T12:00:00Z')).toEqual(['2027-10-01T05:00:00.000Z', '2027-11-01T06:00:00.000Z', '2027-12-01T06:00:00.000Z']);
  });

  it('are 07:00 in New York across the November change (11:00 UTC before, 12:00 after)', () => {
    expect(sends('daily', 'America/New_York', '2027-11-06T00:00:00Z', '2027-11-08T23:00:00Z')).toEqual([
      '2027-11-06T11:00:00.000Z',
      '2027-11-07T12:00:00.000Z',
      '2027-11-08T12:00:00.000Z',
    ]);
    expect(sends('weekly', 'America/New_York', '2027-11-01T12:00:00Z', '2027-11-16T00:00:00Z')).toEqual(['2027-11-08T12:00:00.000Z', '2027-11-15T12:00:00.000Z']);
  });

  it('are 07:00 in zones a half or quarter hour off UTC', () => {
    expect(utc(nextSendAt('daily', 'Asia/Kolkata', at('2027-01-10T00:00:00Z')))).toBe('2027-01-10T01:30:00.000Z');
    expect(utc(nextSendAt('daily', 'Asia/Kathmandu', at('2027-01-10T00:00:00Z')))).toBe('2027-01-10T01:15:00.000Z');
  });

  it('are strictly after the time given, and the latest at or before a time is the one a late run sends for', () => {
    const seven = at('2027-03-29T05:00:00Z');
    expect(nextSendAt('daily', 'Europe/Amsterdam', seven)).toBe(at('2027-03-30T05:00:00Z'));
    expect(nextSendAt('daily', 'Europe/Amsterdam', seven - 1)).toBe(seven);
    expect(latestSendAt('daily', 'Europe/Amsterdam', seven)).toBe(seven);
    expect(latestSendAt('weekly', 'Europe/Amsterdam', at('2027-04-03T10:00:00Z'))).toBe(seven);
    expect(latestSendAt('monthly', 'America/New_York', at('2027-11-20T00:00:00Z'))).toBe(at('2027-11-01T11:00:00Z'));
  });
});

describe('digest periods', () => {
  it('are the local day, ISO week or month that ended at the midnight before the send', () => {
    const period = (f: DigestFrequency, tz: string, when: string) => {
      const p = periodBefore(f, tz, at(when));
      return [utc(p.from), utc(p.to)];
    };
    // Sunday 28 March 2027 is 23 hours long in Amsterdam.
    expect(period('daily', 'Europe/Amsterdam', '2027-03-29T05:00:00Z')).toEqual(['2027-03-27T23:00:00.000Z', '2027-03-28T22:00:00.000Z']);
    expect(period('weekly', 'Europe/Amsterdam', '2027-03-29T05:00:00Z')).toEqual(['2027-03-21T23:00:00.000Z', '2027-03-28T22:00:00.000Z']);
    expect(period('monthly', 'Europe/Amsterdam', '2027-11-01T06:00:00Z')).toEqual(['2027-09-30T22:00:00.000Z', '2027-10-31T23:00:00.000Z']);
    expect(period('monthly', 'America/New_York', '2027-01-01T12:00:00Z')).toEqual(['2026-12-01T05:00:00.000Z', '2027-01-01T05:00:00.000Z']);
    // Sent late (a run missed), still the week that ended at the Monday's midnight.
    expect(period('weekly', 'America/New_York', '2027-11-10T00:00:00Z')).toEqual(['2027-11-01T04:00:00.000Z', '2027-11-08T05:00:00.000Z']);
  });
});
