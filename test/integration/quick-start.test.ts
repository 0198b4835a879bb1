import { afterAll, describe, expect, test } from '@jest/globals';
import { rm } from 'node:fs/promises';
import { connect as connectTcp } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bindable, freePort } from '../../scripts/lib/free-port.js';
import { runProcess, startProcess, STOP_GRACE_MS, within, type StartedProcess } from './support/processes.js';
import { apiClient } from './support/contract.js';

// The README's first quick-start command, as a newcomer runs it: `./scripts/serve.sh` with nothing
// configured but the ports (the suite's own services keep theirs), the project's runtime off the
// PATH and an empty data folder. It must set up and start PostgreSQL, Weaviate, the embeddings
// server, the mail catcher and the payment sandbox, index the sample curriculum, print a demo key
// that answers the README's query with citations, and stop everything it started on Ctrl-C, and on a TERM sent to the script alone. The
// downloads of a first setup are not repeated: `.cache/` is the suite's, set up by the same script.

const REPO = process.cwd();
const DATA_DIR = path.join(REPO, '.data', `quick-start-${process.pid}`);
/** First start on a busy 2-core machine: compiling, starting five servers, embedding the sample curriculum. */
const FIRST_START_DEADLINE_MS = 15 * 60_000;
/** Each request the test sends, and what follows the start: Ctrl-C, the port checks, stopping what is left. */
const REQUEST_MS = 60_000;
/** A second start on the same data folder: nothing to install, index or embed. */
const RESTART_DEADLINE_MS = 5 * 60_000;
const AFTER_START_MS = 7 * REQUEST_MS + RESTART_DEADLINE_MS + 4 * STOP_GRACE_MS + 60_000 + 18 * 2_000 + 2 * 60_000;

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp(port, '127.0.0.1');
    const settle = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => settle(true)).once('error', () => settle(false));
    socket.setTimeout(2_000, () => settle(false));
  });
}

/** The names of the ports something still listens on. */
async function listeningNames(ports: Record<string, number>): Promise<string[]> {
  const names = [];
  for (const [name, port] of Object.entries(ports)) if (await listening(port)) names.push(name);
  return names;
}

/** A free port whose next `count - 1` ports are free too (Weaviate's internal ports follow its HTTP port). */
async function freeBlock(count: number): Promise<number> {
  for (;;) {
    const first = await freePort();
    if (first + count > 65_535) continue;
    const rest = await Promise.all(Array.from({ length: count - 1 }, (_, i) => bindable(first + 1 + i)));
    if (rest.every(Boolean)) return first;
  }
}

afterAll(async () => {
  await rm(DATA_DIR, { recursive: true, force: true });
});

describe('the quick start: scripts/serve.sh on a fresh data folder', () => {
  test('starts everything, prints a demo key that answers the README query with citations, and Ctrl-C or a TERM to the script stops all it started', async () => {
    // every port distinct, Weaviate's four internal ones after its HTTP port included
    const taken = new Set<number>();
    const port = async (count = 1): Promise<number> => {
      for (;;) {
        const first = count === 1 ? await freePort() : await freeBlock(count);
        const block = Array.from({ length: count }, (_, i) => first + i);
        if (block.some((p) => taken.has(p))) continue;
        block.forEach((p) => taken.add(p));
        return first;
      }
    };
    const ports = {
      PORT: await port(),
      DOCS_PORT: await port(),
      PG_PORT: await port(),
      WEAVIATE_HTTP_PORT: await port(5),
      WEAVIATE_GRPC_PORT: await port(),
      EMBEDDINGS_PORT: await port(),
      MAIL_SMTP_PORT: await port(),
      MAIL_HTTP_PORT: await port(),
      PAYHERE_SANDBOX_PORT: await port(),
    };
    await rm(DATA_DIR, { recursive: true, force: true });
    // what a fresh shell has: none of the suite's service URLs, secrets or settings, and not the
    // project's own Node (the suite runs on it; serve.sh must find it itself)
    const PATH = (process.env.PATH ?? '').split(':').filter((dir) => !dir.startsWith(path.join(REPO, '.cache'))).join(':');
    const env: NodeJS.ProcessEnv = { PATH, HOME: process.env.HOME, DATA_DIR, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) };
    const serve = startProcess(path.join(REPO, 'scripts', 'serve.sh'), [], { env, captureStdout: true });
    let again: StartedProcess | undefined;
    try {
      const api = `http://127.0.0.1:${ports.PORT}`;
      let key: string | undefined;
      const deadline = Date.now() + FIRST_START_DEADLINE_MS;
      for (;;) {
        const exit = serve.exit();
        if (exit) throw new Error(`serve.sh exited (code ${exit.code}, signal ${exit.signal}) before serving; its stderr ended with:\n${serve.stderrTail()}`);
        key ??= /Demo API key[^\n]*\n\s*\n\s*(\S+)/.exec(serve.output().stdout)?.[1];
        // the key is printed before the API starts: an API that answers without one has failed the newcomer
        const status = await fetch(`${api}/api/v1/dev/plans`, { headers: key ? { 'X-API-Key': key } : {}, signal: AbortSignal.timeout(REQUEST_MS) }).then((r) => r.status, () => 0);
        if (status !== 0) {
          if (!key) throw new Error(`the API answers but no demo key was printed; serve.sh wrote:\n${serve.output().stdout.slice(-2_000)}`);
          expect(status).toBe(200);
          break;
        }
        if (Date.now() > deadline) throw new Error(`serve.sh did not serve within ${FIRST_START_DEADLINE_MS / 60_000} minutes; its stderr ended with:\n${serve.stderrTail()}`);
        await sleep(500);
      }

      // the README's query, with the demo key on the Free plan
      const res = await apiClient(api, key).POST('/api/v1/dev/query', {
        body: { query: 'What do plants need for photosynthesis?', filters: { language: 'english' } },
        signal: AbortSignal.timeout(REQUEST_MS),
      });
      expect(res.response.status).toBe(200);
      expect(res.response.headers.get('X-Retrieval-Mode')).toBe('hybrid');
      expect(res.data!.answer).toMatch(/photosynthesis/i);
      expect(res.data!.citations.length).toBeGreaterThan(0);
      for (const citation of res.data!.citations) {
        expect(citation.document_name).toMatch(/\S/);
        expect(citation.chunk_text).toMatch(/\S/);
      }
      // the sample curriculum is PDFs: its citations name their pages
      expect(res.data!.citations[0]!.pages.length).toBeGreaterThan(0);
      // the dashboard, the documentation site and the mail catcher it printed
      for (const url of [`${api}/dashboard`, `http://127.0.0.1:${ports.DOCS_PORT}/llms.txt`, `http://127.0.0.1:${ports.MAIL_HTTP_PORT}`]) {
        expect((await fetch(url, { signal: AbortSignal.timeout(REQUEST_MS) })).status).toBe(200);
      }

      // Ctrl-C: the terminal signals the whole foreground process group
      process.kill(-serve.child.pid!, 'SIGINT');
      expect(await within(serve.finished, 2 * STOP_GRACE_MS + 30_000)).toBeDefined();
      expect(await listeningNames(ports)).toEqual([]);

      // a process manager or `kill <pid>` signals the script alone: the API must stop with the
      // services, not outlive them (an API whose output still holds the pipes never lets it close)
      again = startProcess(path.join(REPO, 'scripts', 'serve.sh'), [], { env, captureStdout: true });
      const restartDeadline = Date.now() + RESTART_DEADLINE_MS;
      while ((await fetch(`${api}/api/v1/dev/plans`, { headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(REQUEST_MS) }).then((r) => r.status, () => 0)) !== 200) {
        if (again.exit() || Date.now() > restartDeadline) throw new Error(`the second start did not serve the demo key; its stderr ended with:\n${again.stderrTail()}`);
        await sleep(500);
      }
      process.kill(again.child.pid!, 'SIGTERM');
      expect(await within(again.finished, 2 * STOP_GRACE_MS + 30_000)).toBeDefined();
      expect(await listeningNames(ports)).toEqual([]);
    } finally {
      try {
        await serve.stop();
        await again?.stop();
      } finally {
        // what a failed start left running in its data folder, Weaviate and the embeddings server
        // in sessions of their own (nothing, after a clean Ctrl-C)
        await runProcess('bash', ['-c', 'source scripts/lib/common.sh && source scripts/lib/services.sh && stop_services'], { env, deadlineMs: 2 * 60_000 });
      }
    }
  }, FIRST_START_DEADLINE_MS + AFTER_START_MS);
});
