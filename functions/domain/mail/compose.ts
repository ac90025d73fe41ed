/**
 * A short notification mail in text and HTML from the same parts: a title,
 * paragraphs, label/value lines and a link. Every value is escaped in the
 * HTML (names, routes and hostnames are data, DESIGN.md §7).
 */
import type { Mail } from '#ports/mailer.ts';
import { escapeHtml } from './html.ts';

export interface MailParts {
  to: readonly string[];
  subject: string;
  title: string;
  paragraphs: readonly string[];
  lines: readonly (readonly [label: string, value: string])[];
  link?: { text: string; url: string } | null;
}

export function composeMail({ to, subject, title, paragraphs, lines, link }: MailParts): Mail {
  const text = [title, '', ...paragraphs, '', ...lines.map(([label, value]) => `${label}: ${value}`), ...(link ? ['', `${link.text}: ${link.url}`] : [])].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<h1 style="font-size: 18px">${escapeHtml(title)}</h1>`,
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    '<table>',
    ...lines.map(([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`),
    '</table>',
    ...(link ? [`<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.text)}</a></p>`] : []),
    '</body></html>',
  ].join('\n');
  return { to, subject, text, html };
}
