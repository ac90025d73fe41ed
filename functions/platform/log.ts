/**
 * The service's log: one JSON object per line, `level`, `time` and `msg`
 * first, then the fields. debug and info go to stdout, warn and error to
 * stderr (on Lambda both reach CloudWatch). `LOG_LEVEL` (debug, info, warn,
 * error; default info) drops the levels below it.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function parseLogLevel(value: string | undefined): LogLevel | null {
  const level = (value ?? '').trim().toLowerCase();
  return level in RANK ? (level as LogLevel) : null;
}

const configured = process.env.LOG_LEVEL;
/** The level in effect: LOG_LEVEL, or info when unset or unknown. */
export const logLevel: LogLevel = parseLogLevel(configured) ?? 'info';
const threshold = RANK[logLevel];

/** Whether a line at `level` is written: callers on hot paths check before building fields. */
export const logEnabled = (level: LogLevel): boolean => RANK[level] >= threshold;

function write(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
  if (!logEnabled(level)) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields });
  if (RANK[level] >= RANK.warn) console.error(line);
  else console.log(line);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};

if (configured && !parseLogLevel(configured)) log.warn('unknown LOG_LEVEL, using info', { value: configured, levels: Object.keys(RANK) });
