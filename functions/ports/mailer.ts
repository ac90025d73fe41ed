/**
 * Port: outgoing mail (SES v2 on AWS, SMTP when SMTP_URL is set, `.eml` files
 * in DATA_DIR/outbox/ otherwise). Callers build both bodies with every value
 * escaped; the adapter only delivers.
 */
export interface Mail {
  to: readonly string[];
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** Resolves once the message is handed over (sent, queued by the relay, or written to the outbox). */
  send(mail: Mail): Promise<void>;
  /** Where mail goes, for the start-up lines: `SES (sender)`, `SMTP host:port`, `outbox DIR`. Never a secret. */
  readonly describe: string;
}
