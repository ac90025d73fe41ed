/**
 * The scheduled sends of e-mail digests (issue 38; EventBridge on AWS, the
 * local scheduler on one machine, both calling `send(now)` every quarter
 * hour, so a digest goes out at 07:00 in zones a whole, half or quarter hour
 * from UTC). Each due digest is claimed by a conditional write; only the run
 * holding the claim sends it and moves its next send time on, so a run
 * repeated or running beside another sends nothing twice. A failed send
 * keeps the due time and records why (`last_error`): the next run tries
 * again. A digest missed for longer (the service was down) sends its latest
 * period once, not every period it missed. One failing digest never stops
 * the others.
 */
import { digestRef as refOf, digestSettings } from '#domain/digests/email-report.ts';
import { latestSendAt, nextSendAt } from '#domain/digests/schedule.ts';
import type { DigestTarget } from '#ports/email-reports.ts';
import type { Logger } from '#ports/logger.ts';
import type { Mail, Mailer } from '#ports/mailer.ts';
import type { Registry } from '#ports/registry.ts';

export interface DigestSendServices {
  registry: Pick<Registry, 'digests'>;
  /** A digest's mails for the period before a time, one per recipient (reports/digest-reports.ts digestMails, given by the composition root). */
  mails(target: DigestTarget, atMs: number): Promise<Mail[]>;
  mailer: Mailer;
  log: Logger & { info(message: string, fields?: Record<string, unknown>): void };
}

export interface DigestSendOutcome {
  due: number;
  sent: number;
  failed: number;
}

/** How long a claim holds: longer than a send takes, short enough for the next runs to retry a dead one. */
export const CLAIM_MS = 10 * 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** Sends one claimed digest: true when sent, false when it failed (and was recorded so). */
async function sendOne(services: DigestSendServices, target: DigestTarget, nowMs: number): Promise<boolean> {
  const settings = digestSettings(target);
  const dueAt = settings.next_send_at as string;
  const ref = refOf(target);
  // The period of the latest send time that has come: the due one, or a later one after a long gap.
  const slot = Math.max(Date.parse(dueAt), latestSendAt(settings.frequency, settings.tz, nowMs));
  try {
    for (const mail of await services.mails(target, slot)) await services.mailer.send(mail);
  } catch (e) {
    const error = (e as Error).message || 'send failed';
    await services.registry.digests.finishDigest(ref, dueAt, { error });
    services.log.error('digest send failed', { ...ref, message: error });
    return false;
  }
  await services.registry.digests.finishDigest(ref, dueAt, { sentAt: iso(nowMs), next: iso(nextSendAt(settings.frequency, settings.tz, slot)) });
  return true;
}

export function createDigestSender(services: DigestSendServices): (now: Date) => Promise<DigestSendOutcome> {
  return async (now) => {
    const nowMs = now.getTime();
    const due = await services.registry.digests.dueDigests(iso(nowMs));
    const outcome: DigestSendOutcome = { due: due.length, sent: 0, failed: 0 };
    for (const target of due) {
      const settings = digestSettings(target);
      try {
        if (!(await services.registry.digests.claimDigest(refOf(target), settings.next_send_at as string, iso(nowMs), iso(nowMs + CLAIM_MS)))) continue;
        if (await sendOne(services, target, nowMs)) outcome.sent++;
        else outcome.failed++;
      } catch (e) {
        outcome.failed++;
        services.log.error('digest run failed', { ...refOf(target), message: (e as Error).message });
      }
    }
    if (outcome.due > 0) services.log.info('digest sends', { at: iso(nowMs), ...outcome });
    return outcome;
  };
}
