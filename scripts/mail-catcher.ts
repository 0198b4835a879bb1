// A local mail catcher for development and tests: an SMTP server that keeps every message in
// memory (the newest 500) and shows them over HTTP, so that sign-up and password-reset links can be
// followed without a real mail service. Started by scripts/mail.sh (serve.sh and the tests).
//   node dist/scripts/mail-catcher.js --smtp-port 1025 --http-port 8025
// HTTP: GET / (the messages as a page), GET /messages[?to=address] (JSON), DELETE /messages.
import { createServer } from 'node:http';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { commandLine, usageError } from './lib/command-line.js';

const USAGE = `usage: node dist/scripts/mail-catcher.js --smtp-port <port> --http-port <port>
Accepts mail on 127.0.0.1:<smtp-port> and shows it on http://127.0.0.1:<http-port>.`;

const parsed = commandLine('mail-catcher', USAGE, {
  options: { 'smtp-port': { type: 'string' }, 'http-port': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
if (parsed.values.help) {
  console.log(USAGE);
  process.exit(0);
}
const port = (name: 'smtp-port' | 'http-port'): number => {
  const value = Number(parsed.values[name]);
  if (!Number.isInteger(value) || value < 0 || value > 65535) usageError('mail-catcher', USAGE, `--${name} must be a port number`);
  return value;
};

interface Caught {
  id: number;
  from: string;
  to: string[];
  subject: string;
  text: string;
  received_at: string;
}

const KEEP = 500;
const MAX_MESSAGE_BYTES = 1_000_000;
const messages: Caught[] = [];
let nextId = 1;

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  size: MAX_MESSAGE_BYTES,
  onData(stream, session, callback) {
    simpleParser(stream)
      .then((mail) => {
        messages.push({
          id: nextId++,
          from: mail.from?.text ?? '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          subject: mail.subject ?? '',
          text: mail.text ?? '',
          received_at: new Date().toISOString(),
        });
        messages.splice(0, Math.max(0, messages.length - KEEP));
        callback();
      })
      .catch((error: Error) => callback(error));
  },
});
smtp.on('error', (error) => {
  console.error(`mail-catcher: smtp: ${error.message}`);
  // a port taken by something else is fatal; errors of one connection are not
  if ((error as NodeJS.ErrnoException).syscall === 'listen') process.exit(1);
});

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

const http = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/messages' && req.method === 'DELETE') {
    messages.length = 0;
    res.writeHead(204).end();
  } else if (url.pathname === '/messages' && req.method === 'GET') {
    const to = url.searchParams.get('to')?.toLowerCase();
    const list = to ? messages.filter((m) => m.to.includes(to)) : messages;
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(list));
  } else if (url.pathname === '/' && req.method === 'GET') {
    const items = [...messages].reverse().map((m) => `<article><h2>${escape(m.subject)}</h2><p>To ${escape(m.to.join(', '))}, ${m.received_at}</p><pre>${escape(m.text)}</pre></article>`);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html><meta charset="utf-8"><title>Local mail</title><h1>Local mail (${messages.length})</h1>${items.join('') || '<p>No mail yet.</p>'}`);
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('GET / or /messages, DELETE /messages\n');
  }
});

http.on('error', (error) => {
  console.error(`mail-catcher: http: ${error.message}`);
  process.exit(1);
});

smtp.listen(port('smtp-port'), '127.0.0.1', () => {
  http.listen(port('http-port'), '127.0.0.1', () => console.log(`mail-catcher: smtp on 127.0.0.1:${port('smtp-port')}, http on 127.0.0.1:${port('http-port')}`));
});
const stop = () => {
  http.close();
  smtp.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
